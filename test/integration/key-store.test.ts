/** API keys in the table (KeyStore), and the rate limiter that finds a request's key by its hash and counts it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRateLimiter } from '../../functions/adapters/aws/dynamo/rate-limits.ts';
import { createAccount, createApiKey, createWorkspace } from '../../functions/core/admin/admin.ts';
import { authenticateAndCount, hashSecret } from '../../functions/core/auth/api-keys.ts';
import { type StoreDeps, tableStores } from '../support/stores.ts';
import { freshTable } from '../support/table.ts';

let table: Awaited<ReturnType<typeof freshTable>>;
let deps: StoreDeps;

beforeAll(async () => {
  table = await freshTable();
  deps = tableStores(table);
});
afterAll(async () => {
  await table?.drop();
});

describe('API keys in the table', () => {
  it('authenticates by hash and never stores the secret', async () => {
    const account = await createAccount(deps, { name: 'A', plan: 'starter' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const { secret, keyId } = await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'test',
      permission: 'read',
      name: 'k',
    });
    const limiter = new DynamoRateLimiter(table, 30);
    const { auth } = await authenticateAndCount(limiter, secret, new Date());
    expect(auth).toEqual({
      keyId,
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'test',
      permission: 'read',
    });
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const all = await table.doc.send(new ScanCommand({ TableName: table.tableName }));
    expect(JSON.stringify(all.Items)).not.toContain(secret);
    // Another last character (a secret may end with any of them, 'x' included).
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
    await expect(authenticateAndCount(limiter, wrong, new Date())).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });
});

describe('rate limiter', () => {
  it('counts every concurrent hit exactly once', async () => {
    const limiter = new DynamoRateLimiter(table, 30);
    const now = new Date('2026-11-21T10:00:05Z');
    const states = await Promise.all(Array.from({ length: 50 }, () => limiter.hit('key:k1', now)));
    expect(states.filter((s) => s.allowed)).toHaveLength(30);
    expect(new Set(states.map((s) => s.remaining)).has(0)).toBe(true);
    expect(states[0]?.resetSeconds).toBe(55);
    const nextWindow = await limiter.hit('key:k1', new Date('2026-11-21T10:01:00Z'));
    expect(nextWindow).toMatchObject({ allowed: true, remaining: 29, resetSeconds: 60 });
  });
});

describe('rate limiter on the key item', () => {
  const newKey = async () => {
    const account = await createAccount(deps, { name: 'R', plan: 'starter' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const { secret, keyId } = await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'write',
      name: 'k',
    });
    return { secret, keyId, hash: hashSecret(secret) };
  };

  it('finds the key and counts every concurrent hit exactly once, the window start included', async () => {
    const { secret, keyId, hash } = await newKey();
    const limiter = new DynamoRateLimiter(table, 30);
    const now = new Date('2026-11-21T10:00:05Z');
    // The key's first requests race to start its window: each is still counted once.
    const results = await Promise.all(Array.from({ length: 50 }, () => limiter.hitKey(hash, now)));
    expect(results.every((r) => r?.key.keyId === keyId)).toBe(true);
    const states = results.map((r) => r?.rate);
    expect(states.filter((s) => s?.allowed)).toHaveLength(30);
    expect(states.map((s) => s?.remaining).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      ...Array.from({ length: 21 }, () => 0),
      ...Array.from({ length: 29 }, (_, i) => i + 1),
    ]);
    expect(states[0]?.resetSeconds).toBe(55);
    // The next window starts again at one, and the key still authenticates.
    const next = await limiter.hitKey(hash, new Date('2026-11-21T10:01:00Z'));
    expect(next?.rate).toMatchObject({ allowed: true, remaining: 29, resetSeconds: 60 });
    await expect(authenticateAndCount(limiter, secret, new Date())).resolves.toMatchObject({
      auth: { keyId },
    });
  });

  it('counts in a later window another instance started (its clock ahead) instead of going back', async () => {
    const { hash } = await newKey();
    const limiter = new DynamoRateLimiter(table, 30);
    await limiter.hitKey(hash, new Date('2026-11-21T10:01:00Z'));
    const behind = await limiter.hitKey(hash, new Date('2026-11-21T10:00:59Z'));
    expect(behind?.rate).toMatchObject({ allowed: true, remaining: 28, resetSeconds: 60 });
  });

  it('answers null for a hash no key has, and stores nothing for it', async () => {
    const limiter = new DynamoRateLimiter(table, 30);
    const hash = hashSecret('sk_live_00000000000000000000000000000000');
    expect(await limiter.hitKey(hash, new Date())).toBeNull();
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const out = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: { PK: `APIKEY#${hash}`, SK: 'APIKEY' } }),
    );
    expect(out.Item).toBeUndefined();
  });
});
