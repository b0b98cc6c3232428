import { revokeKey } from '../../../core/account/keys.ts';
import { apiKeys } from '../../../runtime/parts/api-keys.ts';
import { httpHandler } from '../../pipeline.ts';

/** DELETE /v1/account/workspaces/{workspaceId}/keys/{keyId}: the key's next request is 401. */
export const handler = httpHandler({ auth: 'user', uses: [apiKeys] }, async ({ deps, auth, params }) => {
  await revokeKey(deps, auth, params.keyId as string);
  return { status: 204 };
});
