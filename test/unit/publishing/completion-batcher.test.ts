import { describe, expect, it, vi } from 'vitest';
import {
  MAX_COMPLETIONS_PER_WRITE,
  SendsInFlight,
} from '../../../functions/core/publishing/completion-batcher.ts';
import { PublishingEngine } from '../../../functions/core/publishing/job.ts';
import { engineOnFakes, postChannel, publishingPost, seed } from '../../support/fakes/engine.ts';

/** A promise and the function that resolves it. */
const gate = () => {
  let release = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
};

const completionWrites = (f: ReturnType<typeof engineOnFakes>) =>
  f.posts.writes.filter((w) => (w.extras?.events ?? []).some((e) => e.type.startsWith('post.')));

describe('channel completions', () => {
  it('whose answers come together are written in one transaction, each event showing the post as written', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([
        postChannel('ch_x', 'x', ['a']),
        postChannel('ch_b', 'bluesky', ['b']),
        postChannel('ch_l', 'linkedin', ['c']),
      ]),
    );
    await f.engine.handle(job);
    const writes = completionWrites(f);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.extras?.settleClaims).toHaveLength(3);
    expect(writes[0]?.extras?.countPublished).toEqual({ accountId: 'acc_1', period: '2026-06' });
    const post = f.posts.peek('post_1');
    expect(post?.status).toBe('published');
    expect(f.posts.outbox.map((e) => e.data.post?.status)).toEqual(['published', 'published', 'published']);
    expect(f.posts.outbox.map((e) => e.data.post?.updatedAt)).toEqual(Array(3).fill(post?.updatedAt));
    expect(f.queue.events).toHaveLength(3);
  });

  it('wait a moment for the post’s other sends in flight, and no longer', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_b', 'bluesky', ['b'])]),
    );
    const slow = gate();
    f.network('bluesky').answer({ kind: 'held', release: slow.promise });
    const running = f.engine.handle(job);
    await vi.waitFor(() => expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('published'));
    expect(f.posts.peek('post_1')?.channels[1]?.status).toBe('publishing');
    slow.release();
    await running;
    expect(completionWrites(f)).toHaveLength(2);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it(`go at most ${MAX_COMPLETIONS_PER_WRITE} to a transaction`, async () => {
    const f = engineOnFakes();
    const channels = Array.from({ length: MAX_COMPLETIONS_PER_WRITE + 1 }, (_, i) =>
      postChannel(`ch_${i}`, 'x', [`t${i}`]),
    );
    await f.engine.handle(seed(f, publishingPost(channels)));
    expect(completionWrites(f).map((w) => w.extras?.events?.length)).toEqual([MAX_COMPLETIONS_PER_WRITE, 1]);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('are written one by one when their joint write fails', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_b', 'bluesky', ['b'])]),
    );
    f.posts.failWrites.push(new Error('transaction failed'));
    await f.engine.handle(job);
    expect(completionWrites(f)).toHaveLength(2);
    expect(f.claims.get('post_1', 'ch_x', 0)?.state).toBe('sent');
    expect(f.claims.get('post_1', 'ch_b', 0)?.state).toBe('sent');
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('of channels another job ended already settle their claims alone and write nothing', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_b', 'bluesky', ['b'])]),
    );
    let once = false;
    f.posts.beforeWrite = () => {
      if (once) return;
      once = true;
      f.posts.change('post_1', (p) => ({
        ...p,
        channels: p.channels.map((c) => ({ ...c, status: 'failed' })),
      }));
    };
    await f.engine.handle(job);
    expect(completionWrites(f)).toHaveLength(0);
    expect(f.claims.get('post_1', 'ch_x', 0)?.state).toBe('sent');
    expect(f.claims.get('post_1', 'ch_b', 0)?.state).toBe('sent');
    expect(f.live.map((l) => l.channelId).sort()).toEqual(['ch_b', 'ch_x']);
  });

  it('start the metrics tracking in the write that makes each channel live, counting the post once', async () => {
    const f = engineOnFakes();
    f.deps.trackerFor = (post, channelId) => ({ postId: post.postId, channelId, platform: 'x' }) as never;
    const engine = new PublishingEngine(f.deps);
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_y', 'x', ['b'])]));
    await engine.handle(job);
    expect(f.posts.trackingStarts.map((s) => [s.tracker.channelId, s.countPost, s.countPlatform])).toEqual([
      ['ch_x', true, true],
      // Judged after the start before it in the same write.
      ['ch_y', false, false],
    ]);
    expect(f.live).toEqual([]);
  });
});

describe('SendsInFlight', () => {
  it('resolves at once when no send is in flight, and when the last one ends', async () => {
    const sends = new SendsInFlight();
    await sends.settled('p', 10_000);
    const a = sends.started('p');
    const b = sends.started('p');
    let settled = false;
    const waiting = sends.settled('p', 10_000).then(() => {
      settled = true;
    });
    a();
    a();
    await Promise.resolve();
    expect(settled).toBe(false);
    b();
    await waiting;
    expect(settled).toBe(true);
  });

  it('gives up waiting after its time', async () => {
    const sends = new SendsInFlight();
    const end = sends.started('p');
    await sends.settled('p', 1);
    end();
    await sends.settled('p', 10_000);
  });
});
