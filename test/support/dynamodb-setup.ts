import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../functions/adapters/local/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** What the projects of this run share, kept on the global object: each project loads this file anew. */
interface Shared {
  started: Promise<DynamoDbLocal>;
  users: number;
}
const KEY = Symbol.for('herald.test.dynamodb-local');
const holder = globalThis as { [KEY]?: Shared };

/**
 * One in-memory DynamoDB Local for the whole run, shared by every project that lists this setup
 * (integration, e2e, infra, openapi; never unit); each test file uses tables of its own. The last
 * project to tear down stops it.
 */
export default async function setup(project: TestProject) {
  process.env.DDB_LOCAL_TELEMETRY = '0';
  let shared = holder[KEY];
  if (!shared) {
    shared = { started: startDynamoDbLocal({}), users: 0 };
    holder[KEY] = shared;
  }
  shared.users += 1;
  const dynamo = await shared.started;
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    const current = holder[KEY];
    if (!current) return;
    current.users -= 1;
    if (current.users > 0) return;
    delete holder[KEY];
    await dynamo.stop();
  };
}
