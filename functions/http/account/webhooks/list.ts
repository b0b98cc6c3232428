import { httpHandler } from '../../pipeline.ts';
import { listWebhooksRoute, listWebhooksUses } from '../../webhooks/list.ts';

/** GET /v1/account/workspaces/{workspaceId}/webhooks: as GET /v1/webhooks. */
export const handler = httpHandler({ auth: 'user', uses: listWebhooksUses }, listWebhooksRoute);
