import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { collectOutput } from './child-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** What runtime-child.ts takes (HERALD_CHILD_RUNTIME). */
export interface ChildRuntimeConfig {
  dataDir: string;
  tableName: string;
  dynamoEndpoint: string;
  env?: Record<string, string>;
  port?: number;
}

/**
 * Starts the local runtime in a child process (test/support/runtime-child.ts), so a test can kill
 * it outright; `output()` is everything it printed so far (stdout and stderr).
 */
export const spawnRuntimeChild = (
  config: ChildRuntimeConfig,
): { child: ChildProcess; output: () => string } => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/runtime-child.ts'], {
    cwd: ROOT,
    env: { ...process.env, HERALD_CHILD_RUNTIME: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, output: collectOutput(child) };
};
