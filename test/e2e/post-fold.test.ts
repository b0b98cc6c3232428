/**
 * POST /v1/posts for a key whose scope the instance remembers: the key's item comes in the
 * BatchGetItem of the post's references and the create's transaction counts the request (the
 * folded path). Every answer, its order and every count are those of the usual path.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { createApiKey } from '../../functions/core/admin/admin.ts';
import { hashSecret, scopeHint } from '../../functions/core/auth/api-keys.ts';
import { usagePeriod } from '../../functions/core/posts/post-context.ts';
import type { PostReferenceStore } from '../../functions/ports/post-references.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

const LIMIT = 12;
let rt: TestRuntime;
let restores: (() => void)[] = [];

/** A clock in the middle of a minute, so every request of a test falls in one window. */
let nowMs = 0;
const windowOf = (ms: number) => {
  const seconds = Math.floor(ms / 1000);
  return seconds - (seconds % 60);
};

beforeAll(async () => {
  rt = await startTestRuntime({ rateLimitPerMinute: LIMIT });
});
afterAll(async () => {
  await rt?.destroy();
});
afterEach(() => {
  for (const restore of restores.reverse()) restore();
  restores = [];
});

const useMidMinuteClock = () => {
  nowMs = windowOf(Date.now()) * 1000 + 30_000;
  restores.push(rt.container.override({ clock: { now: () => new Date(nowMs) } }));
};

/**
 * The DynamoDB calls made through the functions' client while `run` runs, by command: those about
 * this workspace, its account or key, or a client address (the runtime's periodic sweeps, which
 * use the same client, are left out).
 */
const callsDuring = async <T>(
  ws: { key: string; accountId: string; workspaceId: string },
  run: () => Promise<T>,
): Promise<{ result: T; calls: Record<string, number> }> => {
  const client = rt.container.deps.dynamo as DynamoDBClient;
  const markers = [hashSecret(ws.key), ws.accountId, ws.workspaceId, 'ip:'];
  const calls: Record<string, number> = {};
  const name = `foldCount${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = JSON.stringify(args.input);
      if (markers.some((marker) => input.includes(marker))) {
        const command = (context.commandName ?? '').replace(/Command$/, '');
        calls[command] = (calls[command] ?? 0) + 1;
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), calls };
  } finally {
    client.middlewareStack.remove(name);
  }
};

const keyItem = async (secret: string) => {
  const { table } = rt.container.deps;
  const out = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: keys.apiKey(hashSecret(secret)),
      ConsistentRead: true,
    }),
  );
  return out.Item as { rateWindow?: number; rateCount?: number } | undefined;
};

const setKeyWindow = async (secret: string, window: number, count: number) => {
  const { table } = rt.container.deps;
  await table.doc.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.apiKey(hashSecret(secret)),
      UpdateExpression: 'SET rateWindow = :w, rateCount = :c',
      ExpressionAttributeValues: { ':w': window, ':c': count },
    }),
  );
};

const deleteKey = async (secret: string) => {
  const { table } = rt.container.deps;
  await table.doc.send(
    new DeleteCommand({ TableName: table.tableName, Key: keys.apiKey(hashSecret(secret)) }),
  );
};

/** posts.created of the account this month: how many posts the account has made. */
const postsCreated = async (accountId: string) => {
  const { table } = rt.container.deps;
  const out = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: keys.usagePeriod(accountId, usagePeriod(new Date(nowMs)).id),
      ConsistentRead: true,
    }),
  );
  return Number(out.Item?.postsCreated ?? 0);
};

/** A workspace with one X channel and a key this instance has confirmed (one GET, counted). */
const warmWorkspace = async () => {
  const ws = await freshWorkspace(rt, ['x']);
  const warm = await rt.api('/platforms', { key: ws.key });
  expect(warm.status).toBe(200);
  expect(scopeHint(ws.key, new Date(nowMs))).toEqual({
    accountId: ws.accountId,
    workspaceId: ws.workspaceId,
  });
  const post = (content = 'Folded', extra: Record<string, unknown> = {}) =>
    rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: { intent: 'draft', channels: [{ channelId: ws.channels.x, blocks: [{ content }] }], ...extra },
    });
  return { ...ws, post };
};

/** Runs `effect` once, right after the folded read of the key's item (between read and transaction). */
const afterFoldedRead = (effect: () => Promise<void>) => {
  const real = rt.container.deps.postReferences;
  let done = false;
  const postReferences: PostReferenceStore = {
    getPostReferences: async (accountId, workspaceId, channelIds, tagIds, keyHash) => {
      const found = await real.getPostReferences(accountId, workspaceId, channelIds, tagIds, keyHash);
      if (keyHash && !done) {
        done = true;
        await effect();
      }
      return found;
    },
  };
  restores.push(rt.container.override({ postReferences }));
};

describe('POST /v1/posts, folded count', () => {
  it('makes one BatchGetItem and one transaction, and counts each request once, with exact headers one at a time', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    expect(await keyItem(ws.key)).toMatchObject({ rateWindow: windowOf(nowMs), rateCount: 1 });
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { result, calls } = await callsDuring(ws, () => ws.post(`Folded ${i}`));
      expect(result.status).toBe(201);
      expect(calls).toEqual({ BatchGetItem: 1, TransactWriteItems: 1 });
      remaining.push(Number(result.headers.get('x-ratelimit-remaining')));
      expect(result.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(result.headers.get('x-ratelimit-reset')).toBe('30');
    }
    // After the GET (1) and three creates: LIMIT - 2, - 3, - 4, as the usual path answers.
    expect(remaining).toEqual([LIMIT - 2, LIMIT - 3, LIMIT - 4]);
    expect((await keyItem(ws.key))?.rateCount).toBe(4);
    expect(await postsCreated(ws.accountId)).toBe(3);
    // The next GET, counted the usual way, continues from there.
    const next = await rt.api('/platforms', { key: ws.key });
    expect(next.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 5));
  });

  it('answers 401 for a key deleted since the instance saw it, counted by address, creating nothing', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    await deleteKey(ws.key);
    const { result, calls } = await callsDuring(ws, () => ws.post());
    expect(result.status).toBe(401);
    expect(result.body.error.code).toBe('unauthorized');
    // The folded read found no key: the usual UpdateItem of the key (no item) and of the address.
    expect(calls.TransactWriteItems).toBeUndefined();
    expect(calls.UpdateItem).toBe(2);
    expect(await postsCreated(ws.accountId)).toBe(0);
    expect(scopeHint(ws.key, new Date(nowMs))).toBeNull();
  });

  it('answers 401 for a key deleted between the read and the transaction, creating nothing', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    afterFoldedRead(() => deleteKey(ws.key));
    const { result, calls } = await callsDuring(ws, () => ws.post());
    expect(result.status).toBe(401);
    expect(calls.TransactWriteItems).toBe(1);
    expect(await postsCreated(ws.accountId)).toBe(0);
    expect(await keyItem(ws.key)).toBeUndefined();
  });

  it('answers 429 with Retry-After for a key over its limit, counting it once, creating nothing', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    await setKeyWindow(ws.key, windowOf(nowMs), LIMIT);
    const { result, calls } = await callsDuring(ws, () => ws.post());
    expect(result.status).toBe(429);
    expect(result.body.error.code).toBe('rate_limited');
    expect(result.headers.get('retry-after')).toBe('30');
    expect(result.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(calls.TransactWriteItems).toBeUndefined();
    expect((await keyItem(ws.key))?.rateCount).toBe(LIMIT + 1);
    expect(await postsCreated(ws.accountId)).toBe(0);
  });

  it('answers 429 when the count reached the limit between the read and the transaction', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    afterFoldedRead(() => setKeyWindow(ws.key, windowOf(nowMs), LIMIT));
    const result = await ws.post();
    expect(result.status).toBe(429);
    expect((await keyItem(ws.key))?.rateCount).toBe(LIMIT + 1);
    expect(await postsCreated(ws.accountId)).toBe(0);
  });

  it('answers 403 for a read-only key, counted once, creating nothing', async () => {
    useMidMinuteClock();
    const ws = await freshWorkspace(rt, ['x']);
    const { secret } = await createApiKey(rt.container.deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'read',
      name: 'read only',
    });
    expect((await rt.api('/platforms', { key: secret })).status).toBe(200);
    const result = await rt.api('/posts', {
      method: 'POST',
      key: secret,
      body: { intent: 'draft', channels: [{ channelId: ws.channels.x, blocks: [{ content: 'No' }] }] },
    });
    expect(result.status).toBe(403);
    expect(result.body.error.code).toBe('forbidden');
    expect(result.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 2));
    expect((await keyItem(secret))?.rateCount).toBe(2);
    expect(await postsCreated(ws.accountId)).toBe(0);
  });

  it('answers the body errors counted once: a malformed body (400) and a channel of another workspace (422)', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    const malformed = await rt.api('/posts', { method: 'POST', key: ws.key, body: { intent: 'draft' } });
    expect(malformed.status).toBe(400);
    expect((await keyItem(ws.key))?.rateCount).toBe(2);
    const other = rt.seed.channels[0]?.id as string;
    const { result, calls } = await callsDuring(ws, () =>
      rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: { intent: 'draft', channels: [{ channelId: other, blocks: [{ content: 'Not mine' }] }] },
      }),
    );
    expect(result.status).toBe(422);
    // Read folded, refused by the validator before any write: counted the usual way, once.
    expect(calls).toEqual({ BatchGetItem: 1, UpdateItem: 1 });
    expect(result.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 3));
    expect((await keyItem(ws.key))?.rateCount).toBe(3);
    expect(await postsCreated(ws.accountId)).toBe(0);
  });

  it('answers 402 quota_exceeded counted once when the plan allowance is used up', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    const deps = rt.container.deps;
    await deps.accounts.setPlan(ws.accountId, 'free');
    await deps.table.doc.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: keys.usagePeriod(ws.accountId, usagePeriod(new Date(nowMs)).id),
        UpdateExpression: 'SET postsCreated = :n',
        ExpressionAttributeValues: { ':n': 30 },
      }),
    );
    const { result, calls } = await callsDuring(ws, () => ws.post());
    expect(result.status).toBe(402);
    expect(result.body.error.code).toBe('quota_exceeded');
    expect(calls).toEqual({ BatchGetItem: 1, TransactWriteItems: 1, UpdateItem: 1 });
    expect(result.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 2));
    expect((await keyItem(ws.key))?.rateCount).toBe(2);
    expect(await postsCreated(ws.accountId)).toBe(30);
  });

  it('counts in the next window and creates once when another request started it between read and transaction', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    const next = windowOf(nowMs) + 60;
    afterFoldedRead(() => setKeyWindow(ws.key, next, 1));
    const { result, calls } = await callsDuring(ws, () => ws.post());
    expect(result.status).toBe(201);
    // The test's own UpdateItem (the other request), the refused transaction, the usual count
    // (refused in this instance's window, made in the later one), then the usual create.
    expect(calls).toEqual({ BatchGetItem: 1, TransactWriteItems: 2, UpdateItem: 3 });
    expect(await keyItem(ws.key)).toMatchObject({ rateWindow: next, rateCount: 2 });
    expect(result.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 2));
    expect(await postsCreated(ws.accountId)).toBe(1);
  });

  it('starts a new window the usual way when the key item shows an older one', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    await setKeyWindow(ws.key, windowOf(nowMs) - 60, LIMIT + 5);
    const { result, calls } = await callsDuring(ws, () => ws.post());
    expect(result.status).toBe(201);
    expect(calls.UpdateItem).toBe(2);
    expect(calls.TransactWriteItems).toBe(1);
    expect(await keyItem(ws.key)).toMatchObject({ rateWindow: windowOf(nowMs), rateCount: 1 });
    expect(result.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
  });

  it('counts an Idempotency-Key request the usual way, once, and its replay once', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    const send = () =>
      callsDuring(ws, () =>
        rt.api('/posts', {
          method: 'POST',
          key: ws.key,
          headers: { 'idempotency-key': `fold-${ws.workspaceId}` },
          body: { intent: 'draft', channels: [{ channelId: ws.channels.x, blocks: [{ content: 'Once' }] }] },
        }),
      );
    const first = await send();
    expect(first.result.status).toBe(201);
    expect(first.calls.UpdateItem).toBeGreaterThanOrEqual(1);
    const replay = await send();
    expect(replay.result.status).toBe(201);
    expect(replay.result.headers.get('idempotent-replayed')).toBe('true');
    expect((await keyItem(ws.key))?.rateCount).toBe(3);
    expect(await postsCreated(ws.accountId)).toBe(1);
  });

  it('never lets concurrent requests past the limit, and counts every one once', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => ws.post(`Burst ${i}`)));
    const created = burst.filter((r) => r.status === 201);
    expect(created).toHaveLength(LIMIT - 1);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(20 - (LIMIT - 1));
    expect((await keyItem(ws.key))?.rateCount).toBe(21);
    expect(await postsCreated(ws.accountId)).toBe(LIMIT - 1);
    for (const r of created) {
      const remaining = Number(r.headers.get('x-ratelimit-remaining'));
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThanOrEqual(LIMIT - 2);
    }
  });

  it('under concurrency, counts each create once; Remaining is read just before, so answers may repeat a value', async () => {
    useMidMinuteClock();
    const ws = await warmWorkspace();
    const burst = await Promise.all(Array.from({ length: 5 }, (_, i) => ws.post(`Parallel ${i}`)));
    expect(burst.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect((await keyItem(ws.key))?.rateCount).toBe(6);
    const remaining = burst.map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    // Never below what is truly left after all of them, never above what was left before each.
    for (const value of remaining) {
      expect(value).toBeGreaterThanOrEqual(LIMIT - 6);
      expect(value).toBeLessThanOrEqual(LIMIT - 2);
    }
    const next = await rt.api('/platforms', { key: ws.key });
    expect(next.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 7));
  });
});
