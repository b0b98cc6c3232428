import type { MetricName, MetricsInput, MetricsReading } from '../../ports/network-client.ts';
import type { HttpAnswer, HttpCall } from '../network-http.ts';

/** Threads' media insights under the stable names (its replies are the comments of other networks). */
const THREADS_METRICS: Record<string, MetricName> = {
  views: 'views',
  likes: 'likes',
  replies: 'comments',
  reposts: 'reposts',
  quotes: 'quotes',
  shares: 'shares',
};

/** A metric's value: `values[0].value` (lifetime metrics) or `total_value.value`. */
const metricValue = (item: Record<string, unknown>): number | undefined => {
  const values = item.values;
  if (Array.isArray(values)) {
    const first = (values[0] as { value?: unknown } | undefined)?.value;
    if (typeof first === 'number') return first;
  }
  const total = (item.total_value as { value?: unknown } | undefined)?.value;
  return typeof total === 'number' ? total : undefined;
};

/**
 * `GET /{media-id}/insights?metric=views,likes,replies,reposts,quotes,shares` (permission
 * `threads_manage_insights`). A reply block reads the same way by its own media id. A metric
 * Threads leaves out of the answer is absent from the reading, not 0.
 */
export const readThreadsMetrics = async (
  call: (request: { method: HttpCall['method']; path: string }) => Promise<HttpAnswer>,
  input: MetricsInput,
): Promise<MetricsReading> => {
  const answer = await call({
    method: 'GET',
    path: `/${encodeURIComponent(input.block.remoteId)}/insights?metric=${Object.keys(THREADS_METRICS).join(',')}`,
  });
  const data = (answer.body as { data?: unknown } | undefined)?.data;
  const reading: MetricsReading = {};
  for (const item of Array.isArray(data) ? data : []) {
    if (!item || typeof item !== 'object') continue;
    const name = THREADS_METRICS[(item as { name?: unknown }).name as string];
    const value = metricValue(item as Record<string, unknown>);
    if (name && value !== undefined) reading[name] = value;
  }
  return reading;
};
