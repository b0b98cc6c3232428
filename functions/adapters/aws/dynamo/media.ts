import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.ts';
import type { MediaPage, MediaRecord, MediaStore } from '../../../ports/media.ts';
import {
  batchGetAll,
  isConditionFailure,
  retryOnTransactionConflict,
  type TableRef,
  transactionCancellation,
} from './client.ts';
import { parseItem } from './item.ts';
import { keys, TABLE_KEYS } from './keys.ts';
import type { TransactItem } from './usage.ts';

/** A ready file carries GSI1 keys (listed in the library); a pending upload does not. */
export const mediaToItem = (m: MediaRecord) => ({
  ...keys.media(m.workspaceId, m.mediaId),
  ...(m.status === 'ready' ? keys.mediaLibraryIndex(m.workspaceId, m.createdAt, m.mediaId) : {}),
  type: 'Media',
  ...m,
});
const mediaSchema: z.ZodType<MediaRecord> = z.looseObject({
  mediaId: z.string(),
  workspaceId: z.string(),
  accountId: z.string(),
  mimeType: z.string(),
  size: z.number(),
  status: z.enum(['pending', 'ready']),
  fileName: z.string(),
  altText: z.string().nullable(),
  objectKey: z.string(),
  createdAt: z.string(),
  expiresAt: z.number().optional(),
});
/** A media item as its record; `MalformedItemError` if it is not one. */
export const mediaFromItem = (item: Record<string, unknown>): MediaRecord =>
  parseItem('Media', mediaSchema, item);

/**
 * The transaction part that adds `bytes` (negative to free) to the account's stored bytes; when
 * adding under a limit, only if the total stays within it.
 */
const addStorage = (
  tableName: string,
  accountId: string,
  bytes: number,
  limit: number | null,
): TransactItem => {
  const bounded = bytes > 0 && limit !== null;
  return {
    Update: {
      TableName: tableName,
      Key: keys.account(accountId),
      UpdateExpression: 'ADD storageBytes :bytes',
      ConditionExpression: bounded
        ? 'attribute_exists(PK) AND (attribute_not_exists(storageBytes) OR storageBytes <= :room)'
        : 'attribute_exists(PK)',
      ExpressionAttributeValues: bounded ? { ':bytes': bytes, ':room': limit - bytes } : { ':bytes': bytes },
    },
  };
};

const storageRefusal = (size: number, limit: number | null) =>
  new ApiError(
    'quota_exceeded',
    `Storing this file (${size} bytes) would pass the plan's storage limit of ${limit} bytes; delete files to make room.`,
  );

export class DynamoMediaStore implements MediaStore {
  constructor(private readonly table: TableRef) {}

  async put(record: MediaRecord): Promise<void> {
    await this.table.doc.send(new PutCommand({ TableName: this.table.tableName, Item: mediaToItem(record) }));
  }

  async getMany(workspaceId: string, mediaIds: string[]): Promise<Map<string, MediaRecord>> {
    const itemKeys = [...new Set(mediaIds)].map((id) => keys.media(workspaceId, id));
    const records = (await batchGetAll(this.table, itemKeys, true)).map(mediaFromItem);
    return new Map(records.map((record) => [record.mediaId, record]));
  }

  async get(workspaceId: string, mediaId: string): Promise<MediaRecord | null> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.media(workspaceId, mediaId),
        ConsistentRead: true,
      }),
    );
    return out.Item ? mediaFromItem(out.Item) : null;
  }

  async list(workspaceId: string, options: { limit: number; after?: string }): Promise<MediaPage> {
    const { gsi1 } = TABLE_KEYS;
    // One more than asked tells whether another page exists, so the last page says null.
    const out = await this.table.doc.send(
      new QueryCommand({
        TableName: this.table.tableName,
        IndexName: gsi1.name,
        KeyConditionExpression: options.after === undefined ? '#pk = :pk' : '#pk = :pk AND #sk < :after',
        ExpressionAttributeNames: {
          '#pk': gsi1.partitionKey,
          ...(options.after === undefined ? {} : { '#sk': gsi1.sortKey }),
        },
        ExpressionAttributeValues: {
          ':pk': keys.mediaLibraryPartition(workspaceId),
          ...(options.after === undefined ? {} : { ':after': options.after }),
        },
        ScanIndexForward: false,
        Limit: options.limit + 1,
      }),
    );
    const items = out.Items ?? [];
    const page = items.slice(0, options.limit);
    const last = page.at(-1);
    return {
      records: page.map(mediaFromItem),
      next: items.length > options.limit && last ? (last[gsi1.sortKey] as string) : null,
    };
  }

  async createReady(record: MediaRecord, storageLimit: number | null): Promise<void> {
    if (storageLimit !== null && record.size > storageLimit) throw storageRefusal(record.size, storageLimit);
    const { doc, tableName } = this.table;
    try {
      await retryOnTransactionConflict(() =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: mediaToItem(record),
                  ConditionExpression: 'attribute_not_exists(PK)',
                },
              },
              addStorage(tableName, record.accountId, record.size, storageLimit),
            ],
          }),
        ),
      );
    } catch (error) {
      if (transactionCancellation(error)?.reasons[1] === 'ConditionalCheckFailed') {
        throw storageRefusal(record.size, storageLimit);
      }
      throw error;
    }
  }

  async createPending(record: MediaRecord): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: mediaToItem(record),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async completeUpload(
    record: MediaRecord,
    ready: { objectKey: string; createdAt: string; nowSeconds: number },
    storageLimit: number | null,
  ): Promise<boolean> {
    if (storageLimit !== null && record.size > storageLimit) throw storageRefusal(record.size, storageLimit);
    const { doc, tableName } = this.table;
    const index = keys.mediaLibraryIndex(record.workspaceId, ready.createdAt, record.mediaId);
    try {
      await retryOnTransactionConflict(() =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: tableName,
                  Key: keys.media(record.workspaceId, record.mediaId),
                  UpdateExpression:
                    'SET #status = :ready, objectKey = :objectKey, createdAt = :createdAt, GSI1PK = :gsi1pk, GSI1SK = :gsi1sk REMOVE expiresAt',
                  ConditionExpression: '#status = :pending AND expiresAt > :now',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':ready': 'ready',
                    ':pending': 'pending',
                    ':objectKey': ready.objectKey,
                    ':createdAt': ready.createdAt,
                    ':gsi1pk': index.GSI1PK,
                    ':gsi1sk': index.GSI1SK,
                    ':now': ready.nowSeconds,
                  },
                },
              },
              addStorage(tableName, record.accountId, record.size, storageLimit),
            ],
          }),
        ),
      );
      return true;
    } catch (error) {
      const reasons = transactionCancellation(error)?.reasons;
      if (reasons?.[0] === 'ConditionalCheckFailed') return false;
      if (reasons?.[1] === 'ConditionalCheckFailed') throw storageRefusal(record.size, storageLimit);
      throw error;
    }
  }

  async setAltText(
    workspaceId: string,
    mediaId: string,
    altText: string | null,
  ): Promise<MediaRecord | null> {
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.media(workspaceId, mediaId),
          UpdateExpression: 'SET altText = :altText',
          ConditionExpression: '#status = :ready',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':altText': altText, ':ready': 'ready' },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? mediaFromItem(out.Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async remove(record: MediaRecord): Promise<boolean> {
    const { doc, tableName } = this.table;
    const key = keys.media(record.workspaceId, record.mediaId);
    // The status in the condition makes a concurrent delete (or a completion) lose cleanly, so a
    // file's size leaves the account exactly once.
    const guard = {
      ConditionExpression: '#status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': record.status },
    };
    try {
      if (record.status !== 'ready') {
        await doc.send(new DeleteCommand({ TableName: tableName, Key: key, ...guard }));
        return true;
      }
      await retryOnTransactionConflict(() =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: tableName, Key: key, ...guard } },
              addStorage(tableName, record.accountId, -record.size, null),
            ],
          }),
        ),
      );
      return true;
    } catch (error) {
      if (
        isConditionFailure(error) ||
        transactionCancellation(error)?.reasons[0] === 'ConditionalCheckFailed'
      ) {
        return false;
      }
      throw error;
    }
  }
}
