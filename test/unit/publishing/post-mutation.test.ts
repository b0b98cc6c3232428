import { describe, expect, it, vi } from 'vitest';
import {
  applyBlock,
  finalStatus,
  type HeldPost,
  mutatePost,
  PostGoneError,
  PostLocks,
  progressed,
  startRound,
} from '../../../functions/core/publishing/post-mutation.ts';
import { ApiError } from '../../../functions/domain/errors.ts';
import { engineOnFakes, postChannel, publishingPost } from '../../support/fakes/engine.ts';

const remote = { remoteId: 'x-9', remoteUrl: 'https://x.example/x-9', meta: { cid: 'c' } };

describe('mutatePost', () => {
  it('writes the change one version later, at the time it carries', async () => {
    const f = engineOnFakes();
    f.posts.put(publishingPost([postChannel('ch_1', 'x', ['hi'])]));
    const { post } = await mutatePost(f.deps, 'post_1', (current) => ({
      next: { ...current, tagIds: ['t'] },
    }));
    expect(post.version).toBe(2);
    expect(post.updatedAt).toBe(f.clock.now().toISOString());
    expect(f.posts.peek('post_1')).toMatchObject({ version: 2, tagIds: ['t'] });
  });

  it('applies the change again to what another writer wrote in between', async () => {
    const f = engineOnFakes();
    f.posts.put(publishingPost([postChannel('ch_1', 'x', ['hi'])]));
    let interfered = false;
    f.posts.beforeWrite = () => {
      if (interfered) return;
      interfered = true;
      f.posts.change('post_1', (p) => ({ ...p, tagIds: ['other'] }));
    };
    const { post } = await mutatePost(f.deps, 'post_1', (current) => ({
      next: { ...current, tagIds: [...current.tagIds, 'mine'] },
    }));
    expect(post.tagIds).toEqual(['other', 'mine']);
    expect(f.posts.peek('post_1')?.version).toBe(3);
  });

  it('starts from a held copy, and a stale one costs one refused write', async () => {
    const f = engineOnFakes();
    const stored = publishingPost([postChannel('ch_1', 'x', ['hi'])]);
    f.posts.put(stored);
    const held: HeldPost = { post: stored };
    await mutatePost(f.deps, 'post_1', (c) => ({ next: { ...c, tagIds: ['a'] } }), held);
    expect(held.post.version).toBe(2);
    f.posts.change('post_1', (p) => ({ ...p, tagIds: ['b'] }));
    const { post } = await mutatePost(
      f.deps,
      'post_1',
      (c) => ({ next: { ...c, tagIds: [...c.tagIds, 'c'] } }),
      held,
    );
    expect(post.tagIds).toEqual(['b', 'c']);
    expect(held.post).toEqual(post);
  });

  it('decides to write nothing only on a post read just now', async () => {
    const f = engineOnFakes();
    const stored = publishingPost([postChannel('ch_1', 'x', ['hi'])]);
    f.posts.put(stored);
    const held: HeldPost = { post: stored };
    f.posts.change('post_1', (p) => ({ ...p, status: 'failed' }));
    const seen: string[] = [];
    const { post, extras } = await mutatePost(
      f.deps,
      'post_1',
      (c) => {
        seen.push(c.status);
        return null;
      },
      held,
    );
    expect(seen).toEqual(['publishing', 'failed']);
    expect(post.status).toBe('failed');
    expect(extras).toBeUndefined();
    expect(f.posts.writes).toHaveLength(0);
  });

  it('fails with PostGoneError when the post is gone', async () => {
    const f = engineOnFakes();
    await expect(mutatePost(f.deps, 'post_1', (c) => ({ next: c }))).rejects.toBeInstanceOf(PostGoneError);
  });

  it('lets a table failure through', async () => {
    const f = engineOnFakes();
    f.posts.put(publishingPost([postChannel('ch_1', 'x', ['hi'])]));
    f.posts.failWrites.push(new Error('table unavailable'));
    await expect(mutatePost(f.deps, 'post_1', (c) => ({ next: c }))).rejects.toThrow('table unavailable');
    f.posts.failWrites.push(new ApiError('not_found'));
    await expect(mutatePost(f.deps, 'post_1', (c) => ({ next: c }))).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(f.posts.writes).toHaveLength(0);
  });

  it('gives up after 20 refused writes', async () => {
    // No pause between the tries (a random one of up to 10 ms per try spreads writers out).
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const f = engineOnFakes();
    f.posts.put(publishingPost([postChannel('ch_1', 'x', ['hi'])]));
    let writes = 0;
    f.posts.beforeWrite = () => {
      writes++;
      f.posts.change('post_1', (p) => p);
    };
    await expect(
      mutatePost(f.deps, 'post_1', (c) => ({ next: c }), { post: publishingPost([]) }),
    ).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(writes).toBe(20);
    vi.restoreAllMocks();
  });
});

describe('PostLocks', () => {
  it("run one post's writes one after the other, other posts' alongside", async () => {
    const locks = new PostLocks();
    const order: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = locks.run('a', async () => {
      order.push('a1 start');
      await gate;
      order.push('a1 end');
    });
    const second = locks.run('a', async () => {
      order.push('a2');
    });
    const other = locks.run('b', async () => {
      order.push('b');
    });
    await other;
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });

  it('keep going after a write that failed', async () => {
    const locks = new PostLocks();
    const failed = locks.run('a', async () => {
      throw new Error('boom');
    });
    await expect(failed).rejects.toThrow('boom');
    await expect(locks.run('a', async () => 'next')).resolves.toBe('next');
  });
});

describe('rounds and final statuses', () => {
  it('start a round: every channel not yet published publishes again, with no attempt spent', () => {
    const published = { ...postChannel('ch_1', 'x', ['a']), status: 'published' as const };
    const failed = {
      ...postChannel('ch_2', 'x', ['b']),
      status: 'failed' as const,
      error: 'no',
      attempts: 3,
      retryAt: 'x',
      rateLimitStepAt: 'y',
      rateLimitedUntil: 'z',
    };
    const next = startRound(publishingPost([published, failed], { status: 'failed', round: 2 }), new Date(0));
    expect(next.status).toBe('publishing');
    expect(next.round).toBe(3);
    expect(next.roundStartedAt).toBe(new Date(0).toISOString());
    expect(next.channels[0]).toBe(published);
    expect(next.channels[1]).toMatchObject({
      status: 'publishing',
      error: null,
      attempts: 0,
      rateLimitStepAt: null,
    });
    expect(next.channels[1]?.retryAt).toBeUndefined();
    expect(next.channels[1]?.rateLimitedUntil).toBe('z');
    expect(startRound(publishingPost([], { round: undefined }), new Date(0)).round).toBe(1);
  });

  it('are published, partially published (a channel or a block live) or failed', () => {
    const ch = (status: 'published' | 'failed', live = false) => ({
      ...postChannel('c', 'x', ['a', 'b']),
      status,
      blocks: postChannel('c', 'x', ['a', 'b']).blocks.map((b, i) =>
        live && i === 0 ? { ...b, remoteId: 'r' } : b,
      ),
    });
    expect(finalStatus([ch('published'), ch('published')])).toBe('published');
    expect(finalStatus([ch('published'), ch('failed')])).toBe('partially_published');
    expect(finalStatus([ch('failed', true)])).toBe('partially_published');
    expect(finalStatus([ch('failed'), ch('failed')])).toBe('failed');
  });

  it('drop the wait notes of a channel that made progress, and nothing else', () => {
    const plain = postChannel('c', 'x', ['a']);
    expect(progressed(plain)).toBe(plain);
    const waiting = { ...plain, rateLimitProbes: 2, rateLimitResetBy: 'r', retryAt: 'a', retryReason: 'why' };
    expect(progressed(waiting)).toEqual(plain);
    expect(progressed({ ...plain, retryAt: 'a' })).toEqual(plain);
  });
});

describe('applyBlock', () => {
  it('records the block, the channel URL of a first block, and counts a live post once', () => {
    const post = publishingPost([postChannel('ch_1', 'x', ['a', 'b']), postChannel('ch_2', 'x', ['c'])]);
    const now = new Date('2026-06-15T00:00:00.000Z');
    const first = applyBlock(post, 'ch_1', 0, remote, now);
    expect(first?.next.channels[0]?.blocks[0]).toMatchObject({ remoteId: 'x-9', remoteMeta: { cid: 'c' } });
    expect(first?.next.channels[0]?.remoteUrl).toBe(remote.remoteUrl);
    expect(first?.next.channels[1]).toEqual(post.channels[1]);
    expect(first?.next.countedPublished).toBe(true);
    expect(first?.extras).toEqual({ countPublished: { accountId: 'acc_1', period: '2026-06' } });
    const second = applyBlock(first?.next ?? post, 'ch_1', 1, { ...remote, remoteId: 'x-10' }, now);
    expect(second?.next.channels[0]?.remoteUrl).toBe(remote.remoteUrl);
    expect(second?.extras).toBeUndefined();
  });

  it('counts nothing for a sandbox post, and writes nothing when the block is recorded already', () => {
    const post = publishingPost([postChannel('ch_1', 'x', ['a'])], { mode: 'test' });
    const applied = applyBlock(post, 'ch_1', 0, remote, new Date());
    expect(applied?.extras).toBeUndefined();
    expect(applied?.next.countedPublished).toBe(false);
    expect(applyBlock(applied?.next ?? post, 'ch_1', 0, remote, new Date())).toBeNull();
    expect(applyBlock(post, 'ch_9', 0, remote, new Date())).toBeNull();
    expect(applyBlock(post, 'ch_1', 4, remote, new Date())).toBeNull();
  });
});
