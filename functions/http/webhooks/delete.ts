import { deleteWebhook } from '../../core/webhooks/endpoints.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { httpHandler } from '../pipeline.ts';

/** DELETE /v1/webhooks/{id}: the endpoint and its delivery history; pending retries stop. */
export const handler = httpHandler({ uses: [webhooks] }, async ({ deps, auth, params }) => {
  await deleteWebhook(deps, auth, params.id as string);
  return { status: 200, body: { id: params.id, deleted: true } };
});
