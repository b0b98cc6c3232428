import { describe, expect, it, vi } from 'vitest';
import type { PostRecord } from '../../../functions/domain/post.ts';
import type { MediaRecord } from '../../../functions/ports/media.ts';
import { NetworkError } from '../../../functions/ports/network-client.ts';
import type { PublishJob } from '../../../functions/ports/publishing.ts';
import {
  engineOnFakes,
  type Fakes,
  postChannel,
  publishingPost,
  seed,
  WORKSPACE,
} from '../../support/fakes/engine.ts';

const refused = (message = 'refused') => new NetworkError('permanent', message);

/** A ready file of the workspace's media library (a PNG with its alt text, unless `fields` say otherwise). */
const readyMedia = (mediaId: string, fields: Partial<MediaRecord> = {}): MediaRecord => ({
  mediaId,
  workspaceId: WORKSPACE,
  accountId: 'acc_1',
  mimeType: 'image/png',
  size: 10,
  status: 'ready',
  fileName: `${mediaId}.png`,
  altText: 'stored alt',
  objectKey: `media/${mediaId}`,
  createdAt: '2026-05-01T00:00:00.000Z',
  ...fields,
});

describe('a publish job', () => {
  it('publishes every channel, records each block and claim, and ends the post published', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['hello']), postChannel('ch_b', 'bluesky', ['hi'])]),
    );
    await f.engine.handle(job);
    const post = f.posts.peek('post_1');
    expect(post?.status).toBe('published');
    expect(post?.publishedAt).toBe(f.clock.now().toISOString());
    expect(post?.channels.map((c) => [c.status, c.blocks[0]?.remoteId, c.remoteUrl])).toEqual([
      ['published', 'x-1', 'https://x.example/x-1'],
      ['published', 'bluesky-1', 'https://bluesky.example/bluesky-1'],
    ]);
    expect(f.claims.get('post_1', 'ch_x', 0)).toMatchObject({ state: 'sent', remote: { remoteId: 'x-1' } });
    expect(f.queue.jobs).toEqual([]);
    expect(f.live).toEqual([
      { postId: 'post_1', channelId: 'ch_x' },
      { postId: 'post_1', channelId: 'ch_b' },
    ]);
    expect(f.posts.published.get(`acc_1#2026-06`)).toBe(1);
    expect(f.channels.jobReads).toBe(0);
  });

  it('sends the blocks of a thread in order, each replying to the one before on reply networks', async () => {
    const f = engineOnFakes();
    const channel = {
      ...postChannel('ch_x', 'x', ['one', 'two', 'three']),
      title: 'T',
      options: { reply: 'everyone' },
    };
    await f.engine.handle(seed(f, publishingPost([channel])));
    const calls = f.network('x').publishCalls;
    expect(calls.map((c) => c.content)).toEqual(['one', 'two', 'three']);
    expect(calls.map((c) => c.idempotencyKey)).toEqual(['post_1.ch_x.0', 'post_1.ch_x.1', 'post_1.ch_x.2']);
    expect(calls.map((c) => [c.parent?.block.remoteId ?? null, c.parent?.root.remoteId ?? null])).toEqual([
      [null, null],
      ['x-1', 'x-1'],
      ['x-2', 'x-1'],
    ]);
    expect(calls.map((c) => [c.title, c.options])).toEqual([
      ['T', { reply: 'everyone' }],
      [null, {}],
      [null, {}],
    ]);
    expect(calls.every((c) => c.round === 1 && c.credentials.accessToken === 'token-0')).toBe(true);
    expect(f.posts.peek('post_1')?.channels[0]?.blocks.map((b) => b.remoteId)).toEqual(['x-1', 'x-2', 'x-3']);
  });

  it('attaches every later block to the first on comment networks', async () => {
    const f = engineOnFakes();
    await f.engine.handle(seed(f, publishingPost([postChannel('ch_l', 'linkedin', ['post', 'c1', 'c2'])])));
    const calls = f.network('linkedin').publishCalls;
    expect(calls.map((c) => c.parent?.block.remoteId ?? null)).toEqual([null, 'linkedin-1', 'linkedin-1']);
  });

  it('continues a thread after its last recorded block', async () => {
    const f = engineOnFakes();
    const channel = postChannel('ch_x', 'x', ['one', 'two']);
    channel.blocks[0] = {
      ...channel.blocks[0],
      remoteId: 'x-old',
      remoteUrl: 'https://x.example/x-old',
    } as never;
    await f.engine.handle(seed(f, publishingPost([channel])));
    expect(f.network('x').publishCalls.map((c) => [c.content, c.parent?.block.remoteId])).toEqual([
      ['two', 'x-old'],
    ]);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('ignores a job of an earlier round, a post no longer publishing, and a post that is gone', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])], { round: 2 }));
    await f.engine.handle({ ...job, round: 1 });
    await f.engine.handle({ postId: 'post_404', kind: 'run' });
    f.posts.change('post_1', (p) => ({ ...p, status: 'failed' }));
    await f.engine.handle({ ...job, round: 2 });
    expect(f.network('x').publishCalls).toEqual([]);
    expect(f.posts.writes).toEqual([]);
  });

  it('reads the channels itself when the message does not name them all', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_y', 'x', ['b'])]));
    await f.engine.handle({ ...job, reads: { workspaceId: WORKSPACE, channelIds: ['ch_x'] } });
    expect(f.channels.jobReads).toBe(1);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('runs a job without reads by reading the channels after the post', async () => {
    const f = engineOnFakes();
    seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    await f.engine.handle({ postId: 'post_1', kind: 'run' });
    expect(f.channels.jobReads).toBe(1);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('comes back when the channel read fails', async () => {
    const f = engineOnFakes();
    seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.channels.failJobReads = new Error('table unavailable');
    await expect(f.engine.handle({ postId: 'post_1', kind: 'run' })).rejects.toThrow('table unavailable');
  });
});

describe('final statuses', () => {
  it('are partially_published when a channel fails and another publishes', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_l', 'linkedin', ['b'])]),
    );
    f.network('linkedin').answer({ kind: 'error', error: refused('Too long') });
    await f.engine.handle(job);
    const post = f.posts.peek('post_1');
    expect(post?.status).toBe('partially_published');
    expect(post?.publishedAt).toBeNull();
    expect(post?.channels[1]).toMatchObject({ status: 'failed', error: 'Too long', publishedAt: null });
    expect(f.posts.outbox.map((e) => e.type).sort()).toEqual(['post.failed', 'post.published']);
    expect(f.claims.get('post_1', 'ch_l', 0)?.state).toBe('not_sent');
  });

  it('are failed when every channel fails', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.network('x').answer({ kind: 'error', error: refused() });
    await f.engine.handle(job);
    expect(f.posts.peek('post_1')?.status).toBe('failed');
    expect(f.live).toEqual([]);
  });

  it('are partially_published when a thread stops after its first block, with its block named', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a', 'b'])]));
    f.network('x').answer({ kind: 'ok' }, { kind: 'error', error: refused('Duplicate') });
    await f.engine.handle(job);
    const post = f.posts.peek('post_1');
    expect(post?.status).toBe('partially_published');
    expect(post?.channels[0]?.error).toBe('block 2: Duplicate');
    expect(f.posts.outbox[0]).toMatchObject({
      type: 'post.partially_failed',
      data: { blocksPublished: 1, blocksTotal: 2, error: 'block 2: Duplicate' },
    });
  });
});

describe('a channel that cannot publish', () => {
  it('fails when its record is gone or must be reconnected', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_y', 'x', ['b'])]));
    f.channels.addChannel({
      ...(await f.channels.getChannel(WORKSPACE, 'ch_y'))!,
      connection: 'needs_reconnect',
    });
    await f.engine.handle({ ...job, reads: { workspaceId: WORKSPACE, channelIds: ['ch_y'] } });
    const post = f.posts.peek('post_1');
    expect(post?.channels.map((c) => c.error)).toEqual([
      null,
      'The channel must be reconnected before it can post.',
    ]);
    const g = engineOnFakes();
    g.posts.put(publishingPost([postChannel('ch_x', 'x', ['a'])]));
    await g.engine.handle({ postId: 'post_1', kind: 'run' });
    expect(g.posts.peek('post_1')?.channels[0]?.error).toBe(
      'The channel is no longer connected to this workspace.',
    );
    expect(g.network('x').publishCalls).toEqual([]);
  });

  it('fails on a network the catalogue does not know', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([{ ...postChannel('ch_x', 'x', ['a']), platform: 'myspace' as never }]),
    );
    await f.engine.handle(job);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toBe('Unknown network myspace.');
  });

  it('sends its files with their URLs and alt text, and fails when one was deleted', async () => {
    const f = engineOnFakes();
    f.media.put(readyMedia('med_1'));
    f.media.put(readyMedia('med_2'));
    const channel = postChannel('ch_x', 'x', ['a', 'b']);
    channel.blocks[0] = {
      ...channel.blocks[0],
      mediaIds: ['med_1', 'med_2'],
      mediaAltText: { med_2: 'given' },
    } as never;
    channel.blocks[1] = { ...channel.blocks[1], mediaIds: ['med_3'] } as never;
    await f.engine.handle(seed(f, publishingPost([channel])));
    expect(f.network('x').publishCalls[0]?.media).toEqual([
      {
        mediaId: 'med_1',
        mimeType: 'image/png',
        size: 10,
        altText: 'stored alt',
        url: 'https://files.example/media/med_1',
      },
      {
        mediaId: 'med_2',
        mimeType: 'image/png',
        size: 10,
        altText: 'given',
        url: 'https://files.example/media/med_2',
      },
    ]);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toBe(
      'The media file med_3 was deleted before publication.',
    );
    expect(f.posts.peek('post_1')?.status).toBe('partially_published');
  });

  it('gives the first block the files its options name (a cover image)', async () => {
    const f = engineOnFakes();
    f.media.put(readyMedia('med_c', { mimeType: 'image/jpeg', size: 5, fileName: 'c.jpg', altText: null }));
    const channel = {
      ...postChannel('ch_p', 'pinterest', ['pin']),
      options: { coverImage: 'med_c', link: 'https://a.example' },
    };
    await f.engine.handle(seed(f, publishingPost([channel])));
    expect(f.network('pinterest').publishCalls[0]?.optionMedia).toEqual({
      coverImage: {
        mediaId: 'med_c',
        mimeType: 'image/jpeg',
        size: 5,
        altText: null,
        url: 'https://files.example/media/med_c',
      },
    });
    const g = engineOnFakes();
    await g.engine.handle(seed(g, publishingPost([{ ...channel, options: { coverImage: 'med_gone' } }])));
    expect(g.posts.peek('post_1')?.channels[0]?.error).toBe(
      'The media file med_gone was deleted before publication.',
    );
    const h = engineOnFakes();
    await h.engine.handle(seed(h, publishingPost([postChannel('ch_p', 'pinterest', ['pin'])])));
    expect(h.network('pinterest').publishCalls[0]).not.toHaveProperty('optionMedia');
  });
});

describe('credentials', () => {
  it('are the sandbox for a test key: no token read, nothing counted, no event kept', async () => {
    const f = engineOnFakes();
    f.tokens.credentialsError = new Error('must not be read');
    await f.engine.handle(seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])], { mode: 'test' })));
    expect(f.network('x').publishCalls[0]?.credentials).toEqual({
      accessToken: 'sandbox',
      remoteAccountId: 'x-account',
    });
    expect(f.posts.peek('post_1')?.status).toBe('published');
    expect(f.posts.published.size).toBe(0);
    expect(f.posts.outbox).toEqual([]);
    expect(f.queue.events).toEqual([]);
  });

  it('that the network refuses mark the channel for reconnection, once, with its event', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.tokens.credentialsError = new NetworkError('reconnect', 'revoked');
    await f.engine.handle(job);
    expect((await f.channels.getChannel(WORKSPACE, 'ch_x'))?.connection).toBe('needs_reconnect');
    expect(f.posts.outbox.map((e) => e.type)).toEqual(['channel.needs_reconnect', 'post.failed']);
    expect(f.posts.outbox[0]?.data).toMatchObject({ channelName: 'x channel ch_x', postId: 'post_1' });
    expect(f.posts.peek('post_1')?.channels[0]?.error).toMatch(/expired or was revoked/);
  });

  it('that cannot be read now are retried; that cannot be decrypted fail the channel', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.tokens.credentialsError = new NetworkError('transient', 'token endpoint down', {
      retryAfterSeconds: 7,
    });
    await f.engine.handle(job);
    expect(f.queue.delays()).toEqual([7]);
    f.tokens.credentialsError = new NetworkError('permanent', 'app suspended');
    await f.engine.handle(job);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toBe('app suspended');
    const g = engineOnFakes();
    const other = seed(g, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    g.tokens.credentialsError = new Error('bad ciphertext');
    await g.engine.handle(other);
    expect(g.posts.peek('post_1')?.channels[0]?.error).toBe(
      'The channel must be reconnected before it can post.',
    );
  });

  it('are refreshed once when the network says the token expired, and the call made again', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a', 'b'])]));
    f.network('x').answer({
      kind: 'error',
      error: new NetworkError('reconnect', 'expired', { tokenExpired: true }),
    });
    await f.engine.handle(job);
    expect(f.network('x').publishCalls.map((c) => c.credentials.accessToken)).toEqual([
      'token-0',
      'token-1',
      'token-1',
    ]);
    expect(f.tokens.calls).toEqual([
      { call: 'credentials', channelId: 'ch_x', postId: 'post_1' },
      { call: 'afterExpired', channelId: 'ch_x', postId: 'post_1' },
    ]);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('of a test key are never refreshed: the sandbox’s expired token ends the channel', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])], { mode: 'test' }));
    f.network('x').answer({
      kind: 'error',
      error: new NetworkError('reconnect', 'expired', { tokenExpired: true }),
    });
    await f.engine.handle(job);
    expect(f.tokens.calls).toEqual([]);
    expect(f.network('x').publishCalls).toHaveLength(1);
    expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('failed');
  });

  it('whose refresh is refused end the channel as needing reconnection', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.tokens.refuseRefresh = true;
    f.network('x').answer({
      kind: 'error',
      error: new NetworkError('reconnect', 'expired', { tokenExpired: true }),
    });
    await f.engine.handle(job);
    expect(f.network('x').publishCalls).toHaveLength(1);
    expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('failed');
    expect((await f.channels.getChannel(WORKSPACE, 'ch_x'))?.connection).toBe('needs_reconnect');
  });

  it('name the missing permission when the network says one is missing', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.network('x').answer({
      kind: 'error',
      error: new NetworkError('reconnect', 'The token lacks tweet.write', { missingPermission: true }),
    });
    await f.engine.handle(job);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toBe(
      'The channel must be reconnected, then the post published again: The token lacks tweet.write',
    );
    expect(f.posts.outbox[0]?.data.error).toBe('The token lacks tweet.write');
  });
});

describe('a scheduled job', () => {
  const scheduled = (at: string) =>
    publishingPost([{ ...postChannel('ch_x', 'x', ['a']), status: 'scheduled' }], {
      status: 'scheduled',
      scheduledAt: at,
      round: undefined,
    });

  it('that fires early goes back on the queue, aimed a second ahead', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T12:01:00.000Z'));
    await f.engine.handle({ postId: 'post_1', kind: 'scheduled', scheduledAt: '2026-06-01T12:01:00.000Z' });
    expect(f.queue.delays()).toEqual([59]);
    expect(f.posts.peek('post_1')?.status).toBe('scheduled');
  });

  it('that is due starts the first round and publishes', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T11:59:00.000Z'));
    await f.engine.handle({ postId: 'post_1', kind: 'scheduled', scheduledAt: '2026-06-01T11:59:00.000Z' });
    const post = f.posts.peek('post_1');
    expect(post).toMatchObject({ status: 'published', round: 1, roundStartedAt: '2026-06-01T12:00:00.000Z' });
  });

  it('for another time, or for a post no longer scheduled, does nothing', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T11:59:00.000Z'));
    await f.engine.handle({ postId: 'post_1', kind: 'scheduled', scheduledAt: '2026-06-01T11:00:00.000Z' });
    f.posts.change('post_1', (p) => ({ ...p, status: 'draft' }));
    await f.engine.handle({ postId: 'post_1', kind: 'scheduled', scheduledAt: '2026-06-01T11:59:00.000Z' });
    expect(f.posts.peek('post_1')?.status).toBe('draft');
    expect(f.network('x').publishCalls).toEqual([]);
  });

  it('whose post changed or went away as it started does nothing', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T11:59:00.000Z'));
    f.posts.beforeWrite = () =>
      f.posts.change('post_1', (p) => ({ ...p, scheduledAt: '2026-06-02T00:00:00.000Z' }));
    await f.engine.handle({ postId: 'post_1', kind: 'scheduled', scheduledAt: '2026-06-01T11:59:00.000Z' });
    expect(f.network('x').publishCalls).toEqual([]);
    const g = engineOnFakes();
    seed(g, scheduled('2026-06-01T11:59:00.000Z'));
    g.posts.beforeWrite = () => g.posts.remove('post_1');
    await g.engine.handle({ postId: 'post_1', kind: 'scheduled', scheduledAt: '2026-06-01T11:59:00.000Z' });
    expect(g.network('x').publishCalls).toEqual([]);
  });
});

describe('a scheduled job, further', () => {
  const scheduled = (at: string, fields: Partial<PostRecord> = {}) =>
    publishingPost([{ ...postChannel('ch_x', 'x', ['a']), status: 'scheduled' }], {
      status: 'scheduled',
      scheduledAt: at,
      round: undefined,
      ...fields,
    });
  const firing = (scheduledAt: string) => ({ postId: 'post_1', kind: 'scheduled' as const, scheduledAt });

  it('that is stale, or for a post no longer scheduled, is not put back on the queue', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T12:05:00.000Z'));
    await f.engine.handle(firing('2026-06-01T12:30:00.000Z'));
    const g = engineOnFakes();
    seed(g, scheduled('2026-06-01T12:05:00.000Z', { status: 'draft' }));
    await g.engine.handle(firing('2026-06-01T12:05:00.000Z'));
    expect([...f.queue.jobs, ...g.queue.jobs]).toEqual([]);
    expect([...f.posts.writes, ...g.posts.writes]).toEqual([]);
  });

  it('whose post was moved as it started leaves it scheduled for the new time', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T11:59:00.000Z'));
    f.posts.beforeWrite = () =>
      f.posts.change('post_1', (p) => ({ ...p, scheduledAt: '2026-06-02T00:00:00.000Z' }));
    await f.engine.handle(firing('2026-06-01T11:59:00.000Z'));
    expect(f.posts.peek('post_1')).toMatchObject({
      status: 'scheduled',
      scheduledAt: '2026-06-02T00:00:00.000Z',
    });
    expect(f.posts.writes).toEqual([]);
  });

  it('whose post another firing started for another time leaves that round to its own job', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T11:59:00.000Z'));
    f.posts.beforeWrite = () =>
      f.posts.change('post_1', (p) => ({
        ...p,
        status: 'publishing',
        scheduledAt: '2026-06-01T11:58:00.000Z',
        round: 1,
        channels: p.channels.map((c) => ({ ...c, status: 'publishing' })),
      }));
    await f.engine.handle(firing('2026-06-01T11:59:00.000Z'));
    expect(f.network('x').publishCalls).toEqual([]);
  });

  it('whose round another firing of the same time started joins that round', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T11:59:00.000Z'));
    let once = false;
    f.posts.beforeWrite = () => {
      if (once) return;
      once = true;
      f.posts.change('post_1', (p) => ({
        ...p,
        status: 'publishing',
        round: 1,
        channels: p.channels.map((c) => ({ ...c, status: 'publishing' })),
      }));
    };
    await f.engine.handle(firing('2026-06-01T11:59:00.000Z'));
    expect(f.posts.peek('post_1')).toMatchObject({ status: 'published', round: 1 });
    expect(f.network('x').publishCalls.map((c) => c.round)).toEqual([1]);
  });

  it('fails when its start cannot be written, to be delivered again', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T11:59:00.000Z'));
    f.posts.failWrites.push(new Error('table unavailable'));
    await expect(f.engine.handle(firing('2026-06-01T11:59:00.000Z'))).rejects.toThrow('table unavailable');
    expect(f.posts.peek('post_1')?.status).toBe('scheduled');
  });

  /**
   * Runs `job` under fake timers, 10 ms a step; with `clockMoves`, the engine's clock follows them
   * (else it stands still). Returns the timers the job set, in ms.
   */
  const runStepping = async (f: Fakes, job: PublishJob, clockMoves: boolean) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: f.clock.now() });
    if (clockMoves) f.clock.now = () => new Date();
    const sleeps: number[] = [];
    // Replaced by hand and put back as it was, so that useRealTimers finds its own fake to remove.
    const setTimer = globalThis.setTimeout;
    globalThis.setTimeout = ((run: () => void, ms?: number) => {
      sleeps.push(ms ?? 0);
      return setTimer(run, ms);
    }) as typeof setTimeout;
    try {
      let done = false;
      const running = f.engine.handle(job).finally(() => {
        done = true;
      });
      for (let step = 0; !done && step < 100; step++) {
        await vi.advanceTimersByTimeAsync(10);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await running;
      return sleeps;
    } finally {
      globalThis.setTimeout = setTimer;
      vi.useRealTimers();
    }
  };

  it('due within the second waits for its time, never starting early', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T12:00:00.025Z'));
    const sleeps = await runStepping(f, firing('2026-06-01T12:00:00.025Z'), true);
    expect(sleeps).toEqual([25]);
    expect(f.queue.jobs).toEqual([]);
    expect(f.posts.peek('post_1')).toMatchObject({
      status: 'published',
      roundStartedAt: '2026-06-01T12:00:00.025Z',
    });
  });

  it('starts after a few waits however late the clock runs', async () => {
    const f = engineOnFakes();
    seed(f, scheduled('2026-06-01T12:00:00.025Z'));
    const sleeps = await runStepping(f, firing('2026-06-01T12:00:00.025Z'), false);
    expect(sleeps).toEqual([25, 25, 25]);
    expect(f.posts.peek('post_1')).toMatchObject({
      status: 'published',
      roundStartedAt: f.clock.now().toISOString(),
    });
  });
});

describe('a run job, further', () => {
  it('of a later round says its round to the network and to the job it queues', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])], { round: 2 }));
    f.network('x').answer({ kind: 'error', error: new NetworkError('transient', 'down') });
    await f.engine.handle(job);
    expect(f.network('x').publishCalls.map((c) => c.round)).toEqual([2]);
    expect(f.queue.jobs.map((j) => j.job.round)).toEqual([2]);
  });

  it('that names every channel left reads nothing more, even with a channel published already', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([
        { ...postChannel('ch_x', 'x', ['a']), status: 'published' },
        postChannel('ch_y', 'x', ['b']),
      ]),
    );
    await f.engine.handle({ ...job, reads: { workspaceId: WORKSPACE, channelIds: ['ch_y'] } });
    expect(f.channels.jobReads).toBe(0);
    expect(f.posts.reads).toBe(0);
    expect(f.media.reads).toBe(0);
    expect(f.network('x').publishCalls.map((c) => [c.content, c.media])).toEqual([['b', []]]);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('that names another workspace reads the channels of the post’s own', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    await f.engine.handle({ ...job, reads: { workspaceId: 'ws_other', channelIds: ['ch_x'] } });
    expect(f.channels.jobReads).toBe(1);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('with no channel left to publish reads and queues nothing', async () => {
    const f = engineOnFakes();
    f.posts.put(publishingPost([{ ...postChannel('ch_x', 'x', ['a']), status: 'failed' }]));
    await f.engine.handle({ postId: 'post_1', kind: 'run' });
    expect(f.channels.jobReads).toBe(0);
    expect(f.queue.jobs).toEqual([]);
  });

  it('comes back for the soonest of its channels’ retries', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_b', 'bluesky', ['b'])]),
    );
    f.network('x').answer({
      kind: 'error',
      error: new NetworkError('transient', 'slow', { retryAfterSeconds: 90 }),
    });
    f.network('bluesky').answer({
      kind: 'error',
      error: new NetworkError('transient', 'slow', { retryAfterSeconds: 30 }),
    });
    await f.engine.handle(job);
    expect(f.queue.delays()).toEqual([30]);
  });

  it('publishes a channel whose rate limit ends now without a wait step', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([{ ...postChannel('ch_x', 'x', ['a']), rateLimitedUntil: f.clock.now().toISOString() }]),
    );
    await f.engine.handle(job);
    expect(f.posts.reads).toBe(0);
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('completes a channel whose blocks are all live without sending anything', async () => {
    const f = engineOnFakes();
    const channel = postChannel('ch_x', 'x', ['a']);
    channel.blocks[0] = {
      ...channel.blocks[0],
      remoteId: 'x-old',
      remoteUrl: 'https://x.example/x-old',
    } as never;
    await f.engine.handle(seed(f, publishingPost([channel])));
    expect(f.network('x').publishCalls).toEqual([]);
    expect(f.posts.peek('post_1')?.channels[0]?.status).toBe('published');
  });

  it('fails a channel whose earlier block has no address to reply to', async () => {
    const f = engineOnFakes();
    const channel = postChannel('ch_x', 'x', ['a', 'b']);
    channel.blocks[0] = { ...channel.blocks[0], remoteId: 'x-old', remoteUrl: null } as never;
    await f.engine.handle(seed(f, publishingPost([channel])));
    expect(f.network('x').publishCalls).toEqual([]);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toBe('An earlier block is missing.');
  });

  it('fails a channel whose block before the next has no address, even when the first has one', async () => {
    const f = engineOnFakes();
    const channel = postChannel('ch_x', 'x', ['a', 'b', 'c']);
    channel.blocks[0] = {
      ...channel.blocks[0],
      remoteId: 'x-1',
      remoteUrl: 'https://x.example/x-1',
    } as never;
    channel.blocks[1] = { ...channel.blocks[1], remoteId: 'x-2', remoteUrl: null } as never;
    await f.engine.handle(seed(f, publishingPost([channel])));
    expect(f.network('x').publishCalls).toEqual([]);
    expect(f.posts.peek('post_1')?.channels[0]?.error).toBe('An earlier block is missing.');
  });

  it('gives the files its options name to the first block only', async () => {
    const f = engineOnFakes();
    f.media.put(readyMedia('med_c', { mimeType: 'image/jpeg', size: 5, fileName: 'c.jpg', altText: null }));
    const channel = {
      ...postChannel('ch_p', 'pinterest', ['pin', 'more']),
      options: { coverImage: 'med_c' },
    };
    await f.engine.handle(seed(f, publishingPost([channel])));
    const calls = f.network('pinterest').publishCalls;
    expect(calls.map((c) => Object.keys(c.optionMedia ?? {}))).toEqual([['coverImage'], []]);
    expect(f.media.reads).toBe(1);
  });

  it('hands the invocation’s deadline to the network client', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    const deadline = new Date('2026-06-01T12:10:00.000Z');
    await f.engine.handle(job, { deadline });
    expect(f.network('x').publishCalls[0]?.deadline).toEqual(deadline);
    const g = engineOnFakes();
    await g.engine.handle(seed(g, publishingPost([postChannel('ch_x', 'x', ['a'])])));
    expect(g.network('x').publishCalls[0]).not.toHaveProperty('deadline');
  });
});
