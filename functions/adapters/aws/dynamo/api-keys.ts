import { DeleteCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { ApiKeyRecord, KeyStore } from '../../../ports/api-keys.ts';
import type { KeyWindowRead } from '../../../ports/rate-limiter.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys, TABLE_KEYS } from './keys.ts';

export const apiKeyToItem = (k: ApiKeyRecord) => ({
  ...keys.apiKey(k.secretHash),
  ...keys.apiKeyWorkspaceIndex(k.workspaceId, k.createdAt, k.keyId),
  type: 'ApiKey',
  ...k,
});

const apiKeySchema = z.object({
  keyId: z.string(),
  secretHash: z.string(),
  hint: z.string(),
  accountId: z.string(),
  workspaceId: z.string(),
  mode: z.enum(['live', 'test']),
  permission: z.enum(['read', 'write']),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().optional(),
  expiresAt: z.number().optional(),
  rateWindow: z.number().int().nullable(),
  rateCount: z.number().int(),
});

/**
 * A key's rate-limit window lives on its item (`rateWindow`, `rateCount`) from the key's first
 * counted request on: a key not counted yet (every key made before the window moved onto its item,
 * and every new one) has no window and nothing counted.
 */
const uncountedKeys = (fields: Record<string, unknown>): Record<string, unknown> => ({
  ...fields,
  rateWindow: fields.rateWindow ?? null,
  rateCount: fields.rateCount ?? 0,
});

/**
 * The item with its partition key's hash withheld: the hash finds the key from its secret, so an
 * error names the key by its id instead.
 */
const withHashWithheld = (item: Record<string, unknown>): Record<string, unknown> => ({
  ...item,
  PK: `APIKEY#(hash withheld${typeof item.keyId === 'string' ? `, key ${item.keyId}` : ''})`,
});

/**
 * An API key item as the key's record and its rate-limit window; `MalformedItemError` if it is
 * not one (naming the key by its id, never by its hash).
 */
export const keyWindowFromItem = (item: Record<string, unknown>): KeyWindowRead => {
  const { rateWindow, rateCount, ...key } = parseItem(
    'ApiKey',
    apiKeySchema,
    withHashWithheld(item),
    uncountedKeys,
  );
  return { key, window: rateWindow, count: rateCount };
};

export const putApiKey = async ({ doc, tableName }: TableRef, key: ApiKeyRecord): Promise<void> => {
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: apiKeyToItem(key),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
};

/** A workspace's keys from its GSI1 list, newest first; `keyId` narrows it to one key. */
const queryWorkspaceKeys = async (
  { doc, tableName }: TableRef,
  workspaceId: string,
  keyId?: string,
): Promise<ApiKeyRecord[]> => {
  const found: ApiKeyRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: TABLE_KEYS.gsi1.name,
        KeyConditionExpression: '#pk = :pk',
        ScanIndexForward: false,
        ExpressionAttributeNames: {
          '#pk': TABLE_KEYS.gsi1.partitionKey,
          ...(keyId ? { '#id': 'keyId' } : {}),
        },
        ExpressionAttributeValues: {
          ':pk': keys.apiKeyWorkspacePartition(workspaceId),
          ...(keyId ? { ':id': keyId } : {}),
        },
        ...(keyId ? { FilterExpression: '#id = :id' } : {}),
        ExclusiveStartKey: start,
      }),
    );
    found.push(...(out.Items ?? []).map((item) => keyWindowFromItem(item).key));
    start = out.LastEvaluatedKey;
  } while (start && !(keyId && found.length > 0));
  return found;
};

/** Deletes the key's item if it is still this key: false when it was gone. */
export const deleteApiKey = async ({ doc, tableName }: TableRef, key: ApiKeyRecord): Promise<boolean> => {
  try {
    await doc.send(
      new DeleteCommand({
        TableName: tableName,
        Key: keys.apiKey(key.secretHash),
        ConditionExpression: '#id = :id',
        ExpressionAttributeNames: { '#id': 'keyId' },
        ExpressionAttributeValues: { ':id': key.keyId },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Sets the key's expiry (the TTL attribute) unless it already expires sooner; false when the key
 * is gone. The item stays until TTL removes it: authentication refuses it from `expiresAt` on.
 */
export const expireApiKey = async (
  { doc, tableName }: TableRef,
  key: ApiKeyRecord,
  expiresAt: number,
): Promise<boolean> => {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.apiKey(key.secretHash),
        UpdateExpression: 'SET #expires = :expires',
        ConditionExpression: '#id = :id AND (attribute_not_exists(#expires) OR #expires > :expires)',
        ExpressionAttributeNames: { '#id': 'keyId', '#expires': TABLE_KEYS.ttlAttribute },
        ExpressionAttributeValues: { ':id': key.keyId, ':expires': expiresAt },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The key is there but already expires sooner: nothing to change.
    return (error as { Item?: Record<string, unknown> }).Item !== undefined;
  }
};

/**
 * Adds the workspace-list keys (GSI1) to every key item without them: keys made before the list
 * existed. A Scan of the table (an operator's repair, never a request's work); each update is
 * conditioned on the item still being there without them, so it is safe while the API serves.
 */
export const listUnlistedKeys = async ({ doc, tableName }: TableRef): Promise<number> => {
  let added = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(#pk, :prefix) AND attribute_not_exists(#gsi)',
        ExpressionAttributeNames: { '#pk': TABLE_KEYS.partitionKey, '#gsi': TABLE_KEYS.gsi1.partitionKey },
        ExpressionAttributeValues: { ':prefix': keys.apiKey('').PK },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      const { key } = keyWindowFromItem(item);
      const index = keys.apiKeyWorkspaceIndex(key.workspaceId, key.createdAt, key.keyId);
      try {
        await doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.apiKey(key.secretHash),
            UpdateExpression: 'SET #gsi = :gsiPk, #gsiSort = :gsiSk',
            ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#gsi)',
            ExpressionAttributeNames: {
              '#pk': TABLE_KEYS.partitionKey,
              '#gsi': TABLE_KEYS.gsi1.partitionKey,
              '#gsiSort': TABLE_KEYS.gsi1.sortKey,
            },
            ExpressionAttributeValues: { ':gsiPk': index.GSI1PK, ':gsiSk': index.GSI1SK },
          }),
        );
        added++;
      } catch (error) {
        // Revoked, or listed by another run meanwhile: nothing to add.
        if (!isConditionFailure(error)) throw error;
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return added;
};

/** The KeyStore port over the table (a request's key is found by the rate limiter, rate-limits.ts). */
export const dynamoKeyStore = (table: TableRef): KeyStore => ({
  createApiKey: (key) => putApiKey(table, key),
  listApiKeys: (workspaceId) => queryWorkspaceKeys(table, workspaceId),
  findApiKey: async (workspaceId, keyId) => (await queryWorkspaceKeys(table, workspaceId, keyId))[0] ?? null,
  deleteApiKey: (key) => deleteApiKey(table, key),
  expireApiKey: (key, expiresAt) => expireApiKey(table, key, expiresAt),
  listUnlistedKeys: () => listUnlistedKeys(table),
});
