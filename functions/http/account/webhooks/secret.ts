import { webhookSecret } from '../../../core/webhooks/endpoints.ts';
import { cipher } from '../../../runtime/parts/cipher.ts';
import { webhooks } from '../../../runtime/parts/webhooks.ts';
import { httpHandler } from '../../pipeline.ts';

/** GET /v1/account/workspaces/{workspaceId}/webhooks/{id}/secret: the endpoint's signing secret, opened on demand. */
export const handler = httpHandler(
  { auth: 'user', uses: [webhooks, cipher] },
  async ({ deps, auth, params }) => ({
    status: 200,
    body: await webhookSecret(deps, auth, params.id as string),
  }),
);
