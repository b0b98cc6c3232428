import { GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { UsageCounters, UsageStore } from '../../../ports/usage.ts';
import type { TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The transaction part that takes one `posts.created` of the period, refused at the limit. */
export const takePostsCreated = (
  tableName: string,
  accountId: string,
  period: string,
  limit: number | null,
): TransactItem => ({
  Update: {
    TableName: tableName,
    Key: keys.usagePeriod(accountId, period),
    UpdateExpression: 'ADD postsCreated :one SET accountId = :account, period = :period',
    ...(limit === null
      ? {}
      : { ConditionExpression: 'attribute_not_exists(postsCreated) OR postsCreated < :limit' }),
    ExpressionAttributeValues: {
      ':one': 1,
      ':account': accountId,
      ':period': period,
      ...(limit === null ? {} : { ':limit': limit }),
    },
  },
});

const usageSchema: z.ZodType<UsageCounters> = z.object({
  postsCreated: z.number().int(),
  postsPublished: z.number().int(),
});

/**
 * Each counter is kept with ADD: a period has no item until its first count, and then only the
 * counters that have counted something (a month with posts created but none published yet has no
 * `postsPublished`). Absent counters are 0.
 */
const absentCountersAsZero = (fields: Record<string, unknown>): Record<string, unknown> => ({
  ...fields,
  postsCreated: fields.postsCreated ?? 0,
  postsPublished: fields.postsPublished ?? 0,
});

/** A usage period item as its counters; `MalformedItemError` if it is not one. */
export const usageFromItem = (item: Record<string, unknown>): UsageCounters =>
  parseItem('Usage', usageSchema, item, absentCountersAsZero);

export class DynamoUsageStore implements UsageStore {
  constructor(private readonly table: TableRef) {}

  async counters(accountId: string, period: string): Promise<UsageCounters> {
    const { doc, tableName } = this.table;
    const out = await doc.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.usagePeriod(accountId, period),
        ConsistentRead: true,
      }),
    );
    return out.Item ? usageFromItem(out.Item) : { postsCreated: 0, postsPublished: 0 };
  }
}

/** The transaction part that counts one post in `posts.published` (live posts, once each). */
export const addPostsPublished = (tableName: string, accountId: string, period: string): TransactItem => ({
  Update: {
    TableName: tableName,
    Key: keys.usagePeriod(accountId, period),
    UpdateExpression: 'ADD postsPublished :one SET accountId = :account, period = :period',
    ExpressionAttributeValues: { ':one': 1, ':account': accountId, ':period': period },
  },
});
