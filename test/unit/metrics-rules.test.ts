import { describe, expect, it } from 'vitest';
import {
  cadencePace,
  READING_OFFSETS_SECONDS,
  readingDueAt,
  retryDelaySeconds,
} from '../../functions/core/metrics/cadence.ts';
import { postLiveAt, statsDeltas, trackerFor } from '../../functions/core/metrics/collect.ts';
import { periodStart } from '../../functions/core/metrics/post-metrics.ts';
import { statsView } from '../../functions/core/metrics/stats.ts';
import {
  channelLiveAt,
  isChannelLive,
  type PostChannel,
  type PostRecord,
} from '../../functions/domain/post.ts';
import { env, withEnvironment } from '../../functions/shared/env.ts';
import { postChannel } from '../support/fakes/engine.ts';

const HOUR = 3600;
const DAY = 24 * HOUR;

describe('the metrics cadence', () => {
  it('is hourly for a day, daily to day 7, weekly to day 28: 24 + 6 + 3 readings', () => {
    expect(READING_OFFSETS_SECONDS).toHaveLength(33);
    expect(READING_OFFSETS_SECONDS.slice(0, 24)).toEqual(
      Array.from({ length: 24 }, (_, i) => (i + 1) * HOUR),
    );
    expect(READING_OFFSETS_SECONDS.slice(24, 30)).toEqual([2, 3, 4, 5, 6, 7].map((d) => d * DAY));
    expect(READING_OFFSETS_SECONDS.slice(30)).toEqual([14, 21, 28].map((d) => d * DAY));
    expect(Math.max(...READING_OFFSETS_SECONDS)).toBeLessThanOrEqual(30 * DAY);
  });

  it('gives each reading its time, scaled for tests, and nothing after the last', () => {
    const live = new Date('2026-03-02T10:00:00.000Z');
    expect(readingDueAt(live, 0, { timeScale: 1 })?.toISOString()).toBe('2026-03-02T11:00:00.000Z');
    expect(readingDueAt(live, 32, { timeScale: 1 })?.toISOString()).toBe('2026-03-30T10:00:00.000Z');
    expect(readingDueAt(live, 33, { timeScale: 1 })).toBeNull();
    expect(readingDueAt(live, 0, { timeScale: 3600 })?.toISOString()).toBe('2026-03-02T10:00:01.000Z');
    expect([2, 3].map((a) => retryDelaySeconds(a, { timeScale: 1 }))).toEqual([60, 120]);
  });
});

describe('fast metrics locally (METRICS_TIME_SCALE)', () => {
  it('says what a faster pace means, and nothing at the real one', () => {
    expect(cadencePace({ timeScale: 1 })).toBeNull();
    expect(cadencePace({ timeScale: 3600 })).toBe(
      "at 3600x the real pace (METRICS_TIME_SCALE=3600): an hour of the cadence lasts 1 s, and a post's last reading (day 28) comes 11 min after it goes live",
    );
    expect(cadencePace({ timeScale: 60 })).toContain('an hour of the cadence lasts 60 s');
    expect(cadencePace({ timeScale: 36000 })).toContain('lasts 100 ms');
  });

  it('sweeps every minute of the cadence (at least every second, at most every 60 s) unless told', () => {
    const sweep = (vars: Record<string, string>) =>
      withEnvironment(vars, () => env.metricsSweepIntervalSeconds);
    expect(sweep({})).toBe(60);
    expect(sweep({ METRICS_TIME_SCALE: '6' })).toBe(10);
    expect(sweep({ METRICS_TIME_SCALE: '3600' })).toBe(1);
    expect(sweep({ METRICS_TIME_SCALE: '0.5' })).toBe(60);
    expect(sweep({ METRICS_TIME_SCALE: '3600', METRICS_SWEEP_INTERVAL_SECONDS: '0.2' })).toBe(0.2);
    expect(() => withEnvironment({ METRICS_TIME_SCALE: 'fast' }, () => env.metricsTimeScale)).toThrow(
      'Environment variable METRICS_TIME_SCALE must be a positive number',
    );
  });
});

describe('what is live (metrics, stats and usage follow it)', () => {
  /** A Bluesky channel of one block per entry of `live`, each live (sent) or not. */
  const channel = (id: string, fields: Partial<PostChannel>, live: boolean[]): PostChannel => {
    const waiting = postChannel(
      id,
      'bluesky',
      live.map(() => 'text'),
    );
    return {
      ...waiting,
      blocks: waiting.blocks.map((block, i) =>
        live[i] ? { ...block, remoteId: 'remote', remoteUrl: 'https://bsky.example/post' } : block,
      ),
      ...fields,
    };
  };
  const stopped = channel(
    'ch_half',
    { status: 'failed', error: 'refused', liveAt: '2026-03-02T10:00:05.000Z' },
    [true, false],
  );
  const done = channel(
    'ch_done',
    { status: 'published', publishedAt: '2026-03-02T10:00:09.000Z', liveAt: '2026-03-02T10:00:08.000Z' },
    [true, true],
  );
  const before = channel('ch_old', { status: 'published', publishedAt: '2026-03-02T09:00:00.000Z' }, [true]);
  const failed = channel('ch_fail', { status: 'failed', error: 'refused' }, [false, false]);
  const waiting = channel('ch_wait', {}, [false]);

  it('a channel is live once its first block is: a thread stopped halfway is, a refused one is not', () => {
    expect([stopped, done, before, failed, waiting].map(isChannelLive)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    // Since it went live: its first block's time, or its publication's when that was not recorded.
    expect([stopped, done, before, failed].map(channelLiveAt)).toEqual([
      '2026-03-02T10:00:05.000Z',
      '2026-03-02T10:00:08.000Z',
      '2026-03-02T09:00:00.000Z',
      null,
    ]);
  });

  it('a live channel is tracked from when it went live; the post counts from its first live channel', () => {
    const post = {
      postId: 'post_1',
      workspaceId: 'ws_1',
      mode: 'live',
      status: 'partially_published',
      channels: [failed, done, stopped],
    } as unknown as PostRecord;
    expect(postLiveAt(post)).toBe('2026-03-02T10:00:05.000Z');
    expect(trackerFor({ timeScale: 1 }, post, 'ch_half')).toMatchObject({
      liveAt: '2026-03-02T10:00:05.000Z',
      postLiveAt: '2026-03-02T10:00:05.000Z',
      nextAt: '2026-03-02T11:00:05.000Z',
    });
    expect(trackerFor({ timeScale: 1 }, post, 'ch_done')?.liveAt).toBe('2026-03-02T10:00:08.000Z');
    expect(trackerFor({ timeScale: 1 }, post, 'ch_fail')).toBeNull();
  });
});

describe('stats rules', () => {
  it('adds the change of reported metrics only; a first report counts the channel as reporting it', () => {
    expect(statsDeltas('x', {}, { likes: 0, views: 10 })).toEqual({
      'x:likes': 0,
      'x:likes:reporting': 1,
      'x:views': 10,
      'x:views:reporting': 1,
    });
    // Unchanged values add nothing; a metric not reported now keeps its last contribution.
    expect(statsDeltas('x', { likes: 3, views: 10 }, { likes: 5 })).toEqual({ 'x:likes': 2 });
  });

  it('shows per platform and overall, leaving out metrics no counted channel reported', () => {
    const view = statsView({
      posts: 2,
      'x:posts': 2,
      'x:likes': 7,
      'x:likes:reporting': 2,
      'x:views': 0,
      'x:views:reporting': 0,
      'bluesky:posts': 1,
      'bluesky:likes': 1,
      'bluesky:likes:reporting': 1,
      'reddit:posts': 0,
      'reddit:likes': 0,
    });
    expect(view).toEqual({
      overall: { posts: 2, metrics: { likes: 8 } },
      platforms: [
        { platform: 'bluesky', posts: 1, metrics: { likes: 1 } },
        { platform: 'x', posts: 2, metrics: { likes: 7 } },
      ],
    });
  });
});

describe('chart periods', () => {
  it('start at the UTC hour, day, or Monday of the ISO week', () => {
    const at = '2026-03-05T13:45:10.123Z'; // a Thursday
    expect(periodStart(at, 'hour')).toBe('2026-03-05T13:00:00.000Z');
    expect(periodStart(at, 'day')).toBe('2026-03-05T00:00:00.000Z');
    expect(periodStart(at, 'week')).toBe('2026-03-02T00:00:00.000Z');
    expect(periodStart('2026-03-08T23:00:00.000Z', 'week')).toBe('2026-03-02T00:00:00.000Z'); // Sunday
    expect(periodStart('2026-03-09T00:00:00.000Z', 'week')).toBe('2026-03-09T00:00:00.000Z'); // Monday
  });
});
