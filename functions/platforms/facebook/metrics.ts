import type { MetricsInput, MetricsReading, NetworkCredentials } from '../../ports/network-client.ts';
import type { HttpAnswer } from '../network-http.ts';

/** A GET on the Graph API with the channel's page token (the client's `call`). */
export type GraphGet = (credentials: NetworkCredentials, path: string) => Promise<HttpAnswer>;

const numberAt = (value: unknown, ...path: string[]): number | undefined => {
  let at: unknown = value;
  for (const key of path) at = (at as Record<string, unknown> | null | undefined)?.[key];
  return typeof at === 'number' ? at : undefined;
};

const put = (reading: MetricsReading, name: keyof MetricsReading, value: number | undefined) => {
  if (value !== undefined) reading[name] = value;
};

/**
 * The post metrics Facebook reports: `likes` (all reactions, `reactions.summary(total_count)`),
 * `comments` (`comments.summary(total_count)`), `shares` (`shares.count`; Graph leaves the field
 * out while a post has no shares, which is 0 shares) from the post itself, and from
 * `/{post}/insights` `views` (`post_media_view`) and `reach` (`post_total_media_view_unique`, which
 * replaced the deprecated `post_impressions_unique`). A comment block reads `like_count` and
 * `comment_count` (its replies) from the comment.
 */
export const readFacebookMetrics = async (get: GraphGet, input: MetricsInput): Promise<MetricsReading> => {
  const { block, credentials } = input;
  const reading: MetricsReading = {};
  if (block.meta.commentId) {
    const answer = await get(
      credentials,
      `/${encodeURIComponent(block.meta.commentId)}?fields=like_count,comment_count`,
    );
    put(reading, 'likes', numberAt(answer.body, 'like_count'));
    put(reading, 'comments', numberAt(answer.body, 'comment_count'));
    return reading;
  }
  const postId = encodeURIComponent(block.meta.postId ?? block.remoteId);
  const post = await get(
    credentials,
    `/${postId}?fields=${encodeURIComponent('reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares')}`,
  );
  const likes = numberAt(post.body, 'reactions', 'summary', 'total_count');
  put(reading, 'likes', likes);
  put(reading, 'comments', numberAt(post.body, 'comments', 'summary', 'total_count'));
  put(reading, 'shares', numberAt(post.body, 'shares', 'count') ?? (likes !== undefined ? 0 : undefined));
  const insights = await get(
    credentials,
    `/${postId}/insights?metric=post_media_view,post_total_media_view_unique&period=lifetime`,
  );
  for (const entry of ((insights.body as { data?: unknown[] } | undefined)?.data ?? []) as {
    name?: unknown;
    values?: { value?: unknown }[];
  }[]) {
    const value = entry.values?.[0]?.value;
    if (typeof value !== 'number') continue;
    if (entry.name === 'post_media_view') reading.views = value;
    if (entry.name === 'post_total_media_view_unique') reading.reach = value;
  }
  return reading;
};
