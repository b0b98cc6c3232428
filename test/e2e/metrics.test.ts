import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../functions/core/admin/admin.ts';
import { postMetricsResponseSchema, statsResponseSchema } from '../../functions/core/metrics/schema.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * GET /v1/posts/{id}/metrics and GET /v1/stats through HTTP on the local runtime. The cadence runs
 * 36,000 times faster (an hour is 0.1 s) and the metrics sweep every 0.2 s, so readings arrive in
 * seconds; the exact times and the end of the cadence are tested with a fake clock
 * (test/integration/metrics-collection.test.ts).
 */
let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>> & { test: string };
let other: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await startTestRuntime({
    env: { METRICS_TIME_SCALE: '36000', METRICS_SWEEP_INTERVAL_SECONDS: '0.2' },
  });
  const base = await freshWorkspace(rt, ['x', 'bluesky']);
  const { secret } = await createApiKey(rt.container.deps, {
    accountId: base.accountId,
    workspaceId: base.workspaceId,
    mode: 'test',
    permission: 'write',
    name: 'sandbox',
  });
  ws = { ...base, test: secret };
  other = await freshWorkspace(rt, ['x']);
});
afterAll(async () => {
  await rt?.destroy();
});

const publishNow = async (key: string, channels: { channelId: string; blocks: { content: string }[] }[]) => {
  const res = await rt.api('/posts', { method: 'POST', key, body: { intent: 'now', channels } });
  expect(res.status).toBe(201);
  const post = await waitForPost(rt, res.body.id, key);
  expect(post.status).toBe('published');
  return post.id as string;
};

/** Polls the metrics endpoint until `done` holds (generous deadline: the machine may be loaded). */
const metricsWhen = async (postId: string, key: string, done: (body: any) => boolean, query = '') => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await rt.api(`/posts/${postId}/metrics${query}`, { key });
    expect(res.status).toBe(200);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`Metrics not ready: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

const okReadings = (channel: any) => channel.readings.filter((r: any) => r.status === 'ok');

describe('metrics through HTTP', () => {
  let livePost: string;

  it('reads a live post on X and Bluesky on the cadence: latest totals and the series per channel', async () => {
    livePost = await publishNow(ws.key, [
      { channelId: ws.channels.x, blocks: [{ content: 'Metrics on X' }, { content: 'second tweet' }] },
      { channelId: ws.channels.bluesky, blocks: [{ content: 'Metrics on Bluesky' }] },
    ]);
    const body = await metricsWhen(livePost, ws.key, (b) =>
      b.channels.every((c: any) => okReadings(c).length >= 3),
    );
    expect(body.postId).toBe(livePost);
    expect(body.granularity).toBe('raw');
    // The documented response schema (the OpenAPI document's) holds.
    expect(postMetricsResponseSchema.safeParse(body).error).toBeUndefined();
    const x = body.channels.find((c: any) => c.platform === 'x');
    const bluesky = body.channels.find((c: any) => c.platform === 'bluesky');
    expect(x).toMatchObject({
      channelId: ws.channels.x,
      metricsStatus: 'available',
      collection: 'collecting',
    });
    expect(Object.keys(x.latest.metrics).sort()).toEqual(
      ['bookmarks', 'comments', 'likes', 'quotes', 'reposts', 'views'].sort(),
    );
    // A thread: the first block's totals, and each block's own values.
    expect(x.latest.blocks.map((b: any) => b.block)).toEqual([0, 1]);
    // Bluesky reports no views: absent, never 0.
    expect('views' in bluesky.latest.metrics).toBe(false);
    expect(Object.keys(bluesky.latest.metrics).sort()).toEqual(['comments', 'likes', 'quotes', 'reposts']);
    // Running totals: each reading is at least the one before.
    const likes = okReadings(x).map((r: any) => r.metrics.likes);
    expect(likes).toEqual([...likes].sort((a, b) => a - b));
    for (const r of x.readings) {
      expect(Date.parse(r.at)).toBeGreaterThanOrEqual(Date.parse(r.dueAt));
    }
    expect(Date.parse(x.nextReadingAt)).toBeGreaterThan(Date.parse(x.publishedAt));

    const daily = await rt.api(`/posts/${livePost}/metrics?granularity=day`, { key: ws.key });
    expect(daily.status).toBe(200);
    expect(postMetricsResponseSchema.safeParse(daily.body).error).toBeUndefined();
    const series = daily.body.channels[0].readings;
    expect(series.length).toBeGreaterThanOrEqual(1);
    expect(series[0].periodStart).toMatch(/T00:00:00\.000Z$/);
  });

  it('gives sandbox (test key) posts simulated readings on the same cadence', async () => {
    const postId = await publishNow(ws.test, [
      { channelId: ws.channels.x, blocks: [{ content: 'Sandbox metrics' }] },
    ]);
    const body = await metricsWhen(postId, ws.test, (b) => okReadings(b.channels[0]).length >= 2);
    expect(body.channels[0].latest.metrics).toHaveProperty('likes');
    // The live key does not see the test post, nor its stats.
    expect((await rt.api(`/posts/${postId}/metrics`, { key: ws.key })).status).toBe(404);
  });

  it('GET /stats totals the workspace’s posts by range, per platform and overall', async () => {
    const now = Date.now();
    const around = `from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 3_600_000).toISOString()}`;
    const stats = await rt.api(`/stats?${around}`, { key: ws.key });
    expect(stats.status).toBe(200);
    expect(statsResponseSchema.safeParse(stats.body).error).toBeUndefined();
    expect(stats.body.overall.posts).toBe(1);
    expect(stats.body.platforms.map((p: any) => [p.platform, p.posts])).toEqual([
      ['bluesky', 1],
      ['x', 1],
    ]);
    expect(stats.body.overall.metrics.likes).toBe(
      stats.body.platforms.reduce((sum: number, p: any) => sum + (p.metrics.likes ?? 0), 0),
    );
    const day = (offset: number) => new Date(now + offset * 86_400_000).toISOString().slice(0, 10);
    const byDates = await rt.api(`/stats?from=${day(-1)}&to=${day(1)}`, { key: ws.key });
    expect(byDates.body.overall.posts).toBe(1);
    // Before the post went live: nothing.
    const before = await rt.api(`/stats?from=${day(-3)}&to=${day(-2)}`, { key: ws.key });
    expect(before.body.overall).toEqual({ posts: 0, metrics: {} });
    // The test key sees its sandbox post only; another workspace sees none of these.
    expect((await rt.api(`/stats?${around}`, { key: ws.test })).body.overall.posts).toBe(1);
    expect((await rt.api(`/stats?${around}`, { key: other.key })).body.overall).toEqual({
      posts: 0,
      metrics: {},
    });
  });

  it('a thread stopped halfway (partially_published) is live on its first block: metrics, stats and usage agree', async () => {
    const own = await freshWorkspace(rt, ['bluesky']);
    const created = await rt.api('/posts', {
      method: 'POST',
      key: own.key,
      body: {
        intent: 'now',
        channels: [
          {
            channelId: own.channels.bluesky,
            blocks: [{ content: 'First block goes live' }, { content: 'Second block sim:fail' }],
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const post = await waitForPost(rt, created.body.id, own.key);
    expect(post.status).toBe('partially_published');
    expect(post.channels[0]).toMatchObject({ status: 'failed' });
    expect(post.channels[0].blocks.map((b: any) => b.remoteUrl !== null)).toEqual([true, false]);

    // Metrics: the channel is live (its first block is), collected on the cadence from that block.
    const metrics = await metricsWhen(post.id, own.key, (b) => okReadings(b.channels[0]).length >= 2);
    const channel = metrics.channels[0];
    expect(channel).toMatchObject({ collection: 'collecting', publishedAt: expect.any(String) });
    expect(Object.keys(channel.latest.metrics)).toContain('likes');
    // Stats: the post counts, on Bluesky, with the metrics read so far.
    const now = Date.now();
    const around = `from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 3_600_000).toISOString()}`;
    const stats = await rt.api(`/stats?${around}`, { key: own.key });
    expect(stats.body.overall.posts).toBe(1);
    expect(stats.body.platforms.map((p: any) => [p.platform, p.posts])).toEqual([['bluesky', 1]]);
    expect(stats.body.overall.metrics.likes).toBeGreaterThanOrEqual(0);
    // Usage: published once (billed: it reached the network).
    const usage = await rt.api('/usage', { key: own.key });
    expect(usage.body.posts.published).toBe(1);
  });

  it('another workspace’s post is not found, and bad queries are refused in the error envelope', async () => {
    const notFound = await rt.api(`/posts/${livePost}/metrics`, { key: other.key });
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('not_found');
    for (const [path, field] of [
      [`/posts/${livePost}/metrics?granularity=minute`, 'granularity'],
      [`/posts/${livePost}/metrics?color=red`, 'color'],
      [`/posts/${livePost}/metrics?granularity=day&granularity=raw`, 'granularity'],
      ['/stats?from=2026-02-30', 'from'],
      ['/stats?from=2026-03-02&to=2026-03-01', 'from'],
      ['/stats?to=yesterday', 'to'],
      ['/stats?from=2020-01-01&to=2026-01-01', 'from'],
      ['/stats?limit=5', 'limit'],
    ] as const) {
      const res = await rt.api(path, { key: ws.key });
      expect(res.status, path).toBe(400);
      expect(res.body.error.field, path).toBe(field);
      expect(res.body.error.requestId).toMatch(/^req_/);
    }
  });

  it('a deleted post leaves the stats', async () => {
    const now = Date.now();
    const around = `from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 3_600_000).toISOString()}`;
    expect((await rt.api(`/posts/${livePost}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    const stats = await rt.api(`/stats?${around}`, { key: ws.key });
    expect(stats.body.overall).toEqual({ posts: 0, metrics: {} });
    expect((await rt.api(`/posts/${livePost}/metrics`, { key: ws.key })).status).toBe(404);
  });
});
