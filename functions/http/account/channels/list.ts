import { listChannelsRoute, listChannelsUses } from '../../channels/list.ts';
import { httpHandler } from '../../pipeline.ts';

/** GET /v1/account/workspaces/{workspaceId}/channels: as GET /v1/channels. */
export const handler = httpHandler({ auth: 'user', uses: listChannelsUses }, listChannelsRoute);
