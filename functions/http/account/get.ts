import { accountOverview } from '../../core/account/workspaces.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { workspaces } from '../../runtime/parts/workspaces.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/account: the signed-in user, the account's plan and its workspaces. */
export const handler = httpHandler(
  { auth: 'user', uses: [accounts, workspaces] },
  async ({ deps, user }) => ({
    status: 200,
    body: await accountOverview(deps, user),
  }),
);
