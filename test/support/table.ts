import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { createDocumentClient, type TableRef } from '../../functions/adapters/aws/dynamo/client.ts';
import { createTable, deleteTable } from '../../functions/adapters/local/dynamodb-local.ts';

let count = 0;

/** A fresh table in the run's DynamoDB Local, with the production key layout. */
export const freshTable = async (): Promise<TableRef & { drop(): Promise<void> }> => {
  const client = new DynamoDBClient({
    endpoint: inject('dynamoEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const tableName = `it-${process.pid}-${Date.now()}-${count++}`;
  await createTable(client, tableName);
  return { doc: createDocumentClient(client), tableName, drop: () => deleteTable(client, tableName) };
};
