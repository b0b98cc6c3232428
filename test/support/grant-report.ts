/**
 * The reverse of the grant check: which grants each function never used during a test run. The
 * local runtime of every test process records the grants that allowed its functions' AWS calls
 * (functions/adapters/local/grant-usage.ts); a reporter merges those records with
 * the manifest and prints the grants nobody exercised (test/support/grant-reporter.ts). A grant listed there is a privilege no test
 * needed: either a test is missing or the grant is. It reports; it never fails the run.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GrantUsageFile } from '../../functions/adapters/local/grant-usage.ts';
import {
  fallbackGrants,
  healthRoute,
  publicRoutes,
  routes,
  userRoutes,
} from '../../functions/http/routes.ts';
import type { Grant } from '../../functions/shared/grants.ts';
import { workers } from '../../functions/workers/manifest.ts';

/** Every function of the manifest by the name the local runtime records it under, with its grants. */
export const manifestGrants = (): Map<string, readonly Grant[]> =>
  new Map<string, readonly Grant[]>([
    ...[...routes, ...userRoutes].map((r): [string, Grant[]] => [`${r.method} ${r.path}`, r.grants]),
    [`${healthRoute.method} ${healthRoute.path}`, healthRoute.grants],
    ...publicRoutes.map((r): [string, Grant[]] => [`${r.method} ${r.path}`, r.grants]),
    ['$default', fallbackGrants],
    ...workers.map((w): [string, Grant[]] => [w.entry, w.grants]),
  ]);

export interface GrantReport {
  /** Functions that ran, with the manifest grants they never used (only those with some). */
  unused: Record<string, Grant[]>;
  /** Functions that ran, with what they used. */
  used: Record<string, Grant[]>;
  /** Functions of the manifest that never ran in this run (a partial run leaves many out). */
  notRun: string[];
}

/** Merges the processes' records against the manifest. */
export const buildGrantReport = (
  files: readonly GrantUsageFile[],
  manifest: ReadonlyMap<string, readonly Grant[]>,
): GrantReport => {
  const used = new Map<string, Set<Grant>>();
  for (const file of files) {
    for (const [fn, grants] of Object.entries(file.functions)) {
      const set = used.get(fn) ?? new Set<Grant>();
      for (const grant of grants) set.add(grant);
      used.set(fn, set);
    }
  }
  const report: GrantReport = { unused: {}, used: {}, notRun: [] };
  for (const [fn, grants] of manifest) {
    const seen = used.get(fn);
    if (!seen) {
      report.notRun.push(fn);
      continue;
    }
    report.used[fn] = [...seen].sort();
    const unused = [...new Set(grants)].filter((grant) => !seen.has(grant)).sort();
    if (unused.length > 0) report.unused[fn] = unused;
  }
  return report;
};

/** The usage records the test processes wrote into `dir`. */
export const readUsageFiles = (dir: string): GrantUsageFile[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as GrantUsageFile)
    : [];

/** The report as a few lines for the end of a test run. */
export const formatGrantReport = (report: GrantReport, file: string): string => {
  const ran = Object.keys(report.used).length;
  const lines = [`Grant usage: ${ran} functions ran (${report.notRun.length} did not); details in ${file}`];
  const unused = Object.entries(report.unused);
  if (unused.length === 0) lines.push('  every function that ran used every grant it has');
  else {
    lines.push('  grants never used during this run (a test is missing, or the grant is not needed):');
    for (const [fn, grants] of unused) lines.push(`    ${fn}: ${grants.join(', ')}`);
  }
  return lines.join('\n');
};

/** Writes the report to `file` and prints it; does nothing when no function ran (a run of unit tests). */
export const reportGrantUsage = (dir: string, file: string, shownAs = file): GrantReport | null => {
  const files = readUsageFiles(dir);
  if (files.length === 0) return null;
  const report = buildGrantReport(files, manifestGrants());
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${formatGrantReport(report, shownAs)}\n`);
  return report;
};
