import { listKeys } from '../../../core/account/keys.ts';
import { apiKeys } from '../../../runtime/parts/api-keys.ts';
import { httpHandler } from '../../pipeline.ts';

/** GET /v1/account/workspaces/{workspaceId}/keys: the workspace's keys, newest first (never a secret). */
export const handler = httpHandler({ auth: 'user', uses: [apiKeys] }, async ({ deps, auth }) => ({
  status: 200,
  body: { data: await listKeys(deps, auth) },
}));
