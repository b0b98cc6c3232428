import { listTargetsRoute, listTargetsUses } from '../../channels/targets-list.ts';
import { httpHandler } from '../../pipeline.ts';

/** GET /v1/account/workspaces/{workspaceId}/channels/connect/{state}/targets: as the key route. */
export const handler = httpHandler({ auth: 'user', uses: listTargetsUses }, listTargetsRoute);
