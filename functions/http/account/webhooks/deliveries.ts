import { httpHandler } from '../../pipeline.ts';
import { deliveriesRoute, deliveriesUses } from '../../webhooks/deliveries.ts';

/** GET /v1/account/workspaces/{workspaceId}/webhooks/{id}/deliveries: as GET /v1/webhooks/{id}/deliveries. */
export const handler = httpHandler({ auth: 'user', uses: deliveriesUses }, deliveriesRoute);
