import { chooseTargetsBody } from '../../../core/channels/schema.ts';
import { chooseTargetsRoute, chooseTargetsUses } from '../../channels/targets-choose.ts';
import { httpHandler } from '../../pipeline.ts';

/** POST /v1/account/workspaces/{workspaceId}/channels/connect/{state}/targets: as the key route. */
export const handler = httpHandler(
  { auth: 'user', body: chooseTargetsBody, uses: chooseTargetsUses },
  chooseTargetsRoute,
);
