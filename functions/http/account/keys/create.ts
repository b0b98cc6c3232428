import { createKey, createKeyBody } from '../../../core/account/keys.ts';
import { apiKeys } from '../../../runtime/parts/api-keys.ts';
import { httpHandler } from '../../pipeline.ts';

/** POST /v1/account/workspaces/{workspaceId}/keys: a new key; its secret is in this answer only. */
export const handler = httpHandler(
  { auth: 'user', body: createKeyBody, uses: [apiKeys] },
  async ({ deps, auth, body }) => ({ status: 201, body: await createKey(deps, auth, body) }),
);
