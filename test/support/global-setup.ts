import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../functions/adapters/local/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; each test file uses tables of its own. */
export default async function setup(project: TestProject) {
  process.env.DDB_LOCAL_TELEMETRY = '0';
  const dynamo = await startDynamoDbLocal({});
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo.stop();
  };
}
