export interface Workspace {
  workspaceId: string;
  accountId: string;
  name: string;
  createdAt: string;
}

/** An account's workspaces. */
export interface WorkspaceStore {
  /** Creates the workspace (and its count of webhook endpoints, 0). */
  createWorkspace(workspace: Workspace): Promise<void>;
  getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | null>;
  listWorkspaces(accountId: string): Promise<Workspace[]>;
  /** Renames the account's workspace; null when the account has no such workspace. */
  renameWorkspace(accountId: string, workspaceId: string, name: string): Promise<Workspace | null>;
}
