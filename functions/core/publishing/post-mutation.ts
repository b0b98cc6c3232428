import { ApiError } from '../../domain/errors.ts';
import { isChannelLive, type PostChannel, type PostRecord } from '../../domain/post.ts';
import { queuedEvents, withEvents } from '../../domain/timeline.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MetricsTracker } from '../../ports/metrics.ts';
import type { RemoteBlock } from '../../ports/network-client.ts';
import type { PostStore, PostWriteExtras, TrackingStart } from '../../ports/posts.ts';
import { usagePeriod } from '../posts/post-context.ts';

/** The reads and writes a post mutation needs. */
export interface MutationDeps {
  posts: Pick<PostStore, 'get' | 'replace'>;
  clock: Clock;
}

export class PostGoneError extends Error {
  constructor(postId: string) {
    super(`Post ${postId} no longer exists`);
    this.name = 'PostGoneError';
  }
}

/** The latest version of a post this process read or wrote, shared by the writes of one job. */
export interface HeldPost {
  post: PostRecord;
}

/** A change to a post (null: nothing to write) and what commits with it; `at` is the write's `updatedAt`. */
export type PostChange = (
  post: PostRecord,
  at: string,
) => { next: PostRecord; extras?: PostWriteExtras } | null;
/** The post as written (or as read, when the change wrote nothing) and what committed with it. */
export type Written = { post: PostRecord; extras: PostWriteExtras | undefined };

/**
 * Serialises the writes of one engine to one post; other engines and processes are kept out by
 * the version check.
 */
export class PostLocks {
  private readonly locks = new Map<string, Promise<unknown>>();

  async run<T>(postId: string, run: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(postId) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(run);
    this.locks.set(postId, current);
    try {
      return await current;
    } finally {
      if (this.locks.get(postId) === current) this.locks.delete(postId);
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `next` as the write that replaces `current` at `at` stores it (what its events must show). */
export const writtenAs = (next: PostRecord, current: PostRecord, at: string): PostRecord => ({
  ...next,
  version: current.version + 1,
  updatedAt: at,
});

/**
 * Applies `change` to the current post and writes it if nobody wrote in between, re-reading and
 * re-applying on a conflict. `change` returns null when there is nothing to write.
 *
 * With `held`, the first attempt starts from the held copy instead of reading the post again (the
 * version condition still refuses the write if anybody wrote since); a decision to write nothing
 * is only ever taken on a post read just now. `held` follows every read and write. With `locks`,
 * the write waits for this engine's other writes to the post.
 */
export const mutatePost = (
  deps: MutationDeps,
  postId: string,
  change: PostChange,
  held?: HeldPost,
  locks?: PostLocks,
): Promise<Written> =>
  locks
    ? locks.run(postId, () => mutateLocked(deps, postId, change, held))
    : mutateLocked(deps, postId, change, held);

/** `mutatePost` for a caller that holds the post's lock. */
export const mutateLocked = async (
  deps: MutationDeps,
  postId: string,
  change: PostChange,
  held?: HeldPost,
): Promise<Written> => {
  let copy: PostRecord | null = held?.post.postId === postId ? held.post : null;
  for (let attempt = 1; ; attempt++) {
    const current = copy ?? (await deps.posts.get(postId));
    const read = copy === null;
    copy = null;
    if (!current) throw new PostGoneError(postId);
    if (held && read) held.post = current;
    const at = deps.clock.now().toISOString();
    const result = change(current, at);
    if (!result) {
      if (read) return { post: current, extras: undefined };
      continue;
    }
    const next = writtenAs(result.next, current, at);
    try {
      await deps.posts.replace(current, next, result.extras);
      if (held) held.post = next;
      return { post: next, extras: result.extras };
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict' && attempt < 20) {
        // A held copy that was out of date costs one refused write, no wait.
        if (!read) continue;
        await sleep(Math.random() * 10 * attempt);
        continue;
      }
      throw error;
    }
  }
};

/**
 * A channel that made progress is no longer waiting: its count of consecutive unannounced rate
 * limits and its retry note go (only when present, so a block's write carries nothing more).
 */
export const progressed = (channel: PostChannel): PostChannel => {
  if (channel.rateLimitProbes === undefined && channel.retryAt === undefined) return channel;
  const {
    rateLimitProbes: _probes,
    rateLimitResetBy: _resetBy,
    retryAt: _at,
    retryReason: _why,
    ...rest
  } = channel;
  return rest;
};

/** Marks the post as publishing for a new round: every channel not yet published starts again. */
export const startRound = (post: PostRecord, now: Date): PostRecord => {
  const round = (post.round ?? 0) + 1;
  const next: PostRecord = {
    ...post,
    status: 'publishing',
    round,
    roundStartedAt: now.toISOString(),
    channels: post.channels.map((channel) =>
      channel.status === 'published'
        ? channel
        : // A rate limit's reset still holds; the new round's first job takes the next step of the wait.
          { ...progressed(channel), status: 'publishing', error: null, attempts: 0, rateLimitStepAt: null },
    ),
  };
  // The first round's start is read from the post (`roundStartedAt`); a later one's is recorded.
  return round > 1 ? withEvents(next, queuedEvents(next, now)) : next;
};

export const isTerminal = (channel: PostChannel) =>
  channel.status === 'published' || channel.status === 'failed';
export const blocksPublished = (channel: PostChannel) =>
  channel.blocks.filter((b) => b.remoteId !== null).length;
export const remoteOf = (block: PostChannel['blocks'][number]): RemoteBlock | null =>
  block.remoteId && block.remoteUrl
    ? { remoteId: block.remoteId, remoteUrl: block.remoteUrl, meta: block.remoteMeta ?? {} }
    : null;

/** The final status of a post whose channels are all done (spec 3). */
export const finalStatus = (channels: PostChannel[]): PostRecord['status'] => {
  const published = channels.filter((c) => c.status === 'published').length;
  if (published === channels.length) return 'published';
  return published > 0 || channels.some((c) => blocksPublished(c) > 0) ? 'partially_published' : 'failed';
};

/** The metrics tracker a channel starts with once live (null: none). */
export type TrackerFor = (post: PostRecord, channelId: string) => MetricsTracker | null;

/**
 * The metrics tracking of a channel that `next` makes live over `current`: it counts the post when
 * no other channel of it was live, and its network when no other channel of the post on it was.
 */
const trackingStart = (
  trackerFor: TrackerFor | undefined,
  current: PostRecord,
  next: PostRecord,
  channelId: string,
): TrackingStart | null => {
  const tracker = trackerFor?.(next, channelId);
  if (!tracker) return null;
  const liveBefore = current.channels.filter((c) => c.channelId !== channelId && isChannelLive(c));
  return {
    tracker,
    countPost: liveBefore.length === 0,
    countPlatform: !liveBefore.some((c) => c.platform === tracker.platform),
  };
};

/**
 * The post with block `b` of the channel live at `remote`. When it is the channel's first block,
 * the channel goes live (`isChannelLive`): the same write starts its metrics tracking (with
 * `trackerFor`), which counts it in the stats, and counts the post in posts.published if it is the
 * post's first live channel (live keys only). null when already recorded.
 */
export const applyBlock = (
  post: PostRecord,
  channelId: string,
  b: number,
  remote: RemoteBlock,
  now: Date,
  trackerFor?: TrackerFor,
): { next: PostRecord; extras?: PostWriteExtras } | null => {
  const c = post.channels.findIndex((ch) => ch.channelId === channelId);
  const channel = post.channels[c];
  const block = channel?.blocks[b];
  if (!channel || !block || block.remoteId === remote.remoteId) return null;
  const goesLive = b === 0 && !isChannelLive(channel);
  const blocks = channel.blocks.map((bl, i) =>
    i === b ? { ...bl, remoteId: remote.remoteId, remoteUrl: remote.remoteUrl, remoteMeta: remote.meta } : bl,
  );
  const channels = post.channels.map((ch, i) =>
    i === c
      ? {
          ...progressed(ch),
          blocks,
          remoteUrl: b === 0 ? remote.remoteUrl : ch.remoteUrl,
          ...(goesLive ? { liveAt: now.toISOString() } : {}),
        }
      : ch,
  );
  const count = post.mode === 'live' && !post.countedPublished;
  const next = { ...post, channels, countedPublished: post.countedPublished || count };
  const tracking = goesLive ? trackingStart(trackerFor, post, next, channelId) : null;
  const extras: PostWriteExtras = {
    ...(count ? { countPublished: { accountId: post.accountId, period: usagePeriod(now).id } } : {}),
    ...(tracking ? { startTracking: [tracking] } : {}),
  };
  return { next, ...(Object.keys(extras).length > 0 ? { extras } : {}) };
};
