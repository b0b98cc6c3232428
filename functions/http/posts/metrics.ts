import { getPostMetrics } from '../../core/metrics/post-metrics.ts';
import { parseQuery, postMetricsQuerySchema } from '../../core/metrics/schema.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { metrics } from '../../runtime/parts/metrics.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/posts/{id}/metrics: per channel, metrics status, latest totals and the readings over time. */
export const handler = httpHandler(
  { uses: [posts, channels, metrics] },
  async ({ deps, auth, params, event }) => {
    const { granularity } = parseQuery(
      postMetricsQuerySchema,
      new URLSearchParams(event.rawQueryString ?? ''),
    );
    return { status: 200, body: await getPostMetrics(deps, auth, params.id as string, granularity) };
  },
);
