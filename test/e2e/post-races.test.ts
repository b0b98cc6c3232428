import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requeueLostJobs } from '../../functions/adapters/local/recovery.ts';
import type { PublishJob } from '../../functions/ports/publishing.ts';
import type { Scheduler } from '../../functions/ports/scheduler.ts';
import { freshWorkspace } from '../support/accounts.ts';
import {
  gate,
  liveOnNetwork,
  schedulesOf,
  storedPost,
  textOnNetwork,
  wrapDeps,
  wrapNetworks,
  wrapPosts,
} from '../support/interleave.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let restore: (() => void) | undefined;

beforeAll(async () => {
  // A 503 on X is an unknown outcome, looked up again after X's consistency window: keep it short.
  rt = await startTestRuntime({ env: { X_CONSISTENCY_WINDOW_SECONDS: '1', NETWORK_TIMEOUT_MS: '3000' } });
});
afterEach(() => {
  restore?.();
  restore = undefined;
});
afterAll(async () => {
  await rt?.destroy();
});

/** Schedules fire SCHEDULE_LEAD_SECONDS (5 s locally) before the post's time. */
const LEAD_MS = 5000;
const marker = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

const create = async (key: string, body: unknown) => {
  const res = await rt.api('/posts', { method: 'POST', key, body });
  expect(res.status).toBe(201);
  return res.body;
};

/** The post's one schedule is the one its stored time needs, and a firing of it is one the worker acts on. */
const expectScheduleMatchesStore = async (postId: string) => {
  const stored = await storedPost(rt, postId);
  const schedules = await schedulesOf(rt, postId);
  expect(schedules).toHaveLength(1);
  expect(schedules[0]?.fireAt).toBe(
    new Date(Date.parse(stored?.scheduledAt as string) - LEAD_MS).toISOString(),
  );
  expect(schedules[0]?.payload).toEqual({ postId, kind: 'scheduled', scheduledAt: stored?.scheduledAt });
};

/** Every block live on the network is one the post shows with its remoteUrl (a missing post shows none). */
const expectNothingUntracked = async (
  ws: { key: string },
  postId: string,
  platforms: string[],
  m: string,
) => {
  const res = await rt.api(`/posts/${postId}`, { key: ws.key });
  for (const platform of platforms) {
    const tracked =
      res.status === 404
        ? 0
        : (res.body.channels as { platform: string; blocks: { remoteUrl: string | null }[] }[])
            .filter((c) => c.platform === platform)
            .flatMap((c) => c.blocks)
            .filter((b) => b.remoteUrl !== null).length;
    expect({ platform, live: liveOnNetwork(rt, platform, m).length }).toEqual({ platform, live: tracked });
  }
};

describe('PUT /posts/{id} racing PUT on a scheduled post', () => {
  it('one answers 200, the other 409, and the schedule is the winner’s: the post publishes at its stored time', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const m = marker('put-race');
    const post = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: inSeconds(3600),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} first` }] }],
    });
    // Both requests read the post before either writes: the first write waits for the second.
    const arrived: (() => void)[] = [];
    restore = wrapPosts(rt, (real) => ({
      replace: async (previous, next, extras) => {
        if (previous.postId === post.id && arrived.length < 2) {
          await new Promise<void>((resolve) => {
            arrived.push(resolve);
            if (arrived.length === 2) for (const go of arrived) go();
          });
        }
        return real.replace(previous, next, extras);
      },
    }));
    const body = (s: number, text: string) => ({
      intent: 'schedule',
      scheduledAt: inSeconds(s),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} ${text}` }] }],
    });
    const [a, b] = await Promise.all([
      rt.api(`/posts/${post.id}`, { method: 'PUT', key: ws.key, body: body(11, 'a') }),
      rt.api(`/posts/${post.id}`, { method: 'PUT', key: ws.key, body: body(12, 'b') }),
    ]);
    restore();
    restore = undefined;
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    expect(loser.body.error.code).toBe('conflict');
    expect((await rt.api(`/posts/${post.id}`, { key: ws.key })).body).toEqual(winner.body);
    await expectScheduleMatchesStore(post.id);

    const done = await waitForPost(rt, post.id, ws.key, 30_000);
    expect(done.status).toBe('published');
    expect(done.channels[0].blocks[0].content).toBe(winner.body.channels[0].blocks[0].content);
    const started = (await storedPost(rt, post.id))?.roundStartedAt as string;
    expect(Date.parse(started)).toBeGreaterThanOrEqual(Date.parse(winner.body.scheduledAt));
  });

  it('a PUT that fails to save leaves the stored post and its schedule as they were', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const m = marker('put-fail');
    const post = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: inSeconds(10),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} kept` }] }],
    });
    restore = wrapPosts(rt, () => ({
      replace: async () => {
        throw new Error('The table is unavailable');
      },
    }));
    const res = await rt.api(`/posts/${post.id}`, {
      method: 'PUT',
      key: ws.key,
      body: {
        intent: 'schedule',
        scheduledAt: inSeconds(3600),
        channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} moved` }] }],
      },
    });
    restore();
    restore = undefined;
    expect(res.status).toBe(500);
    expect((await rt.api(`/posts/${post.id}`, { key: ws.key })).body).toEqual(post);
    await expectScheduleMatchesStore(post.id);
    const done = await waitForPost(rt, post.id, ws.key, 30_000);
    expect(done.status).toBe('published');
    expect(liveOnNetwork(rt, 'bluesky', m)).toHaveLength(1);
  });
});

describe('a PUT that dies after its save, before the schedule work that follows it', () => {
  it('a time too close for the scheduler, whose queue message is lost, still publishes', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const m = marker('close-lost');
    const post = await create(ws.key, {
      intent: 'draft',
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} draft` }] }],
    });
    const queue = rt.container.deps.queue();
    restore = wrapDeps(rt, {
      queue: () => ({
        sendPublish: async () => {
          throw new Error('The queue is unavailable');
        },
        sendEvent: (eventId) => queue.sendEvent(eventId),
      }),
    });
    // Within the schedule lead (5 s) plus 2 s: the firing goes on the queue after the save.
    const res = await rt.api(`/posts/${post.id}`, {
      method: 'PUT',
      key: ws.key,
      body: {
        intent: 'schedule',
        scheduledAt: inSeconds(6),
        channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} soon` }] }],
      },
    });
    restore();
    restore = undefined;
    expect(res.status).toBe(200);
    const done = await waitForPost(rt, post.id, ws.key, 30_000);
    expect(done.status).toBe('published');
    expect(Date.parse((await storedPost(rt, post.id))?.roundStartedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(res.body.scheduledAt),
    );
    expect(liveOnNetwork(rt, 'bluesky', m)).toHaveLength(1);
  });

  it('a move whose previous schedule stays behind publishes at the new time only', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const m = marker('move-left');
    const post = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: inSeconds(9),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} text` }] }],
    });
    const scheduler = rt.container.deps.scheduler();
    const failing: Scheduler = {
      scheduleOnce: (name, at, payload) => scheduler.scheduleOnce(name, at, payload),
      cancel: async () => {
        throw new Error('The scheduler is unavailable');
      },
    };
    restore = wrapDeps(rt, { scheduler: () => failing });
    const moved = await rt.api(`/posts/${post.id}`, {
      method: 'PUT',
      key: ws.key,
      body: {
        intent: 'schedule',
        scheduledAt: inSeconds(15),
        channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${m} text` }] }],
      },
    });
    restore();
    restore = undefined;
    expect(moved.status).toBe(200);
    // The old schedule fires first; its firing is checked against the stored time and ignored.
    expect((await schedulesOf(rt, post.id)).map((s) => s.payload.scheduledAt).sort()).toEqual(
      [post.scheduledAt, moved.body.scheduledAt].sort(),
    );
    const done = await waitForPost(rt, post.id, ws.key, 30_000);
    expect(done.status).toBe('published');
    expect(Date.parse((await storedPost(rt, post.id))?.roundStartedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(moved.body.scheduledAt),
    );
  });
});

describe('POST /posts/{id}/retract racing POST /posts/{id}/publish on a partially published post', () => {
  const partiallyPublished = async (m: string) => {
    const ws = await freshWorkspace(rt, ['x', 'bluesky']);
    const post = await create(ws.key, {
      intent: 'now',
      channels: [
        { channelId: ws.channels.x, blocks: [{ content: `${m} on x` }] },
        { channelId: ws.channels.bluesky, blocks: [{ content: `${m} on bluesky sim:fail-once` }] },
      ],
    });
    expect((await waitForPost(rt, post.id, ws.key)).status).toBe('partially_published');
    return { ws, postId: post.id as string };
  };

  it('a publish that starts while the retract removes blocks is refused: nothing goes live untracked', async () => {
    const m = marker('retract-first');
    const { ws, postId } = await partiallyPublished(m);
    const deleting = gate();
    restore = wrapNetworks(rt, (client) => ({
      delete: async (input) => {
        await deleting.hold();
        return client.delete(input);
      },
    }));
    const retract = rt.api(`/posts/${postId}/retract`, { method: 'POST', key: ws.key });
    await deleting.reached;
    const publish = await rt.api(`/posts/${postId}/publish`, { method: 'POST', key: ws.key });
    // Were the publish let through, its block would reach the network while the retract is held.
    if (publish.status === 200) await waitForPost(rt, postId, ws.key);
    deleting.release();
    const retracted = await retract;
    expect(publish.status).toBe(409);
    expect(publish.body.error.code).toBe('conflict');
    expect(retracted.status).toBe(200);
    await expectNothingUntracked(ws, postId, ['x', 'bluesky'], m);
  });

  it('a retract that read the post before a publish started is refused: nothing goes live untracked', async () => {
    const m = marker('publish-first');
    const { ws, postId } = await partiallyPublished(m);
    const reading = gate();
    let armed = true;
    restore = wrapPosts(rt, (real) => ({
      get: async (id) => {
        const post = await real.get(id);
        if (armed && id === postId) {
          armed = false;
          await reading.hold();
        }
        return post;
      },
    }));
    const retract = rt.api(`/posts/${postId}/retract`, { method: 'POST', key: ws.key });
    await reading.reached;
    const publish = await rt.api(`/posts/${postId}/publish`, { method: 'POST', key: ws.key });
    expect(publish.status).toBe(200);
    expect((await waitForPost(rt, postId, ws.key)).status).toBe('published');
    reading.release();
    const retracted = await retract;
    expect(retracted.status).toBe(409);
    expect(retracted.body.error.code).toBe('conflict');
    const now = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(now.body.status).toBe('published');
    expect(liveOnNetwork(rt, 'x', m)).toHaveLength(1);
    await expectNothingUntracked(ws, postId, ['x', 'bluesky'], m);
  });
});

describe('POST /posts/{id}/revise racing another revise', () => {
  it('the second is refused while the first runs: the stored text is what the network shows', async () => {
    const ws = await freshWorkspace(rt, ['linkedin']);
    const m = marker('revise-race');
    const post = await create(ws.key, {
      intent: 'now',
      channels: [{ channelId: ws.channels.linkedin, blocks: [{ content: `${m} original` }] }],
    });
    expect((await waitForPost(rt, post.id, ws.key)).status).toBe('published');
    const edited = gate();
    let armed = true;
    restore = wrapNetworks(rt, (client) => ({
      edit: async (input) => {
        await client.edit(input);
        if (armed) {
          armed = false;
          await edited.hold();
        }
      },
    }));
    const revise = (text: string) =>
      rt.api(`/posts/${post.id}/revise`, {
        method: 'POST',
        key: ws.key,
        body: { channels: [{ channelId: ws.channels.linkedin, blocks: [{ content: `${m} ${text}` }] }] },
      });
    const first = revise('first');
    await edited.reached;
    const second = await revise('second');
    edited.release();
    expect((await first).status).toBe(200);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('conflict');
    const [live] = liveOnNetwork(rt, 'linkedin', m);
    const shown = (await rt.api(`/posts/${post.id}`, { key: ws.key })).body.channels[0].blocks[0].content;
    expect(shown).toBe(textOnNetwork(rt, 'linkedin', live as string));
    expect(shown).toBe(`${m} first`);
  });
});

describe('DELETE /posts/{id} while the post is publishing', () => {
  it('is 409 while blocks are being sent, and allowed once the post is done', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const m = marker('delete-publishing');
    // Block 4 meets one transient failure: the thread waits for its retry with three blocks live.
    const blocks = Array.from({ length: 10 }, (_, i) => ({
      content: `${m} part ${i + 1}${i === 3 ? ' sim:flaky' : ''}`,
    }));
    const post = await create(ws.key, { intent: 'now', channels: [{ channelId: ws.channels.x, blocks }] });
    await expect.poll(() => liveOnNetwork(rt, 'x', m).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const res = await rt.api(`/posts/${post.id}`, { method: 'DELETE', key: ws.key });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect(res.body.error.message).toMatch(/publishing/);
    const done = await waitForPost(rt, post.id, ws.key, 30_000);
    expect(done.status).toBe('published');
    await expectNothingUntracked(ws, post.id, ['x'], m);
    expect(liveOnNetwork(rt, 'x', m)).toHaveLength(10);
    expect((await rt.api(`/posts/${post.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
  });
});

describe('local restart recovery', () => {
  it('finds a scheduled post’s schedule by the name the post gives it, and requeues a firing only when it is gone', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const post = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: inSeconds(3600),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${marker('recovery')}` }] }],
    });
    const sent: PublishJob[] = [];
    const queue = { sendPublish: async (job: PublishJob) => void sent.push(job), sendEvent: async () => {} };
    const recover = () =>
      requeueLostJobs({
        posts: rt.container.deps.overduePosts,
        schedules: {
          get: async (name: string) => (await schedulesOf(rt, post.id)).find((s) => s.name === name),
        },
        queue,
        now: new Date(),
      });
    await recover();
    expect(sent.filter((job) => job.postId === post.id)).toEqual([]);

    const [own] = await schedulesOf(rt, post.id);
    await rt.container.deps.scheduler().cancel(own?.name as string);
    await recover();
    expect(sent.filter((job) => job.postId === post.id)).toEqual([
      { postId: post.id, kind: 'scheduled', scheduledAt: post.scheduledAt },
    ]);
  });
});
