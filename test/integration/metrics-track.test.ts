import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoMetricsStore } from '../../functions/adapters/aws/dynamo/metrics.ts';
import { DynamoPostStore } from '../../functions/adapters/aws/dynamo/posts.ts';
import type { PostRecord } from '../../functions/domain/post.ts';
import type { MetricsTracker } from '../../functions/ports/metrics.ts';
import { freshTable } from '../support/table.ts';

/**
 * Starting a channel's readings counts its post once and its platform once per post, and saves
 * its tracker, whichever channel gets there first and however often it is called (a redelivered
 * job calls it again). The common case is one transaction; these cover the others.
 */

let table: Awaited<ReturnType<typeof freshTable>>;
let store: DynamoMetricsStore;
beforeAll(async () => {
  table = await freshTable();
  store = new DynamoMetricsStore(table);
});
afterAll(async () => {
  await table?.drop();
});

const FIRST = '2026-03-02T10:00:00.000Z';
const LATER = '2026-03-02T10:00:01.000Z';
let posts = 0;

const tracker = (
  postId: string,
  workspaceId: string,
  channelId: string,
  platform: string,
  liveAt: string,
): MetricsTracker => ({
  postId,
  channelId,
  workspaceId,
  mode: 'live',
  platform: platform as MetricsTracker['platform'],
  liveAt,
  postLiveAt: FIRST,
  step: 0,
  nextAt: '2026-03-02T11:00:00.000Z',
  known: {},
  latest: null,
  readings: 0,
  missed: 0,
  skipped: 0,
});

const fresh = () => {
  posts++;
  return { postId: `post_track${posts}`, workspaceId: `ws_track${posts}` };
};

const counts = async (workspaceId: string) => {
  const [day] = await store.statsDays(workspaceId, 'live', '2026-03-02', '2026-03-02');
  const [post] = await store.statsPosts(workspaceId, 'live', FIRST, FIRST);
  const [hour] = await store.statsHours(workspaceId, 'live', '2026-03-02T10', '2026-03-02T10');
  expect(post).toEqual(day);
  expect(hour).toEqual({ hour: '2026-03-02T10', counters: day });
  return day ?? {};
};

describe('starting a channel’s readings', () => {
  it('counts the post once and each platform once, with every channel’s tracker, in any order', async () => {
    const { postId, workspaceId } = fresh();
    // The channel that went live later gets there first: it finds the post not counted yet and counts it.
    await store.track(tracker(postId, workspaceId, 'ch_b', 'bluesky', LATER));
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'bluesky:posts': 1 });
    await store.track(tracker(postId, workspaceId, 'ch_x', 'x', FIRST));
    await store.track(tracker(postId, workspaceId, 'ch_l', 'linkedin', LATER));
    expect(await counts(workspaceId)).toEqual({
      posts: 1,
      'bluesky:posts': 1,
      'x:posts': 1,
      'linkedin:posts': 1,
    });
    expect((await store.listTrackers(postId)).map((t) => t.channelId).sort()).toEqual([
      'ch_b',
      'ch_l',
      'ch_x',
    ]);
  });

  it('changes nothing when called again, and counts a second channel of the same platform once', async () => {
    const { postId, workspaceId } = fresh();
    await store.track(tracker(postId, workspaceId, 'ch_x1', 'x', FIRST));
    await store.track(tracker(postId, workspaceId, 'ch_x1', 'x', FIRST));
    await store.track(tracker(postId, workspaceId, 'ch_x2', 'x', LATER));
    await store.track(tracker(postId, workspaceId, 'ch_x2', 'x', LATER));
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'x:posts': 1 });
    expect((await store.listTrackers(postId)).map((t) => t.channelId).sort()).toEqual(['ch_x1', 'ch_x2']);
  });

  it('keeps counting right when channels start at the same time', async () => {
    const { postId, workspaceId } = fresh();
    await Promise.all([
      store.track(tracker(postId, workspaceId, 'ch_x', 'x', FIRST)),
      store.track(tracker(postId, workspaceId, 'ch_b', 'bluesky', FIRST)),
      store.track(tracker(postId, workspaceId, 'ch_b2', 'bluesky', LATER)),
      store.track(tracker(postId, workspaceId, 'ch_x', 'x', FIRST)),
    ]);
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'x:posts': 1, 'bluesky:posts': 1 });
    expect(await store.listTrackers(postId)).toHaveLength(3);
  });
});

describe('starting a channel’s readings in the write that makes it live', () => {
  const posts = () => new DynamoPostStore(table);
  const publishing = (postId: string, workspaceId: string): PostRecord => ({
    postId,
    accountId: 'acc_track',
    workspaceId,
    mode: 'live',
    status: 'publishing',
    scheduledAt: null,
    publishedAt: null,
    tagIds: [],
    createdAt: FIRST,
    updatedAt: FIRST,
    version: 1,
    channels: (['x', 'bluesky'] as const).map((platform) => ({
      channelId: `ch_${platform}`,
      platform,
      status: 'publishing' as const,
      error: null,
      remoteUrl: null,
      title: null,
      postType: null,
      options: {},
      publishedAt: null,
      blocks: [{ content: 'hello', mediaIds: [], mediaAltText: {}, remoteId: null, remoteUrl: null }],
    })),
  });
  const live = (post: PostRecord, channelId: string, at: string): PostRecord => ({
    ...post,
    version: post.version + 1,
    channels: post.channels.map((c) =>
      c.channelId === channelId ? { ...c, status: 'published', publishedAt: at } : c,
    ),
  });
  /** A post publishing on X and Bluesky, stored. */
  const stored = async (postId: string, workspaceId: string): Promise<PostRecord> => {
    const created = publishing(postId, workspaceId);
    await posts().create(created, { accountId: 'acc_track', period: '2026-03', limit: null, count: false });
    return created;
  };
  /** Makes one channel live in the write that starts its tracking; returns the post as written. */
  const goLive = async (
    post: PostRecord,
    channelId: 'ch_x' | 'ch_bluesky',
    at: string,
    counts: { countPost: boolean; countPlatform: boolean },
  ): Promise<PostRecord> => {
    const next = live(post, channelId, at);
    const platform = channelId === 'ch_x' ? 'x' : 'bluesky';
    await posts().replace(post, next, {
      startTracking: [
        { tracker: tracker(post.postId, post.workspaceId, channelId, platform, at), ...counts },
      ],
    });
    return next;
  };

  it('counts the post and the platform with the tracker, and a later channel counts only its platform', async () => {
    const { postId, workspaceId } = fresh();
    const first = await goLive(await stored(postId, workspaceId), 'ch_x', FIRST, {
      countPost: true,
      countPlatform: true,
    });
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'x:posts': 1 });
    await goLive(first, 'ch_bluesky', LATER, { countPost: false, countPlatform: true });
    // A redelivered job starting it again changes nothing.
    await store.track(tracker(postId, workspaceId, 'ch_bluesky', 'bluesky', LATER));
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'x:posts': 1, 'bluesky:posts': 1 });
    expect((await store.listTrackers(postId)).map((t) => t.channelId).sort()).toEqual(['ch_bluesky', 'ch_x']);
    expect((await posts().get(postId))?.version).toBe(3);
  });

  it('starts several channels of one post in one write, each key written once and each count once', async () => {
    const { postId, workspaceId } = fresh();
    const created = await stored(postId, workspaceId);
    const both = live(live(created, 'ch_x', FIRST), 'ch_bluesky', FIRST);
    await posts().replace(
      created,
      { ...both, version: created.version + 1 },
      {
        startTracking: [
          { tracker: tracker(postId, workspaceId, 'ch_x', 'x', FIRST), countPost: true, countPlatform: true },
          {
            tracker: tracker(postId, workspaceId, 'ch_bluesky', 'bluesky', FIRST),
            countPost: false,
            countPlatform: true,
          },
        ],
      },
    );
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'x:posts': 1, 'bluesky:posts': 1 });
    expect((await store.listTrackers(postId)).map((t) => t.channelId).sort()).toEqual(['ch_bluesky', 'ch_x']);
    expect((await posts().get(postId))?.version).toBe(created.version + 1);
  });

  it('starts two channels on one network together after the post was counted: the post checked once, the platform counted once', async () => {
    const { postId, workspaceId } = fresh();
    const created = await stored(postId, workspaceId);
    // The post counted by a channel before (its marker exists); both channels are on X here.
    await store.track(tracker(postId, workspaceId, 'ch_earlier', 'bluesky', FIRST));
    const onX = { ...created, channels: created.channels.map((c) => ({ ...c, platform: 'x' as const })) };
    await posts().replace(
      created,
      { ...live(live(onX, 'ch_x', LATER), 'ch_bluesky', LATER), version: 2 },
      {
        startTracking: [
          {
            tracker: tracker(postId, workspaceId, 'ch_x', 'x', LATER),
            countPost: false,
            countPlatform: true,
          },
          {
            tracker: tracker(postId, workspaceId, 'ch_bluesky', 'x', LATER),
            countPost: false,
            countPlatform: false,
          },
        ],
      },
    );
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'bluesky:posts': 1, 'x:posts': 1 });
    expect(await store.listTrackers(postId)).toHaveLength(3);
    expect((await posts().get(postId))?.status).toBe('publishing');
  });

  it('writes the change alone and starts the tracking on its own when the table shows another case', async () => {
    const { postId, workspaceId } = fresh();
    const created = await stored(postId, workspaceId);
    // The channel's tracking already started (say, a write the post does not know of).
    await store.track(tracker(postId, workspaceId, 'ch_x', 'x', FIRST));
    await goLive(created, 'ch_x', FIRST, { countPost: true, countPlatform: true });
    expect((await posts().get(postId))?.channels[0]?.status).toBe('published');
    expect(await counts(workspaceId)).toEqual({ posts: 1, 'x:posts': 1 });
    // The post not counted yet although a channel was live before: the refused check hands it to `track`.
    const { postId: other, workspaceId: otherWs } = fresh();
    await goLive(await stored(other, otherWs), 'ch_bluesky', LATER, {
      countPost: false,
      countPlatform: true,
    });
    expect(await counts(otherWs)).toEqual({ posts: 1, 'bluesky:posts': 1 });
    expect(await store.listTrackers(other)).toHaveLength(1);
  });
});
