import { listAccountWorkspaces } from '../../../core/account/workspaces.ts';
import { workspaces } from '../../../runtime/parts/workspaces.ts';
import { httpHandler } from '../../pipeline.ts';

/** GET /v1/account/workspaces: the account's workspaces, oldest first. */
export const handler = httpHandler({ auth: 'user', uses: [workspaces] }, async ({ deps, user }) => ({
  status: 200,
  body: { data: await listAccountWorkspaces(deps, user.accountId) },
}));
