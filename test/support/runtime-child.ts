/**
 * Runs the local runtime in a child process, so a test can kill it outright (SIGKILL) mid-flight.
 * Config comes as JSON in HERALD_CHILD_RUNTIME: `{ dataDir, tableName, dynamoEndpoint, env, port }`
 * (port 0, any free one, unless given).
 * Prints one line `READY <baseUrl>` once it serves requests.
 */
import { startLocalRuntime } from '../../functions/adapters/local/runtime.ts';

const config = JSON.parse(process.env.HERALD_CHILD_RUNTIME ?? '{}') as {
  dataDir: string;
  tableName: string;
  dynamoEndpoint: string;
  env?: Record<string, string>;
  port?: number;
};
const runtime = await startLocalRuntime({
  dataDir: config.dataDir,
  port: config.port ?? 0,
  dynamoEndpoint: config.dynamoEndpoint,
  tableName: config.tableName,
  rateLimitPerMinute: 100_000,
  ...(config.env ? { env: config.env } : {}),
});
process.stdout.write(`READY ${runtime.baseUrl}\n`);
