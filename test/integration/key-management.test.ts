/**
 * The dashboard's key management over DynamoDB Local: the workspace's key list (GSI1), revoke,
 * roll with a grace (the TTL attribute), and what authentication makes of them on both paths: the
 * usual one (RateLimiter.hitKey) and the folded one (a read of the key's item, then the count
 * carried by the route's own write). Times are passed in, so nothing waits for a grace to end.
 */
import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyWindowFromItem } from '../../functions/adapters/aws/dynamo/api-keys.ts';
import { keys, TABLE_KEYS } from '../../functions/adapters/aws/dynamo/keys.ts';
import { DynamoRateLimiter, keyCountItem } from '../../functions/adapters/aws/dynamo/rate-limits.ts';
import { createKey, listKeys, revokeKey, rollKey } from '../../functions/core/account/keys.ts';
import { createAccount, createWorkspace } from '../../functions/core/admin/admin.ts';
import {
  authenticateAndCount,
  authenticateFromRead,
  hashSecret,
} from '../../functions/core/auth/api-keys.ts';
import type { KeyWindowRead } from '../../functions/ports/rate-limiter.ts';
import { FakeClock } from '../support/fakes/clock.ts';
import { type StoreDeps, tableStores } from '../support/stores.ts';
import { freshTable } from '../support/table.ts';

let table: Awaited<ReturnType<typeof freshTable>>;
let deps: StoreDeps;
let clock: FakeClock;
let scope: { accountId: string; workspaceId: string };
let limiter: DynamoRateLimiter;

beforeAll(async () => {
  table = await freshTable();
  clock = new FakeClock('2026-11-29T12:00:00.000Z');
  deps = tableStores(table, clock);
  const account = await createAccount(deps, { name: 'A', plan: 'starter' });
  const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
  scope = { accountId: account.accountId, workspaceId: ws.workspaceId };
  limiter = new DynamoRateLimiter(table, 30);
});
afterAll(async () => {
  await table?.drop();
});

const at = (iso: string) => new Date(iso);

/** The key's item as the folded path reads it (null: no item). */
const readKey = async (secret: string): Promise<KeyWindowRead | null> => {
  const out = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: keys.apiKey(hashSecret(secret)),
      ConsistentRead: true,
    }),
  );
  return out.Item ? keyWindowFromItem(out.Item) : null;
};

/** The folded path's count, carried by a transaction of its own (as a route's write carries it). */
const countByTransaction = async (secret: string, now: Date): Promise<'counted' | 'refused'> => {
  const read = await readKey(secret);
  if (!read) return 'refused';
  const planned = limiter.planKeyCount(read, now);
  if (!planned) throw new Error('no count planned');
  try {
    await table.doc.send(
      new TransactWriteCommand({ TransactItems: [keyCountItem(table.tableName, planned.count)] }),
    );
    return 'counted';
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') return 'refused';
    throw error;
  }
};

describe("a workspace's keys in the table", () => {
  it('lists newest first with lastUsedAt written by the count itself', async () => {
    const first = await createKey(deps, scope, { name: 'one', mode: 'live', permission: 'write' });
    clock.advance(1);
    const second = await createKey(deps, scope, { name: 'two', mode: 'test', permission: 'read' });
    const listed = await listKeys(deps, scope);
    expect(listed.map((k) => k.id)).toEqual([second.id, first.id]);
    expect(listed[1]).toEqual({
      id: first.id,
      name: 'one',
      prefix: first.secret.slice(0, 12),
      mode: 'live',
      permission: 'write',
      createdAt: first.createdAt,
      lastUsedAt: null,
      expiresAt: null,
    });
    // The window's start (the second write of a new window) and a count in it both record the time.
    await authenticateAndCount(limiter, first.secret, at('2026-11-29T12:05:01.000Z'));
    expect((await listKeys(deps, scope))[1]?.lastUsedAt).toBe('2026-11-29T12:05:01.000Z');
    await authenticateAndCount(limiter, first.secret, at('2026-11-29T12:05:07.000Z'));
    expect((await listKeys(deps, scope))[1]?.lastUsedAt).toBe('2026-11-29T12:05:07.000Z');
    expect(await countByTransaction(first.secret, at('2026-11-29T12:05:09.000Z'))).toBe('counted');
    expect((await listKeys(deps, scope))[1]?.lastUsedAt).toBe('2026-11-29T12:05:09.000Z');
    // Another workspace of the same account sees none of them.
    const other = await createWorkspace(deps, { accountId: scope.accountId, name: 'Other' });
    expect(await listKeys(deps, { accountId: scope.accountId, workspaceId: other.workspaceId })).toEqual([]);
  });

  it('revokes: the key item is gone, and both paths answer 401 at once', async () => {
    const key = await createKey(deps, scope, { mode: 'live', permission: 'write' });
    const now = at('2026-11-29T12:10:01.000Z');
    await authenticateAndCount(limiter, key.secret, now);
    // The read the folded path starts with, taken before the revoke, confirms the key...
    const before = await readKey(key.secret);
    expect(authenticateFromRead(limiter, key.secret, before, now)).not.toBeNull();
    await revokeKey(deps, scope, key.id);
    expect(await readKey(key.secret)).toBeNull();
    // ...but a read after it finds nothing (the request goes the usual way)...
    expect(authenticateFromRead(limiter, key.secret, await readKey(key.secret), now)).toBeNull();
    // ...and a route write that carries the count planned from the earlier read is refused.
    const planned = before && limiter.planKeyCount(before, now);
    if (!planned) throw new Error('no count planned');
    await expect(
      table.doc.send(
        new TransactWriteCommand({ TransactItems: [keyCountItem(table.tableName, planned.count)] }),
      ),
    ).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    await expect(authenticateAndCount(limiter, key.secret, now)).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect((await listKeys(deps, scope)).map((k) => k.id)).not.toContain(key.id);
  });

  it('rolls with a grace: both keys work until it ends, then the old one is refused on both paths', async () => {
    clock.set('2026-11-29T13:00:00.000Z');
    const old = await createKey(deps, scope, { name: 'deploy', mode: 'live', permission: 'write' });
    await authenticateAndCount(limiter, old.secret, at('2026-11-29T13:00:00.000Z'));
    const rolled = await rollKey(deps, scope, old.id, { graceSeconds: 90 });
    const item = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: keys.apiKey(hashSecret(old.secret)) }),
    );
    // The expiry is the table's TTL attribute, in epoch seconds: DynamoDB removes the item later.
    expect(item.Item?.[TABLE_KEYS.ttlAttribute]).toBe(Date.parse('2026-11-29T13:01:30.000Z') / 1000);
    const ttl = await (table.doc as unknown as { send: (c: unknown) => Promise<unknown> }).send(
      new DescribeTimeToLiveCommand({ TableName: table.tableName }),
    );
    expect(ttl).toMatchObject({ TimeToLiveDescription: { AttributeName: TABLE_KEYS.ttlAttribute } });

    const inGrace = at('2026-11-29T13:01:29.000Z');
    await expect(authenticateAndCount(limiter, old.secret, inGrace)).resolves.toBeTruthy();
    await expect(authenticateAndCount(limiter, rolled.secret, inGrace)).resolves.toBeTruthy();
    expect(await countByTransaction(old.secret, at('2026-11-29T13:01:29.500Z'))).toBe('counted');

    const over = at('2026-11-29T13:01:30.000Z');
    await expect(authenticateAndCount(limiter, old.secret, over)).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(authenticateFromRead(limiter, old.secret, await readKey(old.secret), over)).toBeNull();
    // A count planned in the grace and written after it is refused by the write's own condition.
    const read = await readKey(old.secret);
    const planned = read && limiter.planKeyCount(read, inGrace);
    if (!planned) throw new Error('no count planned');
    await expect(
      table.doc.send(
        new TransactWriteCommand({
          TransactItems: [keyCountItem(table.tableName, { ...planned.count, usedAt: over.toISOString() })],
        }),
      ),
    ).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    await expect(authenticateAndCount(limiter, rolled.secret, over)).resolves.toMatchObject({
      auth: { keyId: rolled.id, permission: 'write', mode: 'live' },
    });
    clock.set(over);
    expect((await listKeys(deps, scope)).map((k) => k.id)).toContain(rolled.id);
    expect((await listKeys(deps, scope)).map((k) => k.id)).not.toContain(old.id);
  });

  it('rolls without a grace: the old key is refused from the same second', async () => {
    clock.set('2026-11-29T14:00:00.000Z');
    const old = await createKey(deps, scope, { mode: 'test', permission: 'read' });
    await rollKey(deps, scope, old.id, {});
    await expect(authenticateAndCount(limiter, old.secret, clock.now())).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });
});

describe('keys made before the workspace lists', () => {
  it('are put in their list by index-keys, once; a revoked one is not brought back', async () => {
    const { UpdateCommand, DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const ws = await createWorkspace(deps, { accountId: scope.accountId, name: 'Old keys' });
    const oldScope = { accountId: scope.accountId, workspaceId: ws.workspaceId };
    const made = [
      await createKey(deps, oldScope, { name: 'a', mode: 'live', permission: 'write' }),
      await createKey(deps, oldScope, { name: 'b', mode: 'test', permission: 'read' }),
    ];
    // As an older version wrote them: no list keys.
    for (const key of made) {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.apiKey(hashSecret(key.secret)),
          UpdateExpression: 'REMOVE GSI1PK, GSI1SK',
        }),
      );
    }
    expect(await listKeys(deps, oldScope)).toEqual([]);
    const revokedMeanwhile = made[1] as { secret: string };
    const { indexApiKeys } = await import('../../functions/core/admin/admin.ts');
    await table.doc.send(
      new DeleteCommand({
        TableName: table.tableName,
        Key: keys.apiKey(hashSecret(revokedMeanwhile.secret)),
      }),
    );
    expect(await indexApiKeys(deps)).toEqual({ added: 1 });
    expect((await listKeys(deps, oldScope)).map((k) => k.id)).toEqual([made[0]?.id]);
    expect(await indexApiKeys(deps)).toEqual({ added: 0 });
  });
});
