import { rollWebhookSecret } from '../../core/webhooks/endpoints.ts';
import { httpHandler } from '../../shared/http.ts';

/** POST /v1/webhooks/{id}/roll-secret: a new signing secret, used from the next attempt on. */
export const handler = httpHandler({}, async ({ deps, auth, params }) => ({
  status: 200,
  body: await rollWebhookSecret(deps, auth, params.id as string),
}));
