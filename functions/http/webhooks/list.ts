import { listWebhooks } from '../../core/webhooks/endpoints.ts';
import { httpHandler } from '../../shared/http.ts';

/** GET /v1/webhooks: every endpoint of the workspace, disabled ones too, oldest first. */
export const handler = httpHandler({}, async ({ deps, auth }) => ({
  status: 200,
  body: { data: await listWebhooks(deps, auth) },
}));
