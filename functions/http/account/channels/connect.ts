import { connectChannelBody } from '../../../core/channels/schema.ts';
import { connectRoute, connectUses } from '../../channels/connect.ts';
import { httpHandler } from '../../pipeline.ts';

/** POST /v1/account/workspaces/{workspaceId}/channels/connect: as POST /v1/channels/connect. */
export const handler = httpHandler(
  { auth: 'user', body: connectChannelBody, uses: connectUses },
  connectRoute,
);
