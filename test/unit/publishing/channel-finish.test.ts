import { describe, expect, it } from 'vitest';
import { trackerFor } from '../../../functions/core/metrics/collect.ts';
import { PublishingEngine } from '../../../functions/core/publishing/job.ts';
import { channelLiveAt, isChannelLive, type PostChannel } from '../../../functions/domain/post.ts';
import { NetworkError } from '../../../functions/ports/network-client.ts';
import {
  ACCOUNT,
  engineOnFakes,
  postChannel,
  publishingPost,
  seed,
  WORKSPACE,
} from '../../support/fakes/engine.ts';
import { waitFor } from '../../support/wait.ts';

const refused = (message = 'refused') => new NetworkError('permanent', message);

/** The types of the events each write committed, in order. */
const writtenEvents = (f: ReturnType<typeof engineOnFakes>) =>
  f.posts.writes.map((w) => (w.extras?.events ?? []).map((e) => e.type));

describe('a channel’s end', () => {
  it('dates a published channel, not a failed one, and writes each with its one event', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_l', 'linkedin', ['b'])]),
    );
    f.network('linkedin').answer({ kind: 'error', error: refused() });
    await f.engine.handle(job);
    expect(f.posts.peek('post_1')?.channels.map((c) => [c.status, c.publishedAt])).toEqual([
      ['published', f.clock.now().toISOString()],
      ['failed', null],
    ]);
    expect(writtenEvents(f).flat().sort()).toEqual(['post.failed', 'post.published']);
  });

  it('leaves the post publishing while another channel still is', async () => {
    const f = engineOnFakes();
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_b', 'bluesky', ['b'])]),
    );
    let release = () => {};
    f.network('bluesky').answer({
      kind: 'held',
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    const running = f.engine.handle(job);
    const midway = await waitFor(() => {
      const post = f.posts.peek('post_1');
      return post?.channels[0]?.status === 'published' && post;
    });
    expect(midway).toMatchObject({ status: 'publishing', publishedAt: null });
    release();
    await running;
    expect(f.posts.peek('post_1')?.status).toBe('published');
  });

  it('starts no metrics tracking for a failed channel', async () => {
    const f = engineOnFakes();
    f.deps.trackerFor = (post, channelId) => ({ postId: post.postId, channelId, platform: 'x' }) as never;
    const engine = new PublishingEngine(f.deps);
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_y', 'x', ['b'])]));
    f.network('x').answer({ kind: 'ok' }, { kind: 'error', error: refused() });
    await engine.handle(job);
    expect(f.posts.trackingStarts.map((s) => s.tracker.channelId)).toEqual(['ch_x']);
  });

  it('makes a thread stopped halfway live with its first block: tracking and the usage count in that write', async () => {
    const f = engineOnFakes();
    f.deps.trackerFor = (post, channelId) => trackerFor({ timeScale: 1 }, post, channelId);
    const engine = new PublishingEngine(f.deps);
    const job = seed(f, publishingPost([postChannel('ch_b', 'bluesky', ['first', 'second'])]));
    f.network('bluesky').answer({ kind: 'ok' }, { kind: 'error', error: refused() });
    const wentLive = f.clock.now().toISOString();
    await engine.handle(job);
    const post = f.posts.peek('post_1');
    expect(post?.status).toBe('partially_published');
    const channel = post?.channels[0] as PostChannel;
    expect([channel.status, channel.publishedAt, channel.liveAt]).toEqual(['failed', null, wentLive]);
    expect([isChannelLive(channel), channelLiveAt(channel)]).toEqual([true, wentLive]);
    // One write records the first block: it counts the post in usage and starts its tracking, which
    // counts it in the stats, from when that block went live.
    const first = f.posts.writes.filter((w) => w.extras?.startTracking || w.extras?.countPublished);
    expect(first).toHaveLength(1);
    expect(first[0]?.extras?.countPublished).toEqual({ accountId: ACCOUNT, period: wentLive.slice(0, 7) });
    expect(first[0]?.extras?.startTracking).toMatchObject([
      { tracker: { channelId: 'ch_b', liveAt: wentLive, postLiveAt: wentLive, step: 0 }, countPost: true },
    ]);
    // The channel's end (failed) starts nothing again.
    expect(f.live).toEqual([]);
  });

  it('counts a channel’s network once for metrics, whatever other networks are live', async () => {
    const f = engineOnFakes();
    f.deps.trackerFor = (post, channelId) =>
      ({
        postId: post.postId,
        channelId,
        platform: post.channels.find((c) => c.channelId === channelId)?.platform,
      }) as never;
    const engine = new PublishingEngine(f.deps);
    const job = seed(
      f,
      publishingPost([
        { ...postChannel('ch_x', 'x', ['a']), status: 'published' },
        postChannel('ch_b', 'bluesky', ['b']),
      ]),
    );
    await engine.handle(job);
    expect(f.posts.trackingStarts.map((s) => [s.tracker.channelId, s.countPost, s.countPlatform])).toEqual([
      ['ch_b', false, true],
    ]);
  });

  it('of a channel taken off the post meanwhile writes nothing', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a']), postChannel('ch_y', 'x', ['b'])]));
    let once = false;
    f.posts.beforeWrite = () => {
      if (once) return;
      once = true;
      f.posts.change('post_1', (p) => ({ ...p, channels: [] }));
    };
    await f.engine.handle(job);
    expect(f.posts.writes).toEqual([]);
    expect(f.posts.peek('post_1')?.channels).toEqual([]);
  });
});

describe('a channel that must be reconnected', () => {
  it('fails with the event that says so, naming the channel', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.tokens.credentialsError = new NetworkError('reconnect', 'revoked');
    await f.engine.handle(job);
    expect(f.posts.outbox[0]?.data).toEqual({
      channelId: 'ch_x',
      platform: 'x',
      channelName: 'x channel ch_x',
      postId: 'post_1',
      error: 'The access token expired or was revoked.',
    });
  });

  it('names the channel by its id when its record went away meanwhile', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.tokens.credentials = async () => {
      f.channels.getChannel = async () => null;
      throw new NetworkError('reconnect', 'revoked');
    };
    await f.engine.handle(job);
    expect(f.posts.outbox.map((e) => [e.type, e.data.channelName])).toEqual([
      ['channel.needs_reconnect', 'ch_x'],
      ['post.failed', undefined],
    ]);
  });

  it('that another job marked already adds no event of its own', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.tokens.credentials = async () => {
      await f.channels.markNeedsReconnect(WORKSPACE, 'ch_x');
      throw new NetworkError('reconnect', 'revoked');
    };
    await f.engine.handle(job);
    expect(writtenEvents(f)).toEqual([['post.failed']]);
  });
});
