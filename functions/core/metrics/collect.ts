/**
 * Metrics collection (spec 2.9, 4.1 "Polling reads"): a live channel gets a tracker; a recurring
 * sweep hands each due reading to the metrics queue; the metrics worker takes the reading, stores
 * it with the stats aggregates, and moves the tracker along the cadence until it is finished.
 */
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { PlatformId } from '../../domain/platforms/types.ts';
import { channelLiveAt, type PostChannel, type PostRecord } from '../../domain/post.ts';
import type { KeyMode } from '../../ports/api-keys.ts';
import type { ChannelStore } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ReplyStore } from '../../ports/comments.ts';
import type {
  MetricsJob,
  MetricsQueue,
  MetricsStore,
  MetricsTracker,
  StatsCounters,
  StoredReading,
} from '../../ports/metrics.ts';
import {
  METRIC_NAMES,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type RemoteBlock,
} from '../../ports/network-client.ts';
import type { PostStore } from '../../ports/posts.ts';
import type { JobQueue } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import type { TokenService } from '../channels/token-service.ts';
import { announceNewComments } from '../comments/announce.ts';
import {
  type CadenceSettings,
  leaseSeconds,
  READING_ATTEMPTS,
  readingAgeSeconds,
  readingDueAt,
  retryDelaySeconds,
} from './cadence.ts';

export interface MetricsDeps {
  clock: Clock;
  metrics: MetricsStore;
  metricsQueue: () => MetricsQueue;
  posts: PostStore;
  channels: ChannelStore;
  networks: (platform: PlatformId, mode: KeyMode) => NetworkClient;
  /** Live channels' valid tokens: refreshed near expiry and once after an expired answer. */
  tokens: () => TokenService;
  cadence: CadenceSettings;
  /**
   * With both: each successful reading of a live channel also announces its new comments
   * (`comment.received`, core/comments/announce.ts).
   */
  replies?: ReplyStore;
  queue?: () => JobQueue;
}

const remoteOf = (block: PostChannel['blocks'][number]): RemoteBlock | null =>
  block.remoteId && block.remoteUrl
    ? { remoteId: block.remoteId, remoteUrl: block.remoteUrl, meta: block.remoteMeta ?? {} }
    : null;

/** When the post's first channel went live (the stats file the post under it); null if none is live. */
export const postLiveAt = (post: PostRecord): string | null => {
  const times = post.channels
    .map(channelLiveAt)
    .filter((at): at is string => at !== null)
    .sort();
  return times[0] ?? null;
};

/**
 * The tracker of a channel that just went live (`isChannelLive`: its first block is live, a
 * thread stopped halfway included), at the start of its cadence, which runs from when it went
 * live; null when it has none (not live, or its network reports no metrics).
 */
export const trackerFor = (
  cadence: CadenceSettings,
  post: PostRecord,
  channelId: string,
): MetricsTracker | null => {
  const channel = post.channels.find((c) => c.channelId === channelId);
  const liveAt = channel ? channelLiveAt(channel) : null;
  const firstLive = postLiveAt(post);
  if (!channel || !liveAt || !firstLive) return null;
  if (!getPlatform(channel.platform)?.supportsMetrics) return null;
  const first = readingDueAt(new Date(liveAt), 0, cadence) as Date;
  return {
    postId: post.postId,
    channelId,
    workspaceId: post.workspaceId,
    mode: post.mode,
    platform: channel.platform,
    liveAt,
    postLiveAt: firstLive,
    step: 0,
    nextAt: first.toISOString(),
    known: {},
    latest: null,
    readings: 0,
    missed: 0,
    skipped: 0,
  };
};

/** Starts the cadence of a channel that just went live. Safe to call again (nothing changes). */
export const startTracking = async (
  deps: Pick<MetricsDeps, 'metrics' | 'cadence'>,
  post: PostRecord,
  channelId: string,
): Promise<void> => {
  const tracker = trackerFor(deps.cadence, post, channelId);
  if (tracker) await deps.metrics.track(tracker);
};

/** Most trackers one sweep hands out (the rest wait for the next sweep, a minute later). */
const SWEEP_LIMIT = 500;

/** Trackers read per page when the due times follow a new time scale. */
const RESCHEDULE_PAGE = 100;

/**
 * Stored due times are absolute: they were computed with the time scale of the code that wrote
 * them. When the scale changes (the local runtime started with another METRICS_TIME_SCALE, a
 * deploy with another value), every unfinished tracker's current reading moves to its time on the
 * new scale before the sweep looks for due readings: a reading overdue on the new scale is handed
 * out at once, one not yet due on it waits. A reading in flight under a lease is moved too (its
 * message may be lost, as the local queue loses them on a stop); a second message for the same
 * reading changes nothing, as `takeReading` takes each point of the cadence once. Resolves with
 * how many trackers moved. The pass reads every unfinished tracker: it is meant for the scales of
 * tests and demos (local data, a rehearsal), not for a production table with a great many.
 */
export const followTimeScale = async (deps: Pick<MetricsDeps, 'metrics' | 'cadence'>): Promise<number> => {
  const scale = deps.cadence.timeScale;
  const recorded = await deps.metrics.cadenceScale();
  if (recorded === scale) return 0;
  if (recorded === null) {
    // A table whose scale was never recorded: its due times follow the scale its code ran with,
    // which this one is taken to be (on AWS always 1). Recording it costs no pass over the trackers,
    // which on a large table could outlast the sweep's time limit.
    await deps.metrics.setCadenceScale(scale);
    return 0;
  }
  let moved = 0;
  let cursor: string | null = null;
  do {
    const page = await deps.metrics.unfinished(cursor, RESCHEDULE_PAGE);
    for (const tracker of page.trackers) {
      const due = readingDueAt(new Date(tracker.liveAt), tracker.step, deps.cadence)?.toISOString();
      if (due && due !== tracker.nextAt && (await deps.metrics.reschedule(tracker, due))) moved++;
    }
    cursor = page.cursor;
  } while (cursor);
  // Recorded last: a sweep stopped halfway leaves the old scale, so the next one goes over them again.
  await deps.metrics.setCadenceScale(scale);
  if (moved > 0) logger.info('Metrics readings moved to a new time scale', { timeScale: scale, moved });
  return moved;
};

/** The sweep (every minute): each due reading goes on the metrics queue once, kept out of the sweep by a lease. */
export const sweepDueReadings = async (
  deps: Pick<MetricsDeps, 'clock' | 'metrics' | 'metricsQueue' | 'cadence'>,
): Promise<number> => {
  await followTimeScale(deps);
  const now = deps.clock.now();
  const until = new Date(now.getTime() + leaseSeconds(deps.cadence) * 1000).toISOString();
  const due = await deps.metrics.due(now.toISOString(), SWEEP_LIMIT);
  const jobs: MetricsJob[] = [];
  // Leases are independent conditional writes: a few at a time keeps a large sweep short.
  for (let i = 0; i < due.length; i += 25) {
    const chunk = due.slice(i, i + 25);
    const leased = await Promise.all(chunk.map((tracker) => deps.metrics.lease(tracker, until)));
    chunk.forEach((tracker, n) => {
      if (leased[n]) {
        jobs.push({ postId: tracker.postId, channelId: tracker.channelId, step: tracker.step, attempt: 1 });
      }
    });
  }
  if (jobs.length) await deps.metricsQueue().send(jobs);
  return jobs.length;
};

/** Only the stable names with finite, non-negative numbers: a network's extra fields never leak through. */
const cleanReading = (reading: MetricsReading): MetricsReading => {
  const clean: MetricsReading = {};
  for (const name of METRIC_NAMES) {
    const value = reading[name];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) clean[name] = Math.floor(value);
  }
  return clean;
};

/** What the reading adds to the stats: the change of every metric reported now (a first report adds its whole value, and counts the channel as reporting it). */
export const statsDeltas = (
  platform: string,
  known: MetricsReading,
  reading: MetricsReading,
): StatsCounters => {
  const deltas: StatsCounters = {};
  for (const name of METRIC_NAMES) {
    const value = reading[name];
    if (value === undefined) continue;
    const before = known[name];
    if (before === undefined || value !== before) deltas[`${platform}:${name}`] = value - (before ?? 0);
    // How many channels report the metric: a sum over none is "not reported", not 0.
    if (before === undefined) deltas[`${platform}:${name}:reporting`] = 1;
  }
  return deltas;
};

type Attempt =
  | { kind: 'ok'; metrics: MetricsReading; blocks?: StoredReading['blocks'] }
  /** `final`: no later reading can succeed either (the cadence stops). */
  | { kind: 'skipped'; reason: string; final?: boolean }
  /** `permanent`: the network refused (403, gone): trying again cannot help. */
  | { kind: 'failed'; reason: string; retryAfterSeconds?: number; permanent?: boolean };

const readChannel = async (
  deps: MetricsDeps,
  step: number,
  post: PostRecord,
  channel: PostChannel,
): Promise<Attempt> => {
  // The channel and, in the same request, the workspace's count of webhook endpoints: a new
  // comment's event is kept only where an endpoint may hear it (the outbox's rule).
  const read = await deps.channels.getChannelsForJob(post.workspaceId, [channel.channelId]);
  const record = read.channels.get(channel.channelId);
  if (!record) return { kind: 'skipped', reason: 'The channel is no longer connected to this workspace.' };
  if (record.connection === 'needs_reconnect')
    return { kind: 'skipped', reason: 'The channel must be reconnected before its metrics can be read.' };
  const client = deps.networks(channel.platform, post.mode);
  if (!client.metrics) return { kind: 'skipped', reason: 'This network reports no metrics to Herald.' };
  const readMetrics = client.metrics.bind(client);
  const first = channel.blocks[0] ? remoteOf(channel.blocks[0]) : null;
  if (!first) return { kind: 'skipped', reason: 'The post is not live on this channel.' };
  // Sandbox posts never reach a network; live ones get their token through the token service, which
  // refreshes it near expiry and once more when the network answers that it expired.
  const withCredentials = <T>(call: (credentials: NetworkCredentials) => Promise<T>): Promise<T> =>
    post.mode === 'test'
      ? call({ accessToken: 'sandbox', remoteAccountId: record.remoteAccountId })
      : deps.tokens().withCredentials(record, call, { postId: post.postId });
  const ageSeconds = readingAgeSeconds(step);
  let metrics: MetricsReading;
  try {
    metrics = cleanReading(
      await withCredentials((credentials) => readMetrics({ credentials, block: first, ageSeconds })),
    );
  } catch (error) {
    if (!(error instanceof NetworkError)) {
      logger.error('Metrics reading failed', { error: error as Error });
      return { kind: 'failed', reason: 'The network could not be read.' };
    }
    const wait = error.details.retryAfterSeconds;
    return {
      kind: 'failed',
      reason: error.message,
      permanent: error.kind === 'permanent',
      ...(wait !== undefined ? { retryAfterSeconds: wait } : {}),
    };
  }
  if (deps.replies && deps.queue) {
    await announceNewComments(
      { clock: deps.clock, replies: deps.replies, queue: deps.queue },
      client,
      post,
      channel,
      withCredentials,
      { workspaceId: post.workspaceId, endpoints: read.endpoints },
    );
  }
  if (channel.blocks.length < 2) return { kind: 'ok', metrics };
  // Threads: each block's own counts where the network has them; a block that cannot be read is left out.
  const blocks: NonNullable<StoredReading['blocks']> = [{ block: 0, metrics }];
  for (let b = 1; b < channel.blocks.length; b++) {
    const remote = remoteOf(channel.blocks[b] as PostChannel['blocks'][number]);
    if (!remote) continue;
    try {
      blocks.push({
        block: b,
        metrics: cleanReading(
          await withCredentials((credentials) => readMetrics({ credentials, block: remote, ageSeconds })),
        ),
      });
    } catch {
      // per-block values are a bonus; the first block's reading stands
    }
  }
  return { kind: 'ok', metrics, blocks };
};

/**
 * One metrics-queue message: takes the reading if it is still the tracker's next one (SQS may
 * deliver twice), stores it, and moves the cadence on. A failed try is retried through the queue;
 * the last failed try records the reading as missed, and later readings go on as planned.
 */
export const takeReading = async (deps: MetricsDeps, job: MetricsJob): Promise<void> => {
  const tracker = await deps.metrics.getTracker(job.postId, job.channelId);
  if (!tracker || tracker.step !== job.step || tracker.nextAt === null) return;
  const post = await deps.posts.get(job.postId);
  const channel = post?.channels.find((c) => c.channelId === job.channelId);
  const liveAt = new Date(tracker.liveAt);
  // After an outage, the readings that came due meanwhile collapse into the latest one: a reading
  // is taken for its own point of the cadence, never hours late for an earlier one.
  let step = tracker.step;
  for (;;) {
    const later = readingDueAt(liveAt, step + 1, deps.cadence);
    if (!later || later > deps.clock.now()) break;
    step++;
  }
  const dueAt = readingDueAt(liveAt, step, deps.cadence) as Date;
  if (!post) {
    // The post was deleted: its metrics and its share of the stats go with it.
    await deps.metrics.forgetPost(job.postId);
    return;
  }
  const attempt: Attempt = channel
    ? await readChannel(deps, step, post, channel)
    : { kind: 'skipped', reason: 'The channel was retracted from this post.', final: true };

  if (attempt.kind === 'failed' && !attempt.permanent && job.attempt < READING_ATTEMPTS) {
    // A rate-limited network names its reset: the retry waits for it (SQS caps one delay at 15 minutes).
    const delay = Math.min(
      900,
      Math.max(retryDelaySeconds(job.attempt + 1, deps.cadence), attempt.retryAfterSeconds ?? 0),
    );
    const now = deps.clock.now().getTime();
    const until = new Date(now + (delay + leaseSeconds(deps.cadence)) * 1000).toISOString();
    if (!(await deps.metrics.lease(tracker, until))) return;
    await deps.metricsQueue().send([{ ...job, attempt: job.attempt + 1 }], delay);
    return;
  }

  const at = deps.clock.now().toISOString();
  const base = {
    postId: job.postId,
    channelId: job.channelId,
    step,
    at,
    dueAt: dueAt.toISOString(),
  };
  const nextDue =
    attempt.kind === 'skipped' && attempt.final ? null : readingDueAt(liveAt, step + 1, deps.cadence);
  const moved = { ...tracker, step: step + 1, nextAt: nextDue ? nextDue.toISOString() : null };
  if (attempt.kind === 'ok') {
    const reading: StoredReading = {
      ...base,
      outcome: 'ok',
      metrics: attempt.metrics,
      ...(attempt.blocks ? { blocks: attempt.blocks } : {}),
    };
    const next: MetricsTracker = {
      ...moved,
      known: { ...tracker.known, ...attempt.metrics },
      latest: { at, metrics: attempt.metrics },
      readings: tracker.readings + 1,
    };
    await deps.metrics.record(
      tracker,
      reading,
      next,
      statsDeltas(tracker.platform, tracker.known, attempt.metrics),
    );
    return;
  }
  const outcome = attempt.kind === 'failed' ? 'missed' : 'skipped';
  const reason =
    attempt.kind === 'failed'
      ? `${attempt.reason} (after ${job.attempt} ${job.attempt === 1 ? 'try' : 'tries'})`
      : attempt.reason;
  const next: MetricsTracker = {
    ...moved,
    ...(outcome === 'missed' ? { missed: tracker.missed + 1 } : { skipped: tracker.skipped + 1 }),
  };
  await deps.metrics.record(tracker, { ...base, outcome, reason }, next, {});
};

/**
 * Drops a deleted post's metrics and takes it out of the stats. A failure is only logged (the post
 * is gone already): the post's next due reading finds it missing and forgets it then.
 */
export const forgetPostMetrics = async (
  deps: Pick<MetricsDeps, 'metrics'>,
  postId: string,
): Promise<void> => {
  try {
    await deps.metrics.forgetPost(postId);
  } catch (error) {
    logger.error('Could not drop the metrics of a deleted post', { postId, error: error as Error });
  }
};
