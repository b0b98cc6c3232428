import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { spawnRuntimeChild } from '../support/child-runtime.ts';
import { makeCertificates, startReceiver } from '../support/https-receiver.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-webhook-crash-'));
const tableName = `herald-crash-${process.pid}-${Date.now()}`;
const certs = makeCertificates();
let child: ChildProcess | undefined;
let restarted: TestRuntime | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await restarted?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  certs.remove();
});

const webhookEnv = {
  WEBHOOK_EXTRA_CA_CERTS: certs.caFile,
  WEBHOOK_TIMEOUT_SECONDS: '2',
  WEBHOOK_RETRY_BASE_SECONDS: '0.5',
  WEBHOOK_SWEEP_AFTER_SECONDS: '1',
  WEBHOOK_SWEEP_INTERVAL_SECONDS: '1',
  // The kill may also interrupt a block being sent to a network: its claim must expire quickly
  // for publishing (and so the post.published events) to finish after the restart.
  NETWORK_TIMEOUT_MS: '2000',
  PUBLISH_LEASE_SECONDS: '5',
};

const startChild = async (): Promise<string> => {
  const started = spawnRuntimeChild({
    dataDir,
    tableName,
    dynamoEndpoint: inject('dynamoEndpoint'),
    env: webhookEnv,
  });
  child = started.child;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = /READY (\S+)/.exec(started.output());
    if (ready) return ready[1] as string;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`The child runtime did not start: ${started.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('no webhook event is lost when the process dies mid-delivery', () => {
  it('delivers every event after a SIGKILL and a restart (possibly twice, always with the same id)', async () => {
    let killed = false;
    const receiver = await startReceiver(certs, () => (killed ? { status: 200 } : 'hang'));
    try {
      const baseUrl = await startChild();
      const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8'));
      const call = async (path: string, method = 'GET', body?: unknown) => {
        const res = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { 'x-api-key': seed.keys.live, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const created = await call('/webhooks', 'POST', {
        url: receiver.url('/crash'),
        // Every post.* event: a kill that lands while a LinkedIn block is being sent leaves that
        // block's outcome unknown (LinkedIn has no lookup), so its channel ends failed, not published.
        events: ['post.published', 'post.failed', 'post.partially_failed'],
      });
      expect(created.status).toBe(201);
      const channels = seed.channels
        .filter((c: { platform: string }) => ['x', 'bluesky', 'linkedin'].includes(c.platform))
        .map((c: { id: string }) => c.id);
      const postIds: string[] = [];
      for (let i = 0; i < 4; i++) {
        const post = await call('/posts', 'POST', {
          intent: 'now',
          channels: channels.map((channelId: string) => ({
            channelId,
            blocks: [{ content: `crash test ${i}` }],
          })),
        });
        expect(post.status).toBe(201);
        postIds.push(post.body.id);
      }
      // Kill the process while deliveries are in flight (the receiver holds them open).
      await receiver.waitFor((all) => all.length >= 2, 20_000, 'deliveries in flight');
      child?.kill('SIGKILL');
      await new Promise((r) => child?.once('exit', r));
      killed = true;
      const inFlight = receiver.received.length;

      restarted = await startTestRuntime({ dataDir, tableName, env: webhookEnv });
      for (const postId of postIds) {
        // Posts whose publishing the kill interrupted finish now (their jobs are requeued on start).
        const deadline = Date.now() + 40_000;
        while (
          (await restarted.api(`/posts/${postId}`)).body.status === 'publishing' &&
          Date.now() < deadline
        )
          await new Promise((r) => setTimeout(r, 100));
      }
      const expected = postIds.flatMap((postId) =>
        channels.map((channelId: string) => `${postId}/${channelId}`),
      );
      const answered = () =>
        new Set(
          receiver.received.slice(inFlight).map((r) => `${r.body.data.post.id}/${r.body.data.channelId}`),
        );
      await receiver.waitFor(() => expected.every((pair) => answered().has(pair)), 60_000, 'every event');
      expect(inFlight).toBeGreaterThanOrEqual(2);
      // One event id per post and channel, however many times it came.
      const idsByPair = new Map<string, Set<string>>();
      for (const r of receiver.received) {
        const pair = `${r.body.data.post.id}/${r.body.data.channelId}`;
        idsByPair.set(pair, (idsByPair.get(pair) ?? new Set()).add(r.body.id));
      }
      expect([...idsByPair.keys()].sort()).toEqual([...expected].sort());
      for (const ids of idsByPair.values()) expect(ids.size).toBe(1);
      const log = (await restarted.api(`/webhooks/${created.body.endpoint.id}/deliveries?limit=100`)).body
        .data;
      const succeeded = new Set(log.filter((e: any) => e.outcome === 'succeeded').map((e: any) => e.eventId));
      expect(succeeded.size).toBe(expected.length);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
