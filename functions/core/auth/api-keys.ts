import { createHash, timingSafeEqual } from 'node:crypto';
import type { AccountStore, ApiKeyRecord, KeyMode, KeyPermission } from '../../ports/accounts.ts';
import { ApiError } from '../../shared/errors.ts';
import { randomBase62 } from '../../shared/ids.ts';

export const KEY_PREFIX: Record<KeyMode, string> = { live: 'sk_live_', test: 'sk_test_' };
const KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32}$/;

/** SHA-256 is enough for a 190-bit random secret: nothing to brute-force, and lookups stay one GetItem. */
export const hashSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

/** A new secret (returned once, never stored) and what is stored of it. */
export const generateSecret = (mode: KeyMode) => {
  const secret = `${KEY_PREFIX[mode]}${randomBase62(32)}`;
  return { secret, secretHash: hashSecret(secret), hint: secret.slice(0, 12) };
};

/** Reads the key from `x-api-key` or `Authorization: Bearer`; headers are lower-cased (API Gateway v2). */
export const keyFromHeaders = (headers: Record<string, string | undefined>): string | null => {
  const direct = headers['x-api-key']?.trim();
  if (direct) return direct;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1] ?? null;
};

export interface AuthContext {
  keyId: string;
  accountId: string;
  workspaceId: string;
  mode: KeyMode;
  permission: KeyPermission;
}

/**
 * The SHA-256 of a well-formed secret, or null for anything that cannot be a key (absent, wrong
 * shape): what a key is looked up by, and what the rate limit counts a request under while the
 * lookup runs (see shared/http.ts).
 */
export const keyHashOf = (secret: string | null): string | null =>
  secret && KEY_PATTERN.test(secret) ? hashSecret(secret) : null;

/** Finds the key by the hash of its secret and confirms it in constant time; any failure is the same 401. */
export const authenticateHash = async (accounts: AccountStore, hash: string | null): Promise<AuthContext> => {
  if (hash === null) throw new ApiError('unauthorized');
  const record: ApiKeyRecord | null = await accounts.findApiKey(hash);
  if (!record || !timingSafeEqual(Buffer.from(record.secretHash, 'hex'), Buffer.from(hash, 'hex'))) {
    throw new ApiError('unauthorized');
  }
  return {
    keyId: record.keyId,
    accountId: record.accountId,
    workspaceId: record.workspaceId,
    mode: record.mode,
    permission: record.permission,
  };
};

/** Finds the key by its hash and confirms it in constant time; any failure is the same 401. */
export const authenticate = (accounts: AccountStore, secret: string | null): Promise<AuthContext> =>
  authenticateHash(accounts, keyHashOf(secret));

/** Read keys may only read: anything but GET (and HEAD) needs write permission. */
export const authorize = (auth: AuthContext, method: string): void => {
  if (auth.permission === 'read' && method !== 'GET' && method !== 'HEAD') {
    throw new ApiError('forbidden', 'This API key is read-only; use a key with write permission.');
  }
};
