import { describe, expect, it } from 'vitest';
import {
  deliveryBody,
  eventBody,
  METRICS_SWEEP_MESSAGE,
  metricsBody,
  POST_SWEEP_MESSAGE,
  parseDeliveryMessage,
  parseEventMessage,
  parseMetricsMessage,
  parsePublishMessage,
  publishBody,
  TOKEN_SWEEP_MESSAGE,
  WEBHOOK_SWEEP_MESSAGE,
} from '../../functions/ports/queue-messages.ts';

const ok = <T>(parsed: { ok: true; message: T } | { ok: false; problem: string }): T => {
  if (!parsed.ok) throw new Error(`expected a message, got: ${parsed.problem}`);
  return parsed.message;
};
const problemOf = (parsed: { ok: true } | { ok: false; problem: string }): string => {
  if (parsed.ok) throw new Error('expected a malformed message');
  return parsed.problem;
};

describe('publish queue messages', () => {
  it('reads back every kind its senders build', () => {
    const run = {
      kind: 'run' as const,
      postId: 'post_1',
      round: 2,
      reads: { workspaceId: 'ws_1', channelIds: ['ch_1', 'ch_2'] },
      recovered: true as const,
    };
    const scheduled = {
      kind: 'scheduled' as const,
      postId: 'post_2',
      scheduledAt: '2026-12-01T10:00:00.000Z',
    };
    expect(ok(parsePublishMessage(publishBody(run)))).toEqual(run);
    expect(ok(parsePublishMessage(publishBody(scheduled)))).toEqual(scheduled);
    expect(ok(parsePublishMessage(POST_SWEEP_MESSAGE))).toEqual({ kind: 'sweep' });
    expect(ok(parsePublishMessage(TOKEN_SWEEP_MESSAGE))).toEqual({ kind: 'token-sweep' });
  });

  it('upgrades the sweeps sent before kinds ({ sweep: true }, { tokenSweep: true })', () => {
    expect(ok(parsePublishMessage('{"sweep":true}'))).toEqual({ kind: 'sweep' });
    expect(ok(parsePublishMessage('{"tokenSweep":true}'))).toEqual({ kind: 'token-sweep' });
  });

  it('leaves a malformed hint of what to read out rather than dropping the job', () => {
    const body = JSON.stringify({ kind: 'run', postId: 'post_1', round: 1, reads: { workspaceId: 7 } });
    const message = ok(parsePublishMessage(body));
    expect(message).toMatchObject({ kind: 'run', postId: 'post_1', round: 1 });
    expect(message).not.toHaveProperty('reads.workspaceId');
    expect((message as { reads?: unknown }).reads).toBeUndefined();
  });

  it('refuses what can never be a job, naming the fields at fault but never their values', () => {
    expect(problemOf(parsePublishMessage('not json'))).toBe('not JSON');
    expect(problemOf(parsePublishMessage('{"kind":"run"}'))).toContain('postId');
    expect(problemOf(parsePublishMessage('{"kind":"publish","postId":"post_1"}'))).toContain('kind');
    expect(problemOf(parsePublishMessage('{"sweep":false}'))).toContain('kind');
    expect(problemOf(parsePublishMessage('[1,2]'))).not.toBe('');
    const problem = problemOf(
      parsePublishMessage('{"kind":"run","postId":"post_1","round":"sk_live_secret"}'),
    );
    expect(problem).toContain('round');
    expect(problem).not.toContain('sk_live_secret');
  });
});

describe('event queue messages', () => {
  it('reads back an event with its facts, an event alone, and the sweep', () => {
    const withFacts = {
      kind: 'event' as const,
      eventId: 'evt_1',
      workspaceId: 'ws_1',
      type: 'post.published' as const,
      mode: 'live' as const,
    };
    expect(ok(parseEventMessage(eventBody(withFacts)))).toEqual(withFacts);
    expect(ok(parseEventMessage(eventBody({ kind: 'event', eventId: 'evt_2' })))).toEqual({
      kind: 'event',
      eventId: 'evt_2',
    });
    expect(ok(parseEventMessage(WEBHOOK_SWEEP_MESSAGE))).toEqual({ kind: 'sweep' });
  });

  it('upgrades the bodies sent before kinds', () => {
    expect(ok(parseEventMessage('{"sweep":true}'))).toEqual({ kind: 'sweep' });
    expect(ok(parseEventMessage('{"eventId":"evt_1"}'))).toEqual({ kind: 'event', eventId: 'evt_1' });
    expect(
      ok(parseEventMessage('{"eventId":"evt_1","workspaceId":"ws_1","type":"post.failed","mode":"test"}')),
    ).toEqual({ kind: 'event', eventId: 'evt_1', workspaceId: 'ws_1', type: 'post.failed', mode: 'test' });
  });

  it('leaves a malformed fact out (the event is then read first) and refuses a message without an event id', () => {
    const message = ok(parseEventMessage('{"kind":"event","eventId":"evt_1","workspaceId":"ws_1","mode":7}'));
    expect(message).toMatchObject({ kind: 'event', eventId: 'evt_1', workspaceId: 'ws_1' });
    expect((message as { mode?: unknown }).mode).toBeUndefined();
    expect(problemOf(parseEventMessage('{"kind":"event"}'))).toContain('eventId');
    expect(problemOf(parseEventMessage('{"eventId":42}'))).toContain('eventId');
    expect(problemOf(parseEventMessage('{}'))).toContain('kind');
  });
});

describe('delivery queue messages', () => {
  it('reads back a delivery and upgrades one sent before kinds', () => {
    const job = { kind: 'delivery' as const, deliveryId: 'dlv_1', attempt: 3 };
    expect(ok(parseDeliveryMessage(deliveryBody(job)))).toEqual(job);
    expect(ok(parseDeliveryMessage('{"deliveryId":"dlv_1","attempt":1}'))).toEqual({
      kind: 'delivery',
      deliveryId: 'dlv_1',
      attempt: 1,
    });
  });

  it('refuses an attempt that is not a whole number from 1', () => {
    expect(problemOf(parseDeliveryMessage('{"deliveryId":"dlv_1","attempt":0}'))).toContain('attempt');
    expect(problemOf(parseDeliveryMessage('{"deliveryId":"dlv_1","attempt":1.5}'))).toContain('attempt');
    expect(problemOf(parseDeliveryMessage('{"deliveryId":"dlv_1"}'))).toContain('attempt');
  });
});

describe('metrics queue messages', () => {
  it('reads back a reading and the sweep, and upgrades both from before kinds', () => {
    const job = { kind: 'reading' as const, postId: 'post_1', channelId: 'ch_1', step: 4, attempt: 2 };
    expect(ok(parseMetricsMessage(metricsBody(job)))).toEqual(job);
    expect(ok(parseMetricsMessage(METRICS_SWEEP_MESSAGE))).toEqual({ kind: 'sweep' });
    expect(ok(parseMetricsMessage('{"sweep":true}'))).toEqual({ kind: 'sweep' });
    expect(ok(parseMetricsMessage('{"postId":"post_1","channelId":"ch_1","step":0,"attempt":1}'))).toEqual({
      kind: 'reading',
      postId: 'post_1',
      channelId: 'ch_1',
      step: 0,
      attempt: 1,
    });
  });

  it('refuses a reading without its channel or with a fractional step', () => {
    expect(problemOf(parseMetricsMessage('{"postId":"post_1","step":0,"attempt":1}'))).toContain('channelId');
    expect(
      problemOf(
        parseMetricsMessage('{"kind":"reading","postId":"p","channelId":"c","step":0.5,"attempt":1}'),
      ),
    ).toContain('step');
  });
});
