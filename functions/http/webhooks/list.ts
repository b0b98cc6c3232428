import { listWebhooks } from '../../core/webhooks/endpoints.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/webhooks: every endpoint of the workspace, disabled ones too, oldest first. */
export const handler = httpHandler({ uses: [webhooks] }, async ({ deps, auth }) => ({
  status: 200,
  body: { data: await listWebhooks(deps, auth) },
}));
