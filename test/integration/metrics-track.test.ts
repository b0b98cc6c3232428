import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoMetricsStore } from '../../functions/adapters/aws/dynamo/metrics.ts';
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
  expect(post).toEqual(day);
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
