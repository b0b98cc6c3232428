import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { DynamoMetricsStore } from '../../functions/adapters/aws/dynamo/metrics.ts';
import type { AuthContext } from '../../functions/core/auth/api-keys.ts';
import { statsDeltas } from '../../functions/core/metrics/collect.ts';
import { getStats, MAX_CUT_HOUR_POSTS, statsView } from '../../functions/core/metrics/stats.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import type { MetricsTracker, StatsCounters } from '../../functions/ports/metrics.ts';
import type { MetricsReading } from '../../functions/ports/network-client.ts';
import { freshTable } from '../support/table.ts';

/**
 * GET /stats over any range: the answer is the sum of the posts that went live in it, and what one
 * call reads does not grow with the number of posts (whole days, whole hours, and per-post items
 * only inside the hours the range cuts).
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MARCH_2 = Date.parse('2026-03-02T00:00:00.000Z');

let table: Awaited<ReturnType<typeof freshTable>>;
let store: DynamoMetricsStore;
/** Query requests and the items they read, counted on the table's client. */
const reads = { queries: 0, items: 0 };
beforeAll(async () => {
  table = await freshTable();
  table.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName === 'QueryCommand') {
        reads.queries++;
        reads.items += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
      }
      return out;
    },
    { step: 'initialize', name: 'countStatsReads' },
  );
  store = new DynamoMetricsStore(table);
});
afterAll(async () => {
  await table?.drop();
});

let workspaces = 0;
const workspace = () => `ws_range${++workspaces}${Date.now().toString(36)}`;
const auth = (workspaceId: string): AuthContext => ({
  keyId: 'key_range',
  accountId: 'acc_range',
  workspaceId,
  mode: 'live',
  permission: 'read',
});
const iso = (ms: number) => new Date(ms).toISOString();
type Span = [number, number];

interface Seeded {
  postId: string;
  liveAt: number;
  platform: PlatformId;
  metrics: MetricsReading;
}

/** A post that went live at `liveAt` (counted by its tracker) with one reading of `metrics`. */
const seed = async (workspaceId: string, post: Seeded): Promise<void> => {
  const tracker: MetricsTracker = {
    postId: post.postId,
    channelId: `ch_${post.platform}`,
    workspaceId,
    mode: 'live',
    platform: post.platform,
    liveAt: iso(post.liveAt),
    postLiveAt: iso(post.liveAt),
    step: 0,
    nextAt: iso(post.liveAt + HOUR),
    known: {},
    latest: null,
    readings: 0,
    missed: 0,
    skipped: 0,
  };
  await store.track(tracker);
  const at = iso(post.liveAt + HOUR);
  await store.record(
    tracker,
    {
      postId: post.postId,
      channelId: tracker.channelId,
      step: 0,
      at,
      dueAt: at,
      outcome: 'ok',
      metrics: post.metrics,
    },
    { ...tracker, step: 1, known: post.metrics, latest: { at, metrics: post.metrics }, readings: 1 },
    statsDeltas(post.platform, {}, post.metrics),
  );
};

const seedAll = async (workspaceId: string, posts: Seeded[]): Promise<void> => {
  for (let i = 0; i < posts.length; i += 20) {
    await Promise.all(posts.slice(i, i + 20).map((post) => seed(workspaceId, post)));
  }
};

/** What the stats of a range must be: the sum of the posts that went live in it. */
const expected = (posts: Seeded[], from: number, to: number) => {
  const total: StatsCounters = {};
  const add = (name: string, value: number) => {
    total[name] = (total[name] ?? 0) + value;
  };
  for (const post of posts.filter((p) => p.liveAt >= from && p.liveAt <= to)) {
    add('posts', 1);
    add(`${post.platform}:posts`, 1);
    for (const [name, value] of Object.entries(statsDeltas(post.platform, {}, post.metrics)))
      add(name, value);
  }
  return statsView(total);
};

/** The same random numbers on every run (mulberry32). */
const random = (seedValue: number) => {
  let a = seedValue;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

const PLATFORMS: PlatformId[] = ['x', 'bluesky', 'linkedin'];

describe('GET /stats over a range', () => {
  it('reads a bounded number of items for a range that cuts a day, however many posts went live that day', async () => {
    const ws = workspace();
    // 240 posts on March 2, ten an hour; two on March 3.
    const posts: Seeded[] = Array.from({ length: 240 }, (_, i) => ({
      postId: `post_busy${i}`,
      liveAt: MARCH_2 + Math.floor(i / 10) * HOUR + (i % 10) * 60_000,
      platform: 'x',
      metrics: { likes: 1 },
    }));
    posts.push(
      { postId: 'post_next1', liveAt: MARCH_2 + DAY + 2 * HOUR, platform: 'x', metrics: { likes: 5 } },
      { postId: 'post_next2', liveAt: MARCH_2 + DAY + 9 * HOUR, platform: 'bluesky', metrics: { likes: 7 } },
    );
    await seedAll(ws, posts);

    const ranges: Span[] = [
      // From noon on March 2 to the end of March 3: half a day, then a whole day.
      [MARCH_2 + 12 * HOUR, MARCH_2 + 2 * DAY - 1],
      // 09:30 on March 2 to 10:00:00.000 on March 3 (inclusive): cut hours at both ends.
      [MARCH_2 + 9.5 * HOUR, MARCH_2 + DAY + 10 * HOUR],
      // Inside one day.
      [MARCH_2 + 3 * HOUR + 1, MARCH_2 + 20 * HOUR + 4 * 60_000],
    ];
    for (const [from, to] of ranges) {
      reads.queries = 0;
      reads.items = 0;
      const stats = await getStats({ metrics: store, clock: { now: () => new Date(to) } }, auth(ws), {
        from: iso(from),
        to: iso(to),
      });
      expect(stats).toEqual({ from: iso(from), to: iso(to), ...expected(posts, from, to) });
      // At most: two cut days (their day item and 24 hours each), the whole days between, and the
      // posts of two cut hours (ten here); never the day's 240 posts.
      expect(reads.items).toBeLessThanOrEqual(2 * (1 + 24) + 2 + 2 * 10);
      expect(reads.queries).toBeLessThanOrEqual(9);
    }

    // Deleted posts leave the hour buckets too: still exact, still bounded.
    for (const post of posts.splice(100, 30)) await store.forgetPost(post.postId);
    for (const [from, to] of ranges) {
      reads.items = 0;
      const stats = await getStats({ metrics: store, clock: { now: () => new Date(to) } }, auth(ws), {
        from: iso(from),
        to: iso(to),
      });
      expect(stats).toEqual({ from: iso(from), to: iso(to), ...expected(posts, from, to) });
      expect(reads.items).toBeLessThanOrEqual(2 * (1 + 24) + 2 + 2 * 10);
    }
  });

  it('refuses a range that cuts an hour in which too many posts went live, and answers it on whole hours', async () => {
    const ws = workspace();
    const ten = MARCH_2 + 10 * HOUR;
    const posts: Seeded[] = Array.from({ length: MAX_CUT_HOUR_POSTS + 1 }, (_, i) => ({
      postId: `post_crowd${i}`,
      liveAt: ten + 30 * 60_000 + i * 1000,
      platform: 'x',
      metrics: { likes: 2 },
    }));
    await seedAll(ws, posts);
    const stats = (from: number, to: number) =>
      getStats({ metrics: store, clock: { now: () => new Date(to) } }, auth(ws), {
        from: iso(from),
        to: iso(to),
      });
    await expect(stats(ten + 15 * 60_000, ten + 2 * HOUR)).rejects.toMatchObject({
      code: 'validation_failed',
      field: 'from',
    });
    await expect(stats(ten - HOUR, ten + HOUR - 2)).rejects.toMatchObject({
      code: 'validation_failed',
      field: 'to',
    });
    reads.items = 0;
    expect((await stats(ten, ten + HOUR - 1)).overall).toEqual({
      posts: MAX_CUT_HOUR_POSTS + 1,
      metrics: { likes: 2 * (MAX_CUT_HOUR_POSTS + 1) },
    });
    expect(reads.items).toBe(2);
    // A cut hour with fewer posts inside the range is answered.
    expect((await stats(ten + 59 * 60_000, ten + 2 * HOUR)).overall.posts).toBe(
      posts.filter((p) => p.liveAt >= ten + 59 * 60_000).length,
    );
  });

  it('answers days counted before hour buckets existed from their posts, exactly', async () => {
    const ws = workspace();
    const posts: Seeded[] = [
      { postId: 'post_old1', liveAt: MARCH_2 + 8 * HOUR, platform: 'x', metrics: { likes: 3, views: 30 } },
      { postId: 'post_old2', liveAt: MARCH_2 + 15 * HOUR, platform: 'bluesky', metrics: { likes: 4 } },
      { postId: 'post_new1', liveAt: MARCH_2 + 15 * HOUR + 5, platform: 'x', metrics: { likes: 10 } },
    ];
    await seedAll(ws, posts);
    // The two old posts as the code before hour buckets left them: counted in their day and their
    // own item, not in an hour.
    for (const post of posts.slice(0, 2)) {
      const names: Record<string, string> = {};
      const values: Record<string, number> = {};
      const counters = {
        posts: 1,
        [`${post.platform}:posts`]: 1,
        ...statsDeltas(post.platform, {}, post.metrics),
      };
      const parts = Object.entries(counters).map(([name, value], i) => {
        names[`#c${i}`] = name;
        values[`:c${i}`] = -value;
        return `#c${i} :c${i}`;
      });
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.statsHour(ws, 'live', iso(post.liveAt).slice(0, 13)),
          UpdateExpression: `ADD ${parts.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    }
    const check = async (from: number, to: number) => {
      const stats = await getStats({ metrics: store, clock: { now: () => new Date(to) } }, auth(ws), {
        from: iso(from),
        to: iso(to),
      });
      expect(stats, `${iso(from)} .. ${iso(to)}`).toEqual({
        from: iso(from),
        to: iso(to),
        ...expected(posts, from, to),
      });
    };
    const ranges: Span[] = [
      [MARCH_2 + 12 * HOUR, MARCH_2 + 2 * DAY - 1],
      [MARCH_2 + 8 * HOUR, MARCH_2 + 15 * HOUR],
      [MARCH_2 + 15 * HOUR, MARCH_2 + 15 * HOUR + 4],
      [MARCH_2, MARCH_2 + 15 * HOUR + 5],
      [MARCH_2 - DAY, MARCH_2 + DAY - 1],
    ];
    for (const [from, to] of ranges) await check(from, to);
    // An old post's later reading (by the new code) goes to its hour as well; still exact.
    const old = posts[0] as Seeded;
    const tracker = (await store.getTracker(old.postId, 'ch_x')) as MetricsTracker;
    const at = iso(old.liveAt + 2 * HOUR);
    const metrics = { likes: 9, views: 31 };
    await store.record(
      tracker,
      { postId: old.postId, channelId: 'ch_x', step: 1, at, dueAt: at, outcome: 'ok', metrics },
      { ...tracker, step: 2, known: metrics },
      statsDeltas('x', tracker.known, metrics),
    );
    old.metrics = metrics;
    for (const [from, to] of ranges) await check(from, to);
    // An old post deleted.
    await store.forgetPost('post_old2');
    posts.splice(1, 1);
    for (const [from, to] of ranges) await check(from, to);
  });

  it('equals the sum of the posts that went live in it, for random ranges', async () => {
    const ws = workspace();
    const next = random(25);
    // 150 posts over five days, some at the same millisecond, some on whole hours and days.
    const posts: Seeded[] = Array.from({ length: 150 }, (_, i) => {
      const kind = next();
      const liveAt =
        kind < 0.1
          ? MARCH_2 + Math.floor(next() * 5 * 24) * HOUR
          : kind < 0.15
            ? MARCH_2 + 2 * DAY + 7 * HOUR + 1234
            : MARCH_2 + Math.floor(next() * 5 * DAY);
      const metrics: MetricsReading = {};
      if (next() < 0.9) metrics.likes = Math.floor(next() * 50);
      if (next() < 0.5) metrics.views = Math.floor(next() * 1000);
      if (next() < 0.3) metrics.comments = Math.floor(next() * 5);
      return { postId: `post_rand${i}`, liveAt, platform: PLATFORMS[i % 3] as PlatformId, metrics };
    });
    await seedAll(ws, posts);
    const pick = () => {
      const r = next();
      // Whole days, whole hours, exact post times and arbitrary milliseconds.
      if (r < 0.2) return MARCH_2 - DAY + Math.floor(next() * 7) * DAY;
      if (r < 0.45) return MARCH_2 + Math.floor(next() * 5 * 24) * HOUR;
      if (r < 0.6) return (posts[Math.floor(next() * posts.length)] as Seeded).liveAt;
      return MARCH_2 - HOUR + Math.floor(next() * (5 * DAY + 2 * HOUR));
    };
    for (let i = 0; i < 40; i++) {
      const a = pick();
      let b = pick();
      if (next() < 0.3) b = b - 1;
      const [from, to] = a <= b ? [a, b] : [b, a];
      const stats = await getStats({ metrics: store, clock: { now: () => new Date(to) } }, auth(ws), {
        from: iso(from),
        to: iso(to),
      });
      expect(stats, `${iso(from)} .. ${iso(to)}`).toEqual({
        from: iso(from),
        to: iso(to),
        ...expected(posts, from, to),
      });
    }
  });
});
