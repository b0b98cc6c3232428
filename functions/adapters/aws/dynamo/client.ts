import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The document client every entity module uses. The endpoint comes from the SDK's own
 * `AWS_ENDPOINT_URL_DYNAMODB` variable, so AWS and DynamoDB Local share this code path.
 */
export const createDocumentClient = (client = new DynamoDBClient({})): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });

/** A table as the entity modules see it: the client and the table's name. */
export interface TableRef {
  doc: DynamoDBDocumentClient;
  tableName: string;
}

/** True when a DynamoDB call failed because its condition did not hold. */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** True when a transaction was cancelled; `reasons` tells which item's condition failed. */
export const transactionCancellation = (error: unknown): { reasons: (string | undefined)[] } | null => {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return null;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return { reasons: reasons.map((r) => r.Code) };
};

/** Every item of a partition whose sort key starts with `prefix`, following pagination. */
export const queryByPrefix = async (
  { doc, tableName }: TableRef,
  pk: string,
  prefix: string,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

/**
 * Runs a transaction again when DynamoDB cancelled it only because another transaction touched
 * the same item at the same time (`TransactionConflict`): such a cancellation says nothing
 * about the conditions, so giving up would refuse requests that fit.
 */
export const retryOnTransactionConflict = async <T>(run: () => Promise<T>, attempts = 8): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const cancelled = transactionCancellation(error);
      const conflictOnly =
        cancelled?.reasons.includes('TransactionConflict') &&
        !cancelled.reasons.includes('ConditionalCheckFailed');
      if (!conflictOnly || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
};

/** Every item among `itemKeys` that exists (any order), retrying unprocessed keys with backoff. */
export const batchGetAll = async (
  { doc, tableName }: TableRef,
  itemKeys: { PK: string; SK: string }[],
  consistentRead = false,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < itemKeys.length; i += 100) {
    let pending = itemKeys.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await doc.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistentRead } },
        }),
      );
      items.push(...(out.Responses?.[tableName] ?? []));
      pending = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof pending;
    }
  }
  return items;
};
