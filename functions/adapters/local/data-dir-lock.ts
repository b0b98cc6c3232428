/**
 * One local runtime per DATA_DIR: two on the same directory would run two DynamoDB Local engines
 * on the same database files, fire each other's schedules and overwrite seed.json/runtime.json.
 * The lock is a file holding the owner's pid; a lock whose owner is dead is taken over.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'herald.lock';

/** What the lock file holds. */
export interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
  /** The HTTP port asked for (0: any free one). */
  port: number;
  /** The DynamoDB Local (java) process the owner started, once started. */
  javaPid?: number;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    const where =
      holder.hostname === hostname()
        ? `process ${holder.pid}`
        : `process ${holder.pid} on ${holder.hostname}`;
    super(
      `${dataDir} is in use by another Herald (${where}, started ${holder.startedAt}${holder.port ? `, port ${holder.port}` : ''}). ` +
        `Stop it (Ctrl-C in its terminal, or kill ${holder.pid}), or start this one with another DATA_DIR ` +
        `(DATA_DIR=.herald-2 npm start). If process ${holder.pid} is not Herald, delete ${join(dataDir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  file: string;
  /** The dead owner whose lock was taken over, if any. */
  tookOverFrom?: LockHolder;
  /** Adds to what the lock file says about the owner (e.g. the java pid once known). */
  update(extra: Partial<LockHolder>): void;
  /** Removes the lock if it is still ours; idempotent. */
  release(): void;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const readHolder = (file: string): { raw: string; holder: LockHolder | undefined } | undefined => {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const holder = JSON.parse(raw) as LockHolder;
    return { raw, holder: Number.isInteger(holder.pid) && holder.pid > 0 ? holder : undefined };
  } catch {
    return { raw, holder: undefined };
  }
};

/** A holder on another machine (a shared directory) cannot be checked: it counts as alive. */
const holderAlive = (holder: LockHolder | undefined): holder is LockHolder =>
  holder !== undefined && (holder.hostname !== hostname() || isAlive(holder.pid));

/** Creates `file` with `content` only if it does not exist, never leaving it half-written. */
const createExclusive = (file: string, content: string): boolean => {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock on `dataDir` (which must exist) for this process, or throws DataDirLockedError
 * naming the live owner. A lock left by a dead process is taken over; two processes racing for
 * the same stale lock take turns through a short-lived takeover file, so only one wins.
 */
export async function acquireDataDirLock(dataDir: string, options: { port: number }): Promise<DataDirLock> {
  const file = join(dataDir, LOCK_FILE);
  const guard = `${file}.takeover`;
  let mine: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    port: options.port,
  };
  const content = () => `${JSON.stringify(mine, null, 2)}\n`;
  let tookOverFrom: LockHolder | undefined;

  for (let attempt = 0; ; attempt++) {
    if (attempt > 50) throw new Error(`Could not take the lock ${file}: it keeps changing`);
    if (createExclusive(file, content())) break;
    const current = readHolder(file);
    if (!current) continue; // released meanwhile: try again
    if (holderAlive(current.holder)) throw new DataDirLockedError(dataDir, current.holder);
    // Stale: replace it, but only while holding the takeover file, and only if it is still the
    // same stale content (another starter may have taken it over already).
    if (!createExclusive(guard, content())) {
      const other = readHolder(guard);
      if (other && !holderAlive(other.holder)) unlinkSync(guard);
      else await sleep(50);
      continue;
    }
    try {
      if (readHolder(file)?.raw !== current.raw) continue;
      const temporary = `${file}.${process.pid}.new`;
      writeFileSync(temporary, content(), { mode: 0o600 });
      renameSync(temporary, file);
      tookOverFrom = current.holder;
      break;
    } finally {
      unlinkSync(guard);
    }
  }

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (readHolder(file)?.holder?.pid === process.pid) unlinkSync(file);
  };
  // A process.exit() without stop() (a crash in start-up, a forced quit) still frees the directory.
  process.on('exit', release);
  return {
    file,
    ...(tookOverFrom ? { tookOverFrom } : {}),
    update: (extra) => {
      if (released) return;
      mine = { ...mine, ...extra };
      const temporary = `${file}.${process.pid}.new`;
      writeFileSync(temporary, content(), { mode: 0o600 });
      renameSync(temporary, file);
    },
    release,
  };
}
