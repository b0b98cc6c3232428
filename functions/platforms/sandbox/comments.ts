import { createHash } from 'node:crypto';
import type { PlatformId } from '../../domain/platforms/types.ts';
import type { RemoteBlock, RemoteComment } from '../../ports/network-client.ts';

/**
 * The sandbox's comments: every sandbox post of a network whose comments can be read gets the same
 * three, derived from its first block's id (two on the post, the third answering the first), made in the
 * seconds after the post went live. Nothing is stored and no network is called.
 */
const SIMULATED = [
  {
    text: 'Congratulations on the launch!',
    name: 'Ada Reader',
    handle: 'ada_reader',
    answers: 'post',
    afterSeconds: 1,
  },
  {
    text: 'Where can I read more about this?',
    name: 'Grace Follower',
    handle: 'grace_f',
    answers: 'post',
    afterSeconds: 2,
  },
  { text: 'Agreed, great news.', name: 'Linus Lurker', handle: 'linus_l', answers: 0, afterSeconds: 3 },
] as const;

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 20);

const commentId = (platform: PlatformId, root: string, i: number) =>
  `sandbox_${platform}_c${i}_${digest(`${root}#${i}`)}`;

/** The reply a sandbox reply with this key becomes: the same in every process, so a lost answer is found. */
export const sandboxReplyId = (platform: PlatformId, idempotencyKey: string) =>
  `sandbox_${platform}_r_${digest(idempotencyKey)}`;

const link = (platform: PlatformId, id: string) => `https://sandbox.herald.invalid/${platform}/${id}`;

/** The simulated comments of a sandbox post whose first block is `root`, `ageSeconds` after it went live. */
export const sandboxComments = (
  platform: PlatformId,
  root: RemoteBlock,
  ageSeconds: number,
  now: Date,
): RemoteComment[] => {
  const liveAt = now.getTime() - ageSeconds * 1000;
  return SIMULATED.map((c, i) => ({
    remoteId: commentId(platform, root.remoteId, i),
    parentRemoteId: c.answers === 'post' ? root.remoteId : commentId(platform, root.remoteId, c.answers),
    author: { name: c.name, handle: c.handle },
    text: c.text,
    createdAt: new Date(Math.min(now.getTime(), liveAt + c.afterSeconds * 1000)).toISOString(),
    likeCount: i === 0 ? 2 : 0,
    url: link(platform, commentId(platform, root.remoteId, i)),
    meta: {},
  }));
};

/** A sandbox reply, as the sandbox "stores" it. */
export const sandboxReply = (
  platform: PlatformId,
  idempotencyKey: string,
  comment: RemoteComment,
  content: string,
  account: string,
  at: Date,
): RemoteComment => {
  const remoteId = sandboxReplyId(platform, idempotencyKey);
  return {
    remoteId,
    parentRemoteId: comment.remoteId,
    author: { name: null, handle: account },
    text: content,
    createdAt: at.toISOString(),
    likeCount: 0,
    url: link(platform, remoteId),
    meta: {},
  };
};
