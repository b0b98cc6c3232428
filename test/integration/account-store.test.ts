import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoAccountStore } from '../../functions/adapters/aws/dynamo/account-store.ts';
import { DynamoRateLimiter } from '../../functions/adapters/aws/dynamo/rate-limits.ts';
import { FileTokenCipher, loadOrCreateKey } from '../../functions/adapters/local/file-token-cipher.ts';
import {
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from '../../functions/core/admin/admin.ts';
import { authenticateAndCount, hashSecret } from '../../functions/core/auth/api-keys.ts';
import { createTag } from '../../functions/core/tags/tags.ts';
import { systemClock } from '../../functions/ports/clock.ts';
import { freshTable } from '../support/table.ts';

let table: Awaited<ReturnType<typeof freshTable>>;
let deps: Parameters<typeof createAccount>[0];

beforeAll(async () => {
  table = await freshTable();
  const cipher = new FileTokenCipher(loadOrCreateKey(join(mkdtempSync(join(tmpdir(), 'herald-')), 'k')));
  deps = { accounts: dynamoAccountStore(table), clock: systemClock, tokenCipher: () => cipher };
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

describe('channel limit', () => {
  it('lets exactly the plan limit of concurrent connects through', async () => {
    const account = await createAccount(deps, { name: 'Small', plan: 'free' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const attempts = 20;
    const results = await Promise.allSettled(
      Array.from({ length: attempts }, (_, i) =>
        connectChannel(deps, {
          accountId: account.accountId,
          workspaceId: ws.workspaceId,
          platform: 'x',
          name: `c${i}`,
          accessToken: `t${i}`,
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected');
    // Transactions may also be cancelled by a conflicting concurrent transaction; none may overshoot.
    expect(ok).toBeLessThanOrEqual(13);
    for (const r of refused)
      expect(['quota_exceeded', undefined]).toContain((r.reason as { code?: string }).code);
    const channels = await deps.accounts.listChannels(ws.workspaceId);
    expect(channels).toHaveLength(ok);
    expect((await deps.accounts.getAccount(account.accountId))?.channelCount).toBe(ok);
    // Filling up one at a time reaches the limit exactly, then refuses.
    for (let i = ok; i < 13; i++) {
      await connectChannel(deps, {
        accountId: account.accountId,
        workspaceId: ws.workspaceId,
        platform: 'bluesky',
        name: `s${i}`,
        remoteAccountId: `did:plc:s${i}`,
        accessToken: 't',
      });
    }
    await expect(
      connectChannel(deps, {
        accountId: account.accountId,
        workspaceId: ws.workspaceId,
        platform: 'bluesky',
        name: 'one too many',
        remoteAccountId: 'did:plc:onetoomany',
        accessToken: 't',
      }),
    ).rejects.toMatchObject({ code: 'quota_exceeded' });
    expect(await deps.accounts.listChannels(ws.workspaceId)).toHaveLength(13);
  });
});

describe('connections through the API at the limit', () => {
  const remote = (accountId: string, workspaceId: string, remoteAccountId: string) => ({
    accountId,
    workspaceId,
    platform: 'x' as const,
    name: remoteAccountId,
    remoteAccountId,
    connection: 'connected' as const,
    threadsPermitted: true,
    createdAt: new Date().toISOString(),
  });
  /** Resolves once `count` callers wait on it: each connection has read the guard (none) before any writes. */
  const barrier = (count: number) => {
    let waiting = 0;
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return async () => {
      waiting += 1;
      if (waiting === count) open();
      await opened;
    };
  };

  it('connections of one new account that raced at limit - 1 make one channel; the others reconnect it, none is refused', async () => {
    const account = await createAccount(deps, { name: 'Race', plan: 'free' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    for (let i = 0; i < 12; i++) {
      await connectChannel(deps, {
        accountId: account.accountId,
        workspaceId: ws.workspaceId,
        platform: 'x',
        name: `p${i}`,
        accessToken: 't',
      });
    }
    const racers = 5;
    const wait = barrier(racers);
    const results = await Promise.all(
      Array.from({ length: racers }, () =>
        deps.accounts.upsertChannel(
          remote(account.accountId, ws.workspaceId, 'raced'),
          async (id) => {
            await wait();
            return `sealed-${id}`;
          },
          13,
        ),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.channel.channelId)).size).toBe(1);
    expect((await deps.accounts.getAccount(account.accountId))?.channelCount).toBe(13);
  });
});

describe('channels by id', () => {
  it('reads several channels of a workspace at once, only that workspace’s, absent ids left out', async () => {
    const account = await createAccount(deps, { name: 'Many', plan: 'unlimited' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const other = await createWorkspace(deps, { accountId: account.accountId, name: 'Other' });
    const connect = (workspaceId: string, platform: 'x' | 'bluesky', name: string) =>
      connectChannel(deps, {
        accountId: account.accountId,
        workspaceId,
        platform,
        name,
        // A Bluesky account is its DID.
        ...(platform === 'bluesky' ? { remoteAccountId: `did:plc:${name}` } : {}),
        accessToken: 't',
      });
    const x = await connect(ws.workspaceId, 'x', 'x');
    const bluesky = await connect(ws.workspaceId, 'bluesky', 'b');
    const elsewhere = await connect(other.workspaceId, 'x', 'elsewhere');
    const { channels: found, endpoints } = await deps.accounts.getChannelsForJob(ws.workspaceId, [
      x.channelId,
      bluesky.channelId,
      elsewhere.channelId,
      'ch_missing',
      x.channelId,
    ]);
    expect(endpoints).toBe(0);
    expect([...found.keys()].sort()).toEqual([x.channelId, bluesky.channelId].sort());
    expect(found.get(x.channelId)).toEqual(await deps.accounts.getChannel(ws.workspaceId, x.channelId));
    expect((await deps.accounts.getChannelsForJob(ws.workspaceId, [])).channels.size).toBe(0);
  });
});

describe('tags', () => {
  it('keeps names unique under concurrent creates', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        createTag(deps, { workspaceId: 'ws_race', name: i % 2 ? 'Race' : 'race ' }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await deps.accounts.listTags('ws_race')).toHaveLength(1);
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
