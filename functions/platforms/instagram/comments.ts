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
 * The comments under an Instagram post (IG Media Comments, IG Comment, IG Comment Replies
 * references, developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/…):
 *
 * - `GET /{media}/comments` lists the top-level comments only, in pages (`after` cursor); each
 *   comment's replies come with it through the `replies{…}` field (one page) and, past that page,
 *   `GET /{comment}/replies`. Instagram nests one level: a reply's `parent_id` is its top-level
 *   comment. A listing page is one Graph page of top-level comments with all their replies, cut to
 *   `limit` (the cursor keeps Graph's cursor and how far into that page the last page went).
 * - Hidden comments are returned to the owner with `hidden: true`: listed with `meta.hidden`
 *   'true'. Instagram refuses replies to them ("You cannot reply to hidden comments"), so
 *   `findComment` answers null for one. Deleted comments (and their replies) are absent.
 * - No `since` on the edges: filtered here.
 * - A reply is `POST /{comment}/replies {message}`; to a reply, Instagram adds it to the top-level
 *   comment, so the reply returned names that comment as its parent. Text only.
 * - Instagram takes no client key: a lost reply is found among the top-level comment's replies by
 *   the account (`from.id`), the text and the time (Graph times are whole seconds). The edges may
 *   lag behind a write like the media list: the client's consistency window applies.
 * - Every call needs `instagram_business_manage_comments` (with basic).
 */

export type InstagramGet = (
  credentials: NetworkCredentials,
  request: { method: HttpCall['method']; path: string; json?: unknown },
) => Promise<HttpAnswer>;

const FIELDS = 'id,text,timestamp,username,like_count,from,hidden,parent_id';
/** Graph's largest page on the comment edges. */
const PAGE_MAX = 50;
/**
 * Instagram's hashtag limit, as its captions have it ("limited to 2,200 characters, 30 hashtags",
 * IG User Media reference, https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media);
 * applied to replies too (the 2,200 characters are the rules' `commentReplies.maxLength`).
 */
export const MAX_HASHTAGS = 30;
export const hashtagCount = (text: string) => (text.match(/(^|\s)#[^\s#]+/g) ?? []).length;
/** The most reply pages read for one comment (50 each). */
const MAX_REPLY_PAGES = 20;

interface GraphComment {
  id?: unknown;
  text?: unknown;
  timestamp?: unknown;
  username?: unknown;
  like_count?: unknown;
  from?: { id?: unknown; username?: unknown };
  hidden?: unknown;
  parent_id?: unknown;
  media?: { id?: unknown };
  replies?: { data?: unknown; paging?: { next?: unknown; cursors?: { after?: unknown } } };
}

/** Graph's `2026-11-25T23:10:42+0000` as epoch ms (NaN when unreadable). */
const graphMs = (value: unknown): number =>
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

/** Our cursor: Graph's cursor of the page of top-level comments, and how many of that page's comments were already returned. */
interface Position {
  after: string | null;
  skip: number;
}
const encode = (position: Position) => Buffer.from(JSON.stringify(position)).toString('base64url');
const decode = (cursor: string | null): Position => {
  if (cursor === null) return { after: null, skip: 0 };
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Position>;
    if ((parsed.after === null || typeof parsed.after === 'string') && Number.isInteger(parsed.skip)) {
      return { after: parsed.after, skip: Math.max(0, parsed.skip as number) };
    }
  } catch {
    // Falls through: not one of ours.
  }
  throw new NetworkError(
    'permanent',
    'This comments cursor is not an Instagram one: start from the first page.',
  );
};

const baseUrl = (block: RemoteBlock) =>
  block.remoteUrl.endsWith('/') ? block.remoteUrl : `${block.remoteUrl}/`;

/** A Graph comment as Herald's; `mediaId` is the post's (the first block's remote id). */
export const toRemoteComment = (c: GraphComment, block: RemoteBlock): RemoteComment | null => {
  const id = typeof c.id === 'string' ? c.id : null;
  if (!id) return null;
  const parentId = typeof c.parent_id === 'string' ? c.parent_id : null;
  const handle =
    typeof c.username === 'string'
      ? c.username
      : typeof c.from?.username === 'string'
        ? c.from.username
        : null;
  const at = graphMs(c.timestamp);
  return {
    remoteId: id,
    parentRemoteId: parentId ?? block.remoteId,
    // Instagram gives a username, no display name.
    author: { name: null, handle },
    text: typeof c.text === 'string' ? c.text : '',
    createdAt: Number.isNaN(at) ? new Date(0).toISOString() : new Date(at).toISOString(),
    likeCount: typeof c.like_count === 'number' ? c.like_count : null,
    url: parentId ? `${baseUrl(block)}c/${parentId}/r/${id}/` : `${baseUrl(block)}c/${id}/`,
    meta: {
      mediaId: block.remoteId,
      ...(typeof c.from?.id === 'string' ? { fromId: c.from.id } : {}),
      ...(c.hidden === true ? { hidden: 'true' } : {}),
    },
  };
};

export class InstagramComments {
  constructor(private readonly call: InstagramGet) {}

  async comments(input: CommentsInput): Promise<CommentsPage> {
    // Stories take no comments.
    if (input.block.meta.kind === 'story') return { comments: [], nextCursor: null };
    const position = decode(input.cursor);
    const limit = Math.min(Math.max(input.limit, 1), PAGE_MAX);
    const media = encodeURIComponent(input.block.remoteId);
    const answer = await this.call(input.credentials, {
      method: 'GET',
      path: `/${media}/comments?fields=${FIELDS},replies{${FIELDS}}&limit=${limit}${position.after ? `&after=${encodeURIComponent(position.after)}` : ''}`,
    });
    const flat: GraphComment[] = [];
    for (const top of listOf(answer.body)) {
      flat.push(top);
      const nested = listOf(top.replies);
      flat.push(...nested);
      let after = nextOf(top.replies);
      for (let page = 0; after && typeof top.id === 'string' && page < MAX_REPLY_PAGES; page += 1) {
        const more = await this.call(input.credentials, {
          method: 'GET',
          path: `/${encodeURIComponent(top.id)}/replies?fields=${FIELDS}&limit=${PAGE_MAX}&after=${encodeURIComponent(after)}`,
        });
        flat.push(...listOf(more.body));
        after = nextOf(more.body);
      }
    }
    const since = input.since ? Math.floor(input.since.getTime() / 1000) * 1000 : null;
    const wanted = flat
      .map((c) => toRemoteComment(c, input.block))
      .filter((c): c is RemoteComment => c !== null)
      .filter((c) => since === null || Date.parse(c.createdAt) >= since);
    const end = position.skip + input.limit;
    const comments = wanted.slice(position.skip, end);
    if (end < wanted.length) return { comments, nextCursor: encode({ after: position.after, skip: end }) };
    const after = nextOf(answer.body);
    return { comments, nextCursor: after ? encode({ after, skip: 0 }) : null };
  }

  /** The comment when it is under this post and can be answered (not hidden); null otherwise. */
  async findComment(input: CommentInput): Promise<RemoteComment | null> {
    const found = await this.read(input.credentials, input.remoteId);
    if (!found || found.media?.id !== input.block.remoteId || found.hidden === true) return null;
    return toRemoteComment(found, input.block);
  }

  /** `GET /{comment}`; null when Instagram has no such comment (100/33) or shows none. */
  private async read(credentials: NetworkCredentials, id: string): Promise<GraphComment | null> {
    try {
      const answer = await this.call(credentials, {
        method: 'GET',
        path: `/${encodeURIComponent(id)}?fields=${FIELDS},media`,
      });
      return answer.body as GraphComment;
    } catch (error) {
      if (isGone(error)) return null;
      throw error;
    }
  }

  async reply(input: ReplyInput): Promise<RemoteComment> {
    if (input.media.length > 0) {
      throw new NetworkError('permanent', 'Instagram replies carry text only.');
    }
    const hashtags = hashtagCount(input.content);
    if (hashtags > MAX_HASHTAGS) {
      throw new NetworkError(
        'permanent',
        `Instagram takes at most ${MAX_HASHTAGS} hashtags in a comment; this reply has ${hashtags}.`,
      );
    }
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: `/${encodeURIComponent(input.comment.remoteId)}/replies`,
      json: { message: input.content },
    });
    const id =
      typeof (answer.body as { id?: unknown } | null)?.id === 'string'
        ? (answer.body as { id: string }).id
        : null;
    if (!id) {
      throw new NetworkError('transient', 'Instagram accepted the reply but its answer had no id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    const parent = topLevelOf(input.comment, input.block);
    // Read back for the author and time; the reply exists whatever this read says.
    const stored = await this.read(input.credentials, id).catch(() => null);
    const remote = stored ? toRemoteComment(stored, input.block) : null;
    return (
      remote ?? {
        remoteId: id,
        parentRemoteId: parent,
        author: { name: null, handle: null },
        text: input.content,
        createdAt: new Date().toISOString(),
        likeCount: null,
        url: `${baseUrl(input.block)}c/${parent}/r/${id}/`,
        meta: { mediaId: input.block.remoteId },
      }
    );
  }

  async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    const parent = topLevelOf(input.comment, input.block);
    const since = Math.floor(input.since.getTime() / 1000) * 1000;
    const account = input.credentials.remoteAccountId;
    let after: string | null = null;
    const matches: GraphComment[] = [];
    for (let page = 0; page < MAX_REPLY_PAGES; page += 1) {
      let answer: HttpAnswer;
      try {
        answer = await this.call(input.credentials, {
          method: 'GET',
          path: `/${encodeURIComponent(parent)}/replies?fields=${FIELDS}&limit=${PAGE_MAX}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        });
      } catch (error) {
        // The comment is gone, and its replies with it: nothing of the reply is there.
        if (isGone(error)) return null;
        throw error;
      }
      for (const c of listOf(answer.body)) {
        const from = c.from?.id;
        if (c.text !== input.content || graphMs(c.timestamp) < since) continue;
        if (from !== undefined && String(from) !== account) continue;
        matches.push(c);
      }
      after = nextOf(answer.body);
      if (!after) break;
    }
    // The earliest match: a later one would be a duplicate, never this reply.
    matches.sort((a, b) => graphMs(a.timestamp) - graphMs(b.timestamp));
    const first = matches[0];
    return first ? toRemoteComment(first, input.block) : null;
  }

  async deleteReply(input: DeleteReplyInput): Promise<void> {
    try {
      await this.call(input.credentials, {
        method: 'DELETE',
        path: `/${encodeURIComponent(input.reply.remoteId)}`,
      });
    } catch (error) {
      // Already gone counts as deleted.
      if (isGone(error)) return;
      throw error;
    }
  }
}

/** The top-level comment a reply to `comment` lands under (Instagram nests one level). */
const topLevelOf = (comment: RemoteComment, block: RemoteBlock) =>
  comment.parentRemoteId === block.remoteId ? comment.remoteId : comment.parentRemoteId;

/** Graph's "does not exist" (100 with subcode 33), as the client's call tags it. */
const isGone = (error: unknown) =>
  error instanceof NetworkError && (error as NetworkError & { subcode?: number }).subcode === 33;
