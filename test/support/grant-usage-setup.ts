import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENV } from '../../functions/shared/env.ts';

/**
 * The root project's global setup, so it runs once per run whichever projects run: test processes
 * (forked after this runs, so they inherit the variable) record which grants their functions used;
 * test/support/grant-reporter.ts reports the grants no function used.
 */
export default function setup() {
  // A directory given by the caller gathers usage across several runs (and is kept).
  const given = process.env[ENV.grantUsageDir];
  const usageDir = given || mkdtempSync(join(tmpdir(), 'herald-grant-usage-'));
  process.env[ENV.grantUsageDir] = usageDir;
  return () => {
    if (!given) rmSync(usageDir, { recursive: true, force: true });
  };
}
