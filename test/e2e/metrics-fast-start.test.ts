import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.ts';

/**
 * `npm start` with METRICS_TIME_SCALE (issue 30): the banner says the cadence runs fast, a value that
 * is not a number stops the start, and a restart at a faster pace takes the reading that is overdue
 * on it soon after the start, once (it used to wait for its time on the old pace: an hour).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'herald-fast-metrics-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const start = (extra: Record<string, string>) => {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    ...extra,
  };
  if (!('METRICS_TIME_SCALE' in extra)) delete env.METRICS_TIME_SCALE;
  delete env.METRICS_SWEEP_INTERVAL_SECONDS;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exited, output: () => output };
};

const listening = async (run: ReturnType<typeof start>) => {
  const port = await waitFor(
    () => {
      if (run.child.exitCode !== null) throw new Error(`npm start exited: ${run.output()}`);
      return /Herald listening on http:\/\/localhost:(\d+)\/v1/.exec(run.output())?.[1];
    },
    { timeoutMs: 60_000, intervalMs: 100, what: 'the listening line' },
  );
  return `http://localhost:${port}/v1`;
};

describe('fast metrics with npm start', () => {
  it('refuses a time scale that is not a positive number, before starting anything', async () => {
    const run = start({ METRICS_TIME_SCALE: 'fast' });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(
      'Herald could not start: Environment variable METRICS_TIME_SCALE must be a positive number',
    );
    expect(run.output()).toContain('METRICS_TIME_SCALE  runs the metrics cadence');
  });

  it('says so in the banner, and after a restart at 3600x takes the reading overdue on it, once', async () => {
    // At the real pace: no metrics line; the post's first reading is an hour away.
    const first = start({});
    const base = await listening(first);
    expect(first.output()).not.toContain('Metrics at');
    const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8'));
    // A sandbox post: its readings are simulated, so they do not depend on the network simulators,
    // which forget their posts when the runtime stops.
    const headers = { 'x-api-key': seed.keys.test, 'content-type': 'application/json' };
    const bluesky = seed.channels.find((c: { platform: string }) => c.platform === 'bluesky').id;
    const created = await fetch(`${base}/posts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        intent: 'now',
        channels: [{ channelId: bluesky, blocks: [{ content: `fast metrics ${Date.now()}` }] }],
      }),
    });
    expect(created.status).toBe(201);
    const postId = ((await created.json()) as { id: string }).id;
    const metrics = async (at: string) =>
      (await (await fetch(`${at}/posts/${postId}/metrics`, { headers })).json()) as any;
    const before = await waitFor(
      async () => {
        const channel = (await metrics(base)).channels[0];
        return channel.collection === 'collecting' && channel;
      },
      { what: 'the post to go live' },
    );
    expect(before.counts.readings).toBe(0);
    const liveAt = Date.parse(before.publishedAt);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // Two hours of the cadence at 3600x have passed by the time the runtime is back.
    await waitFor(() => Date.now() > liveAt + 2000, { what: 'two seconds after going live' });
    const second = start({ METRICS_TIME_SCALE: '3600' });
    const again = await listening(second);
    const restartedAt = Date.now();
    expect(second.output()).toContain(
      'Metrics at 3600x the real pace (METRICS_TIME_SCALE=3600): an hour of the cadence lasts 1 s',
    );
    expect(second.output()).toContain('due readings are handed out every 1 s');
    const channel = await waitFor(
      async () => {
        const c = (await metrics(again)).channels[0];
        return c.readings.length > 0 && c;
      },
      { timeoutMs: 10_000, what: 'the overdue reading' },
    );
    expect(channel.readings[0]).toMatchObject({ status: 'ok' });
    // Taken soon after the start, once, for the latest point of the cadence then due: the hours
    // that passed while stopped collapse into it (no reading for hour 1, then one for hour 2).
    expect(Date.parse(channel.readings[0].at) - restartedAt).toBeLessThan(5000);
    expect(Date.parse(channel.readings[0].dueAt)).toBeGreaterThanOrEqual(liveAt + 2000);
    const dueTimes: number[] = channel.readings.map((r: { dueAt: string }) => Date.parse(r.dueAt));
    expect(dueTimes).toEqual([...new Set(dueTimes)].sort((a, b) => a - b));
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 150_000);
});
