import { beforeEach, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../functions/core/auth/api-keys.ts';
import { announceNewComments } from '../../functions/core/comments/announce.ts';
import { deleteReply } from '../../functions/core/comments/delete-reply.ts';
import { listComments } from '../../functions/core/comments/list-comments.ts';
import {
  IN_FLIGHT_GRACE_SECONDS,
  REPLY_LEASE_SECONDS,
  type ReplyDeps,
  replyToComment,
} from '../../functions/core/comments/reply.ts';
import { commentIdOf, remoteCommentId } from '../../functions/domain/comments.ts';
import { ApiError } from '../../functions/domain/errors.ts';
import { getPlatform } from '../../functions/domain/platforms/catalog.ts';
import { PLATFORM_IDS, type PlatformId } from '../../functions/domain/platforms/types.ts';
import type { PostRecord } from '../../functions/domain/post.ts';
import { SandboxNetworkClient } from '../../functions/platforms/sandbox/client.ts';
import type { ReplyRecord } from '../../functions/ports/comments.ts';
import {
  type CommentsInput,
  type CommentsPage,
  type NetworkClient,
  NetworkError,
  type RemoteComment,
  type ReplyInput,
} from '../../functions/ports/network-client.ts';
import type { FakeClock } from '../support/fakes/clock.ts';
import { channelRecord, engineOnFakes, postChannel, publishingPost } from '../support/fakes/engine.ts';
import { FakeReplyStore } from '../support/fakes/replies.ts';

/** The comment use cases on in-memory fakes: a scripted network, the replies' conditions, a clock that stands still. */

const POST_ID = 'post_0123456789abcdefghijkl';
const ROOT = 'root-1';

const comment = (
  remoteId: string,
  parent: string,
  text = `comment ${remoteId}`,
  createdAt = '2026-06-01T11:30:00.000Z',
): RemoteComment => ({
  remoteId,
  parentRemoteId: parent,
  author: { name: 'Ada', handle: 'ada' },
  text,
  createdAt,
  likeCount: 1,
  url: `https://network.example/${remoteId}`,
  meta: {},
});

type Answer = 'ok' | NetworkError | Error;

/** A network whose comment calls answer as scripted, counting what reached it. */
class CommentsNetwork
  implements Pick<NetworkClient, 'platform' | 'consistencyWindowSeconds' | 'publish' | 'edit' | 'delete'>
{
  readonly platform: PlatformId = 'x';
  consistencyWindowSeconds = 0;
  conversation: RemoteComment[] = [];
  /** Each reply call's answer in turn (then 'ok'); a lost answer stores the reply first. */
  replyAnswers: Answer[] = [];
  /** Replies the network stored, by idempotency key. */
  readonly stored = new Map<string, RemoteComment>();
  replyCalls = 0;
  lookups = 0;
  deleted: string[] = [];
  commentsError: NetworkError | null = null;

  publish = async () => ({ remoteId: 'x', remoteUrl: 'x', meta: {} });
  edit = async () => {};
  delete = async () => {};

  async comments(input: CommentsInput): Promise<CommentsPage> {
    if (this.commentsError) throw this.commentsError;
    return {
      comments: [...this.conversation, ...this.stored.values()].slice(0, input.limit),
      nextCursor: null,
    };
  }
  async findComment({ remoteId }: { remoteId: string }) {
    return this.conversation.find((c) => c.remoteId === remoteId) ?? null;
  }
  async reply(input: ReplyInput) {
    this.replyCalls++;
    const answer = this.replyAnswers.shift() ?? 'ok';
    const made = comment(`reply-${this.replyCalls}`, input.comment.remoteId, input.content);
    if (answer === 'ok') {
      this.stored.set(input.idempotencyKey, made);
      return made;
    }
    if (answer instanceof NetworkError && answer.details.outcomeUnknown)
      this.stored.set(input.idempotencyKey, made);
    throw answer;
  }
  async lookupReply({ idempotencyKey }: { idempotencyKey: string }) {
    this.lookups++;
    return this.stored.get(idempotencyKey) ?? null;
  }
  async deleteReply({ reply }: { reply: { remoteId: string } }) {
    this.deleted.push(reply.remoteId);
  }
}

const lost = () => new NetworkError('transient', 'no answer within 10000 ms', { outcomeUnknown: true });

let clock: FakeClock;
let network: CommentsNetwork;
let replies: FakeReplyStore;
let deps: ReplyDeps;
let post: PostRecord;
const auth: AuthContext = {
  keyId: 'key_1',
  accountId: 'acc_1',
  workspaceId: 'ws_1',
  mode: 'live',
  permission: 'write',
};

beforeEach(() => {
  const fakes = engineOnFakes();
  clock = fakes.clock;
  network = new CommentsNetwork();
  network.conversation = [
    comment('c1', ROOT),
    comment('c2', 'c1'),
    comment('b2', ROOT, 'our own second block'),
  ];
  replies = new FakeReplyStore();
  const channel = postChannel('ch_x', 'x', ['hello', 'second']);
  channel.status = 'published';
  channel.blocks = channel.blocks.map((block, i) => ({
    ...block,
    remoteId: i === 0 ? ROOT : 'b2',
    remoteUrl: 'https://x.example',
  }));
  channel.publishedAt = '2026-06-01T11:00:00.000Z';
  post = publishingPost([channel], { postId: POST_ID, status: 'published' });
  fakes.posts.put(post);
  fakes.channels.addChannel(channelRecord('ch_x', 'x'));
  deps = {
    ...fakes.deps,
    networks: () => network as unknown as NetworkClient,
    tokenCipher: () => {
      throw new Error('not used');
    },
    replies,
    media: fakes.media as unknown as ReplyDeps['media'],
  } as unknown as ReplyDeps;
});

const send = (content = 'Thanks!', seed: string | null = 'seed-1') =>
  replyToComment(deps, auth, POST_ID, commentIdOf('c1'), { channelId: 'ch_x', content }, seed ?? undefined);

const codeOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return { code: (error as ApiError).code, retryAfter: (error as ApiError).headers['Retry-After'] };
};

describe('replies: never sent twice', () => {
  it('sends once; the same request again answers the stored reply', async () => {
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'sent', commentId: commentIdOf('c1'), remoteId: 'reply-1' });
    const again = await send();
    expect(again).toEqual({ status: 200, body: first.body });
    expect(network.replyCalls).toBe(1);
  });

  it('settles a lost answer by a lookup at once where the network shows what it stored', async () => {
    network.replyAnswers = [lost()];
    const res = await send();
    expect(res.status).toBe(201);
    expect(network.replyCalls).toBe(1);
    expect(network.lookups).toBe(1);
  });

  it('waits out the consistency window before a lookup that finds nothing may lead to a resend', async () => {
    network.consistencyWindowSeconds = 30;
    network.replyAnswers = [lost()];
    // The network lost the reply after all (it did not store it).
    network.reply = (async (input: ReplyInput) => {
      network.replyCalls++;
      const answer = network.replyAnswers.shift() ?? 'ok';
      if (answer !== 'ok') throw answer;
      const made = comment(`reply-${network.replyCalls}`, input.comment.remoteId, input.content);
      network.stored.set(input.idempotencyKey, made);
      return made;
    }) as CommentsNetwork['reply'];
    expect(await codeOf(send())).toEqual({ code: 'service_unavailable', retryAfter: '30' });
    clock.advance(10);
    expect(await codeOf(send())).toEqual({ code: 'service_unavailable', retryAfter: '20' });
    expect(network.replyCalls).toBe(1);
    clock.advance(21);
    expect((await send()).status).toBe(201);
    expect(network.replyCalls).toBe(2);
    expect(network.lookups).toBe(2);
  });

  it('where the network shows what it stored at once, still waits out the in-flight grace before a resend', async () => {
    // Window 0, and the answer lost without the reply stored (yet): the request may still land.
    network.reply = (async () => {
      network.replyCalls++;
      throw lost();
    }) as CommentsNetwork['reply'];
    expect(await codeOf(send())).toEqual({
      code: 'service_unavailable',
      retryAfter: String(IN_FLIGHT_GRACE_SECONDS),
    });
    clock.advance(IN_FLIGHT_GRACE_SECONDS - 1);
    expect((await codeOf(send())).code).toBe('service_unavailable');
    expect(network.replyCalls).toBe(1);
    // The grace over, the resend is lost too: the next grace counts from it, not from the first send.
    clock.advance(2);
    expect((await codeOf(send())).code).toBe('service_unavailable');
    expect(network.replyCalls).toBe(2);
    clock.advance(IN_FLIGHT_GRACE_SECONDS - 1);
    expect((await codeOf(send())).code).toBe('service_unavailable');
    expect(network.replyCalls).toBe(2);
  });

  it('finds a lost reply stored within the window without sending it again', async () => {
    network.consistencyWindowSeconds = 30;
    network.replyAnswers = [lost()];
    expect((await codeOf(send())).code).toBe('service_unavailable');
    clock.advance(5);
    expect((await send()).status).toBe(201);
    expect(network.replyCalls).toBe(1);
  });

  it('a request that died mid-send holds the reply until its lease ends, then the reply is looked up', async () => {
    network.replyAnswers = [new Error('the function was stopped')];
    await expect(send()).rejects.toThrow('the function was stopped');
    network.stored.set(
      (await replies.listReplies(POST_ID))[0]?.replyId as string,
      comment('reply-found', 'c1', 'Thanks!'),
    );
    expect((await codeOf(send())).code).toBe('conflict');
    clock.advance(REPLY_LEASE_SECONDS + 1);
    const res = await send();
    expect(res.body.remoteId).toBe('reply-found');
    expect(network.replyCalls).toBe(1);
  });

  it('a refusal stores nothing: the reply may be sent again', async () => {
    network.replyAnswers = [new NetworkError('permanent', 'Duplicate content is not allowed')];
    expect((await codeOf(send())).code).toBe('reply_refused');
    expect((await replies.listReplies(POST_ID))[0]?.state).toBe('failed');
    expect((await send()).status).toBe(201);
    expect(network.replyCalls).toBe(2);
  });

  it('maps rate limits, outages and missing permissions to their answers', async () => {
    network.replyAnswers = [
      new NetworkError('transient', 'Too Many Requests', { rateLimited: true, retryAfterSeconds: 90 }),
    ];
    expect(await codeOf(send('a'))).toEqual({ code: 'rate_limited', retryAfter: '90' });
    network.replyAnswers = [new NetworkError('transient', 'connection refused')];
    expect((await codeOf(send('b', 'seed-b'))).code).toBe('service_unavailable');
    network.replyAnswers = [
      new NetworkError('reconnect', 'The token lacks tweet.write', { missingPermission: true }),
    ];
    expect((await codeOf(send('c', 'seed-c'))).code).toBe('channel_disconnected');
  });

  it('answers a failure to find the comment as the network gave it (never a 500), storing and sending nothing', async () => {
    const failing = (error: NetworkError) => {
      network.findComment = async () => {
        throw error;
      };
    };
    failing(new NetworkError('transient', 'Too Many Requests', { rateLimited: true, retryAfterSeconds: 40 }));
    expect(await codeOf(send('a'))).toEqual({ code: 'rate_limited', retryAfter: '40' });
    failing(new NetworkError('transient', 'X answered HTTP 503', { status: 503 }));
    expect(await codeOf(send('b', 'seed-b'))).toEqual({ code: 'service_unavailable', retryAfter: '5' });
    failing(
      new NetworkError(
        'reconnect',
        'The network refused to refresh the access token; reconnect the channel.',
      ),
    );
    expect((await codeOf(send('c', 'seed-c'))).code).toBe('channel_disconnected');
    failing(new NetworkError('permanent', 'Comments are turned off', { status: 403 }));
    expect((await codeOf(send('d', 'seed-d'))).code).toBe('reply_refused');
    expect(await replies.listReplies(POST_ID)).toEqual([]);
    expect(network.replyCalls).toBe(0);
  });

  it('refuses a comment the network does not show under this post, storing nothing', async () => {
    const res = replyToComment(deps, auth, POST_ID, commentIdOf('elsewhere'), {
      channelId: 'ch_x',
      content: 'hi',
    });
    expect((await codeOf(res)).code).toBe('not_found');
    expect(await replies.listReplies(POST_ID)).toEqual([]);
    expect(network.replyCalls).toBe(0);
  });

  it('without an Idempotency-Key, the same text to the same comment is one reply; other text another', async () => {
    const a = await send('Same', null);
    const b = await send('Same', null);
    const c = await send('Other', null);
    expect([a.status, b.status, c.status]).toEqual([201, 200, 201]);
    expect(b.body.id).toBe(a.body.id);
    expect(c.body.id).not.toBe(a.body.id);
    expect(network.replyCalls).toBe(2);
  });

  it('deletes a sent reply once; an unconfirmed one cannot be deleted yet', async () => {
    const sent = await send();
    const removed = await deleteReply(deps, auth, POST_ID, commentIdOf('c1'), sent.body.id);
    expect(removed.status).toBe('deleted');
    expect((await deleteReply(deps, auth, POST_ID, commentIdOf('c1'), sent.body.id)).status).toBe('deleted');
    expect(network.deleted).toEqual(['reply-1']);
    network.consistencyWindowSeconds = 30;
    network.replyAnswers = [lost()];
    await codeOf(send('unconfirmed', 'seed-u'));
    const pending = (await replies.listReplies(POST_ID)).find((r) => r.content === 'unconfirmed');
    expect(
      (await codeOf(deleteReply(deps, auth, POST_ID, commentIdOf('c1'), pending?.replyId as string))).code,
    ).toBe('conflict');
  });
});

describe('listing comments', () => {
  it("leaves out the post's own blocks, places each comment under its block, and marks Herald's replies", async () => {
    const sent = await send('Our answer');
    network.conversation.push(comment('c3', 'b2', 'on the second block'));
    const { channels } = await listComments(deps, auth, POST_ID, {});
    const shown = channels[0]?.comments ?? [];
    expect(shown.map((c) => c.remoteId)).toEqual(['c1', 'c2', 'c3', 'reply-1']);
    expect(shown.map((c) => [c.blockIndex, c.parentId])).toEqual([
      [0, null],
      [0, commentIdOf('c1')],
      [1, null],
      [0, commentIdOf('c1')],
    ]);
    expect(shown.map((c) => c.replyId)).toEqual([null, null, null, sent.body.id]);
    expect(channels[0]?.windowDays).toBe(7);
  });

  it('keeps comments from `since` on, and says why a channel cannot be read', async () => {
    network.conversation.push(comment('late', ROOT, 'late', '2026-06-01T11:59:00.000Z'));
    const since = await listComments(deps, auth, POST_ID, { since: '2026-06-01T11:45:00Z' });
    expect(since.channels[0]?.comments?.map((c) => c.remoteId)).toEqual(['late']);
    network.commentsError = new NetworkError('reconnect', 'The token lacks tweet.read', {
      missingPermission: true,
    });
    expect((await listComments(deps, auth, POST_ID, {})).channels[0]).toMatchObject({
      status: 'missing_permission',
      comments: null,
      reason: 'The token lacks tweet.read',
    });
    network.commentsError = new NetworkError('transient', 'Too Many Requests', {
      rateLimited: true,
      retryAfterSeconds: 12.5,
    });
    expect((await listComments(deps, auth, POST_ID, {})).channels[0]).toMatchObject({
      status: 'unavailable',
      comments: null,
      retryAfterSeconds: 13,
    });
  });
});

describe('GET /v1/platforms and the comment routes agree', () => {
  it('every network answers comments exactly where its rules say so, the others their reason', async () => {
    const fakes = engineOnFakes();
    const channels = PLATFORM_IDS.map((platform) => {
      const channel = postChannel(`ch_${platform.replace('_', '')}`, platform, ['hello']);
      channel.status = 'published';
      channel.publishedAt = '2026-06-01T11:00:00.000Z';
      channel.blocks = channel.blocks.map((block) => ({
        ...block,
        remoteId: `sandbox_${platform}_abc`,
        remoteUrl: 'https://sandbox.example',
      }));
      fakes.channels.addChannel(channelRecord(channel.channelId, platform));
      return channel;
    });
    const sandboxPost = publishingPost(channels, { postId: POST_ID, status: 'published', mode: 'test' });
    fakes.posts.put(sandboxPost);
    const clients = new Map(PLATFORM_IDS.map((p) => [p, new SandboxNetworkClient(p)]));
    const sandboxDeps = {
      ...fakes.deps,
      networks: (p: PlatformId) => clients.get(p),
      replies: new FakeReplyStore(),
    } as unknown as ReplyDeps;
    const { channels: answered } = await listComments(sandboxDeps, { ...auth, mode: 'test' }, POST_ID, {});
    for (const channel of answered) {
      const rules = getPlatform(channel.platform)?.limits;
      expect({ platform: channel.platform, status: channel.status }).toEqual({
        platform: channel.platform,
        status: rules?.commentsReadable ? 'ok' : 'unsupported',
      });
      expect(channel.windowDays).toBe(rules?.commentsWindowDays);
      if (!rules?.commentsReadable) expect(channel.comments).toBeNull();
      const reply = replyToComment(sandboxDeps, { ...auth, mode: 'test' }, POST_ID, commentIdOf('x'), {
        channelId: channel.channelId,
        content: 'hi',
      });
      if (!rules?.commentsReadable) expect((await codeOf(reply)).code).toBe('comments_not_supported');
      else expect((await codeOf(reply)).code).toBe('not_found');
    }
  });
});

describe('comment ids', () => {
  it('carry any network id in one path segment, and only in their one spelling', () => {
    for (const remote of [
      '123',
      'at://did:plc:abc/app.bsky.feed.post/3k',
      'urn:li:comment:(urn:li:activity:1,2)',
      't1_abc',
    ]) {
      const id = commentIdOf(remote);
      expect(id).toMatch(/^cmt_[A-Za-z0-9_-]+$/);
      expect(remoteCommentId(id)).toBe(remote);
    }
    for (const bad of ['cmt_', 'c1', 'cmt_***', `${commentIdOf('x')}=`, `cmt_${'A'.repeat(800)}`])
      expect(remoteCommentId(bad)).toBeNull();
  });
});

describe('comment.received', () => {
  it('announces each new comment once, never a reply Herald sent, and nothing for sandbox posts', async () => {
    const queue = { sent: [] as string[], sendEvent: async (id: string) => void queue.sent.push(id) };
    const announceDeps = { clock, replies, queue: () => queue as never };
    const call = <T>(run: (c: { accessToken: string; remoteAccountId: string }) => Promise<T>) =>
      run({ accessToken: 't', remoteAccountId: 'me' });
    const channel = post.channels[0] as PostRecord['channels'][number];
    await send('Our answer');
    const client = network as unknown as NetworkClient;
    expect(await announceNewComments(announceDeps, client, post, channel, call)).toBe(2);
    expect(await announceNewComments(announceDeps, client, post, channel, call)).toBe(0);
    network.conversation.push(comment('c9', ROOT, 'new one'));
    expect(await announceNewComments(announceDeps, client, post, channel, call)).toBe(1);
    const events = [...replies.announced.values()];
    expect(events.map((e) => e.data.comment?.remoteId)).toEqual(['c1', 'c2', 'c9']);
    expect(events[0]).toMatchObject({
      type: 'comment.received',
      data: { postId: POST_ID, channelId: 'ch_x', error: null },
    });
    expect(queue.sent).toEqual(events.map((e) => e.id));
    expect(await announceNewComments(announceDeps, client, { ...post, mode: 'test' }, channel, call)).toBe(0);
  });

  it('a workspace without a webhook endpoint gets the marks alone; one created since the count was read gets the events', async () => {
    const queue = { sent: [] as string[], sendEvent: async (id: string) => void queue.sent.push(id) };
    const announceDeps = { clock, replies, queue: () => queue as never };
    const call = <T>(run: (c: { accessToken: string; remoteAccountId: string }) => Promise<T>) =>
      run({ accessToken: 't', remoteAccountId: 'me' });
    const channel = post.channels[0] as PostRecord['channels'][number];
    const client = network as unknown as NetworkClient;
    const none = { workspaceId: post.workspaceId, endpoints: 0 };
    // No endpoint: each comment is marked once, no event is written or queued.
    expect(await announceNewComments(announceDeps, client, post, channel, call, none)).toBe(2);
    expect(await announceNewComments(announceDeps, client, post, channel, call, none)).toBe(0);
    expect([...replies.announced.values()]).toEqual([]);
    expect(queue.sent).toEqual([]);
    // An endpoint created after the reading counted none: the next new comment's event is kept.
    replies.endpoints.set(post.workspaceId, 1);
    network.conversation.push(comment('c9', ROOT, 'new one'));
    expect(await announceNewComments(announceDeps, client, post, channel, call, none)).toBe(1);
    const events = [...replies.announced.values()];
    expect(events.map((e) => e.data.comment?.remoteId)).toEqual(['c9']);
    expect(queue.sent).toEqual(events.map((e) => e.id));
  });

  it("never announces a reply of Herald's whose answer is not in yet, however the reading and the send interleave", async () => {
    const queue = { sendEvent: async () => {} };
    const announceDeps = { clock, replies, queue: () => queue as never };
    const call = <T>(run: (c: { accessToken: string; remoteAccountId: string }) => Promise<T>) =>
      run({ accessToken: 't', remoteAccountId: 'me' });
    const channel = post.channels[0] as PostRecord['channels'][number];
    const client = network as unknown as NetworkClient;
    // The network stores the reply, and its answer is held back until `release`.
    let release = () => {};
    const answerHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    let landed = () => {};
    const onNetwork = new Promise<void>((resolve) => {
      landed = resolve;
    });
    const reply = network.reply.bind(network);
    network.reply = (async (input: ReplyInput) => {
      const made = await reply(input);
      landed();
      await answerHeld;
      return made;
    }) as CommentsNetwork['reply'];
    // The reading starts first; the reply is claimed and lands on the network while it reads.
    const read = network.comments.bind(network);
    let sending: Promise<unknown> | null = null;
    network.comments = async (input: CommentsInput) => {
      if (!sending) {
        sending = send('Our  answer ');
        await onNetwork;
      }
      return read(input);
    };
    expect(await announceNewComments(announceDeps, client, post, channel, call)).toBe(2);
    release();
    await sending;
    expect(await announceNewComments(announceDeps, client, post, channel, call)).toBe(0);
    // A comment someone makes while a reply is out is held back for that reading, then announced.
    network.conversation.push(comment('c9', ROOT, 'new one', clock.now().toISOString()));
    network.reply = reply;
    network.comments = read;
    await send('Another answer', 'seed-2');
    // Its answer lost for good: the record stays unknown, the reply on the network.
    expect([...replies.records.values()].map((r) => r.state).sort()).toEqual(['sent', 'sent']);
    const record = [...replies.records.values()].find((r) => r.content === 'Another answer') as ReplyRecord;
    replies.records.set(`${POST_ID}#${record.replyId}`, { ...record, state: 'unknown', reply: null });
    expect(await announceNewComments(announceDeps, client, post, channel, call)).toBe(0);
    clock.advance(15 * 60);
    // Past the hold, what arrived meanwhile is announced; the lost reply's own text still is not.
    expect(await announceNewComments(announceDeps, client, post, channel, call)).toBe(1);
    expect([...replies.announced.values()].map((e) => e.data.comment?.remoteId)).toEqual(['c1', 'c2', 'c9']);
  });
});
