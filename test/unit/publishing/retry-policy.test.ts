import { describe, expect, it } from 'vitest';
import { inFlightGraceFor } from '../../../functions/core/publishing/deps.ts';
import {
  attemptsExhausted,
  checkDelaySeconds,
  consistencyWindowEnd,
  LOOKUP_SLACK_MS,
  lookupSince,
  MAX_CHECK_DELAY_SECONDS,
  MAX_CHECKS,
  MAX_QUEUE_DELAY_SECONDS,
  queueDelay,
  STEP_EARLY_MS,
  scheduledQueueDelay,
  stepDue,
  stepSeconds,
  transientDelaySeconds,
} from '../../../functions/core/publishing/retry-policy.ts';
import type { BlockClaim } from '../../../functions/ports/publishing.ts';

const claim = (fields: Partial<BlockClaim>): BlockClaim => ({
  postId: 'post_1',
  channelId: 'ch_1',
  block: 0,
  state: 'checking',
  owner: 'w-1',
  leaseUntil: '2026-06-01T12:01:00.000Z',
  since: '2026-06-01T12:00:00.000Z',
  ...fields,
});
const now = Date.parse('2026-06-01T12:00:00.000Z');

describe('transient retries', () => {
  it('double from the base delay with each attempt', () => {
    expect([1, 2, 3, 4].map((a) => transientDelaySeconds(a, 2, undefined))).toEqual([2, 4, 8, 16]);
  });

  it("wait at least as long as the network asked, never less than the doubling's delay", () => {
    expect(transientDelaySeconds(1, 2, 30)).toBe(30);
    expect(transientDelaySeconds(4, 2, 5)).toBe(16);
  });

  it('are spent once the attempts reach the limit', () => {
    expect(attemptsExhausted(2, 3)).toBe(false);
    expect(attemptsExhausted(3, 3)).toBe(true);
    expect(attemptsExhausted(4, 3)).toBe(true);
  });
});

describe('lookups of a block whose answer was lost', () => {
  it('search from a minute before the first send, whoever holds the claim now', () => {
    const since = lookupSince(claim({ firstSentAt: '2026-06-01T11:50:00.000Z' }));
    expect(since.toISOString()).toBe('2026-06-01T11:49:00.000Z');
    expect(lookupSince(claim({})).getTime()).toBe(now - LOOKUP_SLACK_MS);
  });

  it('count the consistency window from the latest send', () => {
    expect(consistencyWindowEnd(claim({ lastSentAt: '2026-06-01T12:00:10.000Z' }), 30, 0)).toBe(now + 40_000);
    expect(consistencyWindowEnd(claim({}), 5, 0)).toBe(now + 5_000);
  });

  it('may lead to a resend only once both the window and the in-flight grace have passed', () => {
    const sent = claim({ lastSentAt: '2026-06-01T12:00:10.000Z' });
    expect(consistencyWindowEnd(sent, 0, 20)).toBe(now + 30_000);
    expect(consistencyWindowEnd(sent, 30, 20)).toBe(now + 40_000);
    expect(consistencyWindowEnd(sent, 5, 6)).toBe(now + 16_000);
  });

  it('give a lost request twice the network timeout to land', () => {
    expect(inFlightGraceFor(10_000)).toBe(20);
    expect(inFlightGraceFor(3_000)).toBe(6);
    expect(inFlightGraceFor(2_500)).toBe(5);
    expect(inFlightGraceFor(1_200)).toBe(3);
  });

  it('come on a doubling schedule, capped', () => {
    const delays = [1, 2, 3, 4, 5].map((checks) => checkDelaySeconds({ checks, baseSeconds: 2, now }));
    expect(delays).toEqual([2, 4, 8, 16, 32]);
    expect(checkDelaySeconds({ checks: MAX_CHECKS, baseSeconds: 60, now })).toBe(MAX_CHECK_DELAY_SECONDS);
    expect(checkDelaySeconds({ checks: 0, baseSeconds: 2, now })).toBe(2);
  });

  it('come as soon as the window has passed while it is open, and at least a second apart', () => {
    expect(checkDelaySeconds({ checks: 5, baseSeconds: 2, now, windowEnd: now + 3_500 })).toBe(4);
    expect(checkDelaySeconds({ checks: 1, baseSeconds: 2, now, windowEnd: now + 100 })).toBe(1);
    expect(checkDelaySeconds({ checks: 1, baseSeconds: 0, now })).toBe(1);
  });

  it("wait for the network's ask", () => {
    expect(checkDelaySeconds({ checks: 1, baseSeconds: 2, now, retryAfterSeconds: 90 })).toBe(90);
  });

  it('stop after the last check once the window has passed, never while it is open', () => {
    expect(checkDelaySeconds({ checks: MAX_CHECKS, baseSeconds: 2, now })).not.toBeNull();
    expect(checkDelaySeconds({ checks: MAX_CHECKS + 1, baseSeconds: 2, now })).toBeNull();
    expect(checkDelaySeconds({ checks: MAX_CHECKS + 1, baseSeconds: 2, now, windowEnd: now })).toBeNull();
    expect(checkDelaySeconds({ checks: MAX_CHECKS + 1, baseSeconds: 2, now, windowEnd: now + 10_000 })).toBe(
      10,
    );
  });
});

describe('waits through the queue', () => {
  it('go in whole-second steps of at most the queue ceiling, at least one second', () => {
    const at = new Date(now);
    expect(stepSeconds(new Date(now + 1_500), at)).toBe(2);
    expect(stepSeconds(new Date(now + 3_600_000), at)).toBe(MAX_QUEUE_DELAY_SECONDS);
    expect(stepSeconds(new Date(now - 5_000), at)).toBe(1);
    expect(stepSeconds(new Date(now + MAX_QUEUE_DELAY_SECONDS * 1000), at)).toBe(MAX_QUEUE_DELAY_SECONDS);
  });

  it('are due a little early (the queue has jitter), not before', () => {
    const at = new Date(now);
    expect(stepDue(null, at)).toBe(true);
    expect(stepDue(undefined, at)).toBe(true);
    expect(stepDue(new Date(now + STEP_EARLY_MS).toISOString(), at)).toBe(true);
    expect(stepDue(new Date(now + STEP_EARLY_MS + 1).toISOString(), at)).toBe(false);
  });

  it("cap a job's delay at the queue ceiling", () => {
    expect(queueDelay(30)).toBe(30);
    expect(queueDelay(MAX_QUEUE_DELAY_SECONDS + 1)).toBe(MAX_QUEUE_DELAY_SECONDS);
  });

  it('delay a scheduled job that fired more than two seconds early, aimed a second ahead', () => {
    expect(scheduledQueueDelay(2_000)).toBeNull();
    expect(scheduledQueueDelay(-5_000)).toBeNull();
    expect(scheduledQueueDelay(2_001)).toBe(1);
    expect(scheduledQueueDelay(60_500)).toBe(59);
  });
});
