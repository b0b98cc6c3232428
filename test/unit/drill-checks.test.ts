import { describe, expect, it } from 'vitest';
import {
  blockMarker,
  checkDrill,
  type DrillFigures,
  type DrillObservations,
  type DrillPlan,
  type DrillPlatform,
  type DrillToken,
  defectCount,
  eventTypeFor,
  expectedEnd,
  killAfterRefusal,
  type NetworkRecord,
  type NetworkRefusal,
  type ObservedDelivery,
  type ObservedPost,
  observeDelivery,
  type PlannedChannel,
  type PlannedPost,
  parseMarker,
  planDrill,
  statusFor,
} from '../../bench/drill-checks.ts';
import { signWebhook } from '../../functions/shared/verify-webhook.ts';

/**
 * The drill's counting logic on synthetic data: a "perfect Herald" is built from a plan (every
 * channel ends as its sim token says, every block is on its network once, every event arrives
 * once), which must give all-zero figures; then each case breaks one thing and expects exactly
 * that figure to count it.
 */

const TAG = 'drt';

const channel = (
  slot: number,
  platform: PlannedChannel['platform'],
  blocks: number,
  token: PlannedChannel['token'] = null,
  post = 0,
): PlannedChannel => ({
  slot,
  platform,
  dedicated: token?.kind === 'sim:reconnect',
  blocks: Array.from(
    { length: blocks },
    (_, b) => `${blockMarker(TAG, post, slot, b)} words${token?.block === b ? ` ${token.kind}` : ''}`,
  ),
  token,
});

const planOf = (posts: PlannedChannel[][]): DrillPlan => ({
  seed: 1,
  tag: TAG,
  submitSeconds: 10,
  kills: [],
  rateLimits: [],
  posts: posts.map(
    (channels, index): PlannedPost => ({
      index,
      submitAt: index,
      intent: 'now',
      scheduleAhead: null,
      channels: channels.map((c) => ({
        ...c,
        blocks: c.blocks.map((text) => text.replace(/-p\d+c/, `-p${index}c`)),
      })),
    }),
  ),
});

let ids = 0;
const CONTINUATION: Record<string, 'reply' | 'comment'> = {
  x: 'reply',
  bluesky: 'reply',
  threads: 'reply',
  linkedin: 'comment',
  facebook: 'comment',
};

/** When the synthetic simulators refused each `sim:fail-once` block: a second apart, from here. */
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** What a flawless Herald would leave behind for this plan. */
const perfect = (plan: DrillPlan, republished: number[] = []): DrillObservations => {
  const network: Record<string, NetworkRecord[]> = {};
  const refusals: Record<string, NetworkRefusal[]> = {};
  const deliveries: ObservedDelivery[] = [];
  const posts: ObservedPost[] = [];
  const created = new Map<number, string>();
  const roundOne: DrillObservations['roundOne'] = [];
  const needsReconnect: string[] = [];
  for (const planned of plan.posts) {
    const postId = `post_${planned.index}`;
    created.set(planned.index, postId);
    const again = republished.includes(planned.index);
    const channels = planned.channels.map((want) => {
      const channelId = `ch_${planned.index}_${want.slot}`;
      const end = expectedEnd(want, again);
      const liveCount = end.status === 'published' ? want.blocks.length : end.live;
      const remoteIds: string[] = [];
      want.blocks.forEach((text, b) => {
        if (b >= liveCount) return;
        const id = `${want.platform}_${++ids}`;
        const parent =
          b === 0 ? null : CONTINUATION[want.platform] === 'reply' ? remoteIds[b - 1] : remoteIds[0];
        network[want.platform] ??= [];
        network[want.platform]?.push({
          kind: b === 0 ? 'post' : 'reply',
          id,
          parentId: parent ?? null,
          text,
        });
        remoteIds.push(id);
      });
      if (want.token?.kind === 'sim:reconnect') needsReconnect.push(channelId);
      if (want.token?.kind === 'sim:fail-once') {
        refusals[want.platform] ??= [];
        refusals[want.platform]?.push({
          token: 'sim:fail-once',
          content: want.blocks[want.token.block] ?? '',
          at: iso(T0 + planned.index * 1000),
        });
      }
      return {
        channelId,
        platform: want.platform,
        status: end.status,
        error: end.status === 'failed' ? 'refused' : null,
        blocks: want.blocks.map((content, b) => ({ content, remoteId: remoteIds[b] ?? null })),
      };
    });
    if (again) {
      roundOne.push({
        postId,
        channels: planned.channels.map((want) => {
          const first = expectedEnd(want, false);
          return {
            channelId: `ch_${planned.index}_${want.slot}`,
            status: first.status,
            live: first.status === 'published' ? want.blocks.length : first.live,
          };
        }),
      });
      for (const first of roundOne.at(-1)?.channels ?? []) {
        if (first.status === 'published') continue;
        deliveries.push(
          delivery(eventTypeFor(first.status, first.live), postId, first.channelId, first.live),
        );
      }
    }
    for (const c of channels) {
      const liveCount = c.blocks.filter((b) => b.remoteId).length;
      deliveries.push(delivery(eventTypeFor(c.status, liveCount), postId, c.channelId, liveCount));
    }
    for (const channelId of needsReconnect.filter((id) => id.startsWith(`ch_${planned.index}_`)))
      deliveries.push({ ...delivery('channel.needs_reconnect', null, channelId, null) });
    posts.push({ postId, status: statusFor(channels), round: again ? 2 : 1, channels });
  }
  return {
    plan,
    posts,
    created,
    notCreated: new Map(),
    roundOne,
    network,
    refusals,
    kills: [],
    deliveries,
    needsReconnect,
    serverErrors: [],
    abandoned: [],
  };
};

let events = 0;
const delivery = (
  type: string,
  postId: string | null,
  channelId: string,
  blocksPublished: number | null,
): ObservedDelivery => {
  const eventId = `evt_${++events}`;
  return { eventId, headerEventId: eventId, type, postId, channelId, blocksPublished, signatureOk: true };
};

const counts = (figures: DrillFigures) =>
  Object.fromEntries(
    Object.entries(figures)
      .filter(([, list]) => list.length > 0)
      .map(([k, l]) => [k, l.length]),
  );

const PLAN = planOf([
  [channel(0, 'x', 3), channel(1, 'bluesky', 1), channel(2, 'linkedin', 2)],
  [channel(0, 'threads', 2, { kind: 'sim:fail', block: 1 }), channel(1, 'facebook', 3), channel(2, 'x', 1)],
  [
    channel(0, 'linkedin', 2, { kind: 'sim:timeout', block: 1 }),
    channel(1, 'x', 2, { kind: 'sim:timeout', block: 0 }),
  ],
  [channel(0, 'bluesky', 2, { kind: 'sim:fail-once', block: 0 }), channel(1, 'linkedin', 1)],
  [
    channel(0, 'x', 2, { kind: 'sim:reconnect', block: 1 }),
    channel(1, 'facebook', 1, { kind: 'sim:flaky', block: 0 }),
  ],
]);

describe('drill checks', () => {
  it('count nothing for a flawless run, and count the expected failures apart', () => {
    const obs = perfect(PLAN, [3]);
    const { figures, info } = checkDrill(obs);
    expect(counts(figures)).toEqual({});
    expect(defectCount(figures)).toBe(0);
    expect(info.expectedFailures).toEqual({ 'sim:fail': 1, 'sim:reconnect': 1 });
    expect(info.republished).toBe(1);
    expect(info.posts).toBe(5);
  });

  it('counts a block that is on the network twice (same post, channel and block)', () => {
    const obs = perfect(PLAN);
    const first = obs.network.x?.find((r) => parseMarker(r.text)?.post === 0) as NetworkRecord;
    obs.network.x?.push({ ...first, id: 'x_again' });
    const { figures } = checkDrill(obs);
    expect(counts(figures)).toEqual({ postedTwice: 1 });
    expect(figures.postedTwice[0]?.detail).toContain('x_again');
  });

  it('counts a published block the network does not have, and a published channel with a block never sent', () => {
    const obs = perfect(PLAN);
    const x = obs.posts[0]?.channels[0];
    if (!x?.blocks[2]) throw new Error('fixture');
    x.blocks[2].remoteId = 'x_unknown';
    const { figures } = checkDrill(obs);
    // The block the network has is now held by nobody: it is also unreported.
    expect(counts(figures)).toEqual({ blocksMissing: 1, blocksUnreported: 1 });

    const other = perfect(PLAN);
    const bluesky = other.posts[0]?.channels[1];
    if (!bluesky?.blocks[0]) throw new Error('fixture');
    const id = bluesky.blocks[0].remoteId;
    bluesky.blocks[0].remoteId = null;
    other.network.bluesky = other.network.bluesky?.filter((r) => r.id !== id);
    expect(counts(checkDrill(other).figures)).toMatchObject({ blocksMissing: 1 });
  });

  it('counts a block live on X that Herald reports failed (a blind resend refused as duplicate)', () => {
    const obs = perfect(PLAN);
    const post = obs.posts[0] as ObservedPost;
    const x = post.channels[0] as ObservedPost['channels'][number];
    // Block 3 reached X, but Herald lost track of it and failed the channel (and said so in its event).
    (x.blocks[2] as { remoteId: string | null }).remoteId = null;
    x.status = 'failed';
    x.error = 'block 3: You are not allowed to create a Tweet with duplicate content.';
    post.status = 'partially_published';
    obs.deliveries = obs.deliveries.filter((d) => !(d.postId === post.postId && d.channelId === x.channelId));
    obs.deliveries.push(delivery('post.partially_failed', post.postId, x.channelId, 2));
    const { figures } = checkDrill(obs);
    expect(counts(figures)).toEqual({ blocksUnreported: 1, wrongOutcome: 1 });
    expect(figures.blocksUnreported[0]?.detail).toContain('block 3 not live');
  });

  it('counts a channel left "did not confirm" as a wrong outcome: every network looks a lost block up', () => {
    const obs = perfect(PLAN);
    const post = obs.posts[0] as ObservedPost;
    const linkedin = post.channels[2] as ObservedPost['channels'][number];
    (linkedin.blocks[1] as { remoteId: string | null }).remoteId = null;
    linkedin.status = 'failed';
    linkedin.error = 'The network did not confirm whether block 2 was published (the answer was lost)';
    post.status = 'partially_published';
    obs.deliveries = obs.deliveries.filter((d) => d.channelId !== linkedin.channelId);
    obs.deliveries.push(delivery('post.partially_failed', post.postId, linkedin.channelId, 1));
    // The comment did reach LinkedIn, and Herald does not hold it.
    expect(counts(checkDrill(obs).figures)).toEqual({ wrongOutcome: 1, blocksUnreported: 1 });
  });

  it('counts channels that end other than their sim token says, and a post status its channels contradict', () => {
    const published = perfect(PLAN);
    // sim:fail at block 2 on threads, yet published.
    const threads = published.posts[1]?.channels[0];
    if (!threads) throw new Error('fixture');
    threads.status = 'published';
    threads.blocks[1] = { content: threads.blocks[1]?.content ?? '', remoteId: 'threads_x' };
    published.network.threads?.push({
      kind: 'reply',
      id: 'threads_x',
      parentId: threads.blocks[0]?.remoteId ?? null,
      text: threads.blocks[1]?.content ?? '',
    });
    const { figures } = checkDrill(published);
    expect(figures.wrongOutcome.map((f) => f.detail)).toEqual([
      'post is partially_published but its channels make it published',
      'threads sim:fail at block 2: published with 2 live, expected failed with 1 live',
    ]);

    const plain = perfect(PLAN);
    const x = plain.posts[1]?.channels[2];
    if (!x) throw new Error('fixture');
    x.status = 'failed';
    x.error = 'An earlier block is missing.';
    const found = checkDrill(plain).figures;
    expect(found.wrongOutcome.some((f) => f.detail.includes('expected published'))).toBe(true);
  });

  it('counts posts still publishing or scheduled', () => {
    const obs = perfect(PLAN);
    (obs.posts[4] as ObservedPost).status = 'publishing';
    expect(checkDrill(obs).figures.notTerminal).toEqual([{ postId: 'post_4', detail: 'still publishing' }]);
  });

  it('counts a lost event, and an event sent under two ids', () => {
    const lost = perfect(PLAN);
    lost.deliveries = lost.deliveries.filter((d) => !(d.postId === 'post_1' && d.channelId === 'ch_1_0'));
    expect(counts(checkDrill(lost).figures)).toEqual({ eventsLost: 1 });

    const twice = perfect(PLAN);
    const original = twice.deliveries.find((d) => d.postId === 'post_0') as ObservedDelivery;
    twice.deliveries.push({ ...original, eventId: 'evt_other', headerEventId: 'evt_other' });
    expect(counts(checkDrill(twice).figures)).toEqual({ eventsTwoIds: 1 });

    // The same event delivered again (same id) is at-least-once delivery, not a defect.
    const again = perfect(PLAN);
    again.deliveries.push({ ...(again.deliveries[0] as ObservedDelivery) });
    expect(counts(checkDrill(again).figures)).toEqual({});
  });

  it('expects both rounds of a post published again: the first round failure and the final success', () => {
    const obs = perfect(PLAN, [3]);
    obs.deliveries = obs.deliveries.filter((d) => !(d.postId === 'post_3' && d.type === 'post.failed'));
    const { figures } = checkDrill(obs);
    expect(counts(figures)).toEqual({ eventsLost: 1 });
    expect(figures.eventsLost[0]?.detail).toContain('first round');
  });

  it('expects one channel.needs_reconnect per channel that needs reconnecting', () => {
    const none = perfect(PLAN);
    none.deliveries = none.deliveries.filter((d) => d.type !== 'channel.needs_reconnect');
    expect(counts(checkDrill(none).figures)).toEqual({ eventsLost: 1 });
    const two = perfect(PLAN);
    two.deliveries.push(delivery('channel.needs_reconnect', null, 'ch_4_0', null));
    expect(counts(checkDrill(two).figures)).toEqual({ eventsTwoIds: 1 });
  });

  it('counts deliveries whose signature or id header is wrong', () => {
    const obs = perfect(PLAN);
    (obs.deliveries[0] as ObservedDelivery).signatureOk = false;
    (obs.deliveries[1] as ObservedDelivery).headerEventId = 'evt_else';
    expect(counts(checkDrill(obs).figures)).toEqual({ badDeliveries: 2 });
  });

  it('counts a post created twice under one Idempotency-Key, and the blocks it posted again', () => {
    const obs = perfect(PLAN);
    const copy = structuredClone(obs.posts[0] as ObservedPost);
    copy.postId = 'post_0_again';
    for (const c of copy.channels)
      for (const b of c.blocks) {
        const id = `${c.platform}_copy_${++ids}`;
        obs.network[c.platform]?.push({ kind: 'post', id, parentId: null, text: b.content });
        b.remoteId = id;
      }
    obs.posts.push(copy);
    for (const c of copy.channels)
      obs.deliveries.push(
        delivery(eventTypeFor(c.status, c.blocks.length), copy.postId, c.channelId, c.blocks.length),
      );
    const { figures } = checkDrill(obs);
    expect(figures.requestsRunTwice).toHaveLength(1);
    expect(figures.postedTwice).toHaveLength(6);
    expect(figures.postedTwice[0]?.detail).toContain('created 2 times');
    // The copy's replies point at its own first blocks, not at the thread's previous block.
    expect(figures.threadsBroken.length).toBeGreaterThan(0);
  });

  it('counts a publish run twice under one Idempotency-Key (a third round), not its events', () => {
    const obs = perfect(PLAN, [3]);
    const post = obs.posts[3] as ObservedPost;
    post.round = 3;
    expect(counts(checkDrill(obs).figures)).toEqual({ requestsRunTwice: 1 });
    const failing = perfect(PLAN, [3]);
    const again = failing.posts[3] as ObservedPost;
    again.round = 3;
    const bluesky = again.channels[0];
    if (!bluesky) throw new Error('fixture');
    // One more outcome event for the channel: the extra round explains it, a second one it does not.
    failing.deliveries.push(delivery('post.published', again.postId, bluesky.channelId, 2));
    expect(counts(checkDrill(failing).figures)).toEqual({ requestsRunTwice: 1 });
    failing.deliveries.push(delivery('post.published', again.postId, bluesky.channelId, 2));
    expect(counts(checkDrill(failing).figures)).toEqual({ requestsRunTwice: 1, eventsTwoIds: 1 });
  });

  it('counts a reply attached to the wrong parent', () => {
    const obs = perfect(PLAN);
    const third = obs.posts[0]?.channels[0]?.blocks[2]?.remoteId;
    const record = obs.network.x?.find((r) => r.id === third) as NetworkRecord;
    record.parentId = obs.posts[0]?.channels[0]?.blocks[0]?.remoteId ?? null;
    expect(counts(checkDrill(obs).figures)).toEqual({ threadsBroken: 1 });
  });

  it('counts a post answered 201 that is gone, 5xx answers and abandoned requests', () => {
    const obs = perfect(PLAN);
    obs.posts = obs.posts.filter((p) => p.postId !== 'post_2');
    obs.deliveries = obs.deliveries.filter((d) => d.postId !== 'post_2');
    for (const platform of Object.keys(obs.network))
      obs.network[platform] = obs.network[platform]?.filter((r) => parseMarker(r.text)?.post !== 2);
    obs.serverErrors.push({ method: 'GET', path: '/posts', status: 503, body: '{}' });
    obs.abandoned.push({ method: 'POST', path: '/posts', status: 0, body: 'never answered' });
    expect(counts(checkDrill(obs).figures)).toEqual({ postsLost: 1, serverErrors: 1, requestsAbandoned: 1 });
  });
});

describe('drill checks: a kill between a sim:fail-once refusal and its record', () => {
  /** Post 3's Bluesky channel (sim:fail-once on block 1 of 2), refused at T0 + 3 s in `perfect`. */
  const REFUSED = T0 + 3000;

  it('decides on the times alone: only a kill after the refusal and before the channel ended counts', () => {
    const at = (
      kills: number[],
      endedAt: number | null = REFUSED + 10_000,
      refusedAt: number | null = REFUSED,
    ) => killAfterRefusal({ refusedAt, endedAt, kills });
    expect(at([])).toBeNull();
    expect(at([REFUSED - 1])).toBeNull();
    expect(at([REFUSED])).toBeNull();
    expect(at([REFUSED + 1])).toBe(REFUSED + 1);
    expect(at([REFUSED - 5000, REFUSED + 4000, REFUSED + 6000])).toBe(REFUSED + 4000);
    expect(at([REFUSED + 10_000])).toBeNull();
    expect(at([REFUSED + 20_000])).toBeNull();
    // No refusal answered: no kill can have cut it.
    expect(at([REFUSED + 1], REFUSED + 10_000, null)).toBeNull();
    // The channel's end unknown: any kill after the refusal.
    expect(at([REFUSED + 60_000], null)).toBe(REFUSED + 60_000);

    const want: PlannedChannel = { ...channel(0, 'linkedin', 3), token: { kind: 'sim:fail-once', block: 2 } };
    const evidence = { refusedAt: REFUSED, endedAt: REFUSED + 10_000, kills: [REFUSED + 2000] };
    expect(expectedEnd(want, false, evidence)).toEqual({
      status: 'failed or published',
      live: 2,
      killedAt: REFUSED + 2000,
    });
    expect(expectedEnd(want, false, { ...evidence, kills: [REFUSED - 2000] })).toEqual({
      status: 'failed',
      live: 2,
    });
    expect(expectedEnd(want, true, evidence)).toEqual({ status: 'published' });
    // Only sim:fail-once: a sim:fail block is refused again after the restart.
    expect(expectedEnd({ ...want, token: { kind: 'sim:fail', block: 2 } }, false, evidence)).toEqual({
      status: 'failed',
      live: 2,
    });
  });

  /** Herald's side of the kill: the refusal was never recorded, the resend was accepted. */
  const resent = (obs: DrillObservations, publishedAt: number) => {
    const post = obs.posts[3] as ObservedPost;
    const bluesky = post.channels[0] as ObservedPost['channels'][number];
    const ids = ['bluesky_resent_1', 'bluesky_resent_2'];
    bluesky.blocks.forEach((block, b) => {
      block.remoteId = ids[b] ?? null;
      obs.network.bluesky?.push({
        kind: b === 0 ? 'post' : 'reply',
        id: ids[b] as string,
        parentId: b === 0 ? null : (ids[b - 1] as string),
        text: block.content,
      });
    });
    bluesky.status = 'published';
    bluesky.error = null;
    bluesky.publishedAt = iso(publishedAt);
    post.status = 'published';
    obs.deliveries = obs.deliveries.filter((d) => d.channelId !== bluesky.channelId);
    obs.deliveries.push(delivery('post.published', post.postId, bluesky.channelId, 2));
    return obs;
  };

  it('accepts the channel published, every block live once, and counts it apart', () => {
    const obs = resent(perfect(PLAN), REFUSED + 8000);
    obs.kills = [T0 - 10_000, REFUSED + 1500, T0 + 60_000];
    const { figures, info } = checkDrill(obs);
    expect(counts(figures)).toEqual({});
    expect(info.publishedAfterKill).toHaveLength(1);
    expect(info.publishedAfterKill[0]).toEqual({
      postId: 'post_3',
      detail:
        'bluesky sim:fail-once at block 1: refused at 2026-11-29T12:00:03.000Z, runtime killed at ' +
        '2026-11-29T12:00:04.500Z, published at 2026-11-29T12:00:11.000Z with 2 live',
    });
    expect(info.expectedFailures).toEqual({ 'sim:fail': 1, 'sim:reconnect': 1 });
  });

  it('still expects failed when no kill fell between the refusal and the channel publishing', () => {
    for (const kills of [[], [REFUSED - 500], [REFUSED + 9000]]) {
      const obs = resent(perfect(PLAN), REFUSED + 8000);
      obs.kills = kills;
      const { figures, info } = checkDrill(obs);
      expect(counts(figures)).toEqual({ wrongOutcome: 1 });
      expect(figures.wrongOutcome[0]?.detail).toBe(
        'bluesky sim:fail-once at block 1: published with 2 live, expected failed with 0 live',
      );
      expect(info.publishedAfterKill).toEqual([]);
    }
    // A refusal of another block (or none at all) does not excuse it either.
    const other = resent(perfect(PLAN), REFUSED + 8000);
    other.kills = [REFUSED + 1500];
    other.refusals.bluesky = [
      {
        token: 'sim:fail-once',
        content: `${blockMarker(TAG, 3, 0, 1)} words sim:fail-once`,
        at: iso(REFUSED),
      },
    ];
    expect(counts(checkDrill(other).figures)).toEqual({ wrongOutcome: 1 });
    const elsewhere = resent(perfect(PLAN), REFUSED + 8000);
    elsewhere.kills = [REFUSED + 1500];
    elsewhere.refusals = { x: elsewhere.refusals.bluesky ?? [] };
    expect(counts(checkDrill(elsewhere).figures)).toEqual({ wrongOutcome: 1 });
  });

  it('accepts failed after such a kill too (Herald recorded the refusal before it died)', () => {
    const obs = perfect(PLAN);
    obs.kills = [REFUSED + 1500];
    const { figures, info } = checkDrill(obs);
    expect(counts(figures)).toEqual({});
    expect(info.expectedFailures).toEqual({ 'sim:fail': 1, 'sim:fail-once': 1, 'sim:reconnect': 1 });
    expect(info.publishedAfterKill).toEqual([]);
  });

  it('still counts a block posted twice, or one missing, after such a kill', () => {
    const twice = resent(perfect(PLAN), REFUSED + 8000);
    twice.kills = [REFUSED + 1500];
    const first = twice.network.bluesky?.find((r) => r.id === 'bluesky_resent_1') as NetworkRecord;
    twice.network.bluesky?.push({ ...first, id: 'bluesky_resent_again' });
    expect(counts(checkDrill(twice).figures)).toEqual({ postedTwice: 1 });

    const missing = resent(perfect(PLAN), REFUSED + 8000);
    missing.kills = [REFUSED + 1500];
    missing.network.bluesky = missing.network.bluesky?.filter((r) => r.id !== 'bluesky_resent_2');
    expect(counts(checkDrill(missing).figures)).toEqual({ blocksMissing: 1 });

    // Published with a block not live: neither outcome the kill allows.
    const partial = resent(perfect(PLAN), REFUSED + 8000);
    partial.kills = [REFUSED + 1500];
    const bluesky = partial.posts[3]?.channels[0];
    if (!bluesky?.blocks[1]) throw new Error('fixture');
    bluesky.blocks[1].remoteId = null;
    partial.network.bluesky = partial.network.bluesky?.filter((r) => r.id !== 'bluesky_resent_2');
    partial.deliveries = partial.deliveries.filter((d) => d.channelId !== bluesky.channelId);
    partial.deliveries.push(delivery('post.published', 'post_3', bluesky.channelId, 1));
    const { figures } = checkDrill(partial);
    expect(counts(figures)).toEqual({ wrongOutcome: 1, blocksMissing: 1 });
    expect(figures.wrongOutcome[0]?.detail).toBe(
      'bluesky sim:fail-once at block 1: published with 1 live, expected failed with 0 live or ' +
        '(killed at 2026-11-29T12:00:04.500Z, after the refusal) published with 2 live',
    );
  });
});

describe('drill deliveries', () => {
  const secret = 'whsec_drill';
  const received = (minutesAgo: number, tamper = false) => {
    const at = Date.now() - minutesAgo * 60_000;
    const body = {
      id: 'evt_1',
      type: 'post.published',
      data: { channelId: 'ch_1', post: { id: 'post_1' }, blocksPublished: 2 },
    };
    const raw = JSON.stringify(body);
    return {
      raw: tamper ? raw.replace('ch_1', 'ch_2') : raw,
      headers: {
        'x-herald-signature': signWebhook(raw, secret, Math.floor(at / 1000)),
        'x-herald-event-id': 'evt_1',
      },
      body,
      at,
    };
  };

  it('checks the signature as of arrival, so a delivery checked ten minutes later still verifies', () => {
    expect(observeDelivery(received(10), secret)).toEqual({
      eventId: 'evt_1',
      headerEventId: 'evt_1',
      type: 'post.published',
      channelId: 'ch_1',
      postId: 'post_1',
      blocksPublished: 2,
      signatureOk: true,
    });
  });

  it('refuses a body that is not the one signed, or another secret', () => {
    expect(observeDelivery(received(0, true), secret).signatureOk).toBe(false);
    expect(observeDelivery(received(0), 'whsec_other').signatureOk).toBe(false);
  });
});

describe('drill plan', () => {
  const options = {
    seed: 42,
    posts: 300,
    channelsPerPost: 3,
    kills: 5,
    submitSeconds: 60,
    rateLimits: 3,
  };

  it('is the same for the same seed and differs for another', () => {
    expect(planDrill(options)).toEqual(planDrill(options));
    expect(planDrill({ ...options, seed: 43 }).posts).not.toEqual(planDrill(options).posts);
  });

  it('mixes threads, schedules and every sim token, with markers that trace each block', () => {
    const plan = planDrill(options);
    const channels = plan.posts.flatMap((p) => p.channels);
    expect(channels).toHaveLength(900);
    expect(channels.filter((c) => c.blocks.length > 1).length).toBeGreaterThan(200);
    expect(plan.posts.filter((p) => p.intent === 'schedule').length).toBeGreaterThan(30);
    const tokens = new Set(channels.map((c) => c.token?.kind).filter(Boolean));
    expect(tokens).toEqual(
      new Set(['sim:fail', 'sim:fail-once', 'sim:flaky', 'sim:timeout', 'sim:reconnect']),
    );
    for (const post of plan.posts) {
      expect(new Set(post.channels.map((c) => c.platform)).size).toBe(3);
      for (const c of post.channels) {
        expect(c.dedicated).toBe(c.token?.kind === 'sim:reconnect');
        c.blocks.forEach((text, b) => {
          expect(parseMarker(text)).toEqual({ tag: plan.tag, post: post.index, slot: c.slot, block: b });
          expect(text.includes('sim:')).toBe(c.token?.block === b);
        });
      }
    }
    expect(plan.kills).toHaveLength(5);
    expect(plan.kills.every((k, i) => i === 0 || k.afterPosts >= (plan.kills[i - 1]?.afterPosts ?? 0))).toBe(
      true,
    );
    expect(plan.kills.every((k) => k.afterPosts >= 1 && k.afterPosts <= 300 && k.delaySeconds < 10)).toBe(
      true,
    );
  });

  it('expects what docs/running-locally.md documents for each sim token', () => {
    const at = (kind: DrillToken, platform: DrillPlatform = 'x'): PlannedChannel => ({
      ...channel(0, platform, 3),
      token: { kind, block: 1 },
    });
    expect(expectedEnd(at('sim:fail'), true)).toEqual({ status: 'failed', live: 1 });
    expect(expectedEnd(at('sim:fail-once'), false)).toEqual({ status: 'failed', live: 1 });
    expect(expectedEnd(at('sim:fail-once'), true)).toEqual({ status: 'published' });
    expect(expectedEnd(at('sim:flaky'), false)).toEqual({ status: 'published' });
    expect(expectedEnd(at('sim:timeout'), false)).toEqual({ status: 'published' });
    expect(expectedEnd(at('sim:timeout', 'linkedin'), false)).toEqual({ status: 'published' });
    expect(expectedEnd(at('sim:reconnect'), false)).toEqual({ status: 'failed', live: 1 });
  });
});
