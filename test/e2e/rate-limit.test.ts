import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
const LIMIT = 5;

beforeAll(async () => {
  rt = await startTestRuntime({ rateLimitPerMinute: LIMIT });
});
afterAll(async () => {
  await rt?.destroy();
});

describe('per-key rate limit', () => {
  it('counts down, then answers 429 rate_limited with Retry-After, per key', async () => {
    // Stay clear of a minute boundary so all requests fall in one window.
    const second = new Date().getUTCSeconds();
    if (second > 50) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const remaining: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await rt.api('/platforms');
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const limited = await rt.api('/platforms');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    // Another key has its own window.
    const other = await rt.api('/platforms', { key: rt.seed.keys.otherWorkspace });
    expect(other.status).toBe(200);
  });

  it('holds under parallel requests: exactly LIMIT of a burst pass', async () => {
    const second = new Date().getUTCSeconds();
    await new Promise((r) => setTimeout(r, (second > 45 ? 61 - second : 0) * 1000));
    const key = rt.seed.keys.test;
    const burst = await Promise.all(Array.from({ length: 20 }, () => rt.api('/channels', { key })));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - LIMIT);
  });
});
