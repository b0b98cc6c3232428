import type {
  MetricName,
  MetricsInput,
  MetricsReading,
  NetworkCredentials,
} from '../../ports/network-client.ts';
import type { HttpAnswer } from '../network-http.ts';

/** Instagram's media insights under the stable names (`saved` is our `saves`). */
const POST_INSIGHTS: Record<string, MetricName> = {
  views: 'views',
  reach: 'reach',
  likes: 'likes',
  comments: 'comments',
  shares: 'shares',
  saved: 'saves',
};

/** Stories have no likes, comments or saves: their insights are views, reach and shares. */
const STORY_INSIGHTS = ['views', 'reach', 'shares'];

/**
 * A post's metrics: `GET /{media}/insights?metric=views,reach,likes,comments,shares,saved`
 * (lifetime values; needs `instagram_business_manage_insights`). A comment has no insights: its
 * `like_count` is read instead (an IG Comment needs `instagram_business_manage_comments`). `get`
 * is told the permission each call needs beyond basic.
 */
export const readInstagramMetrics = async (
  get: (
    credentials: NetworkCredentials,
    path: string,
    needs: 'instagram_business_manage_insights' | 'instagram_business_manage_comments',
  ) => Promise<HttpAnswer>,
  input: MetricsInput,
): Promise<MetricsReading> => {
  const id = encodeURIComponent(input.block.remoteId);
  const reading: MetricsReading = {};
  if (input.block.meta.kind === 'comment') {
    const answer = await get(
      input.credentials,
      `/${id}?fields=id,like_count`,
      'instagram_business_manage_comments',
    );
    const likes = (answer.body as { like_count?: unknown } | undefined)?.like_count;
    if (typeof likes === 'number') reading.likes = likes;
    return reading;
  }
  const metrics = input.block.meta.kind === 'story' ? STORY_INSIGHTS : Object.keys(POST_INSIGHTS);
  const answer = await get(
    input.credentials,
    `/${id}/insights?metric=${metrics.join(',')}`,
    'instagram_business_manage_insights',
  );
  const data = (answer.body as { data?: unknown } | undefined)?.data;
  for (const entry of Array.isArray(data) ? data : []) {
    const name = (entry as { name?: unknown }).name;
    const values = (entry as { values?: { value?: unknown }[] }).values;
    const value = (entry as { total_value?: { value?: unknown } }).total_value?.value ?? values?.[0]?.value;
    const stable = typeof name === 'string' ? POST_INSIGHTS[name] : undefined;
    if (stable && typeof value === 'number') reading[stable] = value;
  }
  return reading;
};
