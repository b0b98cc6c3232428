/**
 * Which grants each function actually used in this process, so a test run can list the grants a
 * function never needed (privileges nobody exercised). With `HERALD_GRANT_USAGE_DIR` set (the test
 * suite's global setup sets it), every process writes its own file there whenever it learns
 * something new; the setup's teardown merges them (see test/support/grant-report.ts).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { env } from '../../shared/env.ts';
import type { Grant } from '../../shared/grants.ts';

/** What one process writes: every function it ran, with the grants that allowed its AWS calls. */
export interface GrantUsageFile {
  functions: Record<string, Grant[]>;
}

const used = new Map<string, Set<Grant>>();
/** The watches started by `watchGrantUsage` and not yet stopped. */
const watches = new Set<Map<string, Set<Grant>>>();

const add = (into: Map<string, Set<Grant>>, functionId: string, grants: readonly Grant[]): boolean => {
  let known = into.get(functionId);
  let changed = false;
  if (!known) {
    known = new Set();
    into.set(functionId, known);
    changed = true;
  }
  for (const grant of grants) {
    if (known.has(grant)) continue;
    known.add(grant);
    changed = true;
  }
  return changed;
};

const flush = (): void => {
  const dir = env.grantUsageDir;
  if (!dir) return;
  const content: GrantUsageFile = {
    functions: Object.fromEntries([...used].map(([fn, grants]) => [fn, [...grants].sort()])),
  };
  mkdirSync(dir, { recursive: true });
  // Written whole and renamed, so a process killed mid-write leaves its previous file intact.
  const file = join(dir, `usage-${process.pid}.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(content));
  renameSync(`${file}.tmp`, file);
};

/** Records that `functionId` ran and, when given, which grants allowed one of its calls. */
export const recordGrantUse = (functionId: string, grants: readonly Grant[] = []): void => {
  for (const watch of watches) add(watch, functionId, grants);
  const changed = add(used, functionId, grants);
  // Only news is written: a function uses each grant once here, so this runs a few dozen times a process.
  if (changed) flush();
};

/** The grants each function of this process used so far. */
export const grantUsage = (): Map<string, ReadonlySet<Grant>> => new Map(used);

/**
 * The grants each function uses from now on, whatever ran in this process before (test files that
 * share a worker's modules): `usage()` reads them, `stop()` ends the watch.
 */
export const watchGrantUsage = (): {
  usage: () => Map<string, ReadonlySet<Grant>>;
  stop: () => void;
} => {
  const watch = new Map<string, Set<Grant>>();
  watches.add(watch);
  return { usage: () => new Map(watch), stop: () => void watches.delete(watch) };
};
