import { listWebhooks } from '../../core/webhooks/endpoints.ts';
import type { Composed } from '../../runtime/compose.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const listWebhooksUses = [webhooks] as const;

/** GET /v1/webhooks: every endpoint of the workspace, disabled ones too, oldest first. */
export const listWebhooksRoute = async ({
  deps,
  auth,
}: HttpRequest<undefined, Composed<typeof listWebhooksUses>>) => ({
  status: 200,
  body: { data: await listWebhooks(deps, auth) },
});

export const handler = httpHandler({ uses: listWebhooksUses }, listWebhooksRoute);
