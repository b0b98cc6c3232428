import { listDeliveries } from '../../core/webhooks/endpoints.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/webhooks/{id}/deliveries: every attempt, newest first; stop when nextCursor is null. */
export const handler = httpHandler({ uses: [webhooks] }, async ({ deps, auth, params, query }) => ({
  status: 200,
  body: await listDeliveries(deps, auth, params.id as string, {
    limit: query.get('limit'),
    cursor: query.get('cursor'),
  }),
}));
