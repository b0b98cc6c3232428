import { type MetricsInput, type MetricsReading, NetworkError } from '../../ports/network-client.ts';
import { sendOrClassify } from '../network-http.ts';
import { classifyXFailure } from './client.ts';

/** X's `public_metrics` names under the stable names (reply_count is X's comments, impression_count its views). */
const X_METRICS = {
  like_count: 'likes',
  reply_count: 'comments',
  retweet_count: 'reposts',
  quote_count: 'quotes',
  bookmark_count: 'bookmarks',
  impression_count: 'views',
} as const;

/**
 * `GET /2/tweets/:id?tweet.fields=public_metrics`. Only `public_metrics`: `non_public_metrics` and
 * `organic_metrics` need the author's user context and fail the whole request for tweets older than
 * 30 days or promoted ones, and add no stable name the public counts lack but link clicks.
 */
export const readXMetrics = async (
  connection: { baseUrl: string; timeoutMs: number },
  input: MetricsInput,
): Promise<MetricsReading> => {
  const answer = await sendOrClassify(
    {
      method: 'GET',
      url: `${connection.baseUrl}/2/tweets/${encodeURIComponent(input.block.remoteId)}?tweet.fields=public_metrics`,
      headers: { authorization: `Bearer ${input.credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
      timeoutMs: connection.timeoutMs,
    },
    classifyXFailure,
  );
  const body = answer.body as { data?: { public_metrics?: Record<string, unknown> }; errors?: unknown[] };
  // X answers a deleted or unknown tweet with 200 and an `errors` array.
  if (!body?.data) {
    throw new NetworkError('permanent', `X no longer shows tweet ${input.block.remoteId}`, {
      status: answer.status,
    });
  }
  const reading: MetricsReading = {};
  const metrics = body.data.public_metrics ?? {};
  for (const [name, stable] of Object.entries(X_METRICS)) {
    const value = metrics[name];
    if (typeof value === 'number') reading[stable] = value;
  }
  return reading;
};
