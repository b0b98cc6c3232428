import type { PlanName } from '../domain/plans.ts';

export interface Account {
  accountId: string;
  name: string;
  plan: PlanName;
  /** Connected channels across all workspaces (kept by the same transaction that connects one). */
  channelCount: number;
  /** Stored media bytes across all workspaces (kept by the media capability). */
  storageBytes?: number;
  createdAt: string;
}

/** Accounts and their plan (what the plan's limits are checked against). */
export interface AccountStore {
  createAccount(account: Account): Promise<void>;
  getAccount(accountId: string): Promise<Account | null>;
  setPlan(accountId: string, plan: PlanName): Promise<void>;
}
