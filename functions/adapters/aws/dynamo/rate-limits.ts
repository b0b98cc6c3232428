import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter, RateLimitState } from '../../../ports/rate-limiter.ts';
import type { TableRef } from './client.ts';
import { keys } from './keys.ts';

const WINDOW_SECONDS = 60;

/**
 * Fixed one-minute windows counted with an atomic ADD on one item per subject and window,
 * so the count holds across every Lambda instance. Items expire by TTL after the window.
 */
export class DynamoRateLimiter implements RateLimiter {
  constructor(
    private readonly table: TableRef,
    private readonly limitPerMinute: number,
  ) {}

  async hit(subject: string, now: Date): Promise<RateLimitState> {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
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
    const count = Number(out.Attributes?.count ?? 1);
    return {
      limit: this.limitPerMinute,
      remaining: Math.max(0, this.limitPerMinute - count),
      resetSeconds: Math.max(1, windowStart + WINDOW_SECONDS - nowSeconds),
      allowed: count <= this.limitPerMinute,
    };
  }
}
