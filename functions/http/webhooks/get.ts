import { getWebhook } from '../../core/webhooks/endpoints.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/webhooks/{id}: one endpoint. */
export const handler = httpHandler({ uses: [webhooks] }, async ({ deps, auth, params }) => ({
  status: 200,
  body: await getWebhook(deps, auth, params.id as string),
}));
