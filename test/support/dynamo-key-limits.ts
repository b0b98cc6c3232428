import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { vi } from 'vitest';

/**
 * DynamoDB refuses keys over 2,048 bytes (partition) or 1,024 (sort), a 5xx on AWS; DynamoDB Local
 * lets some through. So every key the service sends is measured here: an input that reaches a key
 * unchecked fails the property even locally.
 */
export const oversizedKeys: string[] = [];
const KEY_LIMITS: Record<string, number> = {
  PK: 2048,
  SK: 1024,
  GSI1PK: 2048,
  GSI1SK: 1024,
  GSI2PK: 2048,
  GSI2SK: 1024,
};
const measureKey = (key: Record<string, unknown> | undefined) => {
  for (const [name, limit] of Object.entries(KEY_LIMITS)) {
    const value = key?.[name];
    if (typeof value === 'string' && Buffer.byteLength(value) > limit) {
      oversizedKeys.push(`${name} of ${Buffer.byteLength(value)} bytes`);
    }
  }
};
const measureInput = (input: Record<string, any>) => {
  measureKey(input.Key);
  measureKey(input.Item);
  for (const table of Object.values(input.RequestItems ?? {}) as Record<string, any>[]) {
    for (const key of table.Keys ?? []) measureKey(key);
  }
  for (const item of input.TransactItems ?? []) {
    measureKey(item.Put?.Item);
    measureKey(item.Update?.Key);
    measureKey(item.Delete?.Key);
    measureKey(item.ConditionCheck?.Key);
  }
  const condition: string | undefined = input.KeyConditionExpression;
  if (!condition) return;
  // `PK = :pk` (or `#pk = :pk`) names the partition; every other value of the condition is a sort key.
  const partition = /(?:^|\s)(?:#pk|PK|GSI1PK|GSI2PK)\s*=\s*(:\w+)/.exec(condition)?.[1];
  for (const [name, value] of Object.entries(input.ExpressionAttributeValues ?? {})) {
    if (typeof value !== 'string' || !new RegExp(`${name}\\b`).test(condition)) continue;
    const limit = name === partition ? 2048 : 1024;
    if (Buffer.byteLength(value) > limit)
      oversizedKeys.push(`${name} of ${Buffer.byteLength(value)} bytes in ${condition}`);
  }
};
export const watchKeys = () => {
  const send = DynamoDBDocumentClient.prototype.send;
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (
    this: DynamoDBDocumentClient,
    ...args: unknown[]
  ) {
    measureInput((args[0] as { input: Record<string, unknown> }).input);
    return (send as (...a: unknown[]) => Promise<unknown>).apply(this, args);
  } as typeof send);
};
