import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import type { Receiver } from '../support/https-receiver.ts';
import { publishNow } from '../support/publishing.ts';
import { waitForQueuesIdle } from '../support/quiet.ts';
import { startReceiverRuntime } from '../support/receiver-runtime.ts';
import type { TestRuntime } from '../support/runtime.ts';

// The whole retry schedule in seconds: waits of 0.002 s doubling, giving up 3.6 s after the first attempt.
const BASE = 0.002;
let rt: TestRuntime;
let receiver: Receiver;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ rt, receiver, stop } = await startReceiverRuntime({
    env: {
      WEBHOOK_RETRY_BASE_SECONDS: String(BASE),
      WEBHOOK_TIMEOUT_SECONDS: '1',
    },
    answer: (r) => (r.path === '/down' ? { status: 500 } : r.path === '/silent' ? 'hang' : { status: 200 }),
  }));
});
afterAll(async () => {
  await stop?.();
});

const waitUntil = async (check: () => Promise<boolean>, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('failing receivers', () => {
  it('gives up on an event after the whole schedule; 5 failed events in a row disable the endpoint; PUT enables it again', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const created = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: receiver.url('/down'), events: ['post.published'] },
    });
    const id = created.body.endpoint.id;
    await Promise.all([0, 1, 2, 3, 4].map((i) => publishNow(rt, ws.key, ws.channels.x, `doomed ${i}`)));
    await waitUntil(
      async () => (await rt.api(`/webhooks/${id}`, { key: ws.key })).body.status === 'disabled',
      20_000,
      'the endpoint to be disabled',
    );
    const endpoint = (await rt.api(`/webhooks/${id}`, { key: ws.key })).body;
    expect(endpoint).toMatchObject({
      enabled: false,
      status: 'disabled',
      disabledReason: 'consecutive_failures',
      consecutiveFailures: 5,
    });
    const downs = receiver.received.filter((r) => r.path === '/down');
    const events = new Set(downs.map((r) => r.body.id));
    expect(events.size).toBe(5);
    // Every event went through the whole schedule: attempts 1, 2, 3, ... (14 when each attempt takes
    // no time; fewer here, as each costs some milliseconds and a loaded machine runs retries late,
    // folding the overdue ones into one), the last 1800 bases after the first.
    for (const eventId of events) {
      const tries = receiver.forEvent(eventId);
      const numbers = tries.map((r) => Number(r.headers['x-herald-attempt']));
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
      expect(numbers.length).toBeGreaterThanOrEqual(2);
      expect(numbers.length).toBeLessThanOrEqual(14);
    }
    const log = (await rt.api(`/webhooks/${id}/deliveries?limit=100`, { key: ws.key })).body.data;
    for (const eventId of events) {
      const entries = log.filter((e: any) => e.eventId === eventId).reverse();
      expect(entries.map((e: any) => e.outcome).at(-1)).toBe('failed');
      const span = Date.parse(entries.at(-1).attemptedAt) - Date.parse(entries[0].attemptedAt);
      // Retries are planned from the first attempt's planned time; a first attempt that ran late
      // on a loaded machine shortens the measured span (by up to a second and a half when the machine
      // is very busy; giving up one step early would shorten it by 1.8 s); a last
      // attempt run late by a busy queue poller lengthens it (bounded generously: the point is that
      // the endpoint gives up at the end of the schedule, not before and not hours later).
      expect(span).toBeGreaterThanOrEqual(1800 * BASE * 1000 - 1500);
      expect(span).toBeLessThan(1800 * BASE * 1000 + 10_000);
    }
    expect(log.filter((e: any) => e.outcome === 'failed')).toHaveLength(5);
    expect(log.filter((e: any) => e.outcome === 'failed').every((e: any) => e.nextAttemptAt === null)).toBe(
      true,
    );

    // Disabled: a new event is not delivered.
    const before = receiver.received.length;
    await publishNow(rt, ws.key, ws.channels.x, 'while disabled');
    // Its events were dispatched (the queues that carry them to deliveries are empty), and none came.
    await waitForQueuesIdle(rt, ['publish', 'event', 'delivery']);
    expect(receiver.received.length).toBe(before);

    // Fixed receiver, endpoint enabled again with its count reset.
    const put = await rt.api(`/webhooks/${id}`, {
      method: 'PUT',
      key: ws.key,
      body: { enabled: true, url: receiver.url('/up') },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      enabled: true,
      status: 'enabled',
      consecutiveFailures: 0,
      disabledReason: null,
    });
    const back = await publishNow(rt, ws.key, ws.channels.x, 'after re-enabling');
    await receiver.waitFor((all) => all.some((r) => r.path === '/up' && r.body.data.post.id === back.id));
  }, 40_000);

  it('cuts a receiver that never answers at the timeout and retries', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const created = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: receiver.url('/silent'), events: ['post.published'] },
    });
    const id = created.body.endpoint.id;
    await publishNow(rt, ws.key, ws.channels.x, 'to a silent receiver');
    await waitUntil(
      async () => (await rt.api(`/webhooks/${id}/deliveries`, { key: ws.key })).body.data.length >= 2,
      10_000,
      'two attempts',
    );
    const log = (await rt.api(`/webhooks/${id}/deliveries`, { key: ws.key })).body.data.reverse();
    expect(log[0]).toMatchObject({
      attempt: 1,
      outcome: 'retrying',
      responseStatus: null,
      errorCode: 'timeout',
    });
    expect(log[0].error).toMatch(/within 1 s/);
    expect(log[0].durationMs).toBeGreaterThanOrEqual(1000);
    expect(log[0].durationMs).toBeLessThan(1500);
    expect(log[1]).toMatchObject({ attempt: 2, errorCode: 'timeout' });
    await rt.api(`/webhooks/${id}`, { method: 'DELETE', key: ws.key });
  });
});
