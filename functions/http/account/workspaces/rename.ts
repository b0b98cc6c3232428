import { renameAccountWorkspace, workspaceBody } from '../../../core/account/workspaces.ts';
import { workspaces } from '../../../runtime/parts/workspaces.ts';
import { httpHandler } from '../../pipeline.ts';

/** PATCH /v1/account/workspaces/{workspaceId}: renames the workspace. */
export const handler = httpHandler(
  { auth: 'user', body: workspaceBody, uses: [workspaces] },
  async ({ deps, auth, body }) => ({
    status: 200,
    body: await renameAccountWorkspace(deps, auth, body),
  }),
);
