import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteReplyInput,
  type LookupReplyInput,
  type MediaForNetwork,
  type NetworkCredentials,
  NetworkError,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import type { HttpAnswer, HttpCall, HttpFailure } from '../network-http.ts';

/**
 * Reading a post's conversation on X (the client's `comments` and `findComment`): X API v2 has no
 * "replies of a tweet" endpoint; the conversation is recent search's `conversation_id:<root id>`
 * (https://docs.x.com/x-api/posts/search-recent-posts), and a reply's parent is its
 * `referenced_tweets[type=replied_to]`. Recent search reaches back 7 days and lags behind the
 * tweets made (seconds): a reply posted a moment ago may be missing from the first read.
 */

/** The tweet fields a comment is made of (entities: the t.co links to expand). */
export const COMMENT_FIELDS = {
  'tweet.fields':
    'author_id,created_at,conversation_id,in_reply_to_user_id,referenced_tweets,public_metrics,entities',
  expansions: 'author_id',
  'user.fields': 'name,username',
} as const;

/** X's page sizes for recent search. */
export const SEARCH_MIN_RESULTS = 10;
export const SEARCH_MAX_RESULTS = 100;

const WEEK_MS = 7 * 24 * 3600 * 1000;

export interface XCommentTweet {
  id: string;
  text: string;
  author_id?: string;
  created_at?: string;
  conversation_id?: string;
  referenced_tweets?: { type: string; id: string }[];
  public_metrics?: { like_count?: number };
  entities?: { urls?: { url?: string; expanded_url?: string; media_key?: string }[] };
}

export interface XUserView {
  id: string;
  name?: string;
  username?: string;
}

/**
 * The `start_time` of a search for comments since `since`: X refuses one more than 7 days back
 * (400 "'start_time' must be on or after ...") or less than 10 seconds before the request, so it
 * is clamped into that range (a minute inside the week, for the request's own travel time). The
 * core filters on `since` again, so a clamp never shows an older comment.
 */
export const searchStartTime = (since: Date, now: Date): string => {
  const earliest = now.getTime() - WEEK_MS + 60_000;
  const latest = now.getTime() - 10_000;
  const at = Math.min(Math.max(since.getTime(), earliest), latest);
  return `${new Date(at).toISOString().slice(0, 19)}Z`;
};

/**
 * A page cursor. Recent search returns at least 10 tweets a page: for a smaller `limit` the rest of
 * the page is served from the same X token with a skip (`<token>~<skip>`; X's tokens are base36).
 */
export const readCursor = (cursor: string | null): { token: string | null; skip: number } => {
  if (!cursor) return { token: null, skip: 0 };
  const at = cursor.lastIndexOf('~');
  if (at < 0) return { token: cursor, skip: 0 };
  const skip = Number(cursor.slice(at + 1));
  return { token: cursor.slice(0, at) || null, skip: Number.isInteger(skip) && skip > 0 ? skip : 0 };
};

export const writeCursor = (token: string | null, skip: number): string => `${token ?? ''}~${skip}`;

const unescapeEntities = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The text as its author wrote it: t.co links expanded, the media link dropped, HTML entities undone. */
export const commentText = (tweet: XCommentTweet): string => {
  let text = tweet.text;
  for (const link of tweet.entities?.urls ?? []) {
    if (!link.url) continue;
    const isMedia = link.media_key !== undefined || /\/(photo|video)\/\d+$/.test(link.expanded_url ?? '');
    text = text.split(link.url).join(isMedia ? '' : (link.expanded_url ?? link.url));
  }
  return unescapeEntities(text).trim();
};

/** A tweet of the conversation as a comment; null for one that answers nothing (the root). */
export const commentOf = (tweet: XCommentTweet, users: XUserView[]): RemoteComment | null => {
  const parent = tweet.referenced_tweets?.find((ref) => ref.type === 'replied_to')?.id;
  if (!parent) return null;
  const author = users.find((user) => user.id === tweet.author_id);
  const likes = tweet.public_metrics?.like_count;
  return {
    remoteId: tweet.id,
    parentRemoteId: parent,
    author: { name: author?.name ?? null, handle: author?.username ?? null },
    text: commentText(tweet),
    createdAt: tweet.created_at ?? new Date(0).toISOString(),
    likeCount: typeof likes === 'number' ? likes : null,
    url: `https://x.com/${author?.username ? encodeURIComponent(author.username) : 'i'}/status/${tweet.id}`,
    meta: tweet.conversation_id ? { conversationId: tweet.conversation_id } : {},
  };
};

/** What each comment call needs, as X's authentication mapping lists it. */
const READ_SCOPES = ['tweet.read', 'users.read'];
const WRITE_SCOPES = ['tweet.read', 'tweet.write', 'users.read'];

type Classify = (failure: HttpFailure, now?: Date) => NetworkError;

/** What the comment calls use of the client: its calls, its tweet path and its timeline lookup. */
export interface XCommentsDeps {
  call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; path: string },
    alsoFine: number[],
    classify: Classify,
  ): Promise<HttpAnswer>;
  createTweet(
    credentials: NetworkCredentials,
    tweet: {
      content: string;
      replyTo: string | null;
      replySettings: string | null;
      media: MediaForNetwork[];
    },
    classify: Classify,
  ): Promise<string>;
  findPosted(
    credentials: NetworkCredentials,
    content: string,
    parentId: string | null,
    since: Date,
    classify: Classify,
  ): Promise<{ id: string; created_at?: string } | null>;
  urlOf(credentials: NetworkCredentials, id: string): string;
  /** The classification of a comment call that needs `needs` to do `what` (a bare 403: missingPermission). */
  failure(needs: readonly string[], what: string): Classify;
}

/** The client's comment calls (see the top of this file). */
export const xComments = ({ call, createTweet, findPosted, urlOf, failure }: XCommentsDeps) => {
  const ownReply = (
    credentials: NetworkCredentials,
    id: string,
    parentId: string,
    content: string,
    createdAt: Date,
  ): RemoteComment => {
    const handle = credentials.remoteAccountId.replace(/^@/, '');
    return {
      remoteId: id,
      parentRemoteId: parentId,
      author: { name: null, handle: handle === '' || /^\d+$/.test(handle) ? null : handle },
      text: content,
      createdAt: createdAt.toISOString(),
      likeCount: null,
      url: urlOf(credentials, id),
      meta: {},
    };
  };

  return {
    /**
     * One page of the post's conversation from recent search: newest first, each with
     * the tweet it answers. `since` becomes `start_time`, clamped into the 7 days search covers.
     */
    async comments(input: CommentsInput): Promise<CommentsPage> {
      const { token, skip } = readCursor(input.cursor);
      const query = new URLSearchParams({
        query: `conversation_id:${input.block.remoteId}`,
        max_results: String(Math.min(SEARCH_MAX_RESULTS, Math.max(SEARCH_MIN_RESULTS, input.limit))),
        ...COMMENT_FIELDS,
      });
      if (input.since) query.set('start_time', searchStartTime(input.since, new Date()));
      if (token) query.set('next_token', token);
      const answer = await call(
        input.credentials,
        { method: 'GET', path: `/2/tweets/search/recent?${query}` },
        [],
        failure(READ_SCOPES, 'read the comments'),
      );
      const result = answer.body as
        | { data?: XCommentTweet[]; includes?: { users?: XUserView[] }; meta?: { next_token?: string } }
        | undefined;
      const tweets = result?.data ?? [];
      const users = result?.includes?.users ?? [];
      const end = skip + input.limit;
      const shown = tweets.slice(skip, end);
      const nextCursor = end < tweets.length ? writeCursor(token, end) : (result?.meta?.next_token ?? null);
      return { comments: shown.flatMap((tweet) => commentOf(tweet, users) ?? []), nextCursor };
    },

    /** `GET /2/tweets/:id`: the comment when it is in this post's conversation; null when X does not show it. */
    async findComment(input: CommentInput): Promise<RemoteComment | null> {
      if (!/^\d{1,19}$/.test(input.remoteId)) return null;
      const answer = await call(
        input.credentials,
        {
          method: 'GET',
          path: `/2/tweets/${input.remoteId}?${new URLSearchParams(COMMENT_FIELDS)}`,
        },
        [],
        failure(READ_SCOPES, 'read the comment'),
      );
      // A deleted tweet ("Not Found Error") or one this user may not see ("Authorization Error")
      // comes back as 200 with `errors` and no `data`.
      const result = answer.body as { data?: XCommentTweet; includes?: { users?: XUserView[] } } | undefined;
      const tweet = result?.data;
      if (!tweet || tweet.conversation_id !== input.block.remoteId) return null;
      return commentOf(tweet, result?.includes?.users ?? []);
    },

    /** Answers the comment with a tweet replying to it (images through the media upload, as publish). */
    async reply(input: ReplyInput): Promise<RemoteComment> {
      const id = await createTweet(
        input.credentials,
        { content: input.content, replyTo: input.comment.remoteId, replySettings: null, media: input.media },
        failure(WRITE_SCOPES, 'post the reply'),
      );
      return ownReply(input.credentials, id, input.comment.remoteId, input.content, new Date());
    },

    /**
     * The reply whose answer was lost, found like a lost post: the account's timeline since the send,
     * the same text answering the same comment. Null is proof only after `consistencyWindowSeconds`.
     */
    async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
      const tweet = await findPosted(
        input.credentials,
        input.content,
        input.comment.remoteId,
        input.since,
        failure(READ_SCOPES, "read the account's tweets"),
      );
      if (!tweet) return null;
      const createdAt = tweet.created_at ? new Date(tweet.created_at) : input.since;
      return ownReply(input.credentials, tweet.id, input.comment.remoteId, input.content, createdAt);
    },

    /** `DELETE /2/tweets/:id`; a reply X no longer has (404) counts as deleted. */
    async deleteReply(input: DeleteReplyInput): Promise<void> {
      if (!/^\d{1,19}$/.test(input.reply.remoteId)) {
        throw new NetworkError('permanent', `Not an X tweet id: ${input.reply.remoteId}`);
      }
      await call(
        input.credentials,
        { method: 'DELETE', path: `/2/tweets/${input.reply.remoteId}` },
        [404],
        failure(WRITE_SCOPES, 'delete the reply'),
      );
    },
  };
};
