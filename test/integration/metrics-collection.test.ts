import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoMetricsStore } from '../../functions/adapters/aws/dynamo/metrics.ts';
import type { AuthContext } from '../../functions/core/auth/api-keys.ts';
import { READING_OFFSETS_SECONDS, READINGS_PER_CHANNEL } from '../../functions/core/metrics/cadence.ts';
import {
  followTimeScale,
  type MetricsDeps,
  startTracking,
  sweepDueReadings,
  takeReading,
} from '../../functions/core/metrics/collect.ts';
import { getPostMetrics } from '../../functions/core/metrics/post-metrics.ts';
import { getStats } from '../../functions/core/metrics/stats.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import type { PostRecord } from '../../functions/domain/post.ts';
import type { ChannelRecord, ChannelStore } from '../../functions/ports/channels.ts';
import type { MetricsJob, MetricsQueue } from '../../functions/ports/metrics.ts';
import {
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  NetworkError,
} from '../../functions/ports/network-client.ts';
import type { PostStore } from '../../functions/ports/posts.ts';
import { freshTable } from '../support/table.ts';

const T0 = Date.parse('2026-03-02T10:00:00.000Z');

let table: Awaited<ReturnType<typeof freshTable>>;
beforeAll(async () => {
  table = await freshTable();
});
afterAll(async () => {
  await table?.drop();
});

/** A clock the test moves. */
class FakeClock {
  constructor(public ms: number) {}
  now = () => new Date(this.ms);
}

/** The metrics queue as a list of messages with the time each becomes visible. */
class FakeQueue implements MetricsQueue {
  messages: { job: MetricsJob; visibleAt: number }[] = [];
  constructor(private readonly clock: FakeClock) {}
  async send(jobs: MetricsJob[], delaySeconds = 0): Promise<void> {
    for (const job of jobs) this.messages.push({ job, visibleAt: this.clock.ms + delaySeconds * 1000 });
  }
  /** Takes the messages visible now. */
  take(): MetricsJob[] {
    const visible = this.messages.filter((m) => m.visibleAt <= this.clock.ms);
    this.messages = this.messages.filter((m) => m.visibleAt > this.clock.ms);
    return visible.map((m) => m.job);
  }
}

/** A network whose answer per call is scripted by the test. */
class ScriptedNetwork implements NetworkClient {
  consistencyWindowSeconds = 0;
  calls: MetricsInput[] = [];
  constructor(
    readonly platform: PlatformId,
    public answer: (input: MetricsInput, call: number) => MetricsReading,
  ) {}
  publish = async (): Promise<never> => {
    throw new Error('not used');
  };
  edit = this.publish;
  delete = this.publish;
  async metrics(input: MetricsInput): Promise<MetricsReading> {
    this.calls.push(input);
    return this.answer(input, this.calls.length);
  }
}

let n = 0;
const ids = () => {
  n++;
  const suffix = `${Date.now().toString(36)}${n}`.padEnd(22, 'x').slice(0, 22);
  return { postId: `post_${suffix}`, ws: `ws_${suffix}` };
};

const channelRecord = (workspaceId: string, channelId: string, platform: PlatformId): ChannelRecord => ({
  channelId,
  accountId: 'acc_1',
  workspaceId,
  platform,
  name: channelId,
  remoteAccountId: 'someone',
  connection: 'connected',
  threadsPermitted: true,
  tokenCiphertext: 'sealed',
  createdAt: new Date(T0).toISOString(),
});

const livePost = (
  postId: string,
  workspaceId: string,
  channels: { channelId: string; platform: PlatformId; liveAt: number; blocks?: number }[],
): PostRecord => ({
  postId,
  accountId: 'acc_1',
  workspaceId,
  mode: 'live',
  status: 'published',
  scheduledAt: null,
  publishedAt: new Date(Math.max(...channels.map((c) => c.liveAt))).toISOString(),
  tagIds: [],
  createdAt: new Date(T0).toISOString(),
  updatedAt: new Date(T0).toISOString(),
  version: 3,
  channels: channels.map((c) => ({
    channelId: c.channelId,
    platform: c.platform,
    status: 'published',
    error: null,
    remoteUrl: `https://net.example/${c.channelId}/0`,
    title: null,
    postType: null,
    options: {},
    publishedAt: new Date(c.liveAt).toISOString(),
    blocks: Array.from({ length: c.blocks ?? 1 }, (_, b) => ({
      content: `block ${b}`,
      mediaIds: [],
      mediaAltText: {},
      remoteId: `${c.channelId}-remote-${b}`,
      remoteUrl: `https://net.example/${c.channelId}/${b}`,
    })),
  })),
});

interface World {
  clock: FakeClock;
  queue: FakeQueue;
  posts: Map<string, PostRecord>;
  channels: Map<string, ChannelRecord>;
  networks: Map<PlatformId, ScriptedNetwork>;
  deps: MetricsDeps;
}

const world = (on: typeof table = table): World => {
  const clock = new FakeClock(T0);
  const queue = new FakeQueue(clock);
  const posts = new Map<string, PostRecord>();
  const channels = new Map<string, ChannelRecord>();
  const networks = new Map<PlatformId, ScriptedNetwork>();
  const deps: MetricsDeps = {
    clock,
    metrics: new DynamoMetricsStore(on),
    metricsQueue: () => queue,
    posts: { get: async (id: string) => posts.get(id) ?? null } as unknown as PostStore,
    channels: {
      getChannel: async (ws: string, id: string) => {
        const c = channels.get(id);
        return c && c.workspaceId === ws ? c : null;
      },
      getChannelsForJob: async (ws: string, ids: string[]) => ({
        channels: new Map(
          ids.flatMap((id) => {
            const c = channels.get(id);
            return c && c.workspaceId === ws ? [[id, c] as const] : [];
          }),
        ),
        endpoints: null,
      }),
      listChannels: async (ws: string) => [...channels.values()].filter((c) => c.workspaceId === ws),
    } as unknown as ChannelStore,
    networks: (platform) => {
      const network = networks.get(platform);
      if (!network) throw new Error(`no network ${platform}`);
      return network;
    },
    // A token service that hands out the channel's token (refresh is the token service's own tests).
    tokens: () =>
      ({
        withCredentials: async (
          record: { remoteAccountId: string },
          call: (c: unknown) => Promise<unknown>,
        ) => call({ accessToken: 'token', remoteAccountId: record.remoteAccountId }),
      }) as never,
    cadence: { timeScale: 1 },
  };
  return { clock, queue, posts, channels, networks, deps };
};

/** Runs the sweep and the worker at the clock's time until nothing is left to do now. */
const settle = async (w: World): Promise<number> => {
  let taken = 0;
  await sweepDueReadings(w.deps);
  for (let jobs = w.queue.take(); jobs.length; jobs = w.queue.take()) {
    for (const job of jobs) {
      await takeReading(w.deps, job);
      taken++;
    }
  }
  return taken;
};

const publish = async (w: World, post: PostRecord) => {
  w.posts.set(post.postId, post);
  for (const c of post.channels) {
    if (!w.channels.has(c.channelId))
      w.channels.set(c.channelId, channelRecord(post.workspaceId, c.channelId, c.platform));
    await startTracking(w.deps, post, c.channelId);
  }
};

/** Moves the clock to each due time in turn (and a minute later, as the sweep runs every minute) until `until`. */
const runUntil = async (w: World, until: number) => {
  for (;;) {
    const due = await w.deps.metrics.due(new Date(until).toISOString(), 100);
    const retry = w.queue.messages.map((m) => m.visibleAt);
    const next = Math.min(...due.map((t) => Date.parse(t.nextAt as string)), ...retry);
    if (!Number.isFinite(next) || next > until) break;
    w.clock.ms = Math.max(w.clock.ms, next);
    await settle(w);
  }
  w.clock.ms = until;
  await settle(w);
};

const auth = (workspaceId: string, mode: 'live' | 'test' = 'live'): AuthContext => ({
  keyId: 'key_1',
  accountId: 'acc_1',
  workspaceId,
  mode,
  permission: 'read',
});

describe('the metrics cadence', () => {
  let w: World;
  beforeEach(() => {
    w = world();
  });

  it('reads hourly on day one, daily for a week, weekly to day 28, then stops (33 readings)', async () => {
    const { postId, ws } = ids();
    const readAt: number[] = [];
    w.networks.set(
      'x',
      new ScriptedNetwork('x', (_input, call) => {
        readAt.push(w.clock.ms);
        return { likes: call * 2, views: call * 100 };
      }),
    );
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_a', platform: 'x', liveAt: T0 }]));

    // Nothing is due before the first hour.
    w.clock.ms = T0 + 3_599_000;
    expect(await settle(w)).toBe(0);

    await runUntil(w, T0 + 60 * 86_400_000);
    expect(READINGS_PER_CHANNEL).toBe(33);
    expect(readAt.map((at) => (at - T0) / 1000)).toEqual([...READING_OFFSETS_SECONDS]);
    const tracker = await w.deps.metrics.getTracker(postId, 'ch_a');
    expect(tracker).toMatchObject({ step: 33, nextAt: null, readings: 33, missed: 0 });
    // Finished: no reading is ever handed out again.
    w.clock.ms = T0 + 400 * 86_400_000;
    expect(await settle(w)).toBe(0);

    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    const channel = view.channels[0];
    expect(channel?.collection).toBe('finished');
    expect(channel?.readings).toHaveLength(33);
    expect(channel?.latest?.metrics).toEqual({ likes: 66, views: 3300 });
    const daily = await getPostMetrics(w.deps, auth(ws), postId, 'day');
    // Day one's hourly readings run from 11:00 on March 2 to 10:00 on March 3, then one a day.
    expect(daily.channels[0]?.readings.length).toBeLessThan(33);
    expect(daily.channels[0]?.readings[0]).toMatchObject({ periodStart: '2026-03-02T00:00:00.000Z' });
  });

  it('after an outage, the readings that came due meanwhile collapse into one taken at once', async () => {
    const { postId, ws } = ids();
    w.networks.set('x', new ScriptedNetwork('x', () => ({ likes: 2 })));
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_out', platform: 'x', liveAt: T0 }]));
    // Nothing ran between the live time and 5 h 30 min later.
    w.clock.ms = T0 + 5.5 * 3_600_000;
    await settle(w);
    await runUntil(w, T0 + 6 * 3_600_000);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    expect(view.channels[0]?.readings.map((r) => ('dueAt' in r ? r.dueAt : ''))).toEqual([
      new Date(T0 + 5 * 3_600_000).toISOString(),
      new Date(T0 + 6 * 3_600_000).toISOString(),
    ]);
    expect(await w.deps.metrics.getTracker(postId, 'ch_out')).toMatchObject({ step: 6, readings: 2 });
  });

  it('a time scale runs the same cadence faster', async () => {
    w.deps.cadence = { timeScale: 3600 };
    const { postId, ws } = ids();
    w.networks.set('x', new ScriptedNetwork('x', () => ({ likes: 1 })));
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_fast', platform: 'x', liveAt: T0 }]));
    // 30 days at 3600x is 12 minutes.
    await runUntil(w, T0 + 12 * 60_000);
    expect(await w.deps.metrics.getTracker(postId, 'ch_fast')).toMatchObject({ readings: 33, nextAt: null });
  });

  it('keeps a metric the network did not report absent, and a reported zero as zero', async () => {
    const { postId, ws } = ids();
    w.networks.set('bluesky', new ScriptedNetwork('bluesky', () => ({ likes: 0, reposts: 4 })));
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_b', platform: 'bluesky', liveAt: T0 }]));
    await runUntil(w, T0 + 2 * 3_600_000);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    const reading = view.channels[0]?.readings[0] as { metrics: MetricsReading };
    expect(reading.metrics).toEqual({ likes: 0, reposts: 4 });
    expect('comments' in reading.metrics).toBe(false);
    const stats = await getStats(w.deps, auth(ws), { from: '2026-03-02', to: '2026-03-02' });
    expect(stats.overall).toEqual({ posts: 1, metrics: { likes: 0, reposts: 4 } });
    expect(stats.platforms).toEqual([{ platform: 'bluesky', posts: 1, metrics: { likes: 0, reposts: 4 } }]);
  });

  it('retries a failed reading through the queue, records it as missed, and goes on with the next', async () => {
    const { postId, ws } = ids();
    let failing = false;
    w.networks.set(
      'x',
      new ScriptedNetwork('x', () => {
        if (failing) throw new NetworkError('transient', 'X is down (503)', { status: 503 });
        return { likes: Math.floor((w.clock.ms - T0) / 3_600_000) };
      }),
    );
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_c', platform: 'x', liveAt: T0 }]));
    await runUntil(w, T0 + 3_600_000);
    failing = true;
    w.clock.ms = T0 + 2 * 3_600_000;
    await settle(w);
    // The failed try went back on the queue with a delay.
    expect(w.queue.messages.map((m) => m.job.attempt)).toEqual([2]);
    // Meanwhile the next reading shown is still the cadence's (not the queued retry's lease).
    const during = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    expect(during.channels[0]?.nextReadingAt).toBe(new Date(T0 + 2 * 3_600_000).toISOString());
    w.clock.ms += 60_000;
    await settle(w);
    expect(w.queue.messages.map((m) => m.job.attempt)).toEqual([3]);
    w.clock.ms += 120_000;
    await settle(w);
    expect(w.queue.messages).toEqual([]);
    failing = false;
    await runUntil(w, T0 + 3 * 3_600_000);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    const readings = view.channels[0]?.readings as {
      status: string;
      metrics?: MetricsReading;
      reason?: string;
    }[];
    expect(readings.map((r) => r.status)).toEqual(['ok', 'missed', 'ok']);
    expect(readings[1]?.reason).toMatch(/X is down \(503\).*3 tries/);
    expect(readings[1]?.metrics).toBeUndefined();
    expect(readings[2]?.metrics).toEqual({ likes: 3 });
    expect(view.channels[0]?.counts).toEqual({ readings: 2, missed: 1, skipped: 0 });
  });

  it('a refusal (permanent error) is recorded as missed at once, without retries', async () => {
    const { postId, ws } = ids();
    const network = new ScriptedNetwork('linkedin', () => {
      throw new NetworkError('permanent', 'Not enough permissions to access: socialActions', { status: 403 });
    });
    w.networks.set('linkedin', network);
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_p', platform: 'linkedin', liveAt: T0 }]));
    w.clock.ms = T0 + 3_600_000;
    await settle(w);
    expect(w.queue.messages).toEqual([]);
    expect(network.calls).toHaveLength(1);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    expect(view.channels[0]?.readings).toMatchObject([
      { status: 'missed', reason: 'Not enough permissions to access: socialActions (after 1 try)' },
    ]);
  });

  it('a reading that fails once and then works is stored once', async () => {
    const { postId, ws } = ids();
    let calls = 0;
    w.networks.set(
      'x',
      new ScriptedNetwork('x', () => {
        calls++;
        if (calls === 1) throw new NetworkError('transient', 'timeout', { outcomeUnknown: true });
        return { likes: 7 };
      }),
    );
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_d', platform: 'x', liveAt: T0 }]));
    await runUntil(w, T0 + 3_600_000 + 5 * 60_000);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    expect(view.channels[0]?.readings).toMatchObject([{ status: 'ok', metrics: { likes: 7 } }]);
  });

  it('skips readings while the channel needs reconnecting, and reads again once it is reconnected', async () => {
    const { postId, ws } = ids();
    const network = new ScriptedNetwork('x', () => ({ likes: 1 }));
    w.networks.set('x', network);
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_e', platform: 'x', liveAt: T0 }]));
    const record = w.channels.get('ch_e') as ChannelRecord;
    w.channels.set('ch_e', { ...record, connection: 'needs_reconnect' });
    await runUntil(w, T0 + 2 * 3_600_000);
    expect(network.calls).toHaveLength(0);
    w.channels.set('ch_e', record);
    await runUntil(w, T0 + 3 * 3_600_000);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    expect(view.channels[0]?.readings.map((r) => ('status' in r ? r.status : ''))).toEqual([
      'skipped',
      'skipped',
      'ok',
    ]);
  });

  it('stops reading a channel retracted from the post; its other channel goes on', async () => {
    const { postId, ws } = ids();
    w.networks.set('x', new ScriptedNetwork('x', () => ({ likes: 1 })));
    w.networks.set('bluesky', new ScriptedNetwork('bluesky', () => ({ likes: 2 })));
    const post = livePost(postId, ws, [
      { channelId: 'ch_r1', platform: 'x', liveAt: T0 },
      { channelId: 'ch_r2', platform: 'bluesky', liveAt: T0 },
    ]);
    await publish(w, post);
    await runUntil(w, T0 + 3_600_000);
    w.posts.set(postId, { ...post, channels: post.channels.filter((c) => c.channelId === 'ch_r2') });
    await runUntil(w, T0 + 3 * 3_600_000);
    expect(await w.deps.metrics.getTracker(postId, 'ch_r1')).toMatchObject({
      nextAt: null,
      readings: 1,
      skipped: 1,
    });
    expect(await w.deps.metrics.getTracker(postId, 'ch_r2')).toMatchObject({ readings: 3 });
  });

  it('a rate-limited reading waits for the reset the network named', async () => {
    const { postId, ws } = ids();
    let limited = true;
    w.networks.set(
      'x',
      new ScriptedNetwork('x', () => {
        if (limited)
          throw new NetworkError('transient', 'Too Many Requests', {
            status: 429,
            retryAfterSeconds: 600,
            rateLimited: true,
          });
        return { likes: 4 };
      }),
    );
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_rl', platform: 'x', liveAt: T0 }]));
    w.clock.ms = T0 + 3_600_000;
    await settle(w);
    expect(w.queue.messages.map((m) => (m.visibleAt - w.clock.ms) / 1000)).toEqual([600]);
    limited = false;
    await runUntil(w, T0 + 3_600_000 + 601_000);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    expect(view.channels[0]?.readings).toMatchObject([{ status: 'ok', metrics: { likes: 4 } }]);
  });

  it('reads every block of a thread: the first block gives the totals, the others their own values', async () => {
    const { postId, ws } = ids();
    w.networks.set(
      'bluesky',
      new ScriptedNetwork('bluesky', (input) => {
        if (input.block.remoteId.endsWith('-2')) throw new NetworkError('transient', 'gone');
        return { likes: input.block.remoteId.endsWith('-0') ? 10 : 2 };
      }),
    );
    await publish(
      w,
      livePost(postId, ws, [{ channelId: 'ch_t', platform: 'bluesky', liveAt: T0, blocks: 3 }]),
    );
    await runUntil(w, T0 + 3_600_000);
    const view = await getPostMetrics(w.deps, auth(ws), postId, 'raw');
    expect(view.channels[0]?.latest).toMatchObject({
      metrics: { likes: 10 },
      blocks: [
        { block: 0, metrics: { likes: 10 } },
        { block: 1, metrics: { likes: 2 } },
      ],
    });
  });
});

describe('a new time scale', () => {
  // Each test on a table of its own: the scale recorded is the table's, and moving every
  // unfinished tracker of a shared table would hand out the other tests' readings.
  let own: Awaited<ReturnType<typeof freshTable>>;
  beforeEach(async () => {
    own = await freshTable();
  });
  afterEach(async () => {
    await own?.drop();
  });

  /** The readings of a post's only channel, as GET /posts/{id}/metrics lists them. */
  const dueTimes = async (w: World, postId: string, ws: string) =>
    (await getPostMetrics(w.deps, auth(ws), postId, 'raw')).channels[0]?.readings.map((r) =>
      'dueAt' in r ? r.dueAt : '',
    );

  it('faster after a restart: the reading overdue on it is taken at the first sweep, once', async () => {
    const w = world(own);
    const { postId, ws } = ids();
    const network = new ScriptedNetwork('bluesky', () => ({ likes: 3 }));
    w.networks.set('bluesky', network);
    // A run at the real pace publishes, sweeps (nothing due for an hour) and stops.
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_s1', platform: 'bluesky', liveAt: T0 }]));
    w.clock.ms = T0 + 1000;
    expect(await settle(w)).toBe(0);
    // The next starts 5.5 s later at 3600x: five hours of the cadence have passed.
    w.deps.cadence = { timeScale: 3600 };
    w.clock.ms = T0 + 5500;
    expect(await settle(w)).toBe(1);
    expect(network.calls).toHaveLength(1);
    // The readings due meanwhile collapse into the latest (hour 5); the next is hour 6.
    expect(await dueTimes(w, postId, ws)).toEqual([new Date(T0 + 5000).toISOString()]);
    expect(await w.deps.metrics.getTracker(postId, 'ch_s1')).toMatchObject({
      step: 5,
      readings: 1,
      nextAt: new Date(T0 + 6000).toISOString(),
    });
    // Nothing more until then, and the scale is recorded: the next sweep moves nothing.
    expect(await settle(w)).toBe(0);
    expect(await followTimeScale(w.deps)).toBe(0);
    w.clock.ms = T0 + 6000;
    expect(await settle(w)).toBe(1);
  });

  it('slower after a restart: a reading due on the old scale waits for its time on the new one', async () => {
    const w = world(own);
    const { postId, ws } = ids();
    const network = new ScriptedNetwork('x', () => ({ likes: 1 }));
    w.networks.set('x', network);
    w.deps.cadence = { timeScale: 3600 };
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_s2', platform: 'x', liveAt: T0 }]));
    expect(await settle(w)).toBe(0);
    // Back at the real pace 2 s later: the first reading (due at 1 s on 3600x) is due at 1 h.
    w.deps.cadence = { timeScale: 1 };
    w.clock.ms = T0 + 2000;
    expect(await settle(w)).toBe(0);
    expect(network.calls).toHaveLength(0);
    w.clock.ms = T0 + 3_600_000;
    expect(await settle(w)).toBe(1);
    expect(await dueTimes(w, postId, ws)).toEqual([new Date(T0 + 3_600_000).toISOString()]);
  });

  it('a table with no scale recorded takes the one running now, without a pass over its trackers', async () => {
    const w = world(own);
    const { postId, ws } = ids();
    await publish(w, livePost(postId, ws, [{ channelId: 'ch_s3', platform: 'x', liveAt: T0 }]));
    w.deps.cadence = { timeScale: 3600 };
    expect(await w.deps.metrics.cadenceScale()).toBeNull();
    expect(await followTimeScale(w.deps)).toBe(0);
    expect(await w.deps.metrics.cadenceScale()).toBe(3600);
    // The tracker written before keeps its due time (on AWS every table ran at 1).
    expect((await w.deps.metrics.getTracker(postId, 'ch_s3'))?.nextAt).toBe(
      new Date(T0 + 3_600_000).toISOString(),
    );
  });

  it('moves every unfinished tracker, those whose reading is leased too', async () => {
    const w = world(own);
    w.networks.set('x', new ScriptedNetwork('x', () => ({ likes: 1 })));
    // Trackers in every shard of the due index.
    const posts = Array.from({ length: 6 }, (_, i) => ({ ...ids(), channelId: `ch_m${i}` }));
    for (const { postId, ws, channelId } of posts) {
      await publish(w, livePost(postId, ws, [{ channelId, platform: 'x', liveAt: T0 }]));
    }
    // Their readings are handed out (a lease holds each for 10 minutes) and the messages lost.
    w.clock.ms = T0 + 3_600_000;
    await sweepDueReadings(w.deps);
    expect(w.queue.take()).toHaveLength(6);
    w.deps.cadence = { timeScale: 60 };
    const moved = await followTimeScale(w.deps);
    expect(moved).toBe(6);
    // On 60x the first reading was due a minute after going live: each is handed out again.
    expect(await sweepDueReadings(w.deps)).toBe(6);
    for (const job of w.queue.take()) await takeReading(w.deps, job);
    for (const { postId, channelId } of posts) {
      expect(await w.deps.metrics.getTracker(postId, channelId)).toMatchObject({ readings: 1 });
    }
  });
});

describe('stats', () => {
  it('adds up posts per platform and overall, by range, only in the key’s workspace and mode', async () => {
    const w = world();
    const a = ids();
    const b = ids();
    const c = ids();
    const ws = a.ws;
    const other = ids().ws;
    const day2 = T0 + 86_400_000; // 2026-03-03T10:00Z
    w.networks.set('x', new ScriptedNetwork('x', () => ({ likes: 10, views: 100 })));
    w.networks.set('bluesky', new ScriptedNetwork('bluesky', () => ({ likes: 5, comments: 1 })));
    // Post a on X and Bluesky on March 2; post b on X on March 3; post c in another workspace.
    await publish(
      w,
      livePost(a.postId, ws, [
        { channelId: 'ch_sx', platform: 'x', liveAt: T0 },
        { channelId: 'ch_sb', platform: 'bluesky', liveAt: T0 + 60_000 },
      ]),
    );
    await publish(w, livePost(b.postId, ws, [{ channelId: 'ch_sx2', platform: 'x', liveAt: day2 }]));
    await publish(w, livePost(c.postId, other, [{ channelId: 'ch_o', platform: 'x', liveAt: T0 }]));
    await runUntil(w, day2 + 2 * 3_600_000);

    const both = await getStats(w.deps, auth(ws), { from: '2026-03-02', to: '2026-03-03' });
    expect(both.overall).toEqual({ posts: 2, metrics: { likes: 25, views: 200, comments: 1 } });
    expect(both.platforms).toEqual([
      { platform: 'bluesky', posts: 1, metrics: { likes: 5, comments: 1 } },
      { platform: 'x', posts: 2, metrics: { likes: 20, views: 200 } },
    ]);
    // A range cut inside a day counts only the posts that went live inside it.
    const morning = await getStats(w.deps, auth(ws), {
      from: '2026-03-03T00:00:00Z',
      to: '2026-03-03T09:59:59.999Z',
    });
    expect(morning.overall).toEqual({ posts: 0, metrics: {} });
    const cut = await getStats(w.deps, auth(ws), {
      from: '2026-03-02T09:00:00+00:00',
      to: '2026-03-03T10:00:00Z',
    });
    expect(cut.overall.posts).toBe(2);
    const firstOnly = await getStats(w.deps, auth(ws), {
      from: '2026-03-02T09:00:00Z',
      to: '2026-03-03T09:00:00Z',
    });
    expect(firstOnly.overall).toEqual({ posts: 1, metrics: { likes: 15, views: 100, comments: 1 } });
    // The other workspace sees its own post only; test keys see none of the live posts.
    expect(
      (await getStats(w.deps, auth(other), { from: '2026-03-01', to: '2026-03-04' })).overall.posts,
    ).toBe(1);
    expect(
      (await getStats(w.deps, auth(ws, 'test'), { from: '2026-03-01', to: '2026-03-04' })).overall.posts,
    ).toBe(0);
    // GET /posts/{id}/metrics of another workspace's post is not found.
    await expect(getPostMetrics(w.deps, auth(other), a.postId, 'raw')).rejects.toMatchObject({
      code: 'not_found',
    });

    // A deleted post leaves the stats.
    await w.deps.metrics.forgetPost(b.postId);
    const after = await getStats(w.deps, auth(ws), { from: '2026-03-02', to: '2026-03-03' });
    expect(after.overall).toEqual({ posts: 1, metrics: { likes: 15, views: 100, comments: 1 } });
    // Once no counted post reported a metric, it is absent again (not a zeroed sum).
    await w.deps.metrics.forgetPost(a.postId);
    const empty = await getStats(w.deps, auth(ws), { from: '2026-03-02', to: '2026-03-03' });
    expect(empty).toMatchObject({ overall: { posts: 0, metrics: {} }, platforms: [] });
  });

  it('a metric only a deleted post reported leaves the stats (absent, not 0)', async () => {
    const w = world();
    const p1 = ids();
    const p2 = ids();
    w.networks.set(
      'x',
      new ScriptedNetwork('x', (input) =>
        input.block.remoteId.startsWith('ch_v1') ? { likes: 3, views: 40 } : { likes: 1 },
      ),
    );
    await publish(w, livePost(p1.postId, p1.ws, [{ channelId: 'ch_v1', platform: 'x', liveAt: T0 }]));
    await publish(w, livePost(p2.postId, p1.ws, [{ channelId: 'ch_v2', platform: 'x', liveAt: T0 }]));
    await runUntil(w, T0 + 3_600_000);
    const range = { from: '2026-03-02', to: '2026-03-02' };
    expect((await getStats(w.deps, auth(p1.ws), range)).overall).toEqual({
      posts: 2,
      metrics: { likes: 4, views: 40 },
    });
    await w.deps.metrics.forgetPost(p1.postId);
    const after = await getStats(w.deps, auth(p1.ws), range);
    expect(after.platforms).toEqual([{ platform: 'x', posts: 1, metrics: { likes: 1 } }]);
    expect(after.overall).toEqual({ posts: 1, metrics: { likes: 1 } });
  });

  it('refuses bad ranges in the error envelope’s terms', async () => {
    const w = world();
    const ws = ids().ws;
    await expect(getStats(w.deps, auth(ws), { from: '2026-02-30' })).rejects.toMatchObject({
      code: 'invalid_date',
      field: 'from',
    });
    await expect(getStats(w.deps, auth(ws), { from: '2026-03-02', to: '2026-03-01' })).rejects.toMatchObject({
      code: 'validation_failed',
      field: 'from',
    });
    await expect(getStats(w.deps, auth(ws), { from: '2024-01-01', to: '2026-03-01' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(getStats(w.deps, auth(ws), { to: '2026-03-02T10:00:00' })).rejects.toMatchObject({
      code: 'invalid_timezone',
      field: 'to',
    });
  });
});
