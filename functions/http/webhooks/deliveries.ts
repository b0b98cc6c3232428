import { listDeliveries } from '../../core/webhooks/endpoints.ts';
import type { Composed } from '../../runtime/compose.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const deliveriesUses = [webhooks] as const;

/** GET /v1/webhooks/{id}/deliveries: every attempt, newest first; stop when nextCursor is null. */
export const deliveriesRoute = async ({
  deps,
  auth,
  params,
  query,
}: HttpRequest<undefined, Composed<typeof deliveriesUses>>) => ({
  status: 200,
  body: await listDeliveries(deps, auth, params.id as string, {
    limit: query.get('limit'),
    cursor: query.get('cursor'),
  }),
});

export const handler = httpHandler({ uses: deliveriesUses }, deliveriesRoute);
