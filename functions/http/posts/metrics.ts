import { getPostMetrics } from '../../core/metrics/post-metrics.ts';
import { parseQuery, postMetricsQuerySchema } from '../../core/metrics/schema.ts';
import type { Composed } from '../../runtime/compose.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { metrics } from '../../runtime/parts/metrics.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const postMetricsUses = [posts, channels, metrics] as const;

/** GET /v1/posts/{id}/metrics: per channel, metrics status, latest totals and the readings over time. */
export const postMetricsRoute = async ({
  deps,
  auth,
  params,
  event,
}: HttpRequest<undefined, Composed<typeof postMetricsUses>>) => {
  const { granularity } = parseQuery(postMetricsQuerySchema, new URLSearchParams(event.rawQueryString ?? ''));
  return { status: 200, body: await getPostMetrics(deps, auth, params.id as string, granularity) };
};

export const handler = httpHandler({ uses: postMetricsUses }, postMetricsRoute);
