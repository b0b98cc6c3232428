import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import { dynamoIdempotencyRecords } from '../../adapters/aws/dynamo/idempotency-records.ts';
import { part } from '../compose.ts';

/** Where Idempotency-Key records are kept (the table): a new store for each route that wraps itself. */
export const idempotency = part({
  name: 'idempotency',
  keys: ['idempotencyRecords'],
  build: ({ dynamo, table }): { idempotencyRecords: () => BasePersistenceLayer } => ({
    idempotencyRecords: () => dynamoIdempotencyRecords(dynamo, table.tableName),
  }),
});
