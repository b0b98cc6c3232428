/**
 * npm runs a script as `sh -c "<script>"` and passes SIGINT and SIGTERM on to that shell only.
 * Without `exec` in the script, the shell stays between npm and node: SIGTERM kills it without
 * reaching node, and dash catches SIGINT and waits for node, which never hears of it. The
 * package's `start` and `receiver` scripts therefore `exec` node, so npm signals node itself. A
 * SIGKILLed npm passes nothing at all, and a script run without `exec` still has the shell in
 * between: the runtime would keep serving, orphaned. So it watches the processes that started it
 * (npm, and the shell when there is one) and stops when one of them goes.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'ksh', 'mksh']);

/** Parent pid and command name of `pid`, or undefined once it is gone (or a zombie). */
const statusOf = (pid: number): { ppid: number; command: string } | undefined => {
  if (process.platform === 'linux') {
    try {
      // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      if (state === 'Z' || state === 'X') return undefined;
      return { ppid: Number(ppid), command: stat.slice(stat.indexOf('(') + 1, close) };
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,stat=,comm=', '-p', String(pid)], { encoding: 'utf8' });
  const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(ps.stdout.trim());
  if (ps.status !== 0 || !match || match[2]?.startsWith('Z')) return undefined;
  return { ppid: Number(match[1]), command: (match[3] ?? '').split('/').at(-1) ?? '' };
};

/** Each watched process with the parent it had at start: a new parent means the old one died. */
const chainToWatch = (): { pid: number; ppid: number }[] => {
  const chain = [{ pid: process.pid, ppid: process.ppid }];
  // Under npm (it sets npm_lifecycle_event) with a script that does not exec, the parent is npm's
  // `sh -c`: watch npm behind it too.
  if (process.env.npm_lifecycle_event) {
    const parent = statusOf(process.ppid);
    if (parent && SHELLS.has(parent.command)) chain.push({ pid: process.ppid, ppid: parent.ppid });
  }
  return chain;
};

/**
 * Calls `onGone` once when the process that started this one exits (npm and its shell, when run
 * by `npm start`). Returns a function that stops watching.
 */
export function watchParent(onGone: (reason: string) => void, intervalMs = 500): () => void {
  const chain = chainToWatch();
  const timer = setInterval(() => {
    for (const { pid, ppid } of chain) {
      const current = pid === process.pid ? process.ppid : statusOf(pid)?.ppid;
      if (current !== ppid) {
        clearInterval(timer);
        onGone(`process ${ppid}, which started Herald, has exited`);
        return;
      }
    }
  }, intervalMs);
  // Watching must never be what keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
