import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoPostStore } from '../../functions/adapters/aws/dynamo/posts.ts';
import { DynamoRateLimiter, keyCountItem } from '../../functions/adapters/aws/dynamo/rate-limits.ts';
import type { PostRecord } from '../../functions/domain/post.ts';
import type { ApiKeyRecord } from '../../functions/ports/api-keys.ts';
import { KeyCountRefusedError } from '../../functions/ports/rate-limiter.ts';

const key = {
  keyId: 'key_1',
  secretHash: 'ab'.repeat(32),
  hint: 'sk_live_AbCd',
  accountId: 'acct_1',
  workspaceId: 'ws_1',
  mode: 'live',
  permission: 'write',
  name: 'k',
  createdAt: '2026-01-01T00:00:00.000Z',
} satisfies ApiKeyRecord;

/** 00:00:30 of a minute: its window started 30 s ago. */
const now = new Date('2026-03-01T10:00:30Z');
const window = Math.floor(now.getTime() / 1000) - 30;

/** A table whose document client answers each call with the next of `answers` (an error is thrown). */
const tableOf = (answers: unknown[]) => {
  const sent: unknown[] = [];
  const doc = {
    send: async (command: { input: unknown }) => {
      sent.push(command.input);
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as DynamoDBDocumentClient;
  return { table: { doc, tableName: 't' }, sent };
};

const named = (name: string) => Object.assign(new Error(name), { name });

describe("a key's count carried by the request's own write", () => {
  const limiter = new DynamoRateLimiter(tableOf([]).table, 10);

  it('is planned only for the current window with room left, with the state after the count', () => {
    const planned = limiter.planKeyCount({ key, window, count: 3 }, now);
    expect(planned).toEqual({
      count: { secretHash: key.secretHash, window, limit: 10, usedAt: now.toISOString(), counted: false },
      rate: { limit: 10, remaining: 6, resetSeconds: 30, allowed: true },
    });
    expect(limiter.planKeyCount({ key, window, count: 9 }, now)?.rate.remaining).toBe(0);
    // The limit reached, a window to start (older, or never counted), another clock's window.
    expect(limiter.planKeyCount({ key, window, count: 10 }, now)).toBeNull();
    expect(limiter.planKeyCount({ key, window: window - 60, count: 0 }, now)).toBeNull();
    expect(limiter.planKeyCount({ key, window: null, count: 0 }, now)).toBeNull();
    expect(limiter.planKeyCount({ key, window: window + 60, count: 0 }, now)).toBeNull();
  });

  it('is an update conditioned on the same key, not expired, window and room under the limit; it records the use', () => {
    const usedAt = now.toISOString();
    const item = keyCountItem('t', { secretHash: key.secretHash, window, limit: 10, usedAt, counted: false });
    expect(item.Update).toMatchObject({
      Key: { PK: `APIKEY#${key.secretHash}`, SK: 'APIKEY' },
      UpdateExpression: 'ADD #count :one SET #used = :used',
      ConditionExpression:
        '#hash = :hash AND #window = :window AND #count < :limit AND (attribute_not_exists(#expires) OR #expires > :nowSeconds)',
      ExpressionAttributeNames: { '#used': 'lastUsedAt', '#expires': 'expiresAt' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':hash': key.secretHash,
        ':window': window,
        ':limit': 10,
        ':used': usedAt,
        ':nowSeconds': Math.floor(now.getTime() / 1000),
      },
    });
  });
});

describe('hitKey while a transaction writes the key item (AWS refuses the single write)', () => {
  it('sends the count again after a TransactionConflictException, and counts once', async () => {
    const { table, sent } = tableOf([
      named('TransactionConflictException'),
      named('TransactionConflictException'),
      { Attributes: { ...key, rateWindow: window, rateCount: 4 } },
    ]);
    const found = await new DynamoRateLimiter(table, 10).hitKey(key.secretHash, now);
    expect(found?.rate).toEqual({ limit: 10, remaining: 6, resetSeconds: 30, allowed: true });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((input) => JSON.stringify(input))).size).toBe(1);
  });

  it('gives up after a few conflicts in a row with the conflict itself', async () => {
    const { table, sent } = tableOf(Array.from({ length: 10 }, () => named('TransactionConflictException')));
    await expect(new DynamoRateLimiter(table, 10).hitKey(key.secretHash, now)).rejects.toMatchObject({
      name: 'TransactionConflictException',
    });
    expect(sent.length).toBeLessThanOrEqual(6);
  });
});

describe("a create's transaction carrying the key's count", () => {
  const post = {
    postId: 'post_0000000000000000000001',
    accountId: 'acct_1',
    workspaceId: 'ws_1',
    mode: 'live',
    status: 'draft',
    scheduledAt: null,
    publishedAt: null,
    tagIds: [],
    channels: [],
    createdAt: '2026-03-01T10:00:30.000Z',
    updatedAt: '2026-03-01T10:00:30.000Z',
    version: 1,
  } as unknown as PostRecord;
  const quota = { accountId: 'acct_1', period: '2026-03', limit: 30, count: true };
  const count = () => ({
    secretHash: key.secretHash,
    window,
    limit: 10,
    usedAt: now.toISOString(),
    counted: false,
  });
  const cancelled = (...codes: string[]) =>
    Object.assign(named('TransactionCanceledException'), {
      CancellationReasons: codes.map((Code) => ({ Code })),
    });

  it('carries the key last, and marks the count made once the transaction succeeds', async () => {
    const { table, sent } = tableOf([{}]);
    const keyCount = count();
    await new DynamoPostStore(table).create(post, quota, keyCount);
    expect(keyCount.counted).toBe(true);
    const items = (sent[0] as { TransactItems: { Update?: { Key: unknown } }[] }).TransactItems;
    expect(items).toHaveLength(5);
    expect(items.at(-1)?.Update?.Key).toEqual({ PK: `APIKEY#${key.secretHash}`, SK: 'APIKEY' });
  });

  it("tells the key's refusal (even with the quota's) from the quota's alone, and counts nothing", async () => {
    const keyRefused = count();
    const both = tableOf([
      cancelled('None', 'None', 'None', 'ConditionalCheckFailed', 'ConditionalCheckFailed'),
    ]);
    await expect(new DynamoPostStore(both.table).create(post, quota, keyRefused)).rejects.toBeInstanceOf(
      KeyCountRefusedError,
    );
    expect(keyRefused.counted).toBe(false);
    const quotaOnly = count();
    const used = tableOf([cancelled('None', 'None', 'None', 'ConditionalCheckFailed', 'None')]);
    await expect(new DynamoPostStore(used.table).create(post, quota, quotaOnly)).rejects.toMatchObject({
      code: 'quota_exceeded',
    });
    expect(quotaOnly.counted).toBe(false);
  });
});
