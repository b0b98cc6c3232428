import { httpHandler } from '../../pipeline.ts';
import { postMetricsRoute, postMetricsUses } from '../../posts/metrics.ts';

/** GET /v1/account/workspaces/{workspaceId}/posts/{id}/metrics: as GET /v1/posts/{id}/metrics. */
export const handler = httpHandler({ auth: 'user', uses: postMetricsUses }, postMetricsRoute);
