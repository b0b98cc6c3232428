import { describe, expect, it } from 'vitest';
import { NetworkError, type PublishBlockInput } from '../../../functions/ports/network-client.ts';
import { type BlockClaim, ClaimTakenError } from '../../../functions/ports/publishing.ts';
import { engineOnFakes, postChannel, publishingPost, seed } from '../../support/fakes/engine.ts';

const start = '2026-06-01T12:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(start) + seconds * 1000).toISOString();

/** The first block's claim as a test stores it: the fields that differ from test to test. */
type StoredClaim = Omit<BlockClaim, 'postId' | 'channelId' | 'block' | 'leaseUntil' | 'since'> &
  Partial<Pick<BlockClaim, 'leaseUntil' | 'since'>>;

/**
 * An engine with a one-block X post (or `blocks`), on a network with `windowSeconds` of
 * consistency lag; with `stored`, the first block's claim as another worker left it.
 */
const setup = ({
  windowSeconds = 0,
  graceSeconds = 0,
  lookup = true,
  blocks = ['hello'],
  stored,
}: {
  windowSeconds?: number;
  /** The engine's in-flight grace after a send (none by default: the window alone). */
  graceSeconds?: number;
  lookup?: boolean;
  blocks?: string[];
  stored?: StoredClaim;
} = {}) => {
  const f = engineOnFakes({ inFlightGraceSeconds: graceSeconds });
  const network = f.network('x', { consistencyWindowSeconds: windowSeconds, lookup });
  const job = seed(f, publishingPost([postChannel('ch_x', 'x', blocks)]));
  if (stored)
    f.claims.put({
      postId: 'post_1',
      channelId: 'ch_x',
      block: 0,
      leaseUntil: start,
      since: start,
      ...stored,
    });
  const claim = () => f.claims.get('post_1', 'ch_x', 0);
  /** Another worker takes the first block's claim over. */
  const steal = () => f.claims.put({ ...(claim() as BlockClaim), owner: 'thief' });
  return { f, network, job, claim, steal };
};

describe('a block claimed by another worker', () => {
  it('is not sent while that worker holds it: the job comes back when its lease ends', async () => {
    const { f, network, job } = setup({
      stored: {
        state: 'sending',
        owner: 'other',
        leaseUntil: later(30.5),
      },
    });
    await f.engine.handle(job);
    expect(network.publishCalls).toEqual([]);
    expect(f.queue.delays()).toEqual([32]);
    expect(f.posts.writes).toEqual([]);
  });

  it('that died mid-send is taken over and looked up, never sent again blindly', async () => {
    const { f, network, job, claim } = setup({
      stored: {
        state: 'sending',
        owner: 'dead',
        leaseUntil: later(-1),
        since: later(-120),
        firstSentAt: later(-300),
      },
    });
    // The dead worker's send reached the network.
    network.stored.set('post_1.ch_x.0', {
      remote: { remoteId: 'x-1', remoteUrl: 'https://x.example/x-1', meta: {} },
      input: {} as PublishBlockInput,
    });
    const find = network.lookup?.bind(network);
    const during: (BlockClaim | undefined)[] = [];
    network.lookup = async (input) => {
      during.push(claim());
      return (await find?.(input)) ?? null;
    };
    await f.engine.handle(job);
    // Held by this worker (an owner of its own) while it looks the block up.
    expect(during).toMatchObject([
      { state: 'sending', owner: expect.stringMatching(/^w-[0-9a-f]{8}-[0-9a-f]{8}$/) },
    ]);
    expect(network.publishCalls).toEqual([]);
    expect(network.lookupCalls[0]?.since.toISOString()).toBe(later(-360));
    expect(network.lookupCalls[0]?.idempotencyKey).toBe('post_1.ch_x.0');
    expect(claim()).toMatchObject({
      state: 'sent',
      firstSentAt: later(-300),
      lastSentAt: later(-120),
      lostAt: start,
    });
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('whose takeover another worker won is left to it', async () => {
    const { f, network, job } = setup({
      stored: {
        state: 'sending',
        owner: 'dead',
        leaseUntil: later(-1),
        since: later(-120),
      },
    });
    f.claims.takeOver = async () => false;
    await f.engine.handle(job);
    expect(f.queue.delays()).toEqual([1]);
    expect(network.publishCalls).toEqual([]);
    expect(network.lookupCalls).toEqual([]);
  });

  it('that is sent already is recorded without a send', async () => {
    const remote = { remoteId: 'x-77', remoteUrl: 'https://x.example/x-77', meta: {} };
    const { f, network, job } = setup({ blocks: ['a', 'b'], stored: { state: 'sent', owner: 'o', remote } });
    await f.engine.handle(job);
    expect(network.publishCalls.map((c) => [c.content, c.parent?.block.remoteId])).toEqual([['b', 'x-77']]);
    expect(f.posts.peek('post_1')?.channels[0]?.blocks.map((b) => b.remoteId)).toEqual(['x-77', 'x-1']);
  });

  it('that is sent already, of a channel’s last block, is recorded by the write that completes the channel', async () => {
    const remote = { remoteId: 'x-77', remoteUrl: 'https://x.example/x-77', meta: {} };
    const { f, network, job } = setup({ stored: { state: 'sent', owner: 'o', remote } });
    await f.engine.handle(job);
    expect(network.publishCalls).toEqual([]);
    expect(f.posts.writes).toHaveLength(1);
    expect(f.posts.peek('post_1')?.channels[0]).toMatchObject({
      status: 'published',
      remoteUrl: remote.remoteUrl,
    });
  });

  it('whose outcome is unknown names its block when the channel has several', async () => {
    const { f, job } = setup({ blocks: ['a', 'b'], stored: { state: 'unknown', owner: 'o' } });
    await f.engine.handle(job);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toMatch(
      /^The network did not confirm whether block 1 was published/,
    );
  });

  it('whose outcome is unknown fails the channel and is never sent again', async () => {
    const { f, network, job } = setup({ stored: { state: 'unknown', owner: 'o' } });
    await f.engine.handle(job);
    expect(network.publishCalls).toEqual([]);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toMatch(
      /^The network did not confirm whether the post was published/,
    );
  });

  it('due for its next lookup is looked up, and its lookups keep counting', async () => {
    const { f, network, job, claim } = setup({
      windowSeconds: 600,
      stored: {
        state: 'checking',
        owner: 'o',
        leaseUntil: later(-100),
        since: later(-100),
        lastSentAt: later(-100),
        lostAt: later(-100),
        checks: 3,
        nextCheckAt: later(-1),
      },
    });
    network.answerLookups({ kind: 'hidden' });
    await f.engine.handle(job);
    expect(network.publishCalls).toEqual([]);
    expect(claim()).toMatchObject({ state: 'checking', checks: 4, nextCheckAt: later(16) });
    expect(f.queue.delays()).toEqual([16]);
  });
});

describe('a claim that cannot be taken', () => {
  it('fails the job with the store’s error (its message comes back), nothing sent', async () => {
    const { f, network, job } = setup();
    f.claims.acquire = async () => {
      throw new Error('claims unavailable');
    };
    await expect(f.engine.handle(job)).rejects.toThrow('claims unavailable');
    expect(network.publishCalls).toEqual([]);
  });
});

describe('a lost answer', () => {
  it('is looked up before anything is sent again, and found', async () => {
    const { f, network, job, claim } = setup();
    network.answer({ kind: 'lost', stored: true });
    await f.engine.handle(job);
    expect(network.publishCalls).toHaveLength(1);
    expect(network.lookupCalls).toHaveLength(1);
    expect(network.lookupCalls[0]?.saved).toBeNull();
    expect(claim()).toMatchObject({ state: 'sent', lostAt: start, lastSentAt: start });
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('not found after the consistency window counts an attempt, and the block is sent again', async () => {
    const { f, network, job, claim } = setup();
    network.answer({ kind: 'lost', stored: false });
    await f.engine.handle(job);
    expect(claim()?.state).toBe('not_sent');
    expect(f.posts.peek('post_1')?.channels[0]).toMatchObject({
      attempts: 1,
      retryReason: 'the network did not confirm the post and does not show it',
    });
    expect(f.queue.delays()).toEqual([2]);
    f.clock.advance(2);
    await f.engine.handle(job);
    expect(network.publishCalls).toHaveLength(2);
    expect(claim()).toMatchObject({ state: 'sent', firstSentAt: start, lostAt: start });
    expect(f.posts.peek('post_1')?.channels[0]?.retryAt).toBeUndefined();
  });

  it('not found within the window is looked up again at the window end, never resent before', async () => {
    const { f, network, job, claim } = setup({ windowSeconds: 30 });
    network.answer({ kind: 'lost', stored: true }).answerLookups({ kind: 'hidden' }, { kind: 'hidden' });
    await f.engine.handle(job);
    expect(claim()).toMatchObject({ state: 'checking', checks: 1, nextCheckAt: later(2) });
    f.clock.advance(2);
    await f.engine.handle(job);
    expect(claim()).toMatchObject({ checks: 2, nextCheckAt: later(6) });
    f.clock.advance(1);
    await f.engine.handle(job);
    expect(f.queue.delays()).toEqual([2, 4, 4]);
    f.clock.advance(28);
    await f.engine.handle(job);
    expect(network.publishCalls).toHaveLength(1);
    expect(network.lookupCalls).toHaveLength(3);
    expect(claim()?.state).toBe('sent');
  });

  it('not found within the window is looked up again no later than the window’s end', async () => {
    const { f, network, job } = setup({ windowSeconds: 10 });
    network.answer({ kind: 'lost', stored: false }).answerLookups({ kind: 'hidden' }, { kind: 'hidden' });
    await f.engine.handle(job);
    f.clock.advance(2);
    await f.engine.handle(job);
    f.clock.advance(4);
    await f.engine.handle(job);
    // Doubling would wait 8 s; the window ends in 4.
    expect(f.queue.delays()).toEqual([2, 4, 4]);
  });

  it('not found at once, on a network with no window, is not resent before the in-flight grace', async () => {
    const { f, network, job, claim } = setup({ windowSeconds: 0, graceSeconds: 6 });
    network.answer({ kind: 'lost', stored: false });
    await f.engine.handle(job);
    expect(network.lookupCalls).toHaveLength(1);
    expect(claim()).toMatchObject({ state: 'checking', checks: 1, nextCheckAt: later(2) });
    f.clock.advance(2);
    await f.engine.handle(job);
    // Doubling would wait 4 s, as the grace's end does: the lookup that decides.
    expect(claim()).toMatchObject({ state: 'checking', checks: 2, nextCheckAt: later(6) });
    expect(network.publishCalls).toHaveLength(1);
    // The request that timed out on our side lands now, after two lookups found nothing.
    network.stored.set('post_1.ch_x.0', {
      remote: { remoteId: 'x-late', remoteUrl: 'https://x.example/x-late', meta: {} },
      input: network.publishCalls[0]!,
    });
    f.clock.advance(4);
    await f.engine.handle(job);
    expect(network.lookupCalls).toHaveLength(3);
    expect(network.publishCalls).toHaveLength(1);
    expect(claim()?.state).toBe('sent');
    expect(f.posts.peek('post_1')?.channels[0]?.blocks[0]?.remoteId).toBe('x-late');
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('not found once the in-flight grace has passed counts an attempt, and the block is sent again', async () => {
    const { f, network, job, claim } = setup({ windowSeconds: 0, graceSeconds: 6 });
    network.answer({ kind: 'lost', stored: false });
    await f.engine.handle(job);
    f.clock.advance(2);
    await f.engine.handle(job);
    f.clock.advance(4);
    await f.engine.handle(job);
    expect(network.lookupCalls).toHaveLength(3);
    expect(claim()?.state).toBe('not_sent');
    expect(f.posts.peek('post_1')?.channels[0]).toMatchObject({ attempts: 1 });
    expect(f.queue.delays()).toEqual([2, 4, 2]);
    f.clock.advance(2);
    await f.engine.handle(job);
    expect(network.publishCalls).toHaveLength(2);
    expect(claim()?.state).toBe('sent');
  });

  it('on a network without lookups fails the channel as unknown, and is never sent again', async () => {
    const { f, network, job, claim } = setup({ lookup: false });
    network.answer({ kind: 'lost', stored: false });
    await f.engine.handle(job);
    expect(claim()?.state).toBe('unknown');
    expect(f.posts.peek('post_1')?.channels[0]?.error).toContain('offers no way to check');
    await f.engine.handle(job);
    expect(network.publishCalls).toHaveLength(1);
  });

  it('whose resend the network calls a duplicate is found, not sent a third time', async () => {
    const { f, network, job, claim } = setup({ windowSeconds: 0 });
    network
      .answer(
        { kind: 'lost', stored: false },
        { kind: 'error', error: new NetworkError('permanent', 'dup', { duplicate: true }) },
      )
      .answerLookups({ kind: 'hidden' }, { kind: 'hidden' });
    await f.engine.handle(job);
    f.clock.advance(2);
    await f.engine.handle(job);
    expect(claim()).toMatchObject({ state: 'checking', duplicate: true });
    expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('publishing');
    network.stored.set('post_1.ch_x.0', {
      remote: { remoteId: 'x-5', remoteUrl: 'https://x.example/x-5', meta: {} },
      input: network.publishCalls[0]!,
    });
    f.clock.advance(600);
    await f.engine.handle(job);
    expect(network.publishCalls).toHaveLength(2);
    expect(claim()?.state).toBe('sent');
    expect(f.posts.peek('post_1')?.channels[0]?.blocks[0]?.remoteId).toBe('x-5');
  });

  it('that the network calls a duplicate on a first send is a refusal', async () => {
    const { f, network, job } = setup();
    network.answer({
      kind: 'error',
      error: new NetworkError('permanent', 'Duplicate content', { duplicate: true }),
    });
    await f.engine.handle(job);
    expect(network.lookupCalls).toEqual([]);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toBe('Duplicate content');
  });

  it('after an unexpected error is looked up too', async () => {
    const { f, network, job } = setup();
    network.publish = async (input) => {
      network.publishCalls.push(input);
      throw new TypeError('client bug');
    };
    await f.engine.handle(job);
    expect(network.lookupCalls).toHaveLength(1);
    expect(f.posts.peek('post_1')?.channels[0]?.attempts).toBe(1);
  });

  it('is given up as unknown after its checks once the window has passed', async () => {
    const { f, network, job, claim } = setup({
      stored: {
        state: 'checking',
        owner: 'o',
        leaseUntil: later(-100),
        since: later(-100),
        duplicate: true,
        checks: 10,
        nextCheckAt: later(-1),
      },
    });
    network.answerLookups({ kind: 'hidden' });
    await f.engine.handle(job);
    expect(claim()?.state).toBe('unknown');
    expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('failed');
  });
});

describe('a lookup that fails', () => {
  const lostThenLookup = (error: NetworkError) => {
    const s = setup({ windowSeconds: 0 });
    s.network.answer({ kind: 'lost', stored: true }).answerLookups({ kind: 'error', error });
    return s;
  };

  it('on a rate limit waits as asked and does not count', async () => {
    const { f, job, claim } = lostThenLookup(
      new NetworkError('transient', 'slow down', { status: 429, retryAfterSeconds: 40 }),
    );
    await f.engine.handle(job);
    expect(claim()).toMatchObject({ state: 'checking', checks: 0, nextCheckAt: later(40) });
    const r = lostThenLookup(new NetworkError('transient', 'slow down', { rateLimited: true }));
    await r.f.engine.handle(r.job);
    expect(r.claim()?.checks).toBe(0);
  });

  it('on an outage counts a check', async () => {
    const { f, job, claim } = lostThenLookup(new NetworkError('transient', 'down', { status: 503 }));
    await f.engine.handle(job);
    expect(claim()).toMatchObject({ state: 'checking', checks: 1 });
    expect(f.queue.delays()).toEqual([2]);
  });

  it('for a revoked token keeps the block to check and the channel to reconnect', async () => {
    const { f, job, claim } = lostThenLookup(new NetworkError('reconnect', 'revoked'));
    await f.engine.handle(job);
    expect(claim()).toMatchObject({ state: 'checking', nextCheckAt: start });
    expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('failed');
    expect(f.posts.outbox.map((e) => e.type)).toEqual(['channel.needs_reconnect', 'post.failed']);
  });

  it('for good ends the block as unknown, with the reason', async () => {
    const { f, job, claim } = lostThenLookup(new NetworkError('permanent', 'lookup forbidden'));
    await f.engine.handle(job);
    expect(claim()?.state).toBe('unknown');
    expect(f.posts.peek('post_1')?.channels[0]?.error).toContain('could not be checked (lookup forbidden)');
  });
});

describe('a resumable upload', () => {
  it('saves its place with the claim and extends the lease', async () => {
    const { f, network, job, claim } = setup();
    network.answer({
      kind: 'upload',
      state: { session: 's1', offset: 5 },
      after: { kind: 'error', error: new NetworkError('transient', 'later', { continueLater: true }) },
    });
    f.clock.advance(10);
    await f.engine.handle(job);
    expect(claim()).toMatchObject({
      state: 'not_sent',
      progress: { session: 's1', offset: 5 },
      leaseUntil: later(70),
    });
    expect(f.queue.delays()).toEqual([1]);
    expect(f.posts.peek('post_1')?.channels[0]?.attempts).toBeUndefined();
    await f.engine.handle(job);
    expect(network.publishCalls[1]?.progress?.saved).toEqual({ session: 's1', offset: 5 });
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('stops at once when another worker took the block over', async () => {
    const { f, network, job, claim, steal } = setup();
    network.answer({ kind: 'upload', state: { offset: 1 }, after: { kind: 'ok' } });
    const save = f.claims.saveProgress.bind(f.claims);
    f.claims.saveProgress = async (held, progress, lease) => {
      steal();
      return save(held, progress, lease);
    };
    await f.engine.handle(job);
    expect(network.stored.size).toBe(0);
    expect(f.queue.delays()).toEqual([1]);
    expect(claim()?.owner).toBe('thief');
  });
});

describe('the write that records a sent block', () => {
  it('writes nothing when another worker took the claim over, and the message comes back', async () => {
    const { f, network, job, steal } = setup();
    network.answer({ kind: 'held', release: Promise.resolve() });
    f.posts.beforeWrite = steal;
    await expect(f.engine.handle(job)).rejects.toBeInstanceOf(ClaimTakenError);
    expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('publishing');
  });

  it('settles the claim even when the post is gone', async () => {
    const { f, job, claim } = setup({ blocks: ['a', 'b'] });
    f.posts.beforeWrite = () => f.posts.remove('post_1');
    await f.engine.handle(job);
    expect(claim()).toMatchObject({ state: 'sent', remote: { remoteId: 'x-1' } });
  });

  it('settles the claim alone when the table fails, so a retry finds it sent', async () => {
    const { f, job, claim } = setup({ blocks: ['a', 'b'] });
    f.posts.failWrites.push(new Error('table unavailable'));
    await expect(f.engine.handle(job)).rejects.toThrow('table unavailable');
    expect(claim()?.state).toBe('sent');
    await f.engine.handle(job);
    expect(f.network('x').publishCalls).toHaveLength(2);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });
});
