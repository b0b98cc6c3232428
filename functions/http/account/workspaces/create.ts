import { createAccountWorkspace, workspaceBody } from '../../../core/account/workspaces.ts';
import { workspaces } from '../../../runtime/parts/workspaces.ts';
import { httpHandler } from '../../pipeline.ts';

/** POST /v1/account/workspaces: a new workspace of the account. */
export const handler = httpHandler(
  { auth: 'user', body: workspaceBody, uses: [workspaces] },
  async ({ deps, user, body }) => ({
    status: 201,
    body: await createAccountWorkspace(deps, user.accountId, body),
  }),
);
