/**
 * The reliability drill's plan and its checks, kept free of I/O so they can be tested on synthetic
 * data (test/unit/drill-checks.test.ts): a seeded load plan, then the figures computed from what
 * the drill observed at the end (Herald's posts, the simulators' inspection logs, the webhook
 * deliveries, the HTTP answers). Every figure counts a defect; what the documented behaviour makes
 * expected (a `sim:` refusal, LinkedIn's unconfirmed outcome) is counted apart, as information.
 */
import { getPlatform } from '../functions/domain/platforms/catalog.ts';
import { verifyWebhook } from '../functions/shared/verify-webhook.ts';

export const DRILL_PLATFORMS = ['x', 'bluesky', 'linkedin', 'threads', 'facebook'] as const;
export type DrillPlatform = (typeof DRILL_PLATFORMS)[number];

export const DRILL_TOKENS = [
  'sim:fail',
  'sim:fail-once',
  'sim:flaky',
  'sim:timeout',
  'sim:reconnect',
] as const;
export type DrillToken = (typeof DRILL_TOKENS)[number];

/** mulberry32: a small seeded PRNG, so `--seed` replays the same plan. */
export const prng = (seed: number) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (min: number, max: number) => min + next() * (max - min),
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
};

export interface PlannedChannel {
  /** Position of the channel in the post (the `c` of the block markers). */
  slot: number;
  platform: DrillPlatform;
  /** A channel connected for this post only: `sim:reconnect` marks its channel needs_reconnect. */
  dedicated: boolean;
  blocks: string[];
  token: { kind: DrillToken; block: number } | null;
}

export interface PlannedPost {
  index: number;
  /** Seconds after the start of the load when the drill submits it. */
  submitAt: number;
  /** `schedule`: scheduledAt is `scheduleAhead` seconds after the moment it is submitted. */
  intent: 'now' | 'schedule';
  scheduleAhead: number | null;
  channels: PlannedChannel[];
}

/**
 * A kill is placed by progress, not by the clock, so it lands inside the load however slow the
 * machine is: once `afterPosts` posts have been submitted (all of them for the kills planned after
 * the load), `delaySeconds` later, and never before the runtime has served for a second.
 */
export interface KillPlan {
  afterPosts: number;
  delaySeconds: number;
  /** How long the runtime stays down before the restart. */
  downSeconds: number;
}

export interface RateLimitPlan {
  /** Placed by progress, like the kills. */
  afterPosts: number;
  platform: DrillPlatform;
  seconds: number;
  /**
   * The simulator's short throttle or its spent daily cap (each network answers them its own way:
   * announced resets, or none, as LinkedIn and Meta's app limit). Taken from the window's place,
   * not the random stream, so a seed's plan is the same as before the two kinds existed.
   */
  kind: 'short' | 'daily';
}

export interface DrillPlan {
  seed: number;
  tag: string;
  posts: PlannedPost[];
  kills: KillPlan[];
  rateLimits: RateLimitPlan[];
  submitSeconds: number;
}

export interface PlanOptions {
  seed: number;
  posts: number;
  channelsPerPost: number;
  kills: number;
  /** The window over which the posts are submitted. */
  submitSeconds: number;
  rateLimits: number;
}

/** A block's marker: `<tag>-p<post>c<channel>b<block>`, how a network record is traced to its block. */
export const blockMarker = (tag: string, post: number, slot: number, block: number) =>
  `${tag}-p${post}c${slot}b${block}`;

const MARKER = /\b(dr[0-9a-z]+)-p(\d+)c(\d+)b(\d+)\b/;

export const parseMarker = (text: string | null | undefined) => {
  const match = MARKER.exec(text ?? '');
  if (!match) return null;
  return { tag: match[1] as string, post: Number(match[2]), slot: Number(match[3]), block: Number(match[4]) };
};

const WORDS = [
  'launch',
  'notes',
  'spring',
  'update',
  'team',
  'roadmap',
  'thanks',
  'release',
  'ideas',
  'week',
];

/** Shares of channels that carry a sim token, per token (sim:reconnect goes to dedicated channels). */
const TOKEN_SHARES: [DrillToken, number][] = [
  ['sim:fail', 0.025],
  ['sim:fail-once', 0.02],
  ['sim:flaky', 0.025],
  ['sim:timeout', 0.025],
  ['sim:reconnect', 0.006],
];

export const planDrill = (options: PlanOptions): DrillPlan => {
  const random = prng(options.seed);
  const tag = `dr${(options.seed >>> 0).toString(36)}`;
  const posts: PlannedPost[] = [];
  for (let index = 0; index < options.posts; index++) {
    const platforms = [...DRILL_PLATFORMS];
    const channels: PlannedChannel[] = [];
    for (let slot = 0; slot < Math.min(options.channelsPerPost, platforms.length); slot++) {
      const platform = platforms.splice(Math.floor(random.next() * platforms.length), 1)[0] as DrillPlatform;
      const roll = random.next();
      const count = roll < 0.5 ? 1 : roll < 0.75 ? 2 : 3;
      let token: PlannedChannel['token'] = null;
      let threshold = random.next();
      for (const [kind, share] of TOKEN_SHARES) {
        if (threshold < share) {
          token = { kind, block: random.int(0, count - 1) };
          break;
        }
        threshold -= share;
      }
      const blocks = Array.from({ length: count }, (_, b) => {
        const words = Array.from({ length: 4 }, () => random.pick(WORDS)).join(' ');
        const sim = token && token.block === b ? ` ${token.kind}` : '';
        return `${blockMarker(tag, index, slot, b)} ${words}${sim}`;
      });
      channels.push({ slot, platform, dedicated: token?.kind === 'sim:reconnect', blocks, token });
    }
    const scheduled = random.chance(0.25);
    posts.push({
      index,
      submitAt: (index / Math.max(1, options.posts)) * options.submitSeconds,
      intent: scheduled ? 'schedule' : 'now',
      scheduleAhead: scheduled ? Math.round(random.between(6, 25)) : null,
      channels,
    });
  }
  // About one kill in six lands after the last submission, among the publishing and webhook tail.
  const kills = Array.from({ length: options.kills }, () => random.between(0.03, 1.2))
    .sort((a, b) => a - b)
    .map((share) => ({
      afterPosts: Math.min(options.posts, Math.ceil(share * options.posts)),
      delaySeconds: share > 1 ? (share - 1) * 40 : random.between(0, 2),
      downSeconds: random.between(0, 1.5),
    }));
  const rateLimits = Array.from({ length: options.rateLimits }, () => ({
    afterPosts: random.int(1, Math.max(1, options.posts - 1)),
    platform: random.pick(DRILL_PLATFORMS),
    seconds: random.int(1, 3),
  }))
    .map((window) => ({
      ...window,
      kind: window.afterPosts % 2 === 0 ? ('daily' as const) : ('short' as const),
    }))
    .sort((a, b) => a.afterPosts - b.afterPosts);
  return { seed: options.seed, tag, posts, kills, rateLimits, submitSeconds: options.submitSeconds };
};

// ---------------------------------------------------------------- observations

export interface ObservedBlock {
  content: string;
  remoteId: string | null;
}

export interface ObservedChannel {
  channelId: string;
  platform: string;
  status: string;
  error: string | null;
  blocks: ObservedBlock[];
  /** When the channel reached published (stored); absent or null when it did not, or is unknown. */
  publishedAt?: string | null;
}

/** A post as Herald stores it at the end (status from the API, remote ids and round from the table). */
export interface ObservedPost {
  postId: string;
  status: string;
  /** Publication rounds started (1 + accepted POST /publish). */
  round: number;
  channels: ObservedChannel[];
}

/** What the listing showed when the drill published a `sim:fail-once` post again: its first round's end. */
export interface RoundOneSnapshot {
  postId: string;
  channels: { channelId: string; status: string; live: number }[];
}

/** One entry of a simulator's inspection log. */
export interface NetworkRecord {
  kind: string;
  id: string;
  parentId?: string | null;
  text: string | null;
  at?: string;
}

/** A refusal a simulator answered because of a sim token (its `GET /_sim/refusals`). */
export interface NetworkRefusal {
  token: string;
  content: string;
  /** ISO 8601 time the simulator refused. */
  at: string;
}

/** One webhook POST the drill's receiver got. */
export interface ObservedDelivery {
  eventId: string;
  type: string;
  channelId: string | null;
  postId: string | null;
  blocksPublished: number | null;
  signatureOk: boolean;
  /** The `x-herald-event-id` header, which must equal the body's id. */
  headerEventId: string | null;
}

/** A request as the receiver recorded it. */
export interface ReceivedRequest {
  raw: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Arrival, ms since the epoch. */
  at: number;
}

/** A received webhook, its signature checked as a receiver does on arrival (the tolerance counts from then). */
export const observeDelivery = (request: ReceivedRequest, secret: string): ObservedDelivery => {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? null);
  };
  const data = request.body?.data;
  return {
    eventId: request.body?.id ?? '',
    type: request.body?.type ?? '',
    channelId: data?.channelId ?? null,
    postId: data?.post?.id ?? data?.postId ?? null,
    blocksPublished: data?.blocksPublished ?? null,
    signatureOk: verifyWebhook(
      request.raw,
      header('x-herald-signature'),
      [secret],
      300,
      Math.floor(request.at / 1000),
    ),
    headerEventId: header('x-herald-event-id'),
  };
};

export interface HttpAnswer {
  method: string;
  path: string;
  status: number;
  body: string;
}

export interface DrillObservations {
  plan: DrillPlan;
  /** Every post of the drill's workspace (the listing), with its stored detail. */
  posts: ObservedPost[];
  /** Plan index → post ids the create answered (201) for it. */
  created: Map<number, string>;
  /** Plan indexes the drill gave up creating, with the reason. */
  notCreated: Map<number, string>;
  roundOne: RoundOneSnapshot[];
  network: Partial<Record<string, NetworkRecord[]>>;
  /** The simulators' sim-token refusals, per network. */
  refusals: Partial<Record<string, NetworkRefusal[]>>;
  /** When the drill killed the runtime (the child had exited), ms since the epoch. */
  kills: number[];
  deliveries: ObservedDelivery[];
  /** Channels (of the workspace) whose status is needs_reconnect at the end. */
  needsReconnect: string[];
  /** Every 5xx the drill's client got. */
  serverErrors: HttpAnswer[];
  /** Requests the drill gave up on (no answer within its budget, or an answer it did not expect). */
  abandoned: HttpAnswer[];
}

export interface Finding {
  postId?: string;
  detail: string;
}

/** The defect figures: every one is expected to be zero. */
export interface DrillFigures {
  notTerminal: Finding[];
  wrongOutcome: Finding[];
  postedTwice: Finding[];
  blocksMissing: Finding[];
  blocksUnreported: Finding[];
  threadsBroken: Finding[];
  eventsLost: Finding[];
  eventsTwoIds: Finding[];
  badDeliveries: Finding[];
  serverErrors: Finding[];
  requestsRunTwice: Finding[];
  postsLost: Finding[];
  requestsAbandoned: Finding[];
}

/** Counts of what the documented behaviour makes expected: shown, never a defect. */
export interface DrillInfo {
  posts: number;
  channels: number;
  blocks: number;
  blocksOnNetworks: number;
  expectedFailures: Record<string, number>;
  republished: number;
  /**
   * `sim:fail-once` channels that ended published, every block live, because the runtime was
   * killed between the network's refusal and Herald's record of it: the lookup after the restart
   * found nothing, the block was sent again, and the network (its one refusal spent) took it.
   */
  publishedAfterKill: Finding[];
  deliveries: number;
  distinctEvents: number;
  /** Plan posts that never became a Herald post, by reason. */
  notCreated: Record<string, number>;
}

export const FIGURE_LABELS: Record<keyof DrillFigures, string> = {
  notTerminal: 'posts not in a terminal state',
  wrongOutcome: 'channels (or posts) with a wrong outcome',
  postedTwice: 'blocks posted twice',
  blocksMissing: 'blocks missing (published, not on the network)',
  blocksUnreported: 'blocks on a network that Herald does not report',
  threadsBroken: 'blocks attached to the wrong parent',
  eventsLost: 'webhook events lost',
  eventsTwoIds: 'webhook events delivered with two ids',
  badDeliveries: 'deliveries with a bad signature or id header',
  serverErrors: '5xx answers seen by the client',
  requestsRunTwice: 'requests run twice under one Idempotency-Key',
  postsLost: 'posts lost after a 201',
  requestsAbandoned: 'requests abandoned by the client',
};

const TERMINAL = new Set(['published', 'partially_published', 'failed']);
const CREATION_KINDS = new Set(['post', 'reply', 'comment']);

const live = (channel: ObservedChannel) => channel.blocks.filter((b) => b.remoteId !== null).length;

/** The post status Herald's rule gives for these channels (spec 3). */
export const statusFor = (channels: ObservedChannel[]): string => {
  if (channels.some((c) => !TERMINAL.has(c.status))) return 'publishing';
  const published = channels.filter((c) => c.status === 'published').length;
  if (published === channels.length) return 'published';
  return published > 0 || channels.some((c) => live(c) > 0) ? 'partially_published' : 'failed';
};

/** The event type a finished channel produces. */
export const eventTypeFor = (status: string, blocksLive: number) =>
  status === 'published' ? 'post.published' : blocksLive > 0 ? 'post.partially_failed' : 'post.failed';

/**
 * What the drill knows of a `sim:fail-once` channel's first round: when the network refused the
 * token's block, when the channel ended, when the runtime was killed (all ms since the epoch).
 */
export interface FailOnceEvidence {
  /** The simulator's refusal of the token's block; null when it never refused it. */
  refusedAt: number | null;
  /** When the channel reached published; null when it did not or is not known (then: the run's end). */
  endedAt: number | null;
  kills: readonly number[];
}

/** The first kill after the refusal and before the channel's end, if any. */
export const killAfterRefusal = (evidence: FailOnceEvidence): number | null => {
  const { refusedAt, endedAt } = evidence;
  if (refusedAt === null) return null;
  return evidence.kills.find((kill) => kill > refusedAt && (endedAt === null || kill < endedAt)) ?? null;
};

export type ExpectedEnd =
  | { status: 'published' }
  | { status: 'failed'; live: number }
  /**
   * A `sim:fail-once` channel whose refusal a kill may have cut from Herald's record: failed with
   * `live` blocks out if Herald recorded the refusal before the kill, else published (the lookup
   * after the restart found nothing and the resend was accepted), every block live once.
   */
  | { status: 'failed or published'; live: number; killedAt: number };

/**
 * Where a planned channel must end: published, or failed with exactly `live` blocks out, or (a
 * `sim:fail-once` channel with a kill between the refusal and the channel's end) either.
 */
export const expectedEnd = (
  planned: PlannedChannel,
  republished: boolean,
  evidence?: FailOnceEvidence,
): ExpectedEnd => {
  const token = planned.token;
  if (!token) return { status: 'published' };
  switch (token.kind) {
    case 'sim:flaky':
      return { status: 'published' };
    case 'sim:timeout':
      // Every network's client looks a lost block up before any resend: it ends published.
      return { status: 'published' };
    case 'sim:fail-once': {
      if (republished) return { status: 'published' };
      const killedAt = evidence ? killAfterRefusal(evidence) : null;
      return killedAt === null
        ? { status: 'failed', live: token.block }
        : { status: 'failed or published', live: token.block, killedAt };
    }
    case 'sim:fail':
    case 'sim:reconnect':
      return { status: 'failed', live: token.block };
  }
};

const channelIndex = (channel: ObservedChannel) => parseMarker(channel.blocks[0]?.content)?.slot ?? null;
const postIndex = (post: ObservedPost) => parseMarker(post.channels[0]?.blocks[0]?.content)?.post ?? null;

export const checkDrill = (obs: DrillObservations): { figures: DrillFigures; info: DrillInfo } => {
  const figures: DrillFigures = {
    notTerminal: [],
    wrongOutcome: [],
    postedTwice: [],
    blocksMissing: [],
    blocksUnreported: [],
    threadsBroken: [],
    eventsLost: [],
    eventsTwoIds: [],
    badDeliveries: [],
    serverErrors: [],
    requestsRunTwice: [],
    postsLost: [],
    requestsAbandoned: [],
  };
  const info: DrillInfo = {
    posts: obs.posts.length,
    channels: 0,
    blocks: 0,
    blocksOnNetworks: 0,
    expectedFailures: {},
    republished: obs.roundOne.length,
    publishedAfterKill: [],
    deliveries: obs.deliveries.length,
    distinctEvents: new Set(obs.deliveries.map((d) => d.eventId)).size,
    notCreated: {},
  };
  for (const reason of obs.notCreated.values()) {
    const key = /^(\d|no answer)/.test(reason) ? 'the client gave up (see requests abandoned)' : reason;
    info.notCreated[key] = (info.notCreated[key] ?? 0) + 1;
  }
  const planned = new Map(obs.plan.posts.map((p) => [p.index, p]));
  /** `platform|post/slot/block` → when the simulator first refused that block for `sim:fail-once`. */
  const refusedAt = new Map<string, number>();
  for (const [platform, refusals] of Object.entries(obs.refusals)) {
    for (const refusal of refusals ?? []) {
      const marker = parseMarker(refusal.content);
      if (refusal.token !== 'sim:fail-once' || marker?.tag !== obs.plan.tag) continue;
      const key = `${platform}|${marker.post}/${marker.slot}/${marker.block}`;
      const at = Date.parse(refusal.at);
      if (!refusedAt.has(key) || at < (refusedAt.get(key) as number)) refusedAt.set(key, at);
    }
  }
  const roundOne = new Map(obs.roundOne.map((s) => [s.postId, s]));

  // Herald posts per plan index: more than one means a create ran twice.
  const byIndex = new Map<number, ObservedPost[]>();
  for (const post of obs.posts) {
    const index = postIndex(post);
    if (index === null || !planned.has(index)) {
      figures.requestsRunTwice.push({ postId: post.postId, detail: 'a post the drill never planned' });
      continue;
    }
    byIndex.set(index, [...(byIndex.get(index) ?? []), post]);
  }
  for (const [index, posts] of byIndex) {
    if (posts.length > 1)
      figures.requestsRunTwice.push({
        postId: posts.map((p) => p.postId).join(', '),
        detail: `plan post ${index} exists ${posts.length} times`,
      });
  }
  for (const [index, postId] of obs.created) {
    if (!(byIndex.get(index) ?? []).some((p) => p.postId === postId))
      figures.postsLost.push({ postId, detail: `plan post ${index} was answered 201 but is not listed` });
  }

  // Channel outcomes.
  for (const post of obs.posts) {
    const plan = planned.get(postIndex(post) ?? -1);
    info.channels += post.channels.length;
    if (!TERMINAL.has(post.status)) {
      figures.notTerminal.push({ postId: post.postId, detail: `still ${post.status}` });
      continue;
    }
    const expectedStatus = statusFor(post.channels);
    if (expectedStatus !== post.status)
      figures.wrongOutcome.push({
        postId: post.postId,
        detail: `post is ${post.status} but its channels make it ${expectedStatus}`,
      });
    const snapshot = roundOne.get(post.postId);
    const republished = snapshot !== undefined && post.round >= 2;
    const roundsAsked = snapshot ? 2 : 1;
    if (post.round > roundsAsked)
      figures.requestsRunTwice.push({
        postId: post.postId,
        detail: `${post.round} publication rounds ran; the drill asked for ${roundsAsked} (POST /publish ran again)`,
      });
    for (const channel of post.channels) {
      info.blocks += channel.blocks.length;
      const slot = channelIndex(channel);
      const want = plan?.channels.find((c) => c.slot === slot);
      if (!want) continue;
      const blocksLive = live(channel);
      const refusal =
        plan && want.token?.kind === 'sim:fail-once'
          ? (refusedAt.get(`${want.platform}|${plan.index}/${want.slot}/${want.token.block}`) ?? null)
          : null;
      const end = expectedEnd(want, republished, {
        refusedAt: refusal,
        endedAt: channel.publishedAt ? Date.parse(channel.publishedAt) : null,
        kills: obs.kills,
      });
      const label = `${channel.platform} ${want.token?.kind ?? 'no token'}${want.token ? ` at block ${want.token.block + 1}` : ''}`;
      if (
        end.status === 'failed or published' &&
        channel.status === 'published' &&
        blocksLive === channel.blocks.length
      ) {
        // Nothing posted twice, nothing missing: the blocks' own figures below still say so.
        info.publishedAfterKill.push({
          postId: post.postId,
          detail: `${label}: refused at ${new Date(refusal as number).toISOString()}, runtime killed at ${new Date(
            end.killedAt,
          ).toISOString()}, published at ${channel.publishedAt ?? 'an unknown time'} with ${blocksLive} live`,
        });
      } else if (end.status === 'published') {
        if (channel.status !== 'published')
          figures.wrongOutcome.push({
            postId: post.postId,
            detail: `${label}: ${channel.status} (${blocksLive}/${channel.blocks.length} live), expected published; error: ${channel.error}`,
          });
      } else if (channel.status !== 'failed' || blocksLive !== end.live) {
        figures.wrongOutcome.push({
          postId: post.postId,
          detail: `${label}: ${channel.status} with ${blocksLive} live, expected failed with ${end.live} live${
            end.status === 'failed or published'
              ? ` or (killed at ${new Date(end.killedAt).toISOString()}, after the refusal) published with ${channel.blocks.length} live`
              : ''
          }`,
        });
      } else {
        const key = want.token?.kind ?? 'none';
        info.expectedFailures[key] = (info.expectedFailures[key] ?? 0) + 1;
      }
    }
  }

  // Blocks against the networks' logs.
  const recordsById = new Map<string, Map<string, NetworkRecord>>();
  const deleted = new Set<string>();
  const byMarker = new Map<string, { platform: string; record: NetworkRecord }[]>();
  for (const [platform, records] of Object.entries(obs.network)) {
    const ids = new Map<string, NetworkRecord>();
    for (const record of records ?? []) {
      if (record.kind === 'delete') deleted.add(`${platform}|${record.id}`);
      if (!CREATION_KINDS.has(record.kind)) continue;
      ids.set(record.id, record);
      info.blocksOnNetworks++;
      const marker = parseMarker(record.text);
      const key = marker
        ? `${marker.post}/${marker.slot}/${marker.block}`
        : `unmarked/${platform}/${record.id}/${record.text}`;
      byMarker.set(key, [...(byMarker.get(key) ?? []), { platform, record }]);
    }
    recordsById.set(platform, ids);
  }
  /** Herald's blocks per marker key: where each planned block ended up. */
  const heraldBlocks = new Map<string, { post: ObservedPost; channel: ObservedChannel; block: number }[]>();
  for (const post of obs.posts) {
    for (const channel of post.channels) {
      channel.blocks.forEach((block, b) => {
        const marker = parseMarker(block.content);
        if (!marker) return;
        const key = `${marker.post}/${marker.slot}/${marker.block}`;
        heraldBlocks.set(key, [...(heraldBlocks.get(key) ?? []), { post, channel, block: b }]);
      });
      const continuation = getPlatform(channel.platform)?.limits.continuation ?? null;
      const records = recordsById.get(channel.platform) ?? new Map<string, NetworkRecord>();
      channel.blocks.forEach((block, b) => {
        if (block.remoteId === null) {
          if (channel.status === 'published')
            figures.blocksMissing.push({
              postId: post.postId,
              detail: `${channel.platform} block ${b + 1}: channel published, block has no remote id`,
            });
          return;
        }
        const record = records.get(block.remoteId);
        if (!record || deleted.has(`${channel.platform}|${block.remoteId}`)) {
          figures.blocksMissing.push({
            postId: post.postId,
            detail: `${channel.platform} block ${b + 1}: ${block.remoteId} is not on the network`,
          });
          return;
        }
        const marker = parseMarker(block.content);
        const recorded = parseMarker(record.text);
        if (
          !marker ||
          !recorded ||
          marker.post !== recorded.post ||
          marker.slot !== recorded.slot ||
          marker.block !== recorded.block
        ) {
          figures.blocksMissing.push({
            postId: post.postId,
            detail: `${channel.platform} block ${b + 1}: ${block.remoteId} holds another text (${record.text})`,
          });
          return;
        }
        if (b > 0) {
          const parent = channel.blocks[continuation === 'reply' ? b - 1 : 0]?.remoteId ?? null;
          if ((record.parentId ?? null) !== parent)
            figures.threadsBroken.push({
              postId: post.postId,
              detail: `${channel.platform} block ${b + 1}: attached to ${record.parentId ?? 'nothing'}, expected ${parent}`,
            });
        }
      });
    }
  }
  for (const [key, found] of byMarker) {
    const holders = heraldBlocks.get(key) ?? [];
    const postIds = [...new Set(holders.map((h) => h.post.postId))].join(', ') || undefined;
    if (found.length > 1) {
      const heraldPosts = new Set(holders.map((h) => h.post.postId)).size;
      figures.postedTwice.push({
        ...(postIds ? { postId: postIds } : {}),
        detail: `block ${key} (post/channel/block) is on ${found[0]?.platform} ${found.length} times: ${found
          .map((f) => `${f.record.id}${f.record.at ? ` at ${f.record.at}` : ''}`)
          .join(', ')}${heraldPosts > 1 ? ` (the post was created ${heraldPosts} times)` : ''}`,
      });
    }
    const reported = found.some((f) =>
      holders.some(
        (h) => h.channel.platform === f.platform && h.channel.blocks[h.block]?.remoteId === f.record.id,
      ),
    );
    if (reported) continue;
    figures.blocksUnreported.push({
      ...(postIds ? { postId: postIds } : {}),
      detail: `block ${key} is on ${found[0]?.platform} as ${found.map((f) => f.record.id).join(', ')}, but ${
        holders.length === 0
          ? 'no Herald post holds it'
          : holders
              .map(
                (h) =>
                  `Herald shows the channel ${h.channel.status} with block ${h.block + 1} not live (${h.channel.error ?? 'no error'})`,
              )
              .join('; ')
      }`,
    });
  }

  // Webhook events.
  const events = new Map<string, ObservedDelivery>();
  for (const delivery of obs.deliveries) {
    if (!delivery.signatureOk || delivery.headerEventId !== delivery.eventId)
      figures.badDeliveries.push({
        ...(delivery.postId ? { postId: delivery.postId } : {}),
        detail: `${delivery.type} ${delivery.eventId}: ${delivery.signatureOk ? `id header ${delivery.headerEventId}` : 'signature does not verify'}`,
      });
    if (!events.has(delivery.eventId)) events.set(delivery.eventId, delivery);
  }
  const eventsByChannel = new Map<string, ObservedDelivery[]>();
  const reconnectEvents = new Map<string, ObservedDelivery[]>();
  for (const event of events.values()) {
    if (event.type === 'channel.needs_reconnect') {
      const key = event.channelId ?? '?';
      reconnectEvents.set(key, [...(reconnectEvents.get(key) ?? []), event]);
      continue;
    }
    const key = `${event.postId}|${event.channelId}`;
    eventsByChannel.set(key, [...(eventsByChannel.get(key) ?? []), event]);
  }
  const seenPosts = new Set<string>();
  for (const post of obs.posts) {
    seenPosts.add(post.postId);
    if (!TERMINAL.has(post.status)) continue;
    const snapshot = roundOne.get(post.postId);
    for (const channel of post.channels) {
      const expected: { type: string; blocksPublished: number; what: string }[] = [];
      const first = snapshot?.channels.find((c) => c.channelId === channel.channelId);
      if (snapshot && post.round >= 2 && first && first.status !== 'published') {
        expected.push({
          type: eventTypeFor(first.status, first.live),
          blocksPublished: first.live,
          what: 'first round',
        });
      }
      expected.push({
        type: eventTypeFor(channel.status, live(channel)),
        blocksPublished: live(channel),
        what: 'final outcome',
      });
      const got = [...(eventsByChannel.get(`${post.postId}|${channel.channelId}`) ?? [])];
      for (const want of expected) {
        const at = got.findIndex((e) => e.type === want.type && e.blocksPublished === want.blocksPublished);
        if (at >= 0) got.splice(at, 1);
        else
          figures.eventsLost.push({
            postId: post.postId,
            detail: `${channel.platform} ${want.what}: no ${want.type} (blocksPublished ${want.blocksPublished}) received`,
          });
      }
      // Rounds beyond those asked (counted above) legitimately finish the channel again.
      const unasked = Math.max(0, post.round - (snapshot ? 2 : 1));
      for (const extra of got.slice(unasked))
        figures.eventsTwoIds.push({
          postId: post.postId,
          detail: `${channel.platform}: ${extra.type} ${extra.eventId} beyond the ${expected.length} expected (${(
            eventsByChannel.get(`${post.postId}|${channel.channelId}`) ?? []
          )
            .map((e) => `${e.type} ${e.eventId}`)
            .join(', ')})`,
        });
    }
  }
  for (const [key, got] of eventsByChannel) {
    const postId = key.split('|')[0] as string;
    if (!seenPosts.has(postId))
      figures.eventsTwoIds.push({
        postId,
        detail: `events about a post that is not in the workspace: ${got.map((e) => e.eventId).join(', ')}`,
      });
  }
  for (const channelId of obs.needsReconnect) {
    const got = reconnectEvents.get(channelId) ?? [];
    if (got.length === 0)
      figures.eventsLost.push({
        detail: `channel ${channelId} needs reconnecting: no channel.needs_reconnect`,
      });
    if (got.length > 1)
      figures.eventsTwoIds.push({
        detail: `channel ${channelId}: channel.needs_reconnect ${got.length} times (${got.map((e) => e.eventId).join(', ')})`,
      });
  }
  for (const [channelId, got] of reconnectEvents) {
    if (!obs.needsReconnect.includes(channelId))
      figures.eventsTwoIds.push({
        detail: `channel.needs_reconnect for ${channelId}, which is connected (${got.map((e) => e.eventId).join(', ')})`,
      });
  }

  for (const answer of obs.serverErrors)
    figures.serverErrors.push({
      detail: `${answer.method} ${answer.path} → ${answer.status} ${answer.body}`,
    });
  for (const answer of obs.abandoned)
    figures.requestsAbandoned.push({
      detail: `${answer.method} ${answer.path} → ${answer.status || 'no answer'} ${answer.body}`,
    });

  return { figures, info };
};

export const defectCount = (figures: DrillFigures) =>
  Object.values(figures).reduce((sum, list) => sum + list.length, 0);
