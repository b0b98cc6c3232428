import { createHash } from 'node:crypto';
import { commentIdOf, remoteCommentId } from '../../domain/comments.ts';
import { ApiError } from '../../domain/errors.ts';
import { derivedId, isId } from '../../domain/ids.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import { textLength } from '../../domain/platforms/text-length.ts';
import type { CommentReplyLimits, Platform } from '../../domain/platforms/types.ts';
import type { PostChannel, PostRecord } from '../../domain/post.ts';
import type { ReplyRecord } from '../../ports/comments.ts';
import type { MediaRecord, MediaStore } from '../../ports/media.ts';
import {
  type MediaForNetwork,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type RemoteBlock,
} from '../../ports/network-client.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { findPost } from '../posts/post-context.ts';
import { credentialsFor } from '../publishing/revise-retract.ts';
import { type CommentsDeps, liveBlocksOf, unsupportedReason } from './list-comments.ts';
import type { ReplyBody, ReplyView } from './schema.ts';

export type ReplyDeps = CommentsDeps & {
  media: MediaStore;
  mediaUrl: (record: MediaRecord) => Promise<string>;
};

/** How long an attempt holds a reply: past it, its holder is presumed dead and the reply is looked up. */
export const REPLY_LEASE_SECONDS = 60;

/**
 * How long after a send whose answer was lost the network may still store it (a request it is
 * still processing after we stopped waiting): however soon the network shows what it stored, a
 * lookup that finds nothing leads to a resend only once this has passed too.
 */
export const IN_FLIGHT_GRACE_SECONDS = 30;

type Call = <T>(call: (credentials: NetworkCredentials) => Promise<T>) => Promise<T>;

interface Target {
  post: PostRecord;
  channel: PostChannel;
  platform: Platform;
  rules: CommentReplyLimits;
  blocks: RemoteBlock[];
}

/** The post's channel a reply or its deletion acts on, checked: its network answers comments and the post is live there. */
const target = async (
  deps: CommentsDeps,
  auth: AuthContext,
  postId: string,
  channelId: string,
): Promise<Target> => {
  const post = await findPost(deps, auth, postId);
  const channel = post.channels.find((c) => c.channelId === channelId);
  if (!channel)
    throw new ApiError('channel_not_found', `The post is not on channel ${channelId}.`, 'channelId');
  const platform = getPlatform(channel.platform) as Platform;
  const rules = platform.limits.commentReplies;
  if (!rules) throw new ApiError('comments_not_supported', unsupportedReason(channel.platform), 'channelId');
  const blocks = liveBlocksOf(channel);
  if (!blocks)
    throw new ApiError(
      'conflict',
      'The post is not live on this channel yet: there is nothing to comment on.',
    );
  return { post, channel, platform, rules, blocks };
};

const connection = async (deps: CommentsDeps, { post, channel }: Target): Promise<Call> => {
  const withCredentials = await credentialsFor(deps, post, channel);
  if (typeof withCredentials === 'string')
    throw new ApiError('channel_disconnected', withCredentials, 'channelId');
  return withCredentials;
};

/** The reply's text and files against the network's comment rules, before anything is sent. */
const checkReply = async (
  deps: ReplyDeps,
  auth: AuthContext,
  { platform, rules }: Target,
  body: ReplyBody,
) => {
  const length = textLength(body.content, platform.limits.textCounting);
  if (length > rules.maxLength) {
    throw new ApiError(
      'content_too_long',
      `A reply on ${platform.name} takes at most ${rules.maxLength} characters; this one has ${length}.`,
      'content',
    );
  }
  if (rules.maxBytes !== undefined && Buffer.byteLength(body.content, 'utf8') > rules.maxBytes) {
    throw new ApiError(
      'content_too_long',
      `A reply on ${platform.name} takes at most ${rules.maxBytes} bytes.`,
      'content',
    );
  }
  const ids = body.mediaIds ?? [];
  if (ids.length > rules.maxMedia) {
    throw new ApiError(
      'too_many_media',
      rules.maxMedia === 0
        ? `Replies on ${platform.name} carry text only.`
        : `A reply on ${platform.name} takes at most ${rules.maxMedia} file${rules.maxMedia === 1 ? '' : 's'}.`,
      'mediaIds',
    );
  }
  const found = await deps.media.getMany(
    auth.workspaceId,
    ids.filter((id) => isId('med', id)),
  );
  return ids.map((id, i) => {
    const record = found.get(id);
    const field = `mediaIds[${i}]`;
    if (!record) throw new ApiError('media_not_found', `No media file ${id} in this workspace.`, field);
    if (record.status !== 'ready') throw new ApiError('media_not_ready', undefined, field);
    if (!rules.acceptedMimeTypes.includes(record.mimeType)) {
      throw new ApiError(
        'media_type_not_accepted',
        `Replies on ${platform.name} take ${rules.acceptedMimeTypes.join(', ')}; this file is ${record.mimeType}.`,
        field,
      );
    }
    return record;
  });
};

export const replyView = (record: ReplyRecord): ReplyView => {
  const reply = record.reply as NonNullable<ReplyRecord['reply']>;
  return {
    id: record.replyId,
    postId: record.postId,
    channelId: record.channelId,
    platform: record.platform,
    commentId: commentIdOf(record.comment.remoteId),
    status: record.state === 'deleted' ? 'deleted' : 'sent',
    content: record.content,
    mediaIds: record.mediaIds,
    remoteCommentId: commentIdOf(reply.remoteId),
    remoteId: reply.remoteId,
    url: reply.url,
    createdAt: reply.createdAt,
  };
};

const unconfirmed = (seconds: number) =>
  new ApiError(
    'service_unavailable',
    `The network did not confirm the reply. Herald looks it up before it sends it again: retry this request (with the same Idempotency-Key) after ${seconds} seconds.`,
    undefined,
    { 'Retry-After': String(seconds) },
  );

/**
 * POST /posts/{id}/comments/{commentId}/replies: answers a comment of the post on one channel,
 * never twice. The reply's record (its id derived from the Idempotency-Key, or without one from
 * the channel, the comment and the text) is claimed before the send; an attempt whose answer was
 * lost leaves it `unknown`, and the next request looks it up on the network before it may send
 * again (only once the network's consistency window has passed since the first send).
 */
export const replyToComment = async (
  deps: ReplyDeps,
  auth: AuthContext,
  postId: string,
  commentId: string,
  body: ReplyBody,
  seed?: string,
): Promise<{ status: 200 | 201; body: ReplyView }> => {
  const at = await target(deps, auth, postId, body.channelId);
  const files = await checkReply(deps, auth, at, body);
  const remoteId = remoteCommentId(commentId);
  if (remoteId === null) throw new ApiError('not_found', `No comment ${commentId} under this post.`);
  const replyId = derivedId(
    'rpl',
    seed ??
      [
        'reply',
        at.post.postId,
        body.channelId,
        remoteId,
        createHash('sha256').update(body.content).digest('hex'),
        ...(body.mediaIds ?? []),
      ].join('|'),
  );
  const client = deps.networks(at.channel.platform, at.post.mode);
  const stored = await deps.replies.getReply(at.post.postId, replyId);
  if (stored?.state === 'sent') return { status: 200, body: replyView(stored) };
  if (stored?.state === 'deleted')
    throw new ApiError(
      'conflict',
      'This reply was sent and then deleted; send a new one with another Idempotency-Key.',
    );
  const call = await connection(deps, at);
  const media: MediaForNetwork[] = await Promise.all(
    files.map(async (record) => ({
      mediaId: record.mediaId,
      mimeType: record.mimeType,
      size: record.size,
      altText: record.altText,
      url: await deps.mediaUrl(record),
    })),
  );
  const send = sender(deps, at, client, call, media);
  if (!stored) {
    const comment = client.findComment
      ? await call(
          (credentials) =>
            client.findComment?.({
              credentials,
              block: at.blocks[0] as RemoteBlock,
              blocks: at.blocks,
              remoteId,
            }) ?? Promise.resolve(null),
        ).catch((error: unknown) => {
          // Nothing was sent: a refused refresh, a refusal, a rate limit or an outage is answered as such.
          if (!(error instanceof NetworkError)) throw error;
          throw replyFailure(error, {
            refused: `${at.platform.name} did not show the comment`,
            later: (wait) =>
              `${at.platform.name} could not be asked for the comment now (${error.message}); nothing was posted. Retry after ${wait} seconds.`,
          });
        })
      : null;
    if (!comment)
      throw new ApiError(
        'not_found',
        `No comment ${commentId} under this post on ${at.platform.name} (it may have been deleted or hidden).`,
      );
    const now = deps.clock.now();
    const record: ReplyRecord = {
      replyId,
      postId: at.post.postId,
      workspaceId: at.post.workspaceId,
      mode: at.post.mode,
      channelId: at.channel.channelId,
      platform: at.channel.platform,
      comment,
      content: body.content,
      mediaIds: body.mediaIds ?? [],
      state: 'sending',
      attempt: 1,
      firstSentAt: now.toISOString(),
      lastSentAt: now.toISOString(),
      leaseUntil: new Date(now.getTime() + REPLY_LEASE_SECONDS * 1000).toISOString(),
      reply: null,
      error: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    if (await deps.replies.createReply(record)) return send(record);
    // Another request made it first: go on from what it left.
  }
  const current = stored ?? (await deps.replies.getReply(at.post.postId, replyId));
  if (!current) throw unconfirmed(1);
  return resume(deps, at, client, call, current, send);
};

type Send = (record: ReplyRecord) => Promise<{ status: 201; body: ReplyView }>;

/** Goes on with a reply an earlier request started: its answer, a lookup, or a new attempt. */
const resume = async (
  deps: ReplyDeps,
  at: Target,
  client: NetworkClient,
  call: Call,
  current: ReplyRecord,
  send: Send,
): Promise<{ status: 200 | 201; body: ReplyView }> => {
  const now = deps.clock.now();
  if (current.state === 'sent') return { status: 200, body: replyView(current) };
  if (current.state === 'deleted') throw new ApiError('conflict', 'This reply was sent and then deleted.');
  if (current.state === 'sending' && current.leaseUntil && Date.parse(current.leaseUntil) > now.getTime()) {
    const wait = Math.max(1, Math.ceil((Date.parse(current.leaseUntil) - now.getTime()) / 1000));
    throw new ApiError('conflict', 'This reply is being sent by another request; retry shortly.', undefined, {
      'Retry-After': String(wait),
    });
  }
  const claim = (from: ReplyRecord): ReplyRecord => ({
    ...from,
    state: 'sending',
    attempt: from.attempt + 1,
    lastSentAt: now.toISOString(),
    leaseUntil: new Date(now.getTime() + REPLY_LEASE_SECONDS * 1000).toISOString(),
    updatedAt: now.toISOString(),
  });
  if (current.state === 'failed') {
    // Refused before: nothing was stored, so it may be sent again.
    const next = claim(current);
    if (!(await deps.replies.updateReply(next, current))) throw unconfirmed(1);
    return send(next);
  }
  // `unknown`, or `sending` whose holder died: the network may have it.
  const found = await lookup(at, client, call, current);
  if (found) {
    const sent: ReplyRecord = {
      ...current,
      state: 'sent',
      reply: found,
      leaseUntil: null,
      updatedAt: now.toISOString(),
    };
    await deps.replies.updateReply(sent, current);
    return { status: 201, body: replyView(sent) };
  }
  const windowEnds = resendAfter(client, current);
  if (!client.lookupReply || now.getTime() < windowEnds) {
    throw unconfirmed(Math.max(1, Math.ceil((windowEnds - now.getTime()) / 1000)));
  }
  const next = claim(current);
  if (!(await deps.replies.updateReply(next, current))) throw unconfirmed(1);
  return send(next);
};

/** When a lookup that finds nothing may lead to a resend: the network's window and the in-flight grace after the latest send. */
const resendAfter = (client: NetworkClient, record: ReplyRecord): number =>
  Date.parse(record.lastSentAt ?? record.firstSentAt ?? record.createdAt) +
  Math.max(client.consistencyWindowSeconds, IN_FLIGHT_GRACE_SECONDS) * 1000;

const lookup = async (at: Target, client: NetworkClient, call: Call, record: ReplyRecord) => {
  if (!client.lookupReply) return null;
  try {
    return await call(
      (credentials) =>
        client.lookupReply?.({
          credentials,
          block: at.blocks[0] as RemoteBlock,
          comment: record.comment,
          content: record.content,
          idempotencyKey: record.replyId,
          since: new Date(Date.parse(record.firstSentAt ?? record.createdAt) - 1000),
        }) ?? Promise.resolve(null),
    );
  } catch (error) {
    // A refused refresh: the channel must be reconnected before the reply can be settled.
    if (error instanceof NetworkError && error.kind === 'reconnect')
      throw new ApiError('channel_disconnected', error.message, 'channelId');
    if (error instanceof NetworkError) {
      throw new ApiError(
        'service_unavailable',
        `The network did not confirm the reply and could not be asked whether it has it (${error.message}); retry this request later.`,
        undefined,
        { 'Retry-After': String(Math.ceil(error.details.retryAfterSeconds ?? 5)) },
      );
    }
    throw error;
  }
};

const sender =
  (deps: ReplyDeps, at: Target, client: NetworkClient, call: Call, media: MediaForNetwork[]): Send =>
  async (record) => {
    if (!client.reply)
      throw new ApiError('comments_not_supported', unsupportedReason(at.channel.platform), 'channelId');
    let reply: Awaited<ReturnType<NonNullable<NetworkClient['reply']>>>;
    try {
      reply = await call(
        (credentials) =>
          client.reply?.({
            credentials,
            block: at.blocks[0] as RemoteBlock,
            comment: record.comment,
            content: record.content,
            media,
            idempotencyKey: record.replyId,
          }) as Promise<typeof reply>,
      );
    } catch (error) {
      return settleFailure(deps, at, client, call, record, error);
    }
    const sent: ReplyRecord = {
      ...record,
      state: 'sent',
      reply,
      leaseUntil: null,
      updatedAt: deps.clock.now().toISOString(),
    };
    if (!(await deps.replies.updateReply(sent, record))) {
      logger.warn('A reply was sent after its lease was taken over', { replyId: record.replyId });
    }
    return { status: 201, body: replyView(sent) };
  };

const settleFailure = async (
  deps: ReplyDeps,
  at: Target,
  client: NetworkClient,
  call: Call,
  record: ReplyRecord,
  error: unknown,
): Promise<{ status: 201; body: ReplyView }> => {
  const now = deps.clock.now().toISOString();
  if (!(error instanceof NetworkError)) throw error; // the lease runs out; the next request looks it up
  if (error.details.outcomeUnknown || error.details.duplicate) {
    const unknown: ReplyRecord = { ...record, state: 'unknown', leaseUntil: null, updatedAt: now };
    await deps.replies.updateReply(unknown, record);
    // Where the network shows what it stored at once, the answer is known now.
    const found = client.consistencyWindowSeconds === 0 ? await lookup(at, client, call, unknown) : null;
    if (found) {
      const sent: ReplyRecord = { ...unknown, state: 'sent', reply: found, updatedAt: now };
      await deps.replies.updateReply(sent, unknown);
      return { status: 201, body: replyView(sent) };
    }
    throw unconfirmed(Math.max(1, Math.ceil((resendAfter(client, unknown) - Date.parse(now)) / 1000)));
  }
  const failed: ReplyRecord = {
    ...record,
    state: 'failed',
    leaseUntil: null,
    error: error.message,
    updatedAt: now,
  };
  await deps.replies.updateReply(failed, record);
  throw replyFailure(error, {
    refused: `${at.platform.name} refused the reply`,
    later: (wait) =>
      `${at.platform.name} did not take the reply now (${error.message}); nothing was posted. Retry after ${wait} seconds.`,
  });
};

/**
 * A network's answer to a reply or its deletion, as the client gets it: reconnect is
 * `channel_disconnected`, a refusal `reply_refused` (`refused`: what was refused), anything else
 * `rate_limited` or `service_unavailable` with the network's wait (5 s when it named none).
 */
export const replyFailure = (
  error: NetworkError,
  say: { refused: string; later: (waitSeconds: number) => string },
): ApiError => {
  if (error.kind === 'reconnect') return new ApiError('channel_disconnected', error.message, 'channelId');
  if (error.kind === 'permanent') return new ApiError('reply_refused', `${say.refused}: ${error.message}`);
  const wait = Math.ceil(error.details.retryAfterSeconds ?? 5);
  return new ApiError(
    error.details.rateLimited ? 'rate_limited' : 'service_unavailable',
    say.later(wait),
    undefined,
    {
      'Retry-After': String(wait),
    },
  );
};
