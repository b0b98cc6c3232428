import { type MetricsInput, type MetricsReading, NetworkError } from '../../ports/network-client.ts';
import { type RedditConnection, redditCall } from './http.ts';

/**
 * A block's engagement from `GET /api/info?id=<fullname>` (posts `t3_…`, comments `t1_…`): `score`
 * (upvotes less downvotes, what Reddit shows) as `likes`, and a post's `num_comments` as
 * `comments`. Reddit publishes no views or shares through the API; `upvote_ratio` has no stable
 * metric name and is left out. A post Reddit no longer lists (deleted, removed) is a permanent error.
 */
export const readRedditMetrics = async (
  connection: RedditConnection,
  input: MetricsInput,
): Promise<MetricsReading> => {
  const id = input.block.remoteId;
  const answer = await redditCall(connection, input.credentials.accessToken, {
    method: 'GET',
    path: `/api/info?id=${encodeURIComponent(id)}&raw_json=1`,
  });
  const children = (answer.body as { data?: { children?: unknown } } | null)?.data?.children;
  const data = Array.isArray(children)
    ? (
        children.find((child) => (child as { data?: { name?: unknown } })?.data?.name === id) as
          | { data?: Record<string, unknown> }
          | undefined
      )?.data
    : undefined;
  if (!data) throw new NetworkError('permanent', `Reddit no longer lists ${id}`, { status: answer.status });
  const reading: MetricsReading = {};
  if (typeof data.score === 'number') reading.likes = data.score;
  if (id.startsWith('t3_') && typeof data.num_comments === 'number') reading.comments = data.num_comments;
  return reading;
};
