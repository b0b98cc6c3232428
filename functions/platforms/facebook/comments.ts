import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteReplyInput,
  type LookupReplyInput,
  type NetworkCredentials,
  NetworkError,
  type RemoteBlock,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import type { HttpAnswer, HttpCall } from '../network-http.ts';

/**
 * The comments under a Facebook Page post, with the page token (Comments reference,
 * https://developers.facebook.com/docs/graph-api/reference/object/comments):
 *
 * - `GET /{post}/comments?filter=stream` returns the whole conversation flat, oldest first, each
 *   reply with its `parent`; cursor paging (`after`), `paging.next` only when more follow. No
 *   `since` on the edge: filtered here.
 * - Reading people's comments needs `pages_read_user_content` besides `pages_read_engagement`;
 *   replying and deleting `pages_manage_engagement`.
 * - `from` is left out for people who have not authorised the app (Graph's privacy rules; an app
 *   without Advanced Access): the author's name is null then. Facebook has no handles.
 * - Hidden comments are returned to the page with `is_hidden: true`: kept, with `meta.hidden`
 *   'true' (the page can still answer them). Deleted comments are absent.
 * - A comment's id is `<post object>_<comment>`: `findComment` takes a comment as this post's
 *   only when its id starts with the post's object id (or, for a video, reel or photo post, the
 *   media's id), so a reply never goes to another post's comment.
 * - Graph nests two levels: a reply reads `can_comment: false` and cannot be answered; the client
 *   refuses that before any call, naming the comment to answer instead.
 * - Facebook takes no client key: a lost reply is found among the comment's replies by the page
 *   (`from.id`), the text and the time. Graph reads what was written (the client's window is 0).
 */

export type FacebookCall = (
  credentials: NetworkCredentials,
  method: HttpCall['method'],
  path: string,
  json: Record<string, unknown> | undefined,
  needs: string[],
) => Promise<HttpAnswer>;

const FIELDS = 'id,message,created_time,from,like_count,parent{id},permalink_url,is_hidden,can_comment';
const READ = ['pages_read_engagement', 'pages_read_user_content'];
const ENGAGE = ['pages_manage_engagement'];
/** The most reply pages read for one lookup (100 each). */
const MAX_PAGES = 20;

interface GraphComment {
  id?: unknown;
  message?: unknown;
  created_time?: unknown;
  from?: { id?: unknown; name?: unknown };
  like_count?: unknown;
  parent?: { id?: unknown };
  permalink_url?: unknown;
  is_hidden?: unknown;
  can_comment?: unknown;
}

const graphMs = (value: unknown) =>
  typeof value === 'string' ? Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : Number.NaN;
const listOf = (body: unknown): GraphComment[] => {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? (data as GraphComment[]) : [];
};
const nextOf = (body: unknown): string | null => {
  const paging = (body as { paging?: { next?: unknown; cursors?: { after?: unknown } } } | null)?.paging;
  return typeof paging?.next === 'string' && typeof paging.cursors?.after === 'string'
    ? paging.cursors.after
    : null;
};

/** The Graph object whose comments the post's are (a reel's post id is `<page>_<video>` too). */
const postIdOf = (block: RemoteBlock) => block.meta.postId ?? block.remoteId;

/** The id prefixes of this post's comments: its object id, and its media's where it has one. */
const prefixesOf = (block: RemoteBlock) =>
  [postIdOf(block).split('_')[1], block.meta.videoId, block.meta.mediaId]
    .filter((p): p is string => typeof p === 'string' && p !== '')
    .map((p) => `${p}_`);

export const toRemoteComment = (
  c: GraphComment,
  block: RemoteBlock,
  parentId?: string,
): RemoteComment | null => {
  const id = typeof c.id === 'string' ? c.id : null;
  if (!id) return null;
  const parent = typeof c.parent?.id === 'string' ? c.parent.id : (parentId ?? block.remoteId);
  const at = graphMs(c.created_time);
  const postId = postIdOf(block);
  return {
    remoteId: id,
    parentRemoteId: parent,
    author: { name: typeof c.from?.name === 'string' ? c.from.name : null, handle: null },
    text: typeof c.message === 'string' ? c.message : '',
    createdAt: Number.isNaN(at) ? new Date(0).toISOString() : new Date(at).toISOString(),
    likeCount: typeof c.like_count === 'number' ? c.like_count : null,
    url:
      typeof c.permalink_url === 'string'
        ? c.permalink_url
        : `https://www.facebook.com/${postId}?comment_id=${encodeURIComponent(id)}`,
    meta: {
      commentId: id,
      postId,
      ...(typeof c.from?.id === 'string' ? { fromId: c.from.id } : {}),
      ...(c.is_hidden === true ? { hidden: 'true' } : {}),
      ...(c.can_comment === false ? { canReply: 'false' } : {}),
    },
  };
};

/** Graph's "does not exist" (100 with subcode 33), as the client's call tags it. */
const isGone = (error: unknown) =>
  error instanceof NetworkError && (error as NetworkError & { subcode?: number }).subcode === 33;

export class FacebookComments {
  constructor(private readonly call: FacebookCall) {}

  async comments(input: CommentsInput): Promise<CommentsPage> {
    // Stories take no comments.
    if (input.block.meta.postType === 'story') return { comments: [], nextCursor: null };
    const limit = Math.min(Math.max(input.limit, 1), 100);
    const answer = await this.call(
      input.credentials,
      'GET',
      `/${encodeURIComponent(postIdOf(input.block))}/comments?filter=stream&order=chronological&fields=${encodeURIComponent(FIELDS)}&limit=${limit}${input.cursor ? `&after=${encodeURIComponent(input.cursor)}` : ''}`,
      undefined,
      READ,
    );
    const since = input.since ? Math.floor(input.since.getTime() / 1000) * 1000 : null;
    const comments = listOf(answer.body)
      .map((c) => toRemoteComment(c, input.block))
      .filter((c): c is RemoteComment => c !== null)
      .filter((c) => since === null || Date.parse(c.createdAt) >= since);
    return { comments, nextCursor: nextOf(answer.body) };
  }

  async findComment(input: CommentInput): Promise<RemoteComment | null> {
    if (!prefixesOf(input.block).some((prefix) => input.remoteId.startsWith(prefix))) return null;
    const found = await this.read(input.credentials, input.remoteId);
    return found ? toRemoteComment(found, input.block) : null;
  }

  private async read(credentials: NetworkCredentials, id: string): Promise<GraphComment | null> {
    try {
      const answer = await this.call(
        credentials,
        'GET',
        `/${encodeURIComponent(id)}?fields=${encodeURIComponent(FIELDS)}`,
        undefined,
        READ,
      );
      return answer.body as GraphComment;
    } catch (error) {
      if (isGone(error)) return null;
      throw error;
    }
  }

  async reply(input: ReplyInput): Promise<RemoteComment> {
    if (input.media.length > 0) throw new NetworkError('permanent', 'Facebook replies carry text only here.');
    if (input.comment.meta.canReply === 'false') {
      throw new NetworkError(
        'permanent',
        `Facebook takes no reply to a reply: answer the comment it replies to (${input.comment.parentRemoteId}) instead.`,
      );
    }
    const answer = await this.call(
      input.credentials,
      'POST',
      `/${encodeURIComponent(input.comment.remoteId)}/comments`,
      { message: input.content },
      ENGAGE,
    );
    const id =
      typeof (answer.body as { id?: unknown } | null)?.id === 'string'
        ? (answer.body as { id: string }).id
        : null;
    if (!id) {
      throw new NetworkError('transient', 'Facebook accepted the reply but its answer had no id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    // Read back for the page's name and the time; the reply exists whatever this read says.
    const stored = await this.read(input.credentials, id).catch(() => null);
    const remote = stored ? toRemoteComment(stored, input.block, input.comment.remoteId) : null;
    return (
      remote ??
      (toRemoteComment(
        { id, message: input.content, created_time: new Date().toISOString(), can_comment: false },
        input.block,
        input.comment.remoteId,
      ) as RemoteComment)
    );
  }

  async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    const since = Math.floor(input.since.getTime() / 1000) * 1000;
    const page = input.credentials.remoteAccountId;
    let after: string | null = null;
    const matches: GraphComment[] = [];
    for (let n = 0; n < MAX_PAGES; n += 1) {
      let answer: HttpAnswer;
      try {
        answer = await this.call(
          input.credentials,
          'GET',
          `/${encodeURIComponent(input.comment.remoteId)}/comments?order=chronological&fields=${encodeURIComponent(FIELDS)}&limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`,
          undefined,
          READ,
        );
      } catch (error) {
        // The comment is gone, and its replies with it.
        if (isGone(error)) return null;
        throw error;
      }
      for (const c of listOf(answer.body)) {
        if (c.message !== input.content || graphMs(c.created_time) < since) continue;
        if (c.from?.id !== undefined && String(c.from.id) !== page) continue;
        matches.push(c);
      }
      after = nextOf(answer.body);
      if (!after) break;
    }
    // The earliest match: a later one would be a duplicate, never this reply.
    const first = matches[0];
    return first ? toRemoteComment(first, input.block, input.comment.remoteId) : null;
  }

  async deleteReply(input: DeleteReplyInput): Promise<void> {
    try {
      await this.call(
        input.credentials,
        'DELETE',
        `/${encodeURIComponent(input.reply.remoteId)}`,
        undefined,
        ENGAGE,
      );
    } catch (error) {
      if (isGone(error)) return;
      throw error;
    }
  }
}
