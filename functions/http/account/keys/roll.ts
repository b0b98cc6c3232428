import { rollKey, rollKeyBody } from '../../../core/account/keys.ts';
import { apiKeys } from '../../../runtime/parts/api-keys.ts';
import { httpHandler } from '../../pipeline.ts';

/**
 * POST /v1/account/workspaces/{workspaceId}/keys/{keyId}/roll: a new key like the old one; the old
 * one answers 401 once `graceSeconds` (0 to 86400, default 0) have passed.
 */
export const handler = httpHandler(
  { auth: 'user', body: rollKeyBody, uses: [apiKeys] },
  async ({ deps, auth, params, body }) => ({
    status: 201,
    body: await rollKey(deps, auth, params.keyId as string, body),
  }),
);
