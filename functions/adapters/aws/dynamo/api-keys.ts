import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { ApiKeyRecord, KeyStore } from '../../../ports/api-keys.ts';
import type { KeyWindowRead } from '../../../ports/rate-limiter.ts';
import type { TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

export const apiKeyToItem = (k: ApiKeyRecord) => ({ ...keys.apiKey(k.secretHash), type: 'ApiKey', ...k });

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

/** The KeyStore port over the table (a request's key is found by the rate limiter, rate-limits.ts). */
export const dynamoKeyStore = (table: TableRef): KeyStore => ({
  createApiKey: (key) => putApiKey(table, key),
});
