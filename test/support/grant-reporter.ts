import { relative, resolve } from 'node:path';
import type { Reporter } from 'vitest/node';
import { env } from '../../functions/shared/env.ts';
import { reportGrantUsage } from './grant-report.ts';

/** Where the run's grant usage report is written (git ignores `.herald-*`). */
const GRANT_REPORT = resolve(import.meta.dirname, '../../.herald-reports/grant-usage.json');

/**
 * Prints, at the end of a run, the grants each function that ran never used (see grant-report.ts).
 * Listed before the summary reporter so the run still ends with its one summary line.
 */
export default class GrantReporter implements Reporter {
  onTestRunEnd(): void {
    // The global setup names the directory the test processes record into.
    const dir = env.grantUsageDir;
    if (!dir) return;
    try {
      reportGrantUsage(dir, GRANT_REPORT, relative(process.cwd(), GRANT_REPORT));
    } catch (error) {
      // A report, never a failure of the run.
      console.error('Grant usage report failed:', error);
    }
  }
}
