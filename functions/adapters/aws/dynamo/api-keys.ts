import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, KeyStore } from '../../../ports/api-keys.ts';
import type { TableRef } from './client.ts';
import { keys } from './keys.ts';

export const apiKeyToItem = (k: ApiKeyRecord) => ({ ...keys.apiKey(k.secretHash), type: 'ApiKey', ...k });
export const apiKeyFromItem = (item: Record<string, unknown>): ApiKeyRecord => ({
  keyId: item.keyId as string,
  secretHash: item.secretHash as string,
  hint: item.hint as string,
  accountId: item.accountId as string,
  workspaceId: item.workspaceId as string,
  mode: item.mode as ApiKeyRecord['mode'],
  permission: item.permission as ApiKeyRecord['permission'],
  name: item.name as string,
  createdAt: item.createdAt as string,
});

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
