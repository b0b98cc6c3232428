import type { RemoteComment } from '../../ports/network-client.ts';

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
