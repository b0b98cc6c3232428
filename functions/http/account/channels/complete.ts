import { completeConnectBody } from '../../../core/channels/schema.ts';
import { completeRoute, completeUses } from '../../channels/complete.ts';
import { idempotent } from '../../idempotency.ts';
import { httpHandler } from '../../pipeline.ts';

/** POST /v1/account/workspaces/{workspaceId}/channels/connect/complete: as POST /v1/channels/connect/complete. */
export const handler = httpHandler(
  { auth: 'user', body: completeConnectBody, uses: completeUses },
  idempotent('POST /v1/account/workspaces/{workspaceId}/channels/connect/complete', completeRoute),
);
