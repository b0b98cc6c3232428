import type { KeyMode } from '../domain/key-mode.ts';

export type { KeyMode };
export type KeyPermission = 'read' | 'write';

/** What the service keeps of an API key: never the secret, only its SHA-256. */
export interface ApiKeyRecord {
  keyId: string;
  secretHash: string;
  /** First characters of the secret (`sk_live_AbCd`), safe to show in lists and logs. */
  hint: string;
  accountId: string;
  workspaceId: string;
  mode: KeyMode;
  permission: KeyPermission;
  name: string;
  createdAt: string;
  /**
   * When a request last counted in the key's rate-limit window (ISO): written by the very write
   * that counts it (RateLimiter.hitKey, or the route's own write on the folded path), so no write
   * of its own. Absent: never used.
   */
  lastUsedAt?: string;
  /**
   * Epoch seconds from which the key is refused (a rolled key's grace end); also the table's TTL
   * attribute, so DynamoDB removes the item some time later. Absent: the key does not expire.
   */
  expiresAt?: number;
}

/**
 * API keys as the operator and the dashboard manage them. A request finds its key by the secret's
 * hash through the rate limiter (RateLimiter.hitKey), whose one write both finds the key and
 * counts the request.
 */
export interface KeyStore {
  /** Stores the key; fails if a key with the same secret hash exists. */
  createApiKey(key: ApiKeyRecord): Promise<void>;
  /** The workspace's keys (revoked ones are gone), newest first. */
  listApiKeys(workspaceId: string): Promise<ApiKeyRecord[]>;
  /** One key of the workspace by its id, or null. */
  findApiKey(workspaceId: string, keyId: string): Promise<ApiKeyRecord | null>;
  /** Removes the key (revoke): false when it was already gone. */
  deleteApiKey(key: ApiKeyRecord): Promise<boolean>;
  /**
   * Makes the key expire at `expiresAt` (epoch seconds) unless it already expires sooner: false
   * when the key is gone. Authentication refuses it from then on.
   */
  expireApiKey(key: ApiKeyRecord, expiresAt: number): Promise<boolean>;
  /**
   * Puts every key made before keys were listed per workspace into its workspace's list (a Scan):
   * the repair after deploying the list over older keys. Returns how many it added.
   */
  listUnlistedKeys(): Promise<number>;
}
