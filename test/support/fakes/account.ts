import type { ApiKeyRecord, KeyStore } from '../../../functions/ports/api-keys.ts';
import type { Workspace, WorkspaceStore } from '../../../functions/ports/workspaces.ts';

/** API keys in memory, by secret hash, as the table keeps them (a revoked key's item is gone). */
export class FakeKeyStore implements KeyStore {
  readonly byHash = new Map<string, ApiKeyRecord>();

  async createApiKey(key: ApiKeyRecord): Promise<void> {
    if (this.byHash.has(key.secretHash)) throw new Error('A key with this hash exists');
    this.byHash.set(key.secretHash, { ...key });
  }

  async listApiKeys(workspaceId: string): Promise<ApiKeyRecord[]> {
    return [...this.byHash.values()]
      .filter((key) => key.workspaceId === workspaceId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.keyId.localeCompare(a.keyId))
      .map((key) => ({ ...key }));
  }

  async findApiKey(workspaceId: string, keyId: string): Promise<ApiKeyRecord | null> {
    return (await this.listApiKeys(workspaceId)).find((key) => key.keyId === keyId) ?? null;
  }

  async deleteApiKey(key: ApiKeyRecord): Promise<boolean> {
    if (this.byHash.get(key.secretHash)?.keyId !== key.keyId) return false;
    return this.byHash.delete(key.secretHash);
  }

  async expireApiKey(key: ApiKeyRecord, expiresAt: number): Promise<boolean> {
    const stored = this.byHash.get(key.secretHash);
    if (stored?.keyId !== key.keyId) return false;
    if (stored.expiresAt === undefined || stored.expiresAt > expiresAt) stored.expiresAt = expiresAt;
    return true;
  }

  /** Every key here is in its workspace's list from its creation: none to add. */
  async listUnlistedKeys(): Promise<number> {
    return 0;
  }
}

/** Workspaces in memory. */
export class FakeWorkspaceStore implements WorkspaceStore {
  readonly items: Workspace[] = [];

  async createWorkspace(workspace: Workspace): Promise<void> {
    this.items.push({ ...workspace });
  }

  async getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | null> {
    const found = this.items.find((w) => w.accountId === accountId && w.workspaceId === workspaceId);
    return found ? { ...found } : null;
  }

  async listWorkspaces(accountId: string): Promise<Workspace[]> {
    return this.items.filter((w) => w.accountId === accountId).map((w) => ({ ...w }));
  }

  async renameWorkspace(accountId: string, workspaceId: string, name: string): Promise<Workspace | null> {
    const found = this.items.find((w) => w.accountId === accountId && w.workspaceId === workspaceId);
    if (!found) return null;
    found.name = name;
    return { ...found };
  }
}
