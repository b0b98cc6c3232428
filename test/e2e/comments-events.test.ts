import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { eventsOfPost } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { simCommentHooks } from '../support/sim-comments.ts';
import { waitFor } from '../support/wait.ts';

/**
 * `comment.received` on the metrics cadence (36,000 times faster here: an hour is 0.1 s): each new
 * comment under a live post is announced once, however many readings see it; replies Herald sent
 * are not announced.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await sharedTestRuntime({
    env: { METRICS_TIME_SCALE: '36000', METRICS_SWEEP_INTERVAL_SECONDS: '0.2' },
  });
});
afterAll(async () => {
  await rt?.destroy();
});

const commentEvents = async (postId: string) =>
  (await eventsOfPost(rt, postId)).filter((event) => event.type === 'comment.received');

describe('comment.received', () => {
  it('announces each new comment once, on the readings of the metrics cadence', async () => {
    const ws = await freshWorkspace(rt, ['bluesky'], 'live', { keepEvents: true });
    const created = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'now',
        channels: [
          { channelId: ws.channels.bluesky, blocks: [{ content: `events ${Date.now()} sim:comments` }] },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const postId = created.body.id as string;
    await waitForPost(rt, postId, ws.key);
    const root = (await rt.container.deps.posts.get(postId))?.channels[0]?.blocks[0]?.remoteId as string;

    const seeded = await waitFor(
      async () => ((await commentEvents(postId)).length >= 3 ? commentEvents(postId) : null),
      {
        timeoutMs: 20_000,
        what: 'the seeded comments announced',
      },
    );
    expect(seeded.map((e) => e.data.comment?.text).sort()).toEqual([
      'Agreed, great news.',
      'Congratulations on the launch!',
      'Where can I read more about this?',
    ]);
    expect(seeded[0]).toMatchObject({
      type: 'comment.received',
      mode: 'live',
      data: { postId, channelId: ws.channels.bluesky, platform: 'bluesky', error: null },
    });

    // Herald answers one; someone else comments later.
    const first = seeded.find((e) => e.data.comment?.text === 'Congratulations on the launch!')?.data.comment;
    const reply = await rt.api(`/v1/posts/${postId}/comments/${first?.id}/replies`, {
      method: 'POST',
      key: ws.key,
      body: { channelId: ws.channels.bluesky, content: 'Thank you all' },
    });
    expect(reply.status, reply.text).toBe(201);
    await simCommentHooks(() => rt.simulators.byPlatform.get('bluesky')?.url as string).add(
      root,
      'A late question',
      {
        author: { name: 'Late', handle: 'late-one' },
      },
    );
    const readingsNow = async () => {
      const res = await rt.api(`/v1/posts/${postId}/metrics`, { key: ws.key });
      return res.body.channels[0].counts.readings as number;
    };
    await waitFor(async () => ((await commentEvents(postId)).length >= 4 ? true : null), {
      timeoutMs: 20_000,
      what: 'the late comment announced',
    });
    // Two more readings see the same comments: nothing is announced again.
    const after = await readingsNow();
    await waitFor(async () => (await readingsNow()) >= after + 2, {
      timeoutMs: 20_000,
      what: 'two more readings',
    });
    const events = await commentEvents(postId);
    expect(events.map((e) => e.data.comment?.text).sort()).toEqual([
      'A late question',
      'Agreed, great news.',
      'Congratulations on the launch!',
      'Where can I read more about this?',
    ]);
    expect(new Set(events.map((e) => e.data.comment?.id)).size).toBe(4);
  });
});
