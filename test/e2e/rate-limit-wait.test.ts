import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requeueLostJobs } from '../../functions/adapters/local/recovery.ts';
import {
  MAX_QUEUE_DELAY_SECONDS,
  mutatePost,
  PublishingEngine,
  startRound,
} from '../../functions/core/publishing/engine.ts';
import { channelWaiting } from '../../functions/domain/post-view.ts';
import { classifyLinkedInFailure } from '../../functions/platforms/linkedin/client.ts';
import { type NetworkClient, NetworkError } from '../../functions/ports/network-client.ts';
import type { PublishJob } from '../../functions/ports/publishing.ts';
import type { BlueskySimulator } from '../../simulators/bluesky/simulator.ts';
import type { XSimulator } from '../../simulators/x/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * A rate-limited channel waits for the network's reset without spending attempts. The engine runs
 * here with an injected clock and a queue that records the delays it is asked for: each "delivery"
 * is a call to `handle` after moving the clock, so hours of waiting take no real time.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({
    env: { PUBLISH_RETRY_BASE_SECONDS: '0.2', NETWORK_TIMEOUT_MS: '1500', X_CONSISTENCY_WINDOW_SECONDS: '4' },
  });
});
afterAll(async () => {
  await rt?.destroy();
});

const xSim = () => rt.simulators.byPlatform.get('x') as unknown as XSimulator;
const blueskySim = () => rt.simulators.byPlatform.get('bluesky') as unknown as BlueskySimulator;

/** An engine on a clock the test moves, queueing into `queued` instead of the real queue. */
const harness = (wrap?: (client: NetworkClient) => NetworkClient, { realTime = false } = {}) => {
  const deps = rt.container.deps;
  let now = Date.now();
  const queued: { job: PublishJob; delaySeconds: number }[] = [];
  const calls = { publish: 0 };
  const engine = new PublishingEngine({
    ...deps,
    clock: { now: () => new Date(realTime ? Date.now() : now) },
    queue: () => ({
      sendPublish: async (job, delaySeconds = 0) => {
        queued.push({ job, delaySeconds });
      },
      sendEvent: (id) => deps.queue().sendEvent(id),
    }),
    networks: (platform, mode) => {
      const real = deps.networks(platform, mode);
      const counted: NetworkClient = Object.create(real);
      counted.publish = (input) => {
        calls.publish++;
        return real.publish(input);
      };
      return wrap ? wrap(counted) : counted;
    },
  });
  return {
    deps,
    engine,
    queued,
    calls,
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
    now: () => now,
  };
};

const draft = async (platform: 'x' | 'bluesky' | 'linkedin', content: string) => {
  const ws = await freshWorkspace(rt, [platform]);
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: { intent: 'draft', channels: [{ channelId: ws.channels[platform], blocks: [{ content }] }] },
  });
  expect(created.status).toBe(201);
  return { ws, postId: created.body.id as string };
};

describe('a rate-limited channel waits for the reset without spending attempts', () => {
  it("X's spent daily cap: re-delayed in steps of at most 15 minutes until the 24-hour reset, then published", async () => {
    const h = harness();
    const { ws, postId } = await draft('x', `daily cap ${Date.now()}`);
    await mutatePost(h.deps, postId, (post) => ({ next: startRound(post, new Date(h.now())) }));
    const job: PublishJob = { postId, kind: 'run', round: 1 };
    const resetSeconds = 3 * 3600 + 100;
    xSim().setSwitches({ dailyLimitSeconds: resetSeconds });
    try {
      await h.engine.handle(job);
      expect(h.calls.publish).toBe(1);
      expect(h.queued.map((q) => q.delaySeconds)).toEqual([MAX_QUEUE_DELAY_SECONDS]);
      let stored = await h.deps.posts.get(postId);
      expect(stored?.status).toBe('publishing');
      expect(stored?.channels[0]?.attempts ?? 0).toBe(0);
      const reset = Date.parse(stored?.channels[0]?.rateLimitedUntil ?? '');
      expect(Math.abs(reset - (h.now() + resetSeconds * 1000))).toBeLessThan(120_000);

      // Each step's message comes back; the channel does not call X before the reset.
      const steps: number[] = [];
      while (h.now() + h.queued[h.queued.length - 1]!.delaySeconds * 1000 < reset) {
        h.advance(h.queued[h.queued.length - 1]!.delaySeconds);
        const before = h.queued.length;
        await h.engine.handle(job);
        expect(h.queued.length).toBe(before + 1);
        steps.push(h.queued[h.queued.length - 1]!.delaySeconds);
        // A second delivery of the same step (SQS at-least-once, the post sweep) starts no second chain.
        await h.engine.handle(job);
        expect(h.queued.length).toBe(before + 1);
      }
      expect(h.calls.publish).toBe(1);
      expect(steps.length).toBeGreaterThanOrEqual(11);
      for (const step of steps) expect(step).toBeLessThanOrEqual(MAX_QUEUE_DELAY_SECONDS);
      stored = await h.deps.posts.get(postId);
      expect(stored?.status).toBe('publishing');
      expect(stored?.channels[0]?.attempts ?? 0).toBe(0);

      // The last step ends at the reset: the channel publishes.
      xSim().setSwitches({ dailyLimitSeconds: 0 });
      h.advance(h.queued[h.queued.length - 1]!.delaySeconds);
      await h.engine.handle(job);
      expect(h.calls.publish).toBe(2);
      const done = await rt.api(`/posts/${postId}`, { key: ws.key });
      expect(done.body.status).toBe('published');
    } finally {
      xSim().setSwitches({ dailyLimitSeconds: 0 });
    }
  });

  it('a wait step whose message a restart lost is taken over by the job the restart puts back', async () => {
    const h = harness();
    const { ws, postId } = await draft('x', `restart during a wait ${Date.now()}`);
    await mutatePost(h.deps, postId, (post) => ({ next: startRound(post, new Date(h.now())) }));
    const job: PublishJob = { postId, kind: 'run', round: 1 };
    const resetSeconds = 120;
    xSim().setSwitches({ dailyLimitSeconds: resetSeconds });
    try {
      await h.engine.handle(job);
      expect(h.queued).toHaveLength(1);
      const wait = h.queued[0]!.delaySeconds;
      expect(wait).toBeGreaterThanOrEqual(resetSeconds);
      expect(wait).toBeLessThanOrEqual(resetSeconds + 2);
      // The runtime dies: the delayed step's message is gone (the local queue keeps messages in
      // memory). Restarted 30 s later, it puts back a job for every publishing post.
      h.queued.length = 0;
      h.advance(30);
      const requeued = await requeueLostJobs({
        posts: h.deps.overduePosts,
        schedules: { get: async () => null },
        queue: {
          sendPublish: async (sent, delaySeconds = 0) => void h.queued.push({ job: sent, delaySeconds }),
          sendEvent: async () => {},
        },
        now: new Date(h.now()),
      });
      expect(requeued).toBeGreaterThanOrEqual(1);
      const putBack = h.queued.find((q) => q.job.postId === postId);
      expect(putBack?.job.recovered).toBe(true);
      h.queued.length = 0;
      // An ordinary delivery of the same step (SQS at least once) would leave it to its owner...
      await h.engine.handle(job);
      expect(h.queued).toEqual([]);
      // ...the put-back job takes it over, for what is left of the wait: the chain goes on.
      await h.engine.handle(putBack!.job);
      expect(h.queued.map((q) => q.delaySeconds)).toEqual([wait - 30]);
      expect(h.calls.publish).toBe(1);
      xSim().setSwitches({ dailyLimitSeconds: 0 });
      h.advance(wait - 30);
      await h.engine.handle(h.queued[0]!.job);
      expect(h.calls.publish).toBe(2);
      const done = await rt.api(`/posts/${postId}`, { key: ws.key });
      expect(done.body.status).toBe('published');
    } finally {
      xSim().setSwitches({ dailyLimitSeconds: 0 });
    }
  });

  it("Bluesky's spent daily write limit (429 RateLimitExceeded): waits until ratelimit-reset, then published once", async () => {
    const h = harness();
    const content = `bluesky daily limit ${Date.now()}`;
    const { ws, postId } = await draft('bluesky', content);
    await mutatePost(h.deps, postId, (post) => ({ next: startRound(post, new Date(h.now())) }));
    const job: PublishJob = { postId, kind: 'run', round: 1 };
    const resetSeconds = 2 * 3600;
    blueskySim().setRateLimited(resetSeconds);
    try {
      await h.engine.handle(job);
      expect(h.calls.publish).toBe(1);
      expect(h.queued.map((q) => q.delaySeconds)).toEqual([MAX_QUEUE_DELAY_SECONDS]);
      let stored = await h.deps.posts.get(postId);
      expect(stored?.status).toBe('publishing');
      expect(stored?.channels[0]?.attempts ?? 0).toBe(0);
      // The wait is the PDS's ratelimit-reset (epoch seconds), not a retry backoff.
      const reset = Date.parse(stored?.channels[0]?.rateLimitedUntil ?? '');
      expect(Math.abs(reset - (h.now() + resetSeconds * 1000))).toBeLessThan(120_000);

      while (h.now() + h.queued[h.queued.length - 1]!.delaySeconds * 1000 < reset) {
        h.advance(h.queued[h.queued.length - 1]!.delaySeconds);
        await h.engine.handle(job);
      }
      // Bluesky was not called again before the reset; no attempt was spent.
      expect(h.calls.publish).toBe(1);
      stored = await h.deps.posts.get(postId);
      expect(stored?.status).toBe('publishing');
      expect(stored?.channels[0]?.attempts ?? 0).toBe(0);
      const viaApi = await rt.api(`/posts/${postId}`, { key: ws.key });
      expect(viaApi.body.status).toBe('publishing');

      blueskySim().setRateLimited(0);
      h.advance(h.queued[h.queued.length - 1]!.delaySeconds);
      await h.engine.handle(job);
      expect(h.calls.publish).toBe(2);
      const done = await rt.api(`/posts/${postId}`, { key: ws.key });
      expect(done.body.status).toBe('published');
      expect(
        blueskySim()
          .records()
          .filter((r) => r.text === content),
      ).toHaveLength(1);
    } finally {
      blueskySim().setRateLimited(0);
    }
  });

  it('rate limits more often than the attempt limit never fail the channel', async () => {
    let limited = 0;
    const h = harness((client) => {
      const wrapped: NetworkClient = Object.create(client);
      wrapped.publish = async (input) => {
        if (limited < 8) {
          limited++;
          throw new NetworkError('transient', 'X rate limit', {
            status: 429,
            retryAfterSeconds: 60,
            rateLimited: true,
          });
        }
        return client.publish(input);
      };
      return wrapped;
    });
    const { ws, postId } = await draft('x', `many limits ${Date.now()}`);
    await mutatePost(h.deps, postId, (post) => ({ next: startRound(post, new Date(h.now())) }));
    const job: PublishJob = { postId, kind: 'run', round: 1 };
    for (let i = 0; i < 9; i++) {
      await h.engine.handle(job);
      h.advance(61);
    }
    expect(limited).toBe(8);
    const done = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(done.body.status).toBe('published');
    expect(h.queued.slice(0, 8).map((q) => q.delaySeconds)).toEqual(Array(8).fill(60));
  });

  it("LinkedIn's bare 429 (a short throttle or the daily limit): tries again after 1, 2, 4, 8, then 15 minutes, shown on GET; published on the first try after the throttle", async () => {
    // The client dates LinkedIn's daily reset by the wall clock; the engine here runs on a clock the
    // test moves (up to half an hour ahead). So the client's answer is dated as the client would
    // date it at the engine's time (its own classification of a bare 429), or near midnight UTC
    // the two clocks would disagree about which day's reset comes next.
    const h: ReturnType<typeof harness> = harness((client) => {
      const atEngineTime: NetworkClient = Object.create(client);
      atEngineTime.publish = (input) =>
        client.publish(input).catch((error: unknown) => {
          if (!(error instanceof NetworkError) || error.details.resetBySeconds === undefined) throw error;
          const bare429 = classifyLinkedInFailure(
            { type: 'answer', status: 429, headers: {}, body: null },
            new Date(h.now()),
          );
          throw new NetworkError(error.kind, error.message, {
            ...error.details,
            resetBySeconds: bare429.details.resetBySeconds,
          });
        });
      return atEngineTime;
    });
    const content = `linkedin throttle ${Date.now()}`;
    const { ws, postId } = await draft('linkedin', content);
    await mutatePost(h.deps, postId, (post) => ({ next: startRound(post, new Date(h.now())) }));
    const job: PublishJob = { postId, kind: 'run', round: 1 };
    const linkedInSim = rt.simulators.byPlatform.get('linkedin')!;
    linkedInSim.setRateLimited(3600, 'short');
    try {
      await h.engine.handle(job);
      expect(h.calls.publish).toBe(1);
      // The first try comes after a minute, not at midnight UTC.
      expect(h.queued.map((q) => q.delaySeconds)).toEqual([60]);
      const stored = await h.deps.posts.get(postId);
      expect(stored?.channels[0]?.rateLimitProbes).toBe(1);
      const now = new Date(h.now());
      const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
      expect(Math.abs(Date.parse(stored?.channels[0]?.rateLimitResetBy ?? '') - midnight)).toBeLessThan(
        120_000,
      );
      // GET /posts/{id} says why the channel waits, and until when.
      const shown = await rt.api(`/posts/${postId}`, { key: ws.key });
      expect(shown.body.channels[0].waiting).toMatchObject({
        reason: 'rate_limit',
        until: stored?.channels[0]?.rateLimitedUntil,
      });
      expect(shown.body.channels[0].waiting.message).toMatch(
        /^LinkedIn is rate-limiting this channel and announced no reset/,
      );

      // Each try that is refused again doubles the wait, up to 15 minutes (unless midnight comes first).
      for (let i = 0; i < 5; i++) {
        h.advance(h.queued[h.queued.length - 1]!.delaySeconds);
        await h.engine.handle(job);
      }
      expect(h.calls.publish).toBe(6);
      // Computed from the first try's time: each step, unless midnight UTC comes first.
      const expected: number[] = [];
      let at = now.getTime();
      let reset = midnight;
      for (const step of [60, 120, 240, 480, 900, 900]) {
        if (at >= reset) reset += 86_400_000;
        const wait = Math.max(1, Math.min(step, Math.ceil((reset - at) / 1000)));
        expected.push(wait);
        at += wait * 1000;
      }
      expect(h.queued.map((q) => q.delaySeconds)).toEqual(expected);
      expect((await h.deps.posts.get(postId))?.channels[0]?.attempts ?? 0).toBe(0);

      // The throttle ends: the next try publishes, once, and the channel no longer waits.
      linkedInSim.setRateLimited(0);
      h.advance(h.queued[h.queued.length - 1]!.delaySeconds);
      await h.engine.handle(job);
      expect(h.calls.publish).toBe(7);
      const done = await rt.api(`/posts/${postId}`, { key: ws.key });
      expect(done.body.status).toBe('published');
      expect(done.body.channels[0].waiting).toBeNull();
      expect(linkedInSim.records().filter((r) => r.text === content)).toHaveLength(1);
      const after = await h.deps.posts.get(postId);
      expect(after?.channels[0]?.rateLimitProbes).toBeUndefined();
    } finally {
      linkedInSim.setRateLimited(0);
    }
  });
});

describe('GET /posts/{id} shows why a publishing channel waits', () => {
  it('a lost answer being looked up (from the block claim), then a retry after a failure', async () => {
    let lost = true;
    const h = harness((client) => {
      const wrapped: NetworkClient = Object.create(client);
      wrapped.publish = async () => {
        if (lost) throw new NetworkError('transient', 'socket hang up', { outcomeUnknown: true });
        throw new NetworkError('transient', 'X answered HTTP 503', { status: 503 });
      };
      wrapped.lookup = async () => null;
      return wrapped;
    });
    // X's consistency window (4 s here): a lookup that finds nothing within it looks again later.
    const { ws, postId } = await draft('x', `waiting shown ${Date.now()}`);
    await mutatePost(h.deps, postId, (post) => ({ next: startRound(post, new Date(h.now())) }));
    await h.engine.handle({ postId, kind: 'run', round: 1 });
    const confirming = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(confirming.body.status).toBe('publishing');
    expect(confirming.body.channels[0].waiting).toMatchObject({ reason: 'confirming' });
    expect(Number.isNaN(Date.parse(confirming.body.channels[0].waiting.until))).toBe(false);
    expect(confirming.body.channels[0].waiting.message).toMatch(/looks it up on X before any resend/);
    // The list carries the post as written: no claim is read there.
    const listed = await rt.api('/posts', { key: ws.key });
    const inList = listed.body.data.find((p: { id: string }) => p.id === postId);
    expect(inList.channels[0].waiting).toBeNull();

    // Past X's window the send did not go through; the next send fails and is retried.
    lost = false;
    h.advance(3600);
    await h.engine.handle({ postId, kind: 'run', round: 1 });
    await h.engine.handle({ postId, kind: 'run', round: 1 });
    const stored = await h.deps.posts.get(postId);
    expect(stored?.channels[0]?.retryAt).toBeDefined();
    const retrying = channelWaiting(stored!.channels[0]!, new Date(h.now()));
    expect(retrying).toMatchObject({ reason: 'retry', until: stored?.channels[0]?.retryAt });
    expect(retrying?.message).toContain('X answered HTTP 503');
  });
});

describe('a lost answer after a long media upload', () => {
  it("X's consistency window runs from the lost answer, not from the start of the upload: no resend", async () => {
    // The upload before the tweet takes longer than X's consistency window (4 s here); the tweet's
    // answer is then lost (sim:timeout). A window counted from before the upload would already be
    // over, and a lookup that misses the lagging timeline would send the tweet again.
    const h = harness(
      (client) => {
        const wrapped: NetworkClient = Object.create(client);
        wrapped.publish = async (input) => {
          await new Promise((r) => setTimeout(r, 5_000));
          return client.publish(input);
        };
        return wrapped;
        // Real time here: the simulator's timeline lag runs on it.
      },
      { realTime: true },
    );
    const { ws, postId } = await draft('x', `slow upload ${Date.now()} sim:timeout`);
    await mutatePost(h.deps, postId, (post) => ({ next: startRound(post, new Date(h.now())) }));
    const job: PublishJob = { postId, kind: 'run', round: 1 };
    const engine = h.engine;
    await engine.handle(job);
    expect(h.calls.publish).toBe(1);
    // Deliveries of the queued job until the block is found (the timeline shows it 3 s after storing).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const post = await rt.api(`/posts/${postId}`, { key: ws.key });
      if (post.body.status !== 'publishing' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
      await engine.handle(job);
    }
    expect(h.calls.publish).toBe(1);
    const done = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(done.body.status).toBe('published');
  }, 60_000);
});
