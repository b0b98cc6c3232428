import { describe, expect, it } from 'vitest';
import { MAX_PROBE_STEPS, rateLimitWait } from '../../functions/core/publishing/rate-limit-wait.ts';

const now = new Date('2026-03-01T12:00:00Z');
const seconds = (from: Date, to: Date) => (to.getTime() - from.getTime()) / 1000;

describe('the wait after a rate limit', () => {
  it('an announced reset is waited for as announced, and restarts the growing schedule', () => {
    const wait = rateLimitWait({ retryAfterSeconds: 7200 }, { now, previousProbes: 3, probeSeconds: 60 });
    expect(seconds(now, wait.until)).toBe(7200);
    expect(wait).toMatchObject({ probes: 0, resetBy: null });
  });

  it('no announced reset: 1, 2, 4, 8, then 15 minutes, counted over consecutive limits', () => {
    const steps: number[] = [];
    let probes = 0;
    for (let i = 0; i < 8; i++) {
      const wait = rateLimitWait({}, { now, previousProbes: probes, probeSeconds: 60 });
      steps.push(seconds(now, wait.until));
      probes = wait.probes;
    }
    expect(steps).toEqual([60, 120, 240, 480, 900, 900, 900, 900]);
    expect(probes).toBe(8);
    expect(MAX_PROBE_STEPS * 60).toBe(900);
  });

  it('never past the latest reset the network is known to have (LinkedIn: midnight UTC)', () => {
    const late = new Date('2026-03-01T23:55:00Z');
    const wait = rateLimitWait({ resetBySeconds: 300 }, { now: late, previousProbes: 4, probeSeconds: 60 });
    expect(wait.until.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(wait.resetBy?.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(wait.probes).toBe(5);
    // Far from the reset, the growing step decides.
    const early = rateLimitWait({ resetBySeconds: 43_200 }, { now, previousProbes: 0, probeSeconds: 60 });
    expect(seconds(now, early.until)).toBe(60);
  });

  it('scales with the probe setting (the drill and tests shorten it)', () => {
    const waits = [0, 1, 2, 3, 4, 5].map((previousProbes) =>
      seconds(now, rateLimitWait({}, { now, previousProbes, probeSeconds: 1 }).until),
    );
    expect(waits).toEqual([1, 2, 4, 8, 15, 15]);
  });

  it('a huge count of probes neither overflows nor waits longer than the ceiling', () => {
    const wait = rateLimitWait({}, { now, previousProbes: 5000, probeSeconds: 60 });
    expect(seconds(now, wait.until)).toBe(900);
  });
});
