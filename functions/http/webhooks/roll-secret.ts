import { rollWebhookSecret } from '../../core/webhooks/endpoints.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { outbound } from '../../runtime/parts/outbound.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/webhooks/{id}/roll-secret: a new signing secret, used from the next attempt on. */
export const handler = httpHandler(
  { uses: [webhooks, cipher, outbound] },
  async ({ deps, auth, params }) => ({
    status: 200,
    body: await rollWebhookSecret(deps, auth, params.id as string),
  }),
);
