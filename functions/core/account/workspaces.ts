/**
 * The account's workspaces as the dashboard manages them (issue 29): list, create, rename, and
 * the account overview the dashboard opens with. Plans set no limit on workspaces
 * (domain/plans.ts); the account's keys, channels and posts are limited per plan instead.
 */
import * as z from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { AccountStore } from '../../ports/accounts.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Workspace, WorkspaceStore } from '../../ports/workspaces.ts';

/** What the workspace use cases need. */
export interface WorkspaceDeps {
  workspaces: WorkspaceStore;
  clock: Clock;
}

/** The signed-in person, as the pipeline's user mode found them. */
export interface AccountUser {
  userId: string;
  accountId: string;
  email: string;
}

/** POST /v1/account/workspaces and PATCH /v1/account/workspaces/{workspaceId}. */
export const workspaceBody = z.strictObject({
  name: z
    .string({ error: () => 'The name is a string.' })
    .trim()
    .min(1, 'The name must not be empty.')
    .max(100, 'The name must be at most 100 characters.'),
});
export type WorkspaceInput = z.output<typeof workspaceBody>;

/** A workspace as the dashboard shows it. */
export const workspaceView = (workspace: Workspace) => ({
  id: workspace.workspaceId,
  name: workspace.name,
  createdAt: workspace.createdAt,
});
export type WorkspaceView = ReturnType<typeof workspaceView>;

/** The account's workspaces, oldest first. */
export const listAccountWorkspaces = async (
  deps: Pick<WorkspaceDeps, 'workspaces'>,
  accountId: string,
): Promise<WorkspaceView[]> =>
  (await deps.workspaces.listWorkspaces(accountId))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.workspaceId.localeCompare(b.workspaceId))
    .map(workspaceView);

export const createAccountWorkspace = async (
  deps: WorkspaceDeps,
  accountId: string,
  input: WorkspaceInput,
): Promise<WorkspaceView> => {
  const workspace: Workspace = {
    workspaceId: newId('ws'),
    accountId,
    name: input.name,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.workspaces.createWorkspace(workspace);
  return workspaceView(workspace);
};

export const renameAccountWorkspace = async (
  deps: Pick<WorkspaceDeps, 'workspaces'>,
  scope: { accountId: string; workspaceId: string },
  input: WorkspaceInput,
): Promise<WorkspaceView> => {
  const renamed = await deps.workspaces.renameWorkspace(scope.accountId, scope.workspaceId, input.name);
  if (!renamed) throw new ApiError('not_found', 'No workspace with this id in your account.');
  return workspaceView(renamed);
};

/** GET /v1/account: who is signed in, their account's plan and its workspaces. */
export const accountOverview = async (
  deps: { accounts: AccountStore; workspaces: WorkspaceStore },
  user: AccountUser,
) => {
  const [account, workspaces] = await Promise.all([
    deps.accounts.getAccount(user.accountId),
    listAccountWorkspaces(deps, user.accountId),
  ]);
  if (!account) throw new ApiError('forbidden', 'This user has no Herald account.');
  return {
    user: { id: user.userId, email: user.email },
    account: { id: account.accountId, plan: account.plan },
    workspaces,
  };
};
