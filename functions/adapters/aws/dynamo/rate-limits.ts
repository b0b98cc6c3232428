import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../../../ports/api-keys.ts';
import type { KeyCount, KeyWindowRead, RateLimiter, RateLimitState } from '../../../ports/rate-limiter.ts';
import { keyWindowFromItem } from './api-keys.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { keys, TABLE_KEYS } from './keys.ts';
import type { TransactItem } from './usage.ts';

const WINDOW_SECONDS = 60;

/** How many times a key's count is tried again when other requests move its window meanwhile. */
const KEY_ATTEMPTS = 4;

/** How many times a key's count is tried again when a transaction holds the key's item (AWS). */
const CONFLICT_ATTEMPTS = 6;

/**
 * True when DynamoDB refused a single-item write because a transaction was writing the same item
 * (a create that counts itself in its key's window, see `keyCountItem`): nothing was written.
 */
const isTransactionConflict = (error: unknown): boolean =>
  error instanceof Error && error.name === 'TransactionConflictException';

/** Refuses a key from its `expiresAt` (epoch seconds) on: a rolled key once its grace is over. */
const NOT_EXPIRED = '(attribute_not_exists(#expires) OR #expires > :nowSeconds)';

/**
 * The part of a transaction that counts its request in the key's window (see KeyCount): one more,
 * and the key's `lastUsedAt`, on the condition that the key is still there with the same secret
 * hash, not expired, in the same window, below the limit. A transaction refused for it wrote nothing.
 */
export const keyCountItem = (tableName: string, count: KeyCount): TransactItem => ({
  Update: {
    TableName: tableName,
    Key: keys.apiKey(count.secretHash),
    UpdateExpression: 'ADD #count :one SET #used = :used',
    ConditionExpression: `#hash = :hash AND #window = :window AND #count < :limit AND ${NOT_EXPIRED}`,
    ExpressionAttributeNames: {
      '#hash': 'secretHash',
      '#window': 'rateWindow',
      '#count': 'rateCount',
      '#used': 'lastUsedAt',
      '#expires': TABLE_KEYS.ttlAttribute,
    },
    ExpressionAttributeValues: {
      ':one': 1,
      ':hash': count.secretHash,
      ':window': count.window,
      ':limit': count.limit,
      ':used': count.usedAt,
      ':nowSeconds': Math.floor(Date.parse(count.usedAt) / 1000),
    },
  },
});

/**
 * The stored window of a key item a failed condition returned (`ReturnValuesOnConditionCheckFailure`),
 * or null when there is no such item. The document client leaves that item marshalled.
 */
const storedWindow = (error: unknown): { window: number; expiresAt: number | null } | null => {
  const item = (error as { Item?: Record<string, unknown> }).Item;
  if (!item) return null;
  const number = (value: unknown) => {
    const raw = value as { N?: string } | number | undefined;
    return Number(typeof raw === 'object' ? raw.N : (raw ?? Number.NaN));
  };
  const expires = item[TABLE_KEYS.ttlAttribute];
  return { window: number(item.rateWindow), expiresAt: expires === undefined ? null : number(expires) };
};

/**
 * Fixed one-minute windows counted with an atomic ADD, so the count holds across every Lambda
 * instance. An API key's window lives on the key's own item (`rateWindow`, `rateCount`): one
 * UpdateItem finds the key and counts the request. Other subjects (client addresses) have one
 * item per window, which expires by TTL after it.
 */
export class DynamoRateLimiter implements RateLimiter {
  constructor(
    private readonly table: TableRef,
    private readonly limitPerMinute: number,
  ) {}

  private state(count: number, windowStart: number, nowSeconds: number): RateLimitState {
    return {
      limit: this.limitPerMinute,
      remaining: Math.max(0, this.limitPerMinute - count),
      resetSeconds: Math.min(WINDOW_SECONDS, Math.max(1, windowStart + WINDOW_SECONDS - nowSeconds)),
      allowed: count <= this.limitPerMinute,
    };
  }

  private windowOf(now: Date) {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    return { nowSeconds, windowStart: nowSeconds - (nowSeconds % WINDOW_SECONDS) };
  }

  planKeyCount(read: KeyWindowRead, now: Date): { count: KeyCount; rate: RateLimitState } | null {
    const { nowSeconds, windowStart } = this.windowOf(now);
    if (read.window !== windowStart || read.count >= this.limitPerMinute) return null;
    return {
      count: {
        secretHash: read.key.secretHash,
        window: windowStart,
        limit: this.limitPerMinute,
        usedAt: now.toISOString(),
        counted: false,
      },
      rate: this.state(read.count + 1, windowStart, nowSeconds),
    };
  }

  async hit(subject: string, now: Date): Promise<RateLimitState> {
    const { nowSeconds, windowStart } = this.windowOf(now);
    const out = await this.table.doc.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: keys.rateWindow(subject, windowStart),
        UpdateExpression: 'ADD #count :one SET expiresAt = if_not_exists(expiresAt, :expires)',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':expires': windowStart + WINDOW_SECONDS * 2 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return this.state(Number(out.Attributes?.count ?? 1), windowStart, nowSeconds);
  }

  /**
   * The common case is one UpdateItem: `rateCount + 1` on the condition that the key's window is
   * the current one. The first request of a window starts it at 1 (a second UpdateItem, on the
   * condition that the stored window is older); a request that loses that race counts in the
   * window the winner started. When another instance's clock is ahead and has started a later
   * window, the request counts in that one. On AWS, a write to an item a transaction is writing
   * is refused (`TransactionConflictException`, nothing written): a create counting itself in
   * the same key's window; the count is then sent again after a short wait.
   */
  async hitKey(secretHash: string, now: Date): Promise<{ key: ApiKeyRecord; rate: RateLimitState } | null> {
    const current = this.windowOf(now);
    const { nowSeconds } = current;
    // Moves to a later window when another instance's clock has started one (see below).
    let windowStart = current.windowStart;
    const common = {
      TableName: this.table.tableName,
      Key: keys.apiKey(secretHash),
      ExpressionAttributeNames: {
        '#window': 'rateWindow',
        '#count': 'rateCount',
        '#used': 'lastUsedAt',
        '#expires': TABLE_KEYS.ttlAttribute,
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    } as const;
    // Each attempt is a count and, when the window is over, a start of the next one.
    let start = false;
    let conflicts = 0;
    for (let sent = 0; sent < 2 * KEY_ATTEMPTS; sent++) {
      try {
        const out = await this.table.doc.send(
          new UpdateCommand({
            ...common,
            ...(start
              ? {
                  UpdateExpression: 'SET #window = :window, #count = :one, #used = :used',
                  ConditionExpression: `attribute_exists(PK) AND (attribute_not_exists(#window) OR #window < :window) AND ${NOT_EXPIRED}`,
                }
              : {
                  UpdateExpression: 'ADD #count :one SET #used = :used',
                  ConditionExpression: `#window = :window AND ${NOT_EXPIRED}`,
                }),
            ExpressionAttributeValues: {
              ':one': 1,
              ':window': windowStart,
              ':used': now.toISOString(),
              ':nowSeconds': nowSeconds,
            },
          }),
        );
        const { key, count } = keyWindowFromItem(out.Attributes ?? {});
        return { key, rate: this.state(start ? 1 : count, windowStart, nowSeconds) };
      } catch (error) {
        if (isTransactionConflict(error) && ++conflicts < CONFLICT_ATTEMPTS) {
          sent--;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** conflicts));
          continue;
        }
        if (!isConditionFailure(error)) throw error;
        const stored = storedWindow(error);
        // No such key, or one past its expiry: not found, and nothing counted.
        if (!stored || (stored.expiresAt !== null && stored.expiresAt <= nowSeconds)) return null;
        // A later window (another instance's clock ahead) is counted in; a failed count of an
        // older window starts the current one; a failed start (another request started it) counts.
        if (stored.window > windowStart) {
          windowStart = stored.window;
          start = false;
        } else {
          start = !start;
        }
      }
    }
    throw new Error('The rate-limit window of an API key kept changing; giving up counting this request');
  }
}
