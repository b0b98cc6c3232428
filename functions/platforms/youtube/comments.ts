import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteReplyInput,
  type LookupReplyInput,
  type NetworkCredentials,
  NetworkError,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import type { HttpAnswer, HttpCall } from '../network-http.ts';

/**
 * A YouTube video's comments through the Data API v3 (every call takes the `youtube.force-ssl`
 * scope, which Herald's consent asks for):
 * - `comments`: `commentThreads.list?part=snippet,replies&videoId=&order=time` (newest thread
 *   first), each top-level comment answering the video, then its replies: the up to 5 the thread
 *   carries, or all of them through `comments.list?parentId=` when `totalReplyCount` is larger.
 *   A page holds at most `limit` comments: the cursor is YouTube's `pageToken` and how far into
 *   that page of threads the previous page got (see `Position`). YouTube has two levels: every reply
 *   names its thread's top-level comment. Held-for-review and deleted comments are not listed.
 *   YouTube filters by no date: `since` is applied here. 403 `commentsDisabled` (the video's
 *   comments are off) is an empty conversation.
 * - `findComment`: `comments.list?id=` (its snippet does not say which video), then the thread
 *   (`commentThreads.list?id=`) must be under this video.
 * - `reply`: `comments.insert {snippet:{parentId, textOriginal}}`. YouTube takes replies to
 *   top-level comments only: a reply to a reply goes into its thread (parentId = the top-level
 *   comment), as YouTube's own UI does, and the reply names that top-level comment as its parent
 *   (`meta.inReplyTo` keeps the comment answered). Costs 50 quota units (a listing costs 1).
 * - `lookupReply`: the thread's replies (`comments.list?parentId=`), the channel's own (author
 *   channel id) with the same text, published since the send. YouTube takes no client key.
 * - `deleteReply`: `comments.delete?id=`; 404 (gone already) is success.
 * `textOriginal` is shown to the author only; others' comments are read from `textDisplay`
 * (asked as plain text).
 */

type Call = (
  credentials: NetworkCredentials,
  request: { method: HttpCall['method']; path: string; json?: unknown },
) => Promise<HttpAnswer>;

interface CommentResource {
  id?: string;
  snippet?: {
    videoId?: string;
    parentId?: string;
    textDisplay?: string;
    textOriginal?: string;
    authorDisplayName?: string;
    authorChannelUrl?: string;
    authorChannelId?: { value?: string };
    likeCount?: number;
    publishedAt?: string;
  };
}

interface ThreadResource {
  id?: string;
  snippet?: { videoId?: string; topLevelComment?: CommentResource; totalReplyCount?: number };
  replies?: { comments?: CommentResource[] };
}

const SCOPE = 'https://www.googleapis.com/auth/youtube.force-ssl';
/** How far a reply's `publishedAt` may be before our clock's `since` and still be the send's. */
const CLOCK_SKEW_MS = 5_000;

const reasonOf = (error: NetworkError) => /\(([A-Za-z]+)\)$/.exec(error.message)?.[1];

/** Google's 403 `insufficientPermissions` on a comment call: the grant predates the scope. */
const scoped = (error: unknown): unknown => {
  if (
    error instanceof NetworkError &&
    error.details.status === 403 &&
    reasonOf(error) === 'insufficientPermissions'
  ) {
    return new NetworkError(
      'reconnect',
      `YouTube refused the comment call: the channel's grant lacks the ${SCOPE} scope (comments need it); reconnect the channel to grant it.`,
      { status: 403, missingPermission: true },
    );
  }
  return error;
};

const itemsOf = <T>(answer: HttpAnswer): T[] => {
  const items = (answer.body as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? (items as T[]) : [];
};
const nextOf = (answer: HttpAnswer): string | null => {
  const token = (answer.body as { nextPageToken?: unknown } | undefined)?.nextPageToken;
  return typeof token === 'string' && token !== '' ? token : null;
};

/**
 * Where a page starts: YouTube's `pageToken` of a page of threads (null: the first), and how many
 * comments of that page (flattened) earlier pages took. A page ends inside a thread when its
 * replies do not fit, and the next one reads the same threads again from there.
 */
interface Position {
  pageToken: string | null;
  skip: number;
}
const cursorOf = (at: Position): string => Buffer.from(JSON.stringify(at)).toString('base64url');
const positionOf = (cursor: string | null): Position => {
  if (!cursor) return { pageToken: null, skip: 0 };
  try {
    const at = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Partial<Position>;
    if (
      (at.pageToken === null || typeof at.pageToken === 'string') &&
      Number.isInteger(at.skip) &&
      (at.skip as number) >= 0
    )
      return { pageToken: at.pageToken, skip: at.skip as number };
  } catch {
    // Refused below.
  }
  throw new NetworkError('permanent', 'This is not a YouTube comments cursor.');
};

/** The handle in `http://www.youtube.com/@handle`, without its `@`; null for other channel URLs. */
export const handleOfChannelUrl = (url: string | undefined): string | null => {
  const match = url ? /\/@([^/?#]+)/.exec(url) : null;
  return match ? decodeURIComponent(match[1] as string) : null;
};

export class YouTubeComments {
  /** Channel ids by access token (`channels.list?mine=true`), so a lookup costs one call per token. */
  private readonly channels = new Map<string, string>();

  constructor(private readonly call: Call) {}

  private async get(credentials: NetworkCredentials, path: string): Promise<HttpAnswer> {
    try {
      return await this.call(credentials, { method: 'GET', path });
    } catch (error) {
      throw scoped(error);
    }
  }

  private toRemote(resource: CommentResource, videoId: string, parent: string): RemoteComment {
    const s = resource.snippet ?? {};
    const id = resource.id ?? '';
    return {
      remoteId: id,
      parentRemoteId: parent,
      author: {
        name: s.authorDisplayName ?? null,
        handle: handleOfChannelUrl(s.authorChannelUrl),
      },
      text: s.textOriginal ?? s.textDisplay ?? '',
      createdAt: s.publishedAt ?? new Date(0).toISOString(),
      likeCount: typeof s.likeCount === 'number' ? s.likeCount : null,
      url: `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}&lc=${encodeURIComponent(id)}`,
      meta: {
        threadId: s.parentId ?? id,
        ...(s.authorChannelId?.value ? { authorChannelId: s.authorChannelId.value } : {}),
      },
    };
  }

  /** Every reply of a thread, all pages (`comments.list?parentId=`). */
  private async replies(credentials: NetworkCredentials, thread: string): Promise<CommentResource[]> {
    const all: CommentResource[] = [];
    let token: string | null = null;
    do {
      const answer = await this.get(
        credentials,
        `/youtube/v3/comments?part=snippet&textFormat=plainText&maxResults=100&parentId=${encodeURIComponent(thread)}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
      );
      all.push(...itemsOf<CommentResource>(answer));
      token = nextOf(answer);
    } while (token);
    return all;
  }

  async comments(input: CommentsInput): Promise<CommentsPage> {
    const videoId = input.block.remoteId;
    const limit = Math.min(100, Math.max(1, input.limit));
    const at = positionOf(input.cursor);
    let answer: HttpAnswer;
    try {
      answer = await this.get(
        input.credentials,
        `/youtube/v3/commentThreads?part=snippet,replies&textFormat=plainText&order=time&maxResults=${limit}&videoId=${encodeURIComponent(videoId)}${at.pageToken ? `&pageToken=${encodeURIComponent(at.pageToken)}` : ''}`,
      );
    } catch (error) {
      // The video's comments are turned off: nobody can comment, there is nothing to read.
      if (
        error instanceof NetworkError &&
        error.details.status === 403 &&
        reasonOf(error) === 'commentsDisabled'
      )
        return { comments: [], nextCursor: null };
      throw error;
    }
    // This page of threads, flattened (each top-level comment, then its replies), from `at.skip`
    // on, at most `limit` comments. A thread wholly before `skip` is counted, not read.
    const out: RemoteComment[] = [];
    let position = 0;
    let more = false;
    for (const thread of itemsOf<ThreadResource>(answer)) {
      const top = thread.snippet?.topLevelComment;
      if (!top?.id) continue;
      const inline = thread.replies?.comments ?? [];
      const total = thread.snippet?.totalReplyCount ?? 0;
      if (position + 1 + Math.max(total, inline.length) <= at.skip) {
        position += 1 + Math.max(total, inline.length);
        continue;
      }
      const replies = total > inline.length ? await this.replies(input.credentials, top.id) : inline;
      const items = [
        this.toRemote(top, videoId, videoId),
        ...replies.map((reply) => this.toRemote(reply, videoId, top.id as string)),
      ];
      for (const item of items) {
        if (position >= at.skip) {
          if (out.length === limit) {
            more = true;
            break;
          }
          out.push(item);
        }
        position += 1;
      }
      if (more) break;
    }
    const following = nextOf(answer);
    const since = input.since?.getTime();
    return {
      comments: since === undefined ? out : out.filter((c) => Date.parse(c.createdAt) >= since),
      nextCursor: more
        ? cursorOf({ pageToken: at.pageToken, skip: at.skip + out.length })
        : following
          ? cursorOf({ pageToken: following, skip: 0 })
          : null,
    };
  }

  async findComment(input: CommentInput): Promise<RemoteComment | null> {
    const videoId = input.block.remoteId;
    const found = itemsOf<CommentResource>(
      await this.get(
        input.credentials,
        `/youtube/v3/comments?part=snippet&textFormat=plainText&id=${encodeURIComponent(input.remoteId)}`,
      ),
    )[0];
    if (!found?.id) return null;
    const thread = found.snippet?.parentId ?? found.id;
    const threads = itemsOf<ThreadResource>(
      await this.get(
        input.credentials,
        `/youtube/v3/commentThreads?part=snippet&id=${encodeURIComponent(thread)}`,
      ),
    );
    if (threads[0]?.snippet?.videoId !== videoId) return null;
    return this.toRemote(found, videoId, found.snippet?.parentId ?? videoId);
  }

  /** The top-level comment a reply to `comment` goes under (YouTube threads have two levels). */
  private threadOf(block: ReplyInput['block'], comment: ReplyInput['comment']): string {
    if (comment.meta.threadId) return comment.meta.threadId;
    return comment.parentRemoteId === block.remoteId ? comment.remoteId : comment.parentRemoteId;
  }

  async reply(input: ReplyInput): Promise<RemoteComment> {
    if (input.media.length > 0) throw new NetworkError('permanent', 'YouTube replies carry text only.');
    const thread = this.threadOf(input.block, input.comment);
    let answer: HttpAnswer;
    try {
      answer = await this.call(input.credentials, {
        method: 'POST',
        path: '/youtube/v3/comments?part=snippet',
        json: { snippet: { parentId: thread, textOriginal: input.content } },
      });
    } catch (error) {
      throw scoped(error);
    }
    const resource = answer.body as CommentResource | undefined;
    if (!resource?.id) {
      throw new NetworkError('transient', 'YouTube accepted the reply but its answer had no comment id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    const reply = this.toRemote(resource, input.block.remoteId, thread);
    reply.meta.inReplyTo = input.comment.remoteId;
    return reply;
  }

  private async channelOf(credentials: NetworkCredentials): Promise<string> {
    const known = this.channels.get(credentials.accessToken);
    if (known) return known;
    const answer = await this.get(credentials, '/youtube/v3/channels?part=id&mine=true');
    const id = itemsOf<{ id?: string }>(answer)[0]?.id;
    if (!id)
      throw new NetworkError(
        'transient',
        'YouTube named no channel for this grant (channels.list?mine=true)',
      );
    if (this.channels.size > 1000) this.channels.clear();
    this.channels.set(credentials.accessToken, id);
    return id;
  }

  async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    const channel = await this.channelOf(input.credentials);
    const thread = this.threadOf(input.block, input.comment);
    const from = input.since.getTime() - CLOCK_SKEW_MS;
    for (const reply of await this.replies(input.credentials, thread)) {
      const s = reply.snippet ?? {};
      if (s.authorChannelId?.value !== channel) continue;
      if ((s.textOriginal ?? s.textDisplay) !== input.content) continue;
      if (s.publishedAt && Date.parse(s.publishedAt) < from) continue;
      const found = this.toRemote(reply, input.block.remoteId, thread);
      found.meta.inReplyTo = input.comment.remoteId;
      return found;
    }
    return null;
  }

  async deleteReply(input: DeleteReplyInput): Promise<void> {
    try {
      await this.call(input.credentials, {
        method: 'DELETE',
        path: `/youtube/v3/comments?id=${encodeURIComponent(input.reply.remoteId)}`,
      });
    } catch (error) {
      if (error instanceof NetworkError && error.details.status === 404) return;
      throw scoped(error);
    }
  }
}
