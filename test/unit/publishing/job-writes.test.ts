import { describe, expect, it } from 'vitest';
import { JobWrites } from '../../../functions/core/publishing/job-writes.ts';
import { PostGoneError, PostLocks } from '../../../functions/core/publishing/post-mutation.ts';
import type { PostRecord } from '../../../functions/domain/post.ts';
import type { RemoteBlock } from '../../../functions/ports/network-client.ts';
import {
  type BlockClaim,
  ClaimTakenError,
  EndpointsAppearedError,
  type OutboxEvent,
} from '../../../functions/ports/publishing.ts';
import { FakeChannelStore } from '../../support/fakes/channels.ts';
import { FakeClaimStore } from '../../support/fakes/claims.ts';
import { FakeClock } from '../../support/fakes/clock.ts';
import { postChannel, publishingPost, WORKSPACE } from '../../support/fakes/engine.ts';
import { FakePostStore } from '../../support/fakes/posts.ts';

const REMOTE: RemoteBlock = { remoteId: 'x-9', remoteUrl: 'https://x.example/x-9', meta: {} };

/** Lets every promise and pending I/O callback run (what was not blocked has happened after it). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** JobWrites on in-memory fakes, over a two-block X post whose first block this worker has claimed. */
const setup = () => {
  const clock = new FakeClock();
  const channels = new FakeChannelStore();
  const claims = new FakeClaimStore();
  const posts = new FakePostStore(channels, claims);
  const locks = new PostLocks();
  const writes = new JobWrites({ posts, clock, claims }, locks);
  const post = publishingPost([postChannel('ch_x', 'x', ['a', 'b'])]);
  posts.put(post);
  const claim: BlockClaim = {
    postId: 'post_1',
    channelId: 'ch_x',
    block: 0,
    state: 'sending',
    owner: 'me',
    leaseUntil: '2026-06-01T12:01:00.000Z',
    since: '2026-06-01T12:00:00.000Z',
  };
  claims.put(claim);
  /** Settles made outside a post write (each a request of its own). */
  const calls = { settles: 0 };
  const settleAlone = claims.settle.bind(claims);
  claims.settle = (...args) => {
    calls.settles++;
    return settleAlone(...args);
  };
  return { clock, channels, claims, posts, locks, writes, post, claim, calls };
};

/** A change that renames the post's first channel's title to `title`. */
const titled =
  (title: string) =>
  (current: PostRecord): { next: PostRecord } => ({
    next: { ...current, channels: current.channels.map((c) => ({ ...c, title })) },
  });

describe('a job’s writes', () => {
  it('start from the post the job read, then from each write they made, without reading it again', async () => {
    const { writes, post, posts } = setup();
    writes.begin(post);
    expect((await writes.mutate(post, titled('one'))).post.version).toBe(2);
    expect((await writes.mutate(post, titled('two'))).post.version).toBe(3);
    expect(posts.reads).toBe(0);
    expect(posts.peek('post_1')?.channels[0]?.title).toBe('two');
  });

  it('read the post first when the job did not begin from it', async () => {
    const { writes, post, posts } = setup();
    await writes.mutate(post, titled('one'));
    expect(posts.reads).toBe(1);
  });

  it('wait for the engine’s other writes to the post, unless the caller holds its lock', async () => {
    const { writes, post, posts, locks } = setup();
    writes.begin(post);
    let release = () => {};
    const holding = locks.run(
      'post_1',
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    const waiting = writes.mutate(post, titled('waited'));
    await settle();
    expect(posts.writes).toHaveLength(0);
    const recording = writes.recordBlock(post, 'ch_x', 1, REMOTE);
    await settle();
    expect(posts.writes).toHaveLength(0);
    const inside = writes.writeSettling(post, undefined, titled('inside'), { locked: true });
    await settle();
    expect(posts.writes).toHaveLength(1);
    release();
    await Promise.all([holding, waiting, recording, inside]);
    expect(posts.writes).toHaveLength(3);
    expect(posts.peek('post_1')?.channels[0]).toMatchObject({
      title: 'waited',
      blocks: [{}, { remoteId: 'x-9' }],
    });
  });
});

describe('a write that settles a block’s claim', () => {
  it('settles it in the same transaction, keeping what the change commits', async () => {
    const { writes, post, posts, claims, claim, calls } = setup();
    writes.begin(post);
    await writes.recordBlock(post, 'ch_x', 0, REMOTE, claim);
    expect(posts.writes).toHaveLength(1);
    expect(posts.writes[0]?.extras?.settleClaims).toEqual([{ claim, remote: REMOTE }]);
    expect(posts.published.get('acc_1#2026-06')).toBe(1);
    expect(claims.get('post_1', 'ch_x', 0)).toMatchObject({ state: 'sent', remote: REMOTE });
    expect(posts.peek('post_1')?.channels[0]?.blocks[0]?.remoteId).toBe('x-9');
    expect(calls.settles).toBe(0);
  });

  it('with the caller holding the lock, writes at once', async () => {
    const { writes, post, posts, locks, claims, claim } = setup();
    writes.begin(post);
    await locks.run('post_1', async () => {
      const write = writes.writeSettling(post, { claim, remote: REMOTE }, titled('t'), { locked: true });
      await settle();
      expect(posts.writes).toHaveLength(1);
      await write;
    });
    expect(claims.get('post_1', 'ch_x', 0)?.state).toBe('sent');
  });

  it('settles it alone when the change writes nothing', async () => {
    const { writes, post, posts, claims, claim, calls } = setup();
    posts.change('post_1', (p) => ({
      ...p,
      channels: p.channels.map((c) => ({
        ...c,
        blocks: c.blocks.map((b) => ({ ...b, remoteId: REMOTE.remoteId, remoteUrl: REMOTE.remoteUrl })),
      })),
    }));
    await writes.recordBlock(post, 'ch_x', 0, REMOTE, claim);
    expect(posts.writes).toHaveLength(0);
    expect(calls.settles).toBe(1);
    expect(claims.get('post_1', 'ch_x', 0)).toMatchObject({ state: 'sent', remote: REMOTE });
  });

  it('settles it alone when the post is gone, and says the post is gone', async () => {
    const { writes, post, posts, claims, claim } = setup();
    posts.remove('post_1');
    await expect(writes.recordBlock(post, 'ch_x', 0, REMOTE, claim)).rejects.toBeInstanceOf(PostGoneError);
    expect(claims.get('post_1', 'ch_x', 0)).toMatchObject({ state: 'sent', remote: REMOTE });
  });

  it('fails with that settle’s failure when the post is gone (the job comes back to settle it)', async () => {
    const { writes, post, posts, claims, claim } = setup();
    posts.remove('post_1');
    claims.settle = async () => {
      throw new Error('claims unavailable');
    };
    await expect(writes.recordBlock(post, 'ch_x', 0, REMOTE, claim)).rejects.toThrow('claims unavailable');
  });

  it('settles it alone when the table fails, and throws the table’s error even when that settle fails too', async () => {
    const { writes, post, posts, claims, claim, calls } = setup();
    posts.failWrites.push(new Error('table unavailable'));
    await expect(writes.recordBlock(post, 'ch_x', 0, REMOTE, claim)).rejects.toThrow('table unavailable');
    expect(claims.get('post_1', 'ch_x', 0)).toMatchObject({ state: 'sent', remote: REMOTE });

    const second = setup();
    second.posts.failWrites.push(new Error('table unavailable'));
    second.claims.settle = async () => {
      second.calls.settles++;
      throw new Error('claims unavailable');
    };
    await expect(second.writes.recordBlock(second.post, 'ch_x', 0, REMOTE, second.claim)).rejects.toThrow(
      'table unavailable',
    );
    expect(second.calls.settles).toBe(1);
    expect(calls.settles).toBe(1);
  });

  it('stops when another worker took the claim over, without a settle of its own', async () => {
    const { writes, post, posts, claims, claim, calls } = setup();
    claims.put({ ...claim, owner: 'thief' });
    await expect(writes.recordBlock(post, 'ch_x', 0, REMOTE, claim)).rejects.toBeInstanceOf(ClaimTakenError);
    expect(calls.settles).toBe(0);
    expect(posts.writes).toHaveLength(0);
    expect(claims.get('post_1', 'ch_x', 0)).toMatchObject({ state: 'sending', owner: 'thief' });
  });

  it('leaves the claim to the caller’s next write when an endpoint appeared', async () => {
    const { writes, post, posts, channels, claims, claim, calls } = setup();
    channels.endpoints.set(WORKSPACE, 1);
    const event: OutboxEvent = {
      id: 'evt_1',
      type: 'post.published',
      createdAt: '2026-06-01T12:00:00.000Z',
      accountId: 'acc_1',
      workspaceId: WORKSPACE,
      mode: 'live',
      data: { channelId: 'ch_x', platform: 'x', error: null },
    };
    await expect(
      writes.writeSettling(post, { claim, remote: REMOTE }, (current) => ({
        next: { ...current, status: 'published' },
        extras: { events: [event], outbox: { workspaceId: WORKSPACE, endpoints: 0 } },
      })),
    ).rejects.toBeInstanceOf(EndpointsAppearedError);
    expect(calls.settles).toBe(0);
    expect(posts.writes).toHaveLength(0);
    expect(claims.get('post_1', 'ch_x', 0)?.state).toBe('sending');
  });

  it('is a plain write without a claim', async () => {
    const { writes, post, posts, calls } = setup();
    await writes.recordBlock(post, 'ch_x', 1, REMOTE);
    expect(posts.writes.map((w) => w.extras?.settleClaims)).toEqual([undefined]);
    expect(posts.peek('post_1')?.channels[0]?.blocks.map((b) => b.remoteId)).toEqual([null, 'x-9']);
    expect(calls.settles).toBe(0);
  });
});
