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
}

/**
 * API keys as the operator creates them. A request finds its key by the secret's hash through the
 * rate limiter (RateLimiter.hitKey), whose one write both finds the key and counts the request.
 */
export interface KeyStore {
  /** Stores the key; fails if a key with the same secret hash exists. */
  createApiKey(key: ApiKeyRecord): Promise<void>;
}
