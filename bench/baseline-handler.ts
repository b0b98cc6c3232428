/**
 * The baseline of the bundle benchmark (issue 16): a handler that imports only the DynamoDB
 * document client and reads one item. Every function's bundle size and cold import are reported
 * as a ratio to this one's.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { key: string }) =>
  doc.send(
    new GetCommand({ TableName: process.env.TABLE_NAME ?? 'herald', Key: { PK: event.key, SK: event.key } }),
  );
