import { describe, expect, it, vi } from 'vitest';
import {
  COMPLETION_GROUP_WAIT_MS,
  type Completion,
  CompletionBatcher,
  MAX_COMPLETIONS_PER_WRITE,
  SendsInFlight,
} from '../../../functions/core/publishing/completion-batcher.ts';
import { PublishingEngine } from '../../../functions/core/publishing/job.ts';
import { JobWrites, type Settle } from '../../../functions/core/publishing/job-writes.ts';
import { PostLocks } from '../../../functions/core/publishing/post-mutation.ts';
import type { PostRecord } from '../../../functions/domain/post.ts';
import type { BlockClaim, OutboxEvent } from '../../../functions/ports/publishing.ts';
import { FakeChannelStore } from '../../support/fakes/channels.ts';
import { FakeClaimStore } from '../../support/fakes/claims.ts';
import { FakeClock } from '../../support/fakes/clock.ts';
import { engineOnFakes, postChannel, publishingPost, seed, WORKSPACE } from '../../support/fakes/engine.ts';
import { FakePostStore } from '../../support/fakes/posts.ts';

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

/** A batcher on in-memory fakes, over a post whose X channels `channelIds` each publish one block. */
const batcherOnFakes = (channelIds = ['ch_a', 'ch_b']) => {
  const clock = new FakeClock();
  const claims = new FakeClaimStore();
  const posts = new FakePostStore(new FakeChannelStore(), claims);
  const writes = new JobWrites({ posts, clock, claims }, new PostLocks());
  const sends = new SendsInFlight();
  const batcher = new CompletionBatcher(writes, claims, sends);
  const post = publishingPost(channelIds.map((id) => postChannel(id, 'x', [id])));
  posts.put(post);
  writes.begin(post);
  /** The posts each completion's events were made from, by channel. */
  const snapshots = new Map<string, PostRecord>();
  const eventOf = (channelId: string): OutboxEvent => ({
    id: `evt_${channelId}`,
    type: 'post.published',
    createdAt: clock.now().toISOString(),
    accountId: post.accountId,
    workspaceId: post.workspaceId,
    mode: 'live',
    data: { channelId, platform: 'x', error: null },
  });
  /** The block claim of the channel, held by this worker. */
  const settleOf = (channelId: string): Settle => {
    const claim: BlockClaim = {
      postId: post.postId,
      channelId,
      block: 0,
      state: 'sending',
      owner: 'me',
      leaseUntil: '2026-06-01T12:01:00.000Z',
      since: '2026-06-01T12:00:00.000Z',
    };
    claims.put(claim);
    return {
      claim,
      remote: { remoteId: `r-${channelId}`, remoteUrl: `https://x.example/${channelId}`, meta: {} },
    };
  };
  /** The channel's completion: publishes it with its event (nothing when it is no longer publishing). */
  const completion = (channelId: string, fields: Partial<Completion> = {}): Completion => ({
    round: post,
    gate: undefined,
    complete: (current) => {
      if (current.channels.find((c) => c.channelId === channelId)?.status !== 'publishing') return null;
      return {
        next: {
          ...current,
          channels: current.channels.map((c) =>
            c.channelId === channelId ? { ...c, status: 'published' } : c,
          ),
        },
        events: (written) => {
          snapshots.set(channelId, written);
          return [eventOf(channelId)];
        },
      };
    },
    ...fields,
  });
  /** Another job ended the channel already. */
  const endChannel = (channelId: string) =>
    posts.change(post.postId, (p) => ({
      ...p,
      channels: p.channels.map((c) => (c.channelId === channelId ? { ...c, status: 'failed' } : c)),
    }));
  return { clock, claims, posts, sends, batcher, post, snapshots, eventOf, settleOf, completion, endChannel };
};

/** Lets every promise and pending I/O callback run (what was not blocked has happened after it). */
const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('a completion written alone', () => {
  it('carries its gate, and its events show the post as written', async () => {
    const { batcher, posts, snapshots, completion, eventOf } = batcherOnFakes();
    const gate = { workspaceId: WORKSPACE, endpoints: 2 };
    const { post, extras } = await batcher.write(completion('ch_a', { gate }));
    expect(posts.writes.map((w) => w.extras)).toEqual([{ events: [eventOf('ch_a')], outbox: gate }]);
    expect(extras).toEqual({ events: [eventOf('ch_a')], outbox: gate });
    expect(post).toMatchObject({ version: 2 });
    expect(snapshots.get('ch_a')).toEqual(post);
    expect(posts.peek('post_1')).toEqual(post);
  });

  it('of a channel done already writes nothing, and settles its claim alone', async () => {
    const { batcher, posts, claims, completion, settleOf, endChannel } = batcherOnFakes();
    endChannel('ch_a');
    const settle = settleOf('ch_a');
    const { post, extras } = await batcher.write(completion('ch_a', { settle }));
    expect(extras).toBeUndefined();
    expect(post.version).toBe(2);
    expect(posts.writes).toEqual([]);
    expect(claims.get('post_1', 'ch_a', 0)).toMatchObject({ state: 'sent', remote: settle.remote });
  });

  it('fails with its write', async () => {
    const { batcher, posts, completion } = batcherOnFakes();
    posts.failWrites.push(new Error('table unavailable'));
    await expect(batcher.write(completion('ch_a'))).rejects.toThrow('table unavailable');
    expect(posts.writes).toEqual([]);
  });
});

describe('completions waiting together', () => {
  it('share one write when they are one job’s with one view of the endpoints, each keeping its own part', async () => {
    const { batcher, posts, claims, completion, settleOf, eventOf, snapshots } = batcherOnFakes();
    const gate = { workspaceId: WORKSPACE, endpoints: 3 };
    const [sa, sb] = [settleOf('ch_a'), settleOf('ch_b')];
    const count = { accountId: 'acc_1', period: '2026-06' };
    const a = completion('ch_a', { gate, settle: sa });
    const b = completion('ch_b', { gate: { ...gate }, settle: sb });
    const withCount: Completion = {
      ...b,
      complete: (current, at) => {
        const part = b.complete(current, at);
        return part && { ...part, extras: { countPublished: count } };
      },
    };
    const [wa, wb] = await Promise.all([batcher.write(a), batcher.write(withCount)]);
    expect(posts.writes.map((w) => w.extras)).toEqual([
      {
        events: [eventOf('ch_a'), eventOf('ch_b')],
        outbox: gate,
        countPublished: count,
        settleClaims: [sa, sb],
      },
    ]);
    expect(wa).toEqual({
      post: wb.post,
      extras: { events: [eventOf('ch_a')], outbox: gate, settleClaims: [sa] },
    });
    expect(wb.extras).toEqual({
      events: [eventOf('ch_b')],
      outbox: gate,
      countPublished: count,
      settleClaims: [sb],
    });
    expect(wb.post).toEqual(posts.peek('post_1'));
    expect(wb.post.channels.map((c) => c.status)).toEqual(['published', 'published']);
    expect(snapshots.get('ch_a')).toEqual(wb.post);
    expect(snapshots.get('ch_b')).toEqual(wb.post);
    expect(claims.get('post_1', 'ch_b', 0)?.state).toBe('sent');
  });

  it('of different jobs, or seeing the endpoints differently, are written apart', async () => {
    const jobs = batcherOnFakes();
    const other = structuredClone(jobs.post);
    await Promise.all([
      jobs.batcher.write(jobs.completion('ch_a')),
      jobs.batcher.write(jobs.completion('ch_b', { round: other })),
    ]);
    expect(jobs.posts.writes).toHaveLength(2);

    const gates = batcherOnFakes();
    await Promise.all([
      gates.batcher.write(gates.completion('ch_a', { gate: { workspaceId: WORKSPACE, endpoints: 1 } })),
      gates.batcher.write(gates.completion('ch_b', { gate: { workspaceId: WORKSPACE, endpoints: null } })),
    ]);
    expect(gates.posts.writes).toHaveLength(2);
  });

  it('of channels done already are left out of the write, and their claims settled alone', async () => {
    const { batcher, posts, claims, completion, settleOf, eventOf, endChannel } = batcherOnFakes();
    endChannel('ch_b');
    const [sa, sb] = [settleOf('ch_a'), settleOf('ch_b')];
    const [wa, wb] = await Promise.all([
      batcher.write(completion('ch_a', { settle: sa })),
      batcher.write(completion('ch_b', { settle: sb })),
    ]);
    expect(posts.writes.map((w) => w.extras)).toEqual([{ events: [eventOf('ch_a')], settleClaims: [sa] }]);
    expect(wb).toEqual({ post: wa.post, extras: undefined });
    expect(claims.get('post_1', 'ch_b', 0)).toMatchObject({ state: 'sent', remote: sb.remote });
  });

  it('all done already write nothing', async () => {
    const { batcher, posts, claims, completion, settleOf, endChannel } = batcherOnFakes();
    endChannel('ch_a');
    endChannel('ch_b');
    const [sa, sb] = [settleOf('ch_a'), settleOf('ch_b')];
    const written = await Promise.all([
      batcher.write(completion('ch_a', { settle: sa })),
      batcher.write(completion('ch_b', { settle: sb })),
    ]);
    expect(posts.writes).toEqual([]);
    expect(written.map((w) => [w.post.version, w.extras])).toEqual([
      [3, undefined],
      [3, undefined],
    ]);
    expect(claims.get('post_1', 'ch_a', 0)?.state).toBe('sent');
    expect(claims.get('post_1', 'ch_b', 0)?.state).toBe('sent');
  });

  it('each fail alone when a claim settled alone fails', async () => {
    const { batcher, claims, completion, settleOf, endChannel } = batcherOnFakes();
    endChannel('ch_b');
    const [sa, sb] = [settleOf('ch_a'), settleOf('ch_b')];
    claims.settle = async () => {
      throw new Error('claims unavailable');
    };
    const [wa, wb] = await Promise.allSettled([
      batcher.write(completion('ch_a', { settle: sa })),
      batcher.write(completion('ch_b', { settle: sb })),
    ]);
    expect(wa.status).toBe('fulfilled');
    expect(wb).toMatchObject({ status: 'rejected', reason: { message: 'claims unavailable' } });
    expect(claims.get('post_1', 'ch_a', 0)?.state).toBe('sent');
  });

  it('wait for the post’s sends in flight, at most a moment', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { batcher, posts, sends, completion, eventOf } = batcherOnFakes(['ch_a', 'ch_b', 'ch_c']);
      const ended = sends.started('post_1');
      const a = batcher.write(completion('ch_a'));
      await flush();
      expect(posts.writes).toEqual([]);
      const b = batcher.write(completion('ch_b'));
      ended();
      await Promise.all([a, b]);
      expect(posts.writes.map((w) => w.extras)).toEqual([{ events: [eventOf('ch_a'), eventOf('ch_b')] }]);

      sends.started('post_1');
      const c = batcher.write(completion('ch_c'));
      await flush();
      expect(posts.writes).toHaveLength(1);
      vi.advanceTimersByTime(COMPLETION_GROUP_WAIT_MS);
      await c;
      expect(posts.writes).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
