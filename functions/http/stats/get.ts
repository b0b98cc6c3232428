import { parseQuery, statsQuerySchema } from '../../core/metrics/schema.ts';
import { getStats } from '../../core/metrics/stats.ts';
import { metrics } from '../../runtime/parts/metrics.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/stats?from&to: totals of the workspace's posts published in the range, per platform and overall. */
export const handler = httpHandler({ uses: [posts, metrics] }, async ({ deps, auth, event }) => {
  const query = parseQuery(statsQuerySchema, new URLSearchParams(event.rawQueryString ?? ''));
  return { status: 200, body: await getStats(deps, auth, query) };
});
