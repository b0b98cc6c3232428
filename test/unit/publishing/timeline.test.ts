import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../../../functions/core/auth/api-keys.ts';
import { readTimeline } from '../../../functions/core/posts/timeline.ts';
import { startRound } from '../../../functions/core/publishing/post-mutation.ts';
import {
  type ManageDeps,
  retractPost,
  revisePost,
} from '../../../functions/core/publishing/revise-retract.ts';
import { ApiError } from '../../../functions/domain/errors.ts';
import { BLOCK_TIMELINE_LIMIT, POST_TIMELINE_LIMIT, withEvents } from '../../../functions/domain/timeline.ts';
import { NetworkError } from '../../../functions/ports/network-client.ts';
import {
  ACCOUNT,
  engineOnFakes,
  type Fakes,
  postChannel,
  publishingPost,
  seed,
  WORKSPACE,
} from '../../support/fakes/engine.ts';

const start = '2026-06-01T12:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(start) + seconds * 1000).toISOString();

/** An engine with one X channel publishing `blocks`, on a network with `windowSeconds` of lag. */
const setup = ({
  blocks = ['hello'],
  windowSeconds = 0,
  lookup = true,
}: {
  blocks?: string[];
  windowSeconds?: number;
  lookup?: boolean;
} = {}) => {
  const f = engineOnFakes();
  const network = f.network('x', { consistencyWindowSeconds: windowSeconds, lookup });
  const job = seed(f, publishingPost([postChannel('ch_x', 'x', blocks)]));
  return { f, network, job };
};

const timeline = (f: Fakes, scope: { mode?: 'live' | 'test'; workspaceId?: string } = {}) =>
  readTimeline(
    { postTimelines: f.posts },
    { accountId: ACCOUNT, workspaceId: WORKSPACE, ...scope },
    'post_1',
  );

/** The timeline as `kind@block` steps, oldest first. */
const steps = async (f: Fakes) =>
  (await timeline(f)).data.map((e) => `${e.kind}@${e.block === null ? 'channel' : e.block}`);

describe('the post timeline', () => {
  it('shows a thread sent block by block, with remote ids and links, then the channel published', async () => {
    const { f, job } = setup({ blocks: ['one', 'two'] });
    await f.engine.handle(job);
    const { data, postId, dropped } = await timeline(f);
    expect(postId).toBe('post_1');
    expect(dropped).toBe(0);
    expect(data.map((e) => `${e.kind}@${e.block ?? 'channel'}`)).toEqual([
      'sending@0',
      'sent@0',
      'sending@1',
      'sent@1',
      'channel_published@channel',
    ]);
    expect(data[0]).toMatchObject({ at: start, channelId: 'ch_x', attempt: 1 });
    expect(data[1]).toMatchObject({ remoteId: 'x-1', url: 'https://x.example/x-1' });
    expect(data[3]).toMatchObject({ remoteId: 'x-2', url: 'https://x.example/x-2' });
    expect(data[4]?.detail).toBe('Published (2 of 2 blocks).');
  });

  it("reads the first round's start and each channel's publication from the post, which stores no event for them", async () => {
    const f = engineOnFakes();
    f.network('x');
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['hi'])], { roundStartedAt: later(-1) }));
    await f.engine.handle(job);
    const { data } = await timeline(f);
    expect(data.map((e) => `${e.kind}@${e.block ?? 'channel'}`)).toEqual([
      'queued@channel',
      'sending@0',
      'sent@0',
      'channel_published@channel',
    ]);
    expect(data[0]?.at).toBe(later(-1));
    expect(data[3]).toMatchObject({
      at: start,
      url: 'https://x.example/x-1',
      detail: 'Published (1 of 1 blocks).',
    });
    expect(f.posts.peek('post_1')?.timeline).toBeUndefined();
  });

  it("shows a network's refusal with its error, and the channel failed", async () => {
    const { f, network, job } = setup();
    network.answer({ kind: 'error', error: new NetworkError('permanent', 'Text too long') });
    await f.engine.handle(job);
    const { data } = await timeline(f);
    expect(data.map((e) => e.kind)).toEqual(['sending', 'refused', 'channel_failed']);
    expect(data[1]?.error).toEqual({ code: 'permanent', message: 'Text too long' });
    expect(data[2]?.detail).toBe('Text too long');
  });

  it('shows a transient refusal, the retry it schedules (when, which attempt), and the next attempt', async () => {
    const { f, network, job } = setup();
    network.answer({ kind: 'error', error: new NetworkError('transient', 'Service unavailable') });
    await f.engine.handle(job);
    const retry = (await timeline(f)).data.at(-1);
    expect(retry).toMatchObject({ kind: 'retry_scheduled', block: null, attempt: 1, until: later(2) });
    expect(retry?.detail).toContain('Service unavailable');
    f.clock.advance(2);
    await f.engine.handle(job);
    const { data } = await timeline(f);
    expect(data.map((e) => e.kind)).toEqual([
      'sending',
      'refused',
      'retry_scheduled',
      'sending',
      'sent',
      'channel_published',
    ]);
    expect(data[3]).toMatchObject({ attempt: 2, at: later(2) });
  });

  it('shows a lost answer, each lookup that does not find the block (with the next), then the one that does', async () => {
    const { f, network, job } = setup({ windowSeconds: 30 });
    network.answer({ kind: 'lost', stored: true }).answerLookups({ kind: 'hidden' });
    await f.engine.handle(job);
    const first = (await timeline(f)).data;
    expect(first.map((e) => e.kind)).toEqual(['sending', 'answer_lost', 'lookup_not_found']);
    expect(first[1]?.detail).toContain('socket hang up');
    const nextCheck = first[2]?.until as string;
    expect(Date.parse(nextCheck)).toBeGreaterThan(Date.parse(start));
    f.clock.advance((Date.parse(nextCheck) - Date.parse(start)) / 1000);
    await f.engine.handle(job);
    const { data } = await timeline(f);
    expect(data.map((e) => e.kind)).toEqual([
      'sending',
      'answer_lost',
      'lookup_not_found',
      'lookup_found',
      'channel_published',
    ]);
    expect(data[3]).toMatchObject({ at: nextCheck, remoteId: 'x-1', url: 'https://x.example/x-1' });
    // Sent once: the lookup found it.
    expect(network.publishCalls).toHaveLength(1);
  });

  it('shows a block not found after the consistency window: not published, retried', async () => {
    const { f, network, job } = setup();
    network.answer({ kind: 'lost', stored: false });
    await f.engine.handle(job);
    expect(await steps(f)).toEqual([
      'sending@0',
      'answer_lost@0',
      'lookup_not_found@0',
      'retry_scheduled@channel',
    ]);
    expect((await timeline(f)).data[2]?.detail).toContain('was not published');
  });

  it('shows an unknown outcome when the network offers no lookup', async () => {
    const { f, network, job } = setup({ lookup: false });
    network.answer({ kind: 'lost', stored: true });
    await f.engine.handle(job);
    expect(await steps(f)).toEqual(['sending@0', 'answer_lost@0', 'unknown@0', 'channel_failed@channel']);
  });

  it('shows a failed lookup with its error', async () => {
    const { f, network, job } = setup();
    network
      .answer({ kind: 'lost', stored: true })
      .answerLookups({ kind: 'error', error: new NetworkError('transient', 'lookup timed out') });
    await f.engine.handle(job);
    const last = (await timeline(f)).data.at(-1);
    expect(last).toMatchObject({
      kind: 'lookup_not_found',
      error: { code: 'transient', message: 'lookup timed out' },
    });
    expect(last?.until).toBeDefined();
  });

  it("shows a rate limit's wait until the reset it announced, without an attempt spent", async () => {
    const { f, network, job } = setup();
    network.answer({
      kind: 'error',
      error: new NetworkError('transient', 'Too many requests', {
        rateLimited: true,
        retryAfterSeconds: 120,
      }),
    });
    await f.engine.handle(job);
    const { data } = await timeline(f);
    expect(data.map((e) => e.kind)).toEqual(['sending', 'refused', 'rate_limit_wait']);
    expect(data[1]?.error?.code).toBe('rate_limited');
    expect(data[2]).toMatchObject({ block: null, until: later(120) });
  });

  it("shows a resumable upload's saved progress, and a wait for the network's processing", async () => {
    const { f, network, job } = setup();
    network.answer({
      kind: 'upload',
      state: { offset: 4096 },
      after: {
        kind: 'error',
        error: new NetworkError('transient', 'The video is still processing.', { continueLater: true }),
      },
    });
    await f.engine.handle(job);
    const { data } = await timeline(f);
    expect(data.map((e) => e.kind)).toEqual(['sending', 'upload_progress', 'processing_wait']);
    expect(data[1]?.detail).toContain('4096 bytes');
    expect(data[2]?.detail).toBe('The video is still processing.');
  });

  it('shows the takeover of a send whose worker died as a lost answer, then the lookup', async () => {
    const { f, network, job } = setup();
    f.claims.put({
      postId: 'post_1',
      channelId: 'ch_x',
      block: 0,
      state: 'sending',
      owner: 'dead',
      leaseUntil: later(-1),
      since: later(-120),
      firstSentAt: later(-120),
      timeline: [{ at: later(-120), kind: 'sending', detail: 'Sending.', attempt: 1 }],
    });
    network.stored.set('post_1.ch_x.0', {
      remote: { remoteId: 'x-9', remoteUrl: 'https://x.example/x-9', meta: {} },
      input: {} as never,
    });
    await f.engine.handle(job);
    expect(await steps(f)).toEqual([
      'sending@0',
      'answer_lost@0',
      'lookup_found@0',
      'channel_published@channel',
    ]);
  });

  it('shows each channel queued when a round starts', () => {
    const post = publishingPost(
      [
        { ...postChannel('ch_a', 'x', ['a']), status: 'failed' },
        { ...postChannel('ch_b', 'bluesky', ['b']), status: 'published' },
      ],
      { status: 'failed' },
    );
    const next = startRound(post, new Date(start));
    expect(next.timeline).toEqual([
      {
        at: start,
        channelId: 'ch_a',
        block: null,
        kind: 'queued',
        detail: 'Queued for publication (round 2).',
      },
    ]);
  });

  it("keeps a claim's latest events, counting the older ones dropped", async () => {
    const { f, job } = setup();
    // A block that has been through many rounds already: its claim's list is full.
    const old = Array.from({ length: BLOCK_TIMELINE_LIMIT }, (_, i) => ({
      at: later(-1000 + i),
      kind: 'refused' as const,
      detail: `old ${i}`,
    }));
    f.claims.put({
      postId: 'post_1',
      channelId: 'ch_x',
      block: 0,
      state: 'not_sent',
      owner: 'before',
      leaseUntil: later(-1000),
      since: later(-1000),
      timeline: old,
    });
    await f.engine.handle(job);
    const claim = f.claims.get('post_1', 'ch_x', 0);
    expect(claim?.timeline).toHaveLength(BLOCK_TIMELINE_LIMIT);
    expect(claim?.timelineDropped).toBe(2);
    expect(claim?.timeline?.slice(-2).map((e) => e.kind)).toEqual(['sending', 'sent']);
    const { data, dropped } = await timeline(f);
    expect(dropped).toBe(2);
    expect(data[0]?.detail).toBe('old 2');
    expect(data.slice(-3).map((e) => e.kind)).toEqual(['sending', 'sent', 'channel_published']);
  });

  it("keeps one event for a run of an upload's saves: the latest", async () => {
    const { f, network, job } = setup();
    network.publish = async (input) => {
      for (let i = 1; i <= BLOCK_TIMELINE_LIMIT + 5; i++) await input.progress?.save({ offset: i * 1000 });
      return { remoteId: 'x-1', remoteUrl: 'https://x.example/x-1', meta: {} };
    };
    await f.engine.handle(job);
    const { data, dropped } = await timeline(f);
    expect(dropped).toBe(0);
    expect(data.map((e) => e.kind)).toEqual(['sending', 'upload_progress', 'sent', 'channel_published']);
    expect(data[1]?.detail).toContain(`${(BLOCK_TIMELINE_LIMIT + 5) * 1000} bytes`);
  });

  it("keeps a post's latest events", () => {
    const event = { at: start, channelId: 'ch_x', block: null, kind: 'queued' as const, detail: 'Queued.' };
    const many = Array.from({ length: POST_TIMELINE_LIMIT + 3 }, (_, i) => ({ ...event, detail: `${i}` }));
    const post = withEvents(publishingPost([]), many);
    expect(post.timeline).toHaveLength(POST_TIMELINE_LIMIT);
    expect(post.timeline?.[0]?.detail).toBe('3');
    expect(post.timelineDropped).toBe(3);
  });

  it("is not_found for another workspace's post, and for a key of the other mode", async () => {
    const { f, job } = setup();
    await f.engine.handle(job);
    await expect(timeline(f, { workspaceId: 'ws_other' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(timeline(f, { mode: 'test' })).rejects.toBeInstanceOf(ApiError);
    expect((await timeline(f, { mode: 'live' })).data.length).toBeGreaterThan(0);
    await expect(
      readTimeline({ postTimelines: f.posts }, { accountId: ACCOUNT, workspaceId: WORKSPACE }, 'post_none'),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reads a sandbox (test-key) post as a live one', async () => {
    const f = engineOnFakes();
    f.network('x');
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['hi'])], { mode: 'test' }));
    await f.engine.handle(job);
    expect(await steps(f)).toEqual(['sending@0', 'sent@0', 'channel_published@channel']);
    expect((await timeline(f, { mode: 'test' })).data).toHaveLength(3);
  });

  it('shows a revision and a retraction, per channel', async () => {
    const f = engineOnFakes();
    const postId = `post_${'A'.repeat(22)}`;
    const job = seed(
      f,
      publishingPost(
        [
          postChannel('ch_li', 'linkedin', ['hello']),
          postChannel('ch_x', 'x', ['hi']),
          // Instagram cannot delete a post: the channel stays, and so does the post.
          postChannel('ch_ig', 'instagram', ['picture']),
        ],
        { postId, mode: 'test' },
      ),
    );
    await f.engine.handle(job);
    const deps = {
      ...f.deps,
      posts: f.posts,
      channels: f.channels,
      tokenCipher: () => {
        throw new Error('a sandbox post opens no token');
      },
    } as unknown as ManageDeps;
    const auth = { accountId: ACCOUNT, workspaceId: WORKSPACE, mode: 'test' } as AuthContext;
    f.clock.advance(10);
    const revised = await revisePost(deps, auth, postId, {
      channels: [
        { channelId: 'ch_li', blocks: [{ content: 'hello again' }] },
        { channelId: 'ch_x', blocks: [{ content: 'hi' }] },
        { channelId: 'ch_ig', blocks: [{ content: 'picture' }] },
      ],
    });
    expect(revised.revised.map((r) => r.channelId)).toEqual(['ch_li']);
    f.clock.advance(10);
    const retracted = await retractPost(deps, auth, postId);
    expect(retracted.remaining.map((r) => r.channelId)).toEqual(['ch_ig']);
    const { data } = await readTimeline({ postTimelines: f.posts }, auth, postId);
    const late = data.filter((e) => e.kind === 'revised' || e.kind === 'retracted');
    expect(late.map((e) => [e.kind, e.channelId, e.at])).toEqual([
      ['revised', 'ch_li', later(10)],
      ['retracted', 'ch_li', later(20)],
      ['retracted', 'ch_x', later(20)],
    ]);
    expect(late[0]?.detail).toBe('The network accepted the new text of block 1.');
    expect(late[1]?.detail).toBe('Removed from the network; the channel left the post.');
  });
});
