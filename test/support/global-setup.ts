import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../functions/adapters/local/dynamodb-local.ts';
import { ENV } from '../../functions/shared/env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * One in-memory DynamoDB Local for the whole run; each test file uses tables of its own. Test
 * processes (forked after this runs, so they inherit the variable) record which grants their
 * functions used; test/support/grant-reporter.ts reports the grants no function used.
 */
export default async function setup(project: TestProject) {
  process.env.DDB_LOCAL_TELEMETRY = '0';
  // A directory given by the caller gathers usage across several runs (and is kept).
  const given = process.env[ENV.grantUsageDir];
  const usageDir = given || mkdtempSync(join(tmpdir(), 'herald-grant-usage-'));
  process.env[ENV.grantUsageDir] = usageDir;
  const dynamo = await startDynamoDbLocal({});
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo.stop();
    if (!given) rmSync(usageDir, { recursive: true, force: true });
  };
}
