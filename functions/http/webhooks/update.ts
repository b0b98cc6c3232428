import { updateWebhook } from '../../core/webhooks/endpoints.ts';
import { updateWebhookBody } from '../../core/webhooks/schema.ts';
import { outbound } from '../../runtime/parts/outbound.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { httpHandler } from '../pipeline.ts';

/** PUT /v1/webhooks/{id}: changes only the fields sent (url, events, enabled, description). */
export const handler = httpHandler(
  { body: updateWebhookBody, uses: [webhooks, outbound] },
  async ({ deps, auth, params, body }) => ({
    status: 200,
    body: await updateWebhook(deps, auth, params.id as string, body),
  }),
);
