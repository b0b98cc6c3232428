import { describe, expect, it } from 'vitest';
import {
  authenticateAndCount,
  generateSecret,
  hashSecret,
  isScopeOf,
  scopeHint,
} from '../../functions/core/auth/api-keys.ts';
import type { ApiKeyRecord } from '../../functions/ports/api-keys.ts';
import type { RateLimiter } from '../../functions/ports/rate-limiter.ts';

const rate = { limit: 60, remaining: 59, resetSeconds: 60, allowed: true };

/** A limiter whose key store is a map from the secret's hash to the key's record. */
const limiterOf = (records: Map<string, ApiKeyRecord>, state = rate): RateLimiter => ({
  hit: async () => state,
  hitKey: async (hash) => {
    const key = records.get(hash);
    return key ? { key, rate: state } : null;
  },
  planKeyCount: () => null,
});

const record = (secret: string, workspaceId: string, accountId = 'acct_1'): ApiKeyRecord =>
  ({
    keyId: 'key_1',
    accountId,
    workspaceId,
    mode: 'live',
    permission: 'write',
    secretHash: hashSecret(secret),
  }) as ApiKeyRecord;

describe("the key's scope hint", () => {
  it('is known only once the key has been confirmed, and follows what the key store says', async () => {
    const { secret } = generateSecret('live');
    const records = new Map([[hashSecret(secret), record(secret, 'ws_1')]]);
    expect(scopeHint(secret, new Date())).toBeNull();
    const { auth } = await authenticateAndCount(limiterOf(records), secret, new Date());
    expect(scopeHint(secret, new Date())).toEqual({ accountId: 'acct_1', workspaceId: 'ws_1' });
    expect(isScopeOf({ accountId: 'acct_1', workspaceId: 'ws_1' }, auth)).toBe(true);
    // Were the stored key ever to name another scope, the old hint no longer matches the key.
    records.set(hashSecret(secret), record(secret, 'ws_2'));
    const again = await authenticateAndCount(limiterOf(records), secret, new Date());
    expect(isScopeOf({ accountId: 'acct_1', workspaceId: 'ws_1' }, again.auth)).toBe(false);
    expect(isScopeOf({ accountId: 'acct_2', workspaceId: 'ws_2' }, again.auth)).toBe(false);
    expect(scopeHint(secret, new Date())).toEqual({ accountId: 'acct_1', workspaceId: 'ws_2' });
  });

  it('is forgotten when the key is no longer found or does not match', async () => {
    const { secret } = generateSecret('live');
    const records = new Map([[hashSecret(secret), record(secret, 'ws_1')]]);
    await authenticateAndCount(limiterOf(records), secret, new Date());
    expect(scopeHint(secret, new Date())).not.toBeNull();
    records.delete(hashSecret(secret));
    await expect(authenticateAndCount(limiterOf(records), secret, new Date())).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(scopeHint(secret, new Date())).toBeNull();

    await authenticateAndCount(
      limiterOf(new Map([[hashSecret(secret), record(secret, 'ws_1')]])),
      secret,
      new Date(),
    );
    expect(scopeHint(secret, new Date())).not.toBeNull();
    const other = generateSecret('live').secret;
    // A stored hash that does not match the one asked for (a corrupt item) is the same 401.
    const mismatched = new Map([[hashSecret(secret), record(other, 'ws_1')]]);
    await expect(authenticateAndCount(limiterOf(mismatched), secret, new Date())).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(scopeHint(secret, new Date())).toBeNull();
  });

  it('gives no hint for a key over its rate limit until its window ends', async () => {
    const { secret } = generateSecret('live');
    const records = new Map([[hashSecret(secret), record(secret, 'ws_1')]]);
    const now = new Date('2026-01-01T00:00:30Z');
    const limited = { limit: 1, remaining: 0, resetSeconds: 30, allowed: false };
    await authenticateAndCount(limiterOf(records, limited), secret, now);
    expect(scopeHint(secret, now)).toBeNull();
    expect(scopeHint(secret, new Date('2026-01-01T00:00:59Z'))).toBeNull();
    expect(scopeHint(secret, new Date('2026-01-01T00:01:00Z'))).toEqual({
      accountId: 'acct_1',
      workspaceId: 'ws_1',
    });
    await authenticateAndCount(limiterOf(records), secret, now);
    expect(scopeHint(secret, now)).not.toBeNull();
  });

  it('has no hint for anything that cannot be a key', () => {
    expect(scopeHint(null, new Date())).toBeNull();
    expect(scopeHint('sk_live_short', new Date())).toBeNull();
  });
});
