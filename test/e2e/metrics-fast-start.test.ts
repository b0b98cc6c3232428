import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectOutput } from '../support/child-output.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Fast metrics locally (issue 30): a time scale that is not a number stops `npm start`, and a
 * restart at a faster pace takes the reading that is overdue on it soon after the start, once (it
 * used to wait for its time on the old pace: an hour). The banner's line is checked where
 * test/e2e/npm-start.test.ts starts `npm start` (one file per fixed Cognito port).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'herald-fast-metrics-'));
const running: TestRuntime[] = [];

afterAll(async () => {
  for (const rt of running) await rt.stop().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('fast metrics locally', () => {
  it('npm start refuses a time scale that is not a positive number, before starting anything', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', METRICS_TIME_SCALE: 'fast' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(child);
    const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
    expect(code).toBe(1);
    expect(output()).toContain(
      'Herald could not start: Environment variable METRICS_TIME_SCALE must be a positive number',
    );
    expect(output()).toContain('METRICS_TIME_SCALE  runs the metrics cadence');
  });

  it('after a restart at 3600x takes the reading overdue on it soon after the start, once', async () => {
    const tableName = `herald-fast-metrics-${process.pid}`;
    // At the real pace: the post's first reading is an hour away.
    const first = await startTestRuntime({ dataDir, tableName, env: { METRICS_TIME_SCALE: '1' } });
    running.push(first);
    // A sandbox post: its readings are simulated, so they do not depend on the network simulators,
    // which forget their posts when the runtime stops.
    const key = first.seed.keys.test;
    const bluesky = first.seed.channels.find((c) => c.platform === 'bluesky')?.id;
    const created = await first.api('/posts', {
      method: 'POST',
      key,
      body: { intent: 'now', channels: [{ channelId: bluesky, blocks: [{ content: 'fast metrics' }] }] },
    });
    expect(created.status, created.text).toBe(201);
    const postId = created.body.id as string;
    const metrics = async (rt: TestRuntime) => (await rt.api(`/posts/${postId}/metrics`, { key })).body;
    const before = await waitFor(
      async () => {
        const channel = (await metrics(first)).channels[0];
        return channel.collection === 'collecting' && channel;
      },
      { what: 'the post to go live' },
    );
    expect(before.counts.readings).toBe(0);
    const liveAt = Date.parse(before.publishedAt);
    await first.stop();

    // Two hours of the cadence at 3600x have passed by the time the runtime is back; the sweep's
    // interval is the default one (a second at this pace).
    await waitFor(() => Date.now() > liveAt + 2000, { what: 'two seconds after going live' });
    const second = await startTestRuntime({ dataDir, tableName, env: { METRICS_TIME_SCALE: '3600' } });
    running.push(second);
    const restartedAt = Date.now();
    const channel = await waitFor(
      async () => {
        const c = (await metrics(second)).channels[0];
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
  }, 120_000);
});
