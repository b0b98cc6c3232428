/**
 * `npm start` as a dependable dev server: progress and one line per request, one Herald per
 * DATA_DIR, a taken port said before Java starts, and every way out (SIGTERM to npm, npm or node
 * SIGKILLed, SIGHUP) leaving no process behind. Runs npm and node as a user does.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../functions/adapters/local/dynamodb-local.ts';
import { checkResponsesFrom } from '../support/contract.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const REQUEST_ID = 'req_[0-9a-f-]{36}';
const dirs: string[] = [];
const started: Started[] = [];

const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `herald-${name}-`));
  dirs.push(dir);
  return dir;
};

afterAll(async () => {
  // Whatever a failed test left: each start runs in a process group of its own.
  for (const { child } of started) {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const baseEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('LOG_LEVEL' in extra)) delete env.LOG_LEVEL;
  return env;
};

/**
 * `npm start` (or `node --import tsx bin/local.ts`) in a process group of its own; `background`:
 * npm as a background job of a non-interactive shell (how a process manager or a script starts
 * it: SIGINT ignored at its start), the shell printing `npm pid <pid>` and, at the end, `npm
 * exited <code>`.
 */
const start = (
  how: 'npm' | 'node' | 'background',
  env: Record<string, string>,
  extra: string[] = [],
): Started => {
  const [command, args] =
    how === 'npm'
      ? ['npm', ['start', ...extra]]
      : how === 'background'
        ? ['sh', ['-c', 'npm start & pid=$!; echo "npm pid $pid"; wait "$pid"; echo "npm exited $?"']]
        : [process.execPath, ['--import', 'tsx', 'bin/local.ts', ...extra]];
  const child = spawn(command as string, args as string[], {
    cwd: ROOT,
    env: baseEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const result = { child, output: () => output, exited };
  started.push(result);
  return result;
};

const waitForOutput = async (
  run: Started,
  pattern: RegExp,
  timeoutMs = 100_000,
): Promise<RegExpExecArray> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(run.output());
    if (match) return match;
    if (run.child.exitCode !== null || run.child.signalCode !== null || Date.now() > deadline) {
      throw new Error(`Never printed ${pattern}:\n${run.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
};

const listening = (run: Started) =>
  waitForOutput(run, /Herald listening on http:\/\/localhost:(\d+)\/v1/).then((m) => Number(m[1]));

/** Every process below `pid`, from `ps`. */
const descendants = (pid: number): number[] => {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const [child, ppid] of rows) {
      if (ppid === parent && !found.includes(child)) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
};

/** Running, and not a zombie waiting to be reaped. */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const ps = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return ps.status === 0 && !ps.stdout.trim().startsWith('Z');
};

/** The pids still running once they have had up to `timeoutMs` to go. */
const stillRunningAfter = async (pids: number[], timeoutMs = 30_000): Promise<number[]> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = pids.filter(isRunning);
    if (running.length === 0 || Date.now() > deadline) return running;
    await new Promise((r) => setTimeout(r, 200));
  }
};

const portOpen = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** A pid that no process has any more. */
const deadPid = (): number => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(gone.stdout);
};

describe('npm start as a dev server', () => {
  it('prints progress and one line per request, refuses a second start on its DATA_DIR and a taken port, and stops every process on SIGTERM to npm', async () => {
    const dataDir = tempDir('dev');
    const port = await freePort();
    const npm = start('npm', { DATA_DIR: dataDir, PORT: String(port) });
    expect(await listening(npm)).toBe(port);
    const startOutput = npm.output();
    // Progress came before the listening line, the Java wait said so while it happened.
    const progress = [
      'Starting Herald',
      'starting DynamoDB Local (Java)',
      'DynamoDB Local ready',
      'seeding a demo account',
    ];
    for (const line of progress) expect(startOutput).toContain(line);
    expect(startOutput.indexOf('Starting Herald')).toBeLessThan(startOutput.indexOf('Herald listening'));

    const seed = readJson(join(dataDir, 'seed.json'));
    const info = readJson(join(dataDir, 'runtime.json'));
    const base = `http://localhost:${port}`;
    // The child's answers are checked against the OpenAPI document too.
    checkResponsesFrom(base);
    const channels = await fetch(`${base}/v1/channels`, { headers: { 'x-api-key': seed.keys.live } });
    expect(channels.status).toBe(200);
    const refused = await fetch(`${base}/v1/tags?token=not-for-logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seed.keys.read}`, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(refused.status).toBe(403);
    const channelsLine = await waitForOutput(
      npm,
      new RegExp(`^GET /v1/channels 200 \\d+ms (${REQUEST_ID})$`, 'm'),
    );
    expect(channelsLine[1]).toBe(channels.headers.get('x-request-id'));
    const refusedLine = await waitForOutput(
      npm,
      new RegExp(`^POST /v1/tags 403 \\d+ms (${REQUEST_ID})$`, 'm'),
    );
    expect(refusedLine[1]).toBe(refused.headers.get('x-request-id'));
    const requestLines = npm.output().slice(startOutput.length);
    expect(requestLines).not.toContain(seed.keys.live);
    expect(requestLines).not.toContain(seed.keys.read);
    expect(requestLines).not.toContain('not-for-logs');

    // A second start on the same DATA_DIR names the first and changes nothing.
    const seedBefore = readFileSync(join(dataDir, 'seed.json'), 'utf8');
    const runtimeBefore = readFileSync(join(dataDir, 'runtime.json'), 'utf8');
    const second = start('npm', { DATA_DIR: dataDir, PORT: String(await freePort()) });
    const secondExit = await second.exited;
    expect(secondExit.code, second.output()).not.toBe(0);
    expect(second.output()).toContain(`process ${info.pid}`);
    expect(second.output()).toMatch(/another DATA_DIR/);
    expect(second.output()).not.toContain('DynamoDB Local ready');
    expect(readFileSync(join(dataDir, 'seed.json'), 'utf8')).toBe(seedBefore);
    expect(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).toBe(runtimeBefore);
    expect(readJson(join(dataDir, 'herald.lock')).pid).toBe(info.pid);
    expect((await fetch(`${base}/health`)).status).toBe(200);

    // A taken port is said at once, with one to use instead, before Java starts; a DATA_DIR that
    // existed is left as it was, even with --fresh, and one that did not is not left behind.
    const otherDir = tempDir('dev-port');
    writeFileSync(join(otherDir, 'kept.txt'), 'kept');
    const third = start('npm', { DATA_DIR: otherDir, PORT: String(port) }, ['--', '--fresh']);
    const thirdExit = await third.exited;
    expect(thirdExit.code, third.output()).not.toBe(0);
    expect(third.output()).toMatch(new RegExp(`port ${port} is in use; run with PORT=\\d+ npm start`));
    expect(third.output()).not.toContain('starting DynamoDB Local');
    expect(readdirSync(otherDir)).toEqual(['kept.txt']);
    const newDir = join(tempDir('dev-port-new'), 'data', 'herald');
    const fourth = start('npm', { DATA_DIR: newDir, PORT: String(port) });
    expect((await fourth.exited).code, fourth.output()).not.toBe(0);
    expect(fourth.output()).toMatch(new RegExp(`port ${port} is in use`));
    expect(existsSync(join(newDir, '..', '..', 'data'))).toBe(false);

    // SIGTERM to npm stops node and Java, frees the port and the DATA_DIR.
    const pids = [...new Set([...descendants(npm.child.pid as number), info.pid, info.dynamoPid])];
    expect(pids).toEqual(expect.arrayContaining([info.pid, info.dynamoPid]));
    npm.child.kill('SIGTERM');
    expect((await npm.exited).code, npm.output()).toBe(0);
    expect(npm.output()).toMatch(/SIGTERM: stopping Herald\.\.\.\nHerald stopped\.\n/);
    expect(await stillRunningAfter(pids)).toEqual([]);
    expect(await portOpen(port)).toBe(false);
    expect(await portOpen(Number(new URL(info.dynamoEndpoint).port))).toBe(false);
    expect(existsSync(join(dataDir, 'herald.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
  }, 240_000);

  it('stops cleanly on SIGINT to npm (a background job of a non-interactive shell) and on SIGINT to its process group; the banner counts what the demo workspace holds', async () => {
    const dataDir = tempDir('dev-sigint');
    /** Sends the signal, then checks everything stopped and was drained. */
    const stopsCleanly = async (run: Started, port: number, send: () => void) => {
      const info = readJson(join(dataDir, 'runtime.json'));
      const pids = [...new Set([...descendants(run.child.pid as number), info.pid, info.dynamoPid])];
      expect(pids).toEqual(expect.arrayContaining([info.pid, info.dynamoPid]));
      send();
      await waitFor(() => run.child.exitCode !== null || run.child.signalCode !== null, {
        timeoutMs: 60_000,
        what: `npm start to exit after SIGINT:\n${run.output()}`,
      });
      // One stop, asked once (npm forwarding the group's Ctrl-C is not a second one), drained.
      expect(run.output().match(/SIGINT: stopping Herald\.\.\./g), run.output()).toHaveLength(1);
      expect(run.output()).not.toContain('again: stopping now');
      expect(run.output()).toContain('Herald stopped.');
      expect(await stillRunningAfter(pids)).toEqual([]);
      expect(await portOpen(port)).toBe(false);
      expect(existsSync(join(dataDir, 'herald.lock'))).toBe(false);
      expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    };

    // SIGINT to npm's pid alone, as a process manager or an IDE sends it.
    const background = start('background', { DATA_DIR: dataDir, PORT: '0' });
    const npmPid = Number((await waitForOutput(background, /^npm pid (\d+)$/m))[1]);
    const port = await listening(background);
    expect(background.output()).toContain('12 channels, 2 tags in the demo workspace.');
    const seed = readJson(join(dataDir, 'seed.json'));
    const headers = { 'x-api-key': seed.keys.live, 'content-type': 'application/json' };
    const base = `http://localhost:${port}/v1`;
    const bluesky = seed.channels.find((c: { platform: string }) => c.platform === 'bluesky').id;
    expect((await fetch(`${base}/channels/${bluesky}`, { method: 'DELETE', headers })).status).toBe(200);
    const tag = await fetch(`${base}/tags`, { method: 'POST', headers, body: '{"name":"Added"}' });
    expect(tag.status).toBe(201);
    await stopsCleanly(background, port, () => process.kill(npmPid, 'SIGINT'));
    expect(background.output()).toContain('npm exited 0');

    // Ctrl-C in a terminal: SIGINT to npm's whole process group.
    const group = start('npm', { DATA_DIR: dataDir, PORT: '0' });
    const groupPort = await listening(group);
    expect(group.output()).toContain('11 channels, 3 tags in the demo workspace.');
    await stopsCleanly(group, groupPort, () => process.kill(-(group.child.pid as number), 'SIGINT'));
    expect((await group.exited).code).toBe(0);
  }, 240_000);

  it('takes over a lock whose owner is dead; when node is SIGKILLed Java goes too, and when npm is SIGKILLed node and Java stop', async () => {
    const dataDir = tempDir('dev-stale');
    const dead = deadPid();
    writeFileSync(
      join(dataDir, 'herald.lock'),
      JSON.stringify({ pid: dead, hostname: hostname(), startedAt: new Date().toISOString(), port: 0 }),
    );
    const first = start('npm', { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
    const port = await listening(first);
    const info = readJson(join(dataDir, 'runtime.json'));
    expect(readJson(join(dataDir, 'herald.lock')).pid).toBe(info.pid);

    // node killed outright: no exit hook runs, yet Java does not outlive it.
    process.kill(info.pid, 'SIGKILL');
    await first.exited;
    expect(await stillRunningAfter([info.pid, info.dynamoPid])).toEqual([]);
    expect(await portOpen(port)).toBe(false);
    // Its lock stays behind, naming a dead process: the next start takes it over.
    expect(readJson(join(dataDir, 'herald.lock')).pid).toBe(info.pid);

    const again = start('npm', { DATA_DIR: dataDir, PORT: '0' });
    const againPort = await listening(again);
    expect(again.output()).toContain(`took over the lock of process ${info.pid}`);
    const againInfo = readJson(join(dataDir, 'runtime.json'));
    const pids = [
      ...new Set([...descendants(again.child.pid as number), againInfo.pid, againInfo.dynamoPid]),
    ];
    expect(pids).toEqual(expect.arrayContaining([againInfo.pid, againInfo.dynamoPid]));

    // npm killed outright: node notices and stops everything it started.
    again.child.kill('SIGKILL');
    expect(await stillRunningAfter(pids)).toEqual([]);
    expect(await portOpen(againPort)).toBe(false);
    expect(existsSync(join(dataDir, 'herald.lock'))).toBe(false);
  }, 240_000);

  it('stops node and Java on SIGHUP (the terminal closing), and LOG_LEVEL=warn prints no request line', async () => {
    const dataDir = tempDir('dev-hup');
    const node = start('node', { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
    const port = await listening(node);
    expect(node.output()).not.toContain('Starting Herald');
    const seed = readJson(join(dataDir, 'seed.json'));
    const info = readJson(join(dataDir, 'runtime.json'));
    const res = await fetch(`http://localhost:${port}/v1/channels`, {
      headers: { 'x-api-key': seed.keys.live },
    });
    expect(res.status).toBe(200);
    const pids = [...new Set([...descendants(node.child.pid as number), info.dynamoPid])];
    node.child.kill('SIGHUP');
    expect((await node.exited).code).toBe(0);
    expect(node.output()).not.toContain(res.headers.get('x-request-id') as string);
    expect(node.output()).not.toMatch(/GET \/v1\/channels/);
    expect(await stillRunningAfter(pids)).toEqual([]);
    expect(await portOpen(port)).toBe(false);
  }, 240_000);
});
