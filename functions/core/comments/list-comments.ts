import { commentIdOf } from '../../domain/comments.ts';
import { ApiError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import { channelLiveAt, type PostChannel, type PostRecord } from '../../domain/post.ts';
import type { ReplyRecord, ReplyStore } from '../../ports/comments.ts';
import { NetworkError, type RemoteBlock, type RemoteComment } from '../../ports/network-client.ts';
import { decodeCursor, encodeCursor, parsePageLimit } from '../../shared/pagination.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { parseInstant } from '../posts/instant.ts';
import { findPost } from '../posts/post-context.ts';
import { CHANNEL_GONE, credentialsFor, liveBlock, type ManageDeps } from '../publishing/revise-retract.ts';
import type { ChannelComments, CommentView, PostComments } from './schema.ts';

export type CommentsDeps = Pick<ManageDeps, 'posts' | 'channels' | 'networks' | 'tokens' | 'clock'> & {
  replies: ReplyStore;
};

export interface CommentsQuery {
  channelId?: string;
  since?: string;
  cursor?: string;
  limit?: string;
}

/** Comments per channel and page when `limit` is not given. */
const DEFAULT_COMMENTS = 50;

/** The post's blocks on the channel as the networks address them, first block first; null when its first block is not live. */
export const liveBlocksOf = (channel: PostChannel): RemoteBlock[] | null => {
  const blocks: RemoteBlock[] = [];
  for (const block of channel.blocks) {
    if (!block.remoteId) break;
    blocks.push(liveBlock(block));
  }
  return blocks.length > 0 ? blocks : null;
};

/** Why a network's comments cannot be read or answered through Herald (`commentsReadable` false). */
export const unsupportedReason = (platform: string): string => {
  const name = getPlatform(platform)?.name ?? platform;
  return platform === 'linkedin'
    ? `${name} does not let apps read the comments of a member's posts; a LinkedIn Page channel can.`
    : `${name} does not let apps read or answer comments.`;
};

/** The X-like note on a network that shows only recent comments. */
const windowNote = (platform: string, windowDays: number) =>
  `${getPlatform(platform)?.name ?? platform} shows comments from the last ${windowDays} days only; older ones are not listed.`;

/**
 * The comments the network returned, as the API shows them: the post's own blocks left out (a
 * thread's later posts, a comment network's extra blocks), each with the block its conversation
 * answers and its parent, replies Herald sent marked, those before `since` dropped.
 */
export const commentViews = (
  comments: RemoteComment[],
  blocks: RemoteBlock[],
  replies: ReplyRecord[],
  since: Date | null,
): CommentView[] => {
  const blockIndex = new Map(blocks.map((block, i) => [block.remoteId, i]));
  const parents = new Map(comments.map((c) => [c.remoteId, c.parentRemoteId]));
  const sentAs = new Map(
    replies.flatMap((r) => (r.reply && r.state === 'sent' ? [[r.reply.remoteId, r.replyId] as const] : [])),
  );
  const blockOf = (comment: RemoteComment): number | null => {
    let parent = comment.parentRemoteId;
    for (let depth = 0; depth < 100; depth++) {
      const index = blockIndex.get(parent);
      if (index !== undefined) return index;
      const next = parents.get(parent);
      if (next === undefined) return null;
      parent = next;
    }
    return null;
  };
  return comments
    .filter((c) => !blockIndex.has(c.remoteId))
    .filter((c) => since === null || Date.parse(c.createdAt) >= since.getTime())
    .map((c) => ({
      id: commentIdOf(c.remoteId),
      remoteId: c.remoteId,
      blockIndex: blockOf(c),
      parentId: blockIndex.has(c.parentRemoteId) ? null : commentIdOf(c.parentRemoteId),
      author: { name: c.author.name, handle: c.author.handle },
      text: c.text,
      createdAt: c.createdAt,
      likeCount: c.likeCount,
      url: c.url,
      replyId: sentAs.get(c.remoteId) ?? null,
    }));
};

/** Sandbox posts: the network the sandbox plays keeps no replies, so the ones Herald sent are shown from its own records. */
const sandboxReplies = (
  replies: ReplyRecord[],
  channelId: string,
  shown: RemoteComment[],
): RemoteComment[] => {
  const ids = new Set(shown.map((c) => c.remoteId));
  return replies
    .filter((r) => r.channelId === channelId && r.state === 'sent' && r.reply && !ids.has(r.reply.remoteId))
    .map((r) => r.reply as RemoteComment);
};

const failure = (error: unknown): Pick<ChannelComments, 'status' | 'reason' | 'retryAfterSeconds'> => {
  if (!(error instanceof NetworkError))
    return { status: 'unavailable', reason: 'The network could not be read.' };
  if (error.kind === 'reconnect') {
    return error.details.missingPermission
      ? { status: 'missing_permission', reason: error.message }
      : { status: 'needs_reconnect', reason: error.message };
  }
  const wait = error.details.retryAfterSeconds;
  return {
    status: 'unavailable',
    reason: error.message,
    ...(wait !== undefined ? { retryAfterSeconds: Math.ceil(wait) } : {}),
  };
};

const channelComments = async (
  deps: CommentsDeps,
  post: PostRecord,
  channel: PostChannel,
  page: { since: Date | null; cursor: string | null; limit: number },
  replies: ReplyRecord[],
): Promise<ChannelComments> => {
  const platform = getPlatform(channel.platform);
  const windowDays = platform?.limits.commentsWindowDays ?? null;
  const base = {
    channelId: channel.channelId,
    platform: channel.platform,
    windowDays,
    comments: null,
    nextCursor: null,
  };
  if (!platform?.limits.commentsReadable)
    return { ...base, status: 'unsupported', reason: unsupportedReason(channel.platform) };
  const blocks = liveBlocksOf(channel);
  const liveAt = channelLiveAt(channel);
  if (!blocks || !liveAt)
    return { ...base, status: 'not_live', reason: 'The post is not live on this channel yet.' };
  const client = deps.networks(channel.platform, post.mode);
  const read = client.comments?.bind(client);
  if (!read) return { ...base, status: 'unsupported', reason: unsupportedReason(channel.platform) };
  const withCredentials = await credentialsFor(deps, post, channel);
  if (typeof withCredentials === 'string') {
    return {
      ...base,
      status: withCredentials === CHANNEL_GONE ? 'disconnected' : 'needs_reconnect',
      reason: withCredentials,
    };
  }
  try {
    const ageSeconds = Math.max(0, Math.floor((deps.clock.now().getTime() - Date.parse(liveAt)) / 1000));
    const found = await withCredentials((credentials) =>
      read({
        credentials,
        block: blocks[0] as RemoteBlock,
        blocks,
        cursor: page.cursor,
        since: page.since,
        limit: page.limit,
        ageSeconds,
      }),
    );
    const shown =
      post.mode === 'test' && page.cursor === null
        ? [...found.comments, ...sandboxReplies(replies, channel.channelId, found.comments)]
        : found.comments;
    return {
      ...base,
      status: 'ok',
      reason: windowDays !== null ? windowNote(channel.platform, windowDays) : null,
      comments: commentViews(shown, blocks, replies, page.since),
      nextCursor: found.nextCursor
        ? encodeCursor(found.nextCursor, cursorScope(post.postId, channel.channelId, page.since))
        : null,
    };
  } catch (error) {
    return { ...base, ...failure(error) };
  }
};

const cursorScope = (postId: string, channelId: string, since: Date | null) =>
  ['comments', postId, channelId, since ? since.toISOString() : null] as const;

/** Network cursors are short tokens (X's next_token, Graph's `after`, a page number, comment ids). */
const MAX_NETWORK_CURSOR = 600;

/**
 * GET /posts/{id}/comments: per channel of the post, the comments under its live blocks as the
 * network shows them now, one page each, or why they cannot be shown. With `cursor` (from a
 * channel's `nextCursor`) the `channelId` it was issued for must be given: the next page of that
 * channel alone.
 */
export const listComments = async (
  deps: CommentsDeps,
  auth: AuthContext,
  postId: string,
  query: CommentsQuery,
): Promise<PostComments> => {
  const limit = query.limit === undefined ? DEFAULT_COMMENTS : parsePageLimit(query.limit);
  const since = query.since === undefined ? null : parseInstant(query.since, 'since');
  if (query.channelId !== undefined && !isId('ch', query.channelId)) {
    throw new ApiError('validation_failed', 'channelId must be a channel id (ch_…).', 'channelId');
  }
  if (query.cursor !== undefined && query.channelId === undefined) {
    throw new ApiError(
      'validation_failed',
      'A cursor pages one channel: send the channelId it was issued for.',
      'channelId',
    );
  }
  const post = await findPost(deps, auth, postId);
  const channels = post.channels.filter(
    (c) => query.channelId === undefined || c.channelId === query.channelId,
  );
  if (channels.length === 0) {
    throw new ApiError('validation_failed', `The post is not on channel ${query.channelId}.`, 'channelId');
  }
  const cursor =
    query.cursor === undefined
      ? null
      : decodeCursor(
          query.cursor,
          cursorScope(post.postId, channels[0]?.channelId as string, since),
          (after) => after.length > 0 && after.length <= MAX_NETWORK_CURSOR,
        );
  const replies = await deps.replies.listReplies(post.postId);
  return {
    postId: post.postId,
    channels: await Promise.all(
      channels.map((channel) => channelComments(deps, post, channel, { since, cursor, limit }, replies)),
    ),
  };
};
