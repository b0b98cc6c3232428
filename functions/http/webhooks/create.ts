import { createWebhook, revealSecret } from '../../core/webhooks/endpoints.ts';
import { type CreateWebhookInput, createWebhookBody } from '../../core/webhooks/schema.ts';
import { httpHandler } from '../../shared/http.ts';
import { idempotent } from '../../shared/idempotency.ts';

// The Idempotency-Key record stores this answer: it carries the secret sealed, opened below.
const create = idempotent<CreateWebhookInput>('POST /v1/webhooks', async ({ deps, auth, body }) => ({
  status: 201,
  body: await createWebhook(deps, auth, body),
}));

/** POST /v1/webhooks: a new endpoint; the signing secret is in this answer only. */
export const handler = httpHandler({ body: createWebhookBody }, async (request) => {
  const response = await create(request);
  return {
    ...response,
    body: await revealSecret(request.deps, response.body as Parameters<typeof revealSecret>[1]),
  };
});
