import { dynamoWorkspaceStore } from '../../adapters/aws/dynamo/workspaces.ts';
import type { WorkspaceStore } from '../../ports/workspaces.ts';
import { part } from '../compose.ts';

/** Accounts' workspaces, in the table. */
export const workspaces = part({
  name: 'workspaces',
  keys: ['workspaces'],
  build: ({ table }): { workspaces: WorkspaceStore } => ({ workspaces: dynamoWorkspaceStore(table) }),
});
