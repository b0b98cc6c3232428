import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys, TABLE_KEYS } from './keys.ts';

/**
 * A Powertools Idempotency store keeping its records in the table, under the idempotency
 * partition. Make one per wrapped route: Powertools configures a store for one function.
 */
export const dynamoIdempotencyRecords = (
  client: DynamoDBClient,
  tableName: string,
): DynamoDBPersistenceLayer =>
  new DynamoDBPersistenceLayer({
    tableName,
    keyAttr: TABLE_KEYS.partitionKey,
    sortKeyAttr: TABLE_KEYS.sortKey,
    staticPkValue: keys.idempotencyPartition,
    expiryAttr: TABLE_KEYS.ttlAttribute,
    // The function's client: one connection pool, and the local runtime checks its calls like the rest.
    awsSdkV3Client: client,
  });
