import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../domain/errors.ts';
import { randomBase62 } from '../../domain/ids.ts';
import type { ApiKeyRecord, KeyMode, KeyPermission } from '../../ports/api-keys.ts';
import type { KeyCount, KeyWindowRead, RateLimiter, RateLimitState } from '../../ports/rate-limiter.ts';

export const KEY_PREFIX: Record<KeyMode, string> = { live: 'sk_live_', test: 'sk_test_' };
const KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32}$/;

/** SHA-256 is enough for a 190-bit random secret: nothing to brute-force, and a lookup stays one key. */
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

/** The SHA-256 of a well-formed secret, or null for anything that cannot be a key (absent, wrong shape). */
export const keyHashOf = (secret: string | null): string | null =>
  secret && KEY_PATTERN.test(secret) ? hashSecret(secret) : null;

/** True from the key's `expiresAt` (epoch seconds) on: a rolled key whose grace is over. */
export const isExpired = (record: Pick<ApiKeyRecord, 'expiresAt'>, now: Date): boolean =>
  record.expiresAt !== undefined && record.expiresAt <= Math.floor(now.getTime() / 1000);

/** The key found under `hash`, confirmed in constant time and not expired; any failure is the same 401. */
const confirmed = (record: ApiKeyRecord | null, hash: string, now: Date): AuthContext => {
  if (
    !record ||
    !timingSafeEqual(Buffer.from(record.secretHash, 'hex'), Buffer.from(hash, 'hex')) ||
    isExpired(record, now)
  ) {
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

/** The account and workspace a key belongs to: what a request may read once the key is confirmed. */
export interface KeyScope {
  accountId: string;
  workspaceId: string;
}

/** How many keys an instance remembers the scope of (the oldest is forgotten first). */
const SCOPE_HINTS = 1000;
/** Each key's scope, and until when (epoch ms) its last answer said it is over its rate limit. */
const scopeHints = new Map<string, KeyScope & { limitedUntil: number }>();

/**
 * The scope this instance last confirmed for `secret`, or null. Only a hint, so a request can
 * start its reads alongside the key's check (see httpHandler's `prefetch`): nothing read with it
 * is used unless the key, once confirmed, has this very scope. A key that stopped being found is
 * forgotten, and a key over its rate limit gets no hint until its window ends (its requests are
 * refused: reading for them would only add load).
 */
export const scopeHint = (secret: string | null, now: Date): KeyScope | null => {
  const hash = keyHashOf(secret);
  const known = hash === null ? undefined : scopeHints.get(hash);
  if (!known || now.getTime() < known.limitedUntil) return null;
  return { accountId: known.accountId, workspaceId: known.workspaceId };
};

const rememberScope = (hash: string, auth: AuthContext, rate: RateLimitState, now: Date): void => {
  const limitedUntil = rate.allowed ? 0 : now.getTime() + rate.resetSeconds * 1000;
  const known = scopeHints.get(hash);
  if (known?.accountId === auth.accountId && known.workspaceId === auth.workspaceId) {
    known.limitedUntil = limitedUntil;
    return;
  }
  scopeHints.delete(hash);
  if (scopeHints.size >= SCOPE_HINTS) {
    const oldest = scopeHints.keys().next();
    if (!oldest.done) scopeHints.delete(oldest.value);
  }
  scopeHints.set(hash, { accountId: auth.accountId, workspaceId: auth.workspaceId, limitedUntil });
};

/**
 * The folded path (see httpHandler's `keyRead`): the key's item, read with the route's own reads,
 * confirmed as `authenticateAndCount` confirms it (constant-time), and the count of this request
 * that the route's write is to carry. Null whenever this cannot be decided from the read alone
 * (no such key, a hash that does not match, a window to start, the limit reached): the request is
 * then authenticated and counted by `authenticateAndCount`, which answers as always.
 */
export const authenticateFromRead = (
  limiter: RateLimiter,
  secret: string | null,
  read: KeyWindowRead | null | undefined,
  now: Date,
): { auth: AuthContext; rate: RateLimitState; count: KeyCount } | null => {
  const hash = keyHashOf(secret);
  if (hash === null || !read) return null;
  let auth: AuthContext;
  try {
    auth = confirmed(read.key, hash, now);
  } catch {
    return null;
  }
  const planned = limiter.planKeyCount(read, now);
  if (!planned) return null;
  rememberScope(hash, auth, planned.rate, now);
  return { auth, rate: planned.rate, count: planned.count };
};

/** True when `scope` is the confirmed key's own account and workspace. */
export const isScopeOf = (scope: KeyScope, auth: AuthContext): boolean =>
  scope.accountId === auth.accountId && scope.workspaceId === auth.workspaceId;

/**
 * What every request does first: finds the key by its hash and counts the request in the key's
 * rate-limit window, in one write (see RateLimiter.hitKey). Any failure to find the key is the
 * same 401, and then nothing was counted: the caller limits such requests by address.
 */
export const authenticateAndCount = async (
  limiter: RateLimiter,
  secret: string | null,
  now: Date,
): Promise<{ auth: AuthContext; rate: RateLimitState }> => {
  const hash = keyHashOf(secret);
  if (hash === null) throw new ApiError('unauthorized');
  const found = await limiter.hitKey(hash, now);
  if (!found) {
    scopeHints.delete(hash);
    throw new ApiError('unauthorized');
  }
  let auth: AuthContext;
  try {
    auth = confirmed(found.key, hash, now);
  } catch (error) {
    scopeHints.delete(hash);
    throw error;
  }
  rememberScope(hash, auth, found.rate, now);
  return { auth, rate: found.rate };
};

/** Who may call a route: any valid key, or live keys only (routes that change channels). */
export type KeyModes = 'any' | 'live';

/**
 * Read keys may only read: anything but GET (and HEAD) needs write permission. A route for live
 * keys only refuses test keys before it does anything: channels are shared by both modes and
 * connecting, choosing targets or disconnecting calls the network (a test key never does).
 */
export const authorize = (auth: AuthContext, method: string, modes: KeyModes = 'any'): void => {
  if (auth.permission === 'read' && method !== 'GET' && method !== 'HEAD') {
    throw new ApiError('forbidden', 'This API key is read-only; use a key with write permission.');
  }
  if (modes === 'live' && auth.mode !== 'live') {
    throw new ApiError(
      'forbidden',
      'Test keys cannot connect, complete or disconnect channels: channels are shared by live and test keys, and a test key makes no network call. Use a live key; a test key can post to any channel of its workspace in the sandbox.',
    );
  }
};
