import { disconnectRoute, disconnectUses } from '../../channels/delete.ts';
import { httpHandler } from '../../pipeline.ts';

/** DELETE /v1/account/workspaces/{workspaceId}/channels/{id}: as DELETE /v1/channels/{id}. */
export const handler = httpHandler({ auth: 'user', uses: disconnectUses }, disconnectRoute);
