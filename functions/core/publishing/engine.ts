import { randomUUID } from 'node:crypto';
import { ApiError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { PlatformId } from '../../domain/platforms/types.ts';
import type { PostChannel, PostRecord } from '../../domain/post.ts';
import { postView } from '../../domain/post-view.ts';
import type { AccountStore, ChannelRecord, KeyMode } from '../../ports/accounts.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MediaRecord, MediaStore } from '../../ports/media.ts';
import type { MetricsTracker } from '../../ports/metrics.ts';
import {
  type MediaForNetwork,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
  type UploadProgress,
} from '../../ports/network-client.ts';
import type { PostStore, PostWriteExtras } from '../../ports/posts.ts';
import {
  type BlockClaim,
  type ClaimStore,
  ClaimTakenError,
  EndpointsAppearedError,
  type EventType,
  type JobQueue,
  type JobReads,
  type OutboxEvent,
  type OutboxGate,
  type PublishJob,
  runJob,
  skipsEvents,
} from '../../ports/publishing.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import { logger } from '../../shared/powertools.ts';
import { isTokenExpired, type TokenService } from '../channels/token-service.ts';
import { usagePeriod } from '../posts/post-context.ts';
import { type RateLimitWait, rateLimitWait } from './rate-limit-wait.ts';

/** What the publishing engine depends on. */
export interface PublishingDeps {
  clock: Clock;
  posts: PostStore;
  accounts: AccountStore;
  media: MediaStore;
  claims: ClaimStore;
  queue: () => JobQueue;
  /** The client for a network: the sandbox for test keys, the real API (or its simulator) for live keys. */
  networks: (platform: PlatformId, mode: KeyMode) => NetworkClient;
  tokenCipher: () => TokenCipher;
  /** Live channels' valid access tokens (refreshed when they expire; see core/channels/token-service.ts). */
  tokens: () => TokenService;
  /** A temporary URL the network can fetch the file from. */
  mediaUrl: (record: MediaRecord) => Promise<string>;
  settings: PublishingSettings;
  /** Called once a channel is live (again after a redelivery: it must be idempotent); starts its metrics readings. */
  onChannelLive?: (post: PostRecord, channelId: string) => Promise<void>;
  /**
   * The metrics tracker a channel starts with once live (null: none). With it, the start is
   * written with the channel's completion instead of by `onChannelLive` afterwards.
   */
  trackerFor?: (post: PostRecord, channelId: string) => MetricsTracker | null;
}

export interface PublishingSettings {
  /** Transient failures per channel and round before the channel fails. */
  maxTransientAttempts: number;
  /** How long a worker holds a block claim; past it, a `sending` claim's outcome is unknown. */
  leaseSeconds: number;
  /** First retry delay after a transient failure; doubles each time. */
  retryBaseSeconds: number;
  /**
   * First step of the growing wait after a rate limit that announced no reset (then 2×, 4×, 8×,
   * at most 15×); default 60 s.
   */
  rateLimitProbeSeconds?: number;
}

/** The first step of the growing wait after a rate limit that announced no reset. */
export const DEFAULT_RATE_LIMIT_PROBE_SECONDS = 60;

export const DEFAULT_PUBLISHING_SETTINGS: PublishingSettings = {
  maxTransientAttempts: 5,
  leaseSeconds: 60,
  retryBaseSeconds: 2,
};

/**
 * `retry`: the channel has more to do after the delay (the job comes back for the post); `wait`: a
 * rate-limited channel's next step, owned by this job, which queues a message of its own for it.
 */
type ChannelOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'wait'; delaySeconds: number };
/**
 * `sent` with `claim`: the block is live and its claim, still this worker's, is settled in the write
 * that records the block (the channel's completion, for its last block).
 */
type BlockStep =
  | { kind: 'sent'; remote: RemoteBlock; claim?: BlockClaim }
  | { kind: 'stop'; outcome: ChannelOutcome };
const stop = (outcome: ChannelOutcome): BlockStep => ({ kind: 'stop', outcome });

/** One block being published: where it goes and whether its success is recorded at once. */
interface BlockContext {
  post: PostRecord;
  channel: PostChannel;
  b: number;
  client: NetworkClient;
  input: PublishBlockInput;
  /** false for a channel's last block, recorded in the write that completes the channel. */
  record: boolean;
  /** The channel's credentials, shared by its blocks: a refresh during one block serves the next. */
  access: ChannelAccess;
}

/** A channel's stored record and the credentials its calls use now. */
interface ChannelAccess {
  channel: ChannelRecord;
  credentials: NetworkCredentials;
  mode: KeyMode;
}

/** Lookups that find nothing (or fail) after the consistency window, at most, before the block counts as unknown. */
const MAX_CHECKS = 10;
/** The longest wait between two lookups of a block. */
const MAX_CHECK_DELAY_SECONDS = 300;
/** Lookups search from a minute before the first send: two machines' clocks never agree exactly. */
const LOOKUP_SLACK_MS = 60_000;

/** SQS's longest message delay: longer waits go in steps of at most this. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
/** A wait step's message may arrive this early (the queue's delays are whole seconds, with jitter). */
const STEP_EARLY_MS = 2_000;
/**
 * A channel that made progress is no longer waiting: its count of consecutive unannounced rate
 * limits and its retry note go (only when present, so a block's write carries nothing more).
 */
const progressed = (channel: PostChannel): PostChannel => {
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

/** Thrown by `UploadProgress.save` when another worker has taken the block's claim over. */
class ClaimLostError extends Error {
  constructor() {
    super('The block was taken over by another worker');
    this.name = 'ClaimLostError';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isTerminal = (channel: PostChannel) => channel.status === 'published' || channel.status === 'failed';
const blocksPublished = (channel: PostChannel) => channel.blocks.filter((b) => b.remoteId !== null).length;
const remoteOf = (block: PostChannel['blocks'][number]): RemoteBlock | null =>
  block.remoteId && block.remoteUrl
    ? { remoteId: block.remoteId, remoteUrl: block.remoteUrl, meta: block.remoteMeta ?? {} }
    : null;

/** The final status of a post whose channels are all done (spec 3). */
export const finalStatus = (channels: PostChannel[]): PostRecord['status'] => {
  const published = channels.filter((c) => c.status === 'published').length;
  if (published === channels.length) return 'published';
  return published > 0 || channels.some((c) => blocksPublished(c) > 0) ? 'partially_published' : 'failed';
};

/** Serialises the writes of one process to one post; other processes are kept out by the version check. */
const postLocks = new Map<string, Promise<unknown>>();
const withPostLock = async <T>(postId: string, run: () => Promise<T>): Promise<T> => {
  const previous = postLocks.get(postId) ?? Promise.resolve();
  const current = previous.catch(() => undefined).then(run);
  postLocks.set(postId, current);
  try {
    return await current;
  } finally {
    if (postLocks.get(postId) === current) postLocks.delete(postId);
  }
};

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

/**
 * Applies `change` to the current post and writes it if nobody wrote in between, re-reading and
 * re-applying on a conflict. `change` returns null when there is nothing to write.
 *
 * With `held`, the first attempt starts from the held copy instead of reading the post again (the
 * version condition still refuses the write if anybody wrote since); a decision to write nothing
 * is only ever taken on a post read just now. `held` follows every read and write.
 */
export const mutatePost = (
  deps: Pick<PublishingDeps, 'posts' | 'clock'>,
  postId: string,
  /** `at` is the time the write will carry as `updatedAt`. */
  change: PostChange,
  held?: HeldPost,
): Promise<Written> => withPostLock(postId, () => mutateLocked(deps, postId, change, held));

/** A change to a post (null: nothing to write) and what commits with it. */
type PostChange = (post: PostRecord, at: string) => { next: PostRecord; extras?: PostWriteExtras } | null;
/** The post as written (or as read, when the change wrote nothing) and what committed with it. */
type Written = { post: PostRecord; extras: PostWriteExtras | undefined };

/** `next` as the write that replaces `current` at `at` stores it (what its events must show). */
const writtenAs = (next: PostRecord, current: PostRecord, at: string): PostRecord => ({
  ...next,
  version: current.version + 1,
  updatedAt: at,
});

/** `mutatePost` for a caller that holds the post's lock. */
const mutateLocked = async (
  deps: Pick<PublishingDeps, 'posts' | 'clock'>,
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

/** Marks the post as publishing for a new round: every channel not yet published starts again. */
export const startRound = (post: PostRecord, now: Date): PostRecord => ({
  ...post,
  status: 'publishing',
  round: (post.round ?? 0) + 1,
  roundStartedAt: now.toISOString(),
  channels: post.channels.map((channel) =>
    channel.status === 'published'
      ? channel
      : // A rate limit's reset still holds; the new round's first job takes the next step of the wait.
        { ...progressed(channel), status: 'publishing', error: null, attempts: 0, rateLimitStepAt: null },
  ),
});

/** A claim this worker holds, to settle as `sent` at `remote`. */
type Settle = { claim: BlockClaim; remote: RemoteBlock };

/** A channel's completion: the post change, and its events once the post as written is known. */
interface CompletionChange {
  next: PostRecord;
  extras?: PostWriteExtras;
  events: (written: PostRecord) => OutboxEvent[];
}

interface Completion {
  /** The job's post, as the job read it (its held copy and its view of the endpoints go with it). */
  round: PostRecord;
  gate: OutboxGate | undefined;
  settle?: Settle;
  /** null when the channel is done already (nothing to write). */
  complete: (current: PostRecord, at: string) => CompletionChange | null;
}

interface WaitingCompletion extends Completion {
  resolve: (written: Written) => void;
  reject: (error: unknown) => void;
}

/**
 * How long a channel's completion waits at most for the post's other sends in flight, so that
 * answers that come in close together are written together: small beside a network's answer time.
 */
const COMPLETION_GROUP_WAIT_MS = 10;

/** Most channel completions in one transaction (each adds about seven items; DynamoDB allows 100). */
const MAX_COMPLETIONS_PER_WRITE = 8;

const sameGate = (a: OutboxGate | undefined, b: OutboxGate | undefined) =>
  a === b ||
  (a !== undefined && b !== undefined && a.workspaceId === b.workspaceId && a.endpoints === b.endpoints);

/** A completion written on its own: its events carry the post as written. */
const alone =
  (c: Completion): PostChange =>
  (current, at) => {
    const part = c.complete(current, at);
    if (!part) return null;
    return {
      next: part.next,
      extras: {
        ...part.extras,
        events: part.events(writtenAs(part.next, current, at)),
        ...(c.gate ? { outbox: c.gate } : {}),
      },
    };
  };

export class PublishingEngine {
  private readonly worker = `w-${randomUUID().slice(0, 8)}`;
  private readonly tagNameCache = new Map<string, { at: number; names: Promise<Map<string, string>> }>();
  /** Per job (keyed by the post as the job read it): the latest version this worker read or wrote. */
  private readonly held = new WeakMap<PostRecord, HeldPost>();
  /**
   * Per job: what its read found of the workspace's webhook endpoints, which decides whether the
   * job's writes keep their events (undefined: not read, and the events are kept).
   */
  private readonly gates = new WeakMap<PostRecord, Promise<OutboxGate | undefined>>();
  /** Sends of each post's blocks in flight, and who waits for none to be (see `sendStarted`). */
  private readonly sending = new Map<string, { count: number; settled: (() => void)[] }>();
  /** Channel completions waiting for their post's lock, by post (see `writeCompletion`). */
  private readonly completions = new Map<string, WaitingCompletion[]>();

  constructor(private readonly deps: PublishingDeps) {}

  /**
   * One publish-queue message. Throws only when the message should be delivered again.
   * `deadline`: when the invocation ends (a resumable upload saves its place before it and
   * continues in the next message).
   */
  async handle(job: PublishJob, { deadline }: { deadline?: Date } = {}): Promise<void> {
    const { deps } = this;
    // A run job that names its channels reads them with the post, in one request.
    const withReads = job.kind === 'run' && job.reads ? job.reads : undefined;
    const first = withReads ? await deps.posts.getForJob(job.postId, withReads) : undefined;
    let post = first ? first.post : await deps.posts.get(job.postId);
    if (!post) return;
    if (job.kind === 'scheduled') {
      if (post.status !== 'scheduled' || post.scheduledAt !== job.scheduledAt || !post.scheduledAt) return;
      const wait = Date.parse(post.scheduledAt) - deps.clock.now().getTime();
      // The schedule fires ahead; the queue's delay (whole seconds, aimed a second early to absorb
      // its own jitter) and a short sleep close the gap.
      if (wait > 2000) {
        await deps.queue().sendPublish(job, Math.floor(wait / 1000) - 1);
        return;
      }
      // A timer may wake a millisecond before the clock reaches its time: never start early (a
      // few tries at most, so a clock that does not move cannot hold the job).
      const due = Date.parse(post.scheduledAt);
      for (let tries = 0, left = wait; left > 0 && tries < 3; tries++) {
        await sleep(left);
        left = due - deps.clock.now().getTime();
      }
      try {
        ({ post } = await mutatePost(
          deps,
          post.postId,
          (current) =>
            current.status === 'scheduled' && current.scheduledAt === job.scheduledAt
              ? { next: startRound(current, deps.clock.now()) }
              : null,
          { post },
        ));
      } catch (error) {
        if (error instanceof PostGoneError) return;
        throw error;
      }
      if (post.status !== 'publishing' || post.scheduledAt !== job.scheduledAt) return;
    }
    if (post.status !== 'publishing') return;
    if (job.round !== undefined && job.round !== (post.round ?? 1)) return;
    await this.runRound(
      post,
      deadline,
      first && withReads ? { ...first, reads: withReads } : undefined,
      job.recovered === true,
    );
  }

  private async runRound(
    post: PostRecord,
    deadline?: Date,
    /** What the job read with the post, when its message named the channels. */
    readWithPost?: {
      reads: JobReads;
      channels: Map<string, ChannelRecord>;
      endpoints: number | null;
    },
    /** A job put back after a restart: it takes over wait steps whose owner was lost. */
    recovered = false,
  ): Promise<void> {
    const round = post.round ?? 1;
    // The channels' writes start from what this job holds rather than reading the post again.
    this.held.set(post, { post });
    const pending = post.channels.filter((c) => c.status === 'publishing').map((c) => c.channelId);
    // The channels' records in one read for the job (each channel used to read its own), with the
    // count of the workspace's webhook endpoints: read with the post when the message named every
    // channel left (and the post's workspace), else now.
    const named =
      readWithPost &&
      readWithPost.reads.workspaceId === post.workspaceId &&
      pending.every((id) => readWithPost.reads.channelIds.includes(id));
    const read =
      pending.length === 0
        ? undefined
        : named
          ? Promise.resolve({ channels: readWithPost.channels, endpoints: readWithPost.endpoints })
          : this.deps.accounts.getChannelsForJob(post.workspaceId, pending);
    const records = read?.then((found) => found.channels);
    // A failed read fails each channel that waits for it (the job comes back); not unhandled
    // when none does (every channel waiting for a rate limit).
    records?.catch(() => undefined);
    if (read) {
      const { workspaceId } = post;
      this.gates.set(
        post,
        read.then(
          ({ endpoints }) => ({ workspaceId, endpoints }),
          () => undefined,
        ),
      );
    }
    const outcomes = await Promise.all(
      pending.map(async (channelId) => {
        try {
          return await this.publishChannel(post, channelId, deadline, records, recovered);
        } catch (error) {
          if (error instanceof PostGoneError) return { kind: 'done' } as ChannelOutcome;
          throw error;
        }
      }),
    );
    // The next run names the channels left now (fewer, if any, by then).
    const job = runJob({ ...post, round });
    const retries = outcomes.filter(
      (o): o is Extract<ChannelOutcome, { kind: 'retry' }> => o.kind === 'retry',
    );
    if (retries.length > 0) {
      // Past the queue's ceiling the job comes early; each step finds what is not due yet and re-delays.
      const delay = Math.min(...retries.map((r) => r.delaySeconds), MAX_QUEUE_DELAY_SECONDS);
      await this.deps.queue().sendPublish(job, delay);
    }
    // Each wait step this job owns gets its own message: the chain of a rate-limited channel
    // never rides on another channel's retries, which may end first.
    const steps = new Set(
      outcomes.flatMap((o) => (o.kind === 'wait' ? [Math.min(o.delaySeconds, MAX_QUEUE_DELAY_SECONDS)] : [])),
    );
    for (const delay of steps) await this.deps.queue().sendPublish(job, delay);
  }

  /** Publishes the channel's remaining blocks in order; never sends a block whose claim says it may be live. */
  private async publishChannel(
    post: PostRecord,
    channelId: string,
    deadline?: Date,
    /** The job's channel records, read once for all its channels. */
    records?: Promise<Map<string, ChannelRecord>>,
    recovered = false,
  ): Promise<ChannelOutcome> {
    const { deps } = this;
    const { postId } = post;
    const channel = post.channels.find((c) => c.channelId === channelId);
    if (channel?.status !== 'publishing') return { kind: 'done' };
    const platform = getPlatform(channel.platform);
    if (!platform) return this.failChannel(post, channelId, `Unknown network ${channel.platform}.`);
    if (channel.rateLimitedUntil && Date.parse(channel.rateLimitedUntil) > deps.clock.now().getTime()) {
      const waiting = await this.waitStep(post, channelId, recovered);
      if (waiting) return waiting;
    }

    const record = records
      ? ((await records).get(channelId) ?? null)
      : await deps.accounts.getChannel(post.workspaceId, channelId);
    if (!record)
      return this.failChannel(post, channelId, 'The channel is no longer connected to this workspace.');
    if (record.connection === 'needs_reconnect') {
      return this.failChannel(post, channelId, 'The channel must be reconnected before it can post.');
    }
    const client = deps.networks(channel.platform, post.mode);
    let credentials: NetworkCredentials;
    try {
      credentials =
        post.mode === 'test'
          ? { accessToken: 'sandbox', remoteAccountId: record.remoteAccountId }
          : await deps.tokens().credentials(record, { postId });
    } catch (error) {
      if (error instanceof NetworkError) {
        if (error.kind === 'reconnect') return this.reconnectNeeded(post, channel);
        if (error.kind === 'transient')
          return this.transientFailure(post, channelId, error.message, error.details.retryAfterSeconds);
        return this.failChannel(post, channelId, error.message);
      }
      logger.error('Could not decrypt a channel token', { channelId, error: error as Error });
      return this.failChannel(post, channelId, 'The channel must be reconnected before it can post.');
    }
    const access: ChannelAccess = { channel: record, credentials, mode: post.mode };

    const blocks = [...channel.blocks];
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b] as PostChannel['blocks'][number];
      if (block.remoteId) continue;
      const first = remoteOf(blocks[0] as PostChannel['blocks'][number]);
      const previous = b > 0 ? remoteOf(blocks[b - 1] as PostChannel['blocks'][number]) : null;
      if (b > 0 && (!first || !previous))
        return this.failChannel(post, channelId, 'An earlier block is missing.');
      const parent =
        b === 0
          ? null
          : platform.limits.continuation === 'reply'
            ? { block: previous as RemoteBlock, root: first as RemoteBlock }
            : { block: first as RemoteBlock, root: first as RemoteBlock };

      const media = await this.resolveMedia(post.workspaceId, block.mediaIds, block.mediaAltText);
      if (typeof media === 'string') return this.failChannel(post, channelId, media);
      // Options that name a file (Pinterest's coverImage, YouTube's thumbnail) reach the client with its URL too.
      const optionKeys =
        b === 0
          ? platform.limits.options
              .filter((option) => option.type === 'media' && typeof channel.options[option.key] === 'string')
              .map((option) => option.key)
          : [];
      const optionFiles = await this.resolveMedia(
        post.workspaceId,
        optionKeys.map((key) => channel.options[key] as string),
        {},
      );
      if (typeof optionFiles === 'string') return this.failChannel(post, channelId, optionFiles);

      const input: PublishBlockInput = {
        credentials: access.credentials,
        content: block.content,
        media,
        title: b === 0 ? channel.title : null,
        postType: channel.postType,
        options: b === 0 ? channel.options : {},
        ...(optionKeys.length > 0
          ? {
              optionMedia: Object.fromEntries(
                optionKeys.map((key, i) => [key, optionFiles[i] as MediaForNetwork]),
              ),
            }
          : {}),
        parent,
        idempotencyKey: `${postId}.${channelId}.${b}`,
        round: post.round ?? 1,
        ...(deadline ? { deadline } : {}),
      };
      // The last block is recorded in the same write that completes the channel.
      const last = b === blocks.length - 1;
      const step = await this.sendBlock(post, channel, b, client, input, access, !last);
      if (step.kind !== 'sent') return step.outcome;
      if (last)
        return this.completeChannel(post, channelId, {
          b,
          remote: step.remote,
          ...(step.claim ? { claim: step.claim } : {}),
        });
      blocks[b] = {
        ...block,
        remoteId: step.remote.remoteId,
        remoteUrl: step.remote.remoteUrl,
        remoteMeta: step.remote.meta,
      };
    }
    return this.completeChannel(post, channelId);
  }

  /**
   * Claims, sends and records one block. A block whose earlier send may have gone through (its
   * worker died, or the answer was lost) is looked up, never sent again blindly.
   */
  private async sendBlock(
    post: PostRecord,
    channel: PostChannel,
    b: number,
    client: NetworkClient,
    input: PublishBlockInput,
    access: ChannelAccess,
    record = true,
  ): Promise<BlockStep> {
    const { deps } = this;
    const block: BlockContext = { post, channel, b, client, input, record, access };
    const now = deps.clock.now();
    const fresh: BlockClaim = {
      postId: post.postId,
      channelId: channel.channelId,
      block: b,
      state: 'sending',
      owner: this.newOwner(),
      leaseUntil: this.leaseFrom(now),
      since: now.toISOString(),
      firstSentAt: now.toISOString(),
      lastSentAt: now.toISOString(),
    };
    // From its claim to the network's answer (never while it writes the post), the block's send
    // keeps the post's completions waiting a moment (see `writeWaiting`).
    const ended = this.sendStarted(post.postId);
    const acquired = await deps.claims.acquire(fresh).catch((error: unknown) => {
      ended();
      throw error;
    });
    if (acquired.acquired) return this.send(block, acquired.claim, ended);
    ended();

    const current = acquired.current;
    if (current.state === 'sent' && current.remote) {
      await this.keep(block, current.remote);
      return { kind: 'sent', remote: current.remote };
    }
    if (current.state === 'unknown')
      return stop(await this.failChannel(post, channel.channelId, unknownOutcome(b, channel)));
    // `sending`: held by a live worker, or by one that died mid-send. `checking`: the next lookup's time.
    const due = current.state === 'checking' ? current.nextCheckAt : current.leaseUntil;
    const leftMs = due ? Date.parse(due) - now.getTime() : 0;
    if (leftMs > 0) return stop({ kind: 'retry', delaySeconds: Math.ceil(leftMs / 1000) + 1 });
    // Take it over keeping the send history: lookups search from the first send, and the
    // consistency window runs from the latest one, however many workers have held the claim.
    const mine: BlockClaim = {
      ...current,
      state: 'sending',
      owner: this.newOwner(),
      leaseUntil: this.leaseFrom(now),
      since: now.toISOString(),
      firstSentAt: current.firstSentAt ?? current.since,
      lastSentAt: current.lastSentAt ?? current.since,
      lostAt: current.lostAt ?? now.toISOString(),
    };
    if (!(await deps.claims.takeOver(current, mine))) return stop({ kind: 'retry', delaySeconds: 1 });
    return this.check(block, mine);
  }

  /** Sends the block under `held` (a claim this worker holds) and settles the claim by the answer. */
  private async send(
    block: BlockContext,
    held: BlockClaim,
    ended: () => void = () => {},
  ): Promise<BlockStep> {
    const { deps } = this;
    const { post, channel, b } = block;
    const label = channel.blocks.length > 1 ? `block ${b + 1}: ` : '';
    // The answer was lost: the network may have stored the block at any moment up to now (a
    // publish that uploads media first sends the post itself late in the call), so the
    // consistency window runs from now.
    const lost = () => {
      const now = deps.clock.now().toISOString();
      return { ...held, lostAt: held.lostAt ?? now, lastSentAt: now };
    };
    let remote: RemoteBlock;
    const progress = this.progressOf(held);
    try {
      remote = await this.withFreshToken(block, (credentials) =>
        block.client.publish({ ...block.input, credentials, progress }),
      ).finally(ended);
    } catch (error) {
      if (error instanceof ClaimLostError) {
        // Another worker took the block over (this one looked dead): it carries on from the saved progress.
        return stop({ kind: 'retry', delaySeconds: 1 });
      }
      if (!(error instanceof NetworkError)) {
        // Not the network's answer: whether it has the block cannot be told from here.
        logger.error('Unexpected error while publishing a block', {
          postId: post.postId,
          error: error as Error,
        });
        return this.check(block, lost());
      }
      if (error.details.duplicate && held.lostAt) {
        // After a lost answer, "duplicate" means the earlier send went through: find it, never resend.
        return this.check(block, { ...held, duplicate: true });
      }
      if (error.details.outcomeUnknown) return this.check(block, lost());
      await deps.claims.settle(held, 'not_sent');
      if (error.kind === 'transient' && error.details.continueLater) {
        // The upload's place is saved with the claim: the next message continues it, no attempt spent.
        return stop({ kind: 'retry', delaySeconds: 1 });
      }
      if (error.kind === 'transient' && error.details.rateLimited) {
        return stop(await this.rateLimited(post, channel, error.details));
      }
      if (error.kind === 'permanent')
        return stop(await this.failChannel(post, channel.channelId, `${label}${error.message}`));
      if (error.kind === 'reconnect') return stop(await this.reconnectNeeded(post, channel, error));
      return stop(
        await this.transientFailure(
          post,
          channel.channelId,
          `${label}${error.message}`,
          error.details.retryAfterSeconds,
        ),
      );
    }
    return this.sent(block, held, remote);
  }

  /**
   * Looks up a block whose send may have gone through (`held` is this worker's claim). Found: it is
   * recorded. Not found within the network's consistency window after the latest send (or after
   * the network called a resend a duplicate): looked up again later, on a growing schedule through
   * the queue's delay. Not found after the window: it was not stored, so the channel counts a
   * failed attempt and the block may be sent again.
   */
  private async check(block: BlockContext, held: BlockClaim): Promise<BlockStep> {
    const { deps } = this;
    const { post, channel, b, client, input } = block;
    const failUnknown = async (reason?: string) => {
      await deps.claims.settle(held, 'unknown');
      return stop(await this.failChannel(post, channel.channelId, unknownOutcome(b, channel, reason)));
    };
    if (!client.lookup) return failUnknown();
    let found: RemoteBlock | null;
    try {
      const lookup = client.lookup.bind(client);
      found = await this.withFreshToken(block, (credentials) =>
        lookup({
          credentials,
          idempotencyKey: input.idempotencyKey,
          content: input.content,
          parent: input.parent,
          since: new Date(Date.parse(held.firstSentAt ?? held.since) - LOOKUP_SLACK_MS),
          saved: held.progress ?? null,
        }),
      );
    } catch (error) {
      logger.warn('Lookup failed; the block stays claimed until it can be checked', {
        postId: post.postId,
        error: error as Error,
      });
      if (error instanceof NetworkError && error.kind === 'transient') {
        // A rate limit only delays the lookup: it is not counted, and the window does not move.
        const counted = error.details.rateLimited || error.details.status === 429 ? 0 : 1;
        return this.lookAgain(block, held, counted, { retryAfterSeconds: error.details.retryAfterSeconds });
      }
      if (error instanceof NetworkError && error.kind === 'reconnect') {
        // The block stays to be checked when the channel publishes again with a working token.
        await deps.claims.settle({ ...held, nextCheckAt: deps.clock.now().toISOString() }, 'checking');
        return stop(await this.reconnectNeeded(post, channel, error));
      }
      return failUnknown(error instanceof NetworkError ? error.message : undefined);
    }
    if (found) return this.sent(block, held, found);
    const windowEnd = Date.parse(held.lastSentAt ?? held.since) + client.consistencyWindowSeconds * 1000;
    if (held.duplicate || deps.clock.now().getTime() < windowEnd) {
      return this.lookAgain(block, held, 1, { windowEnd });
    }
    // Not on the network after its consistency window: the send did not go through, and sending
    // again cannot make a duplicate. It counts as one failed attempt of the channel.
    await deps.claims.settle(held, 'not_sent');
    const label = channel.blocks.length > 1 ? `block ${b + 1}: ` : '';
    return stop(
      await this.transientFailure(
        post,
        channel.channelId,
        `${label}the network did not confirm the post and does not show it`,
        undefined,
      ),
    );
  }

  /** Parks the claim as `checking` until its next lookup, on a doubling schedule; bounded once the window has passed. */
  private async lookAgain(
    block: BlockContext,
    held: BlockClaim,
    counted: number,
    { retryAfterSeconds, windowEnd }: { retryAfterSeconds?: number; windowEnd?: number },
  ): Promise<BlockStep> {
    const { deps } = this;
    const now = deps.clock.now().getTime();
    const checks = (held.checks ?? 0) + counted;
    const windowOpen = windowEnd !== undefined && now < windowEnd;
    if (checks > MAX_CHECKS && !windowOpen) {
      await deps.claims.settle(held, 'unknown');
      const { post, channel, b } = block;
      return stop(await this.failChannel(post, channel.channelId, unknownOutcome(b, channel)));
    }
    let delay = Math.min(
      deps.settings.retryBaseSeconds * 2 ** Math.max(0, checks - 1),
      MAX_CHECK_DELAY_SECONDS,
    );
    // The lookup that decides comes as soon as the window has passed.
    if (windowOpen) delay = Math.min(delay, (windowEnd - now) / 1000);
    delay = Math.max(1, Math.ceil(Math.max(delay, retryAfterSeconds ?? 0)));
    await deps.claims.settle(
      { ...held, checks, nextCheckAt: new Date(now + delay * 1000).toISOString() },
      'checking',
    );
    return stop({ kind: 'retry', delaySeconds: delay });
  }

  /**
   * `mutatePost` for the job that read `post`, starting from the latest version the job holds;
   * `locked` when the caller holds the post's lock already.
   */
  private mutate(post: PostRecord, change: PostChange, { locked = false } = {}): Promise<Written> {
    const held = this.held.get(post);
    return locked
      ? mutateLocked(this.deps, post.postId, change, held)
      : mutatePost(this.deps, post.postId, change, held);
  }

  /**
   * Writes `change` with the claim `settle.claim` (this worker's) settled as `sent` in the same
   * transaction. When the change writes nothing, or the post is gone, the claim is settled alone:
   * it still tells where the block is. A claim another worker took over stops this one
   * (`ClaimTakenError`), as a settle of its own would.
   */
  private async writeSettling(
    post: PostRecord,
    settle: Settle | undefined,
    change: PostChange,
    { locked = false } = {},
  ): Promise<Written> {
    if (!settle) return this.mutate(post, change, { locked });
    let written: Written;
    try {
      written = await this.mutate(
        post,
        (current, at) => {
          const result = change(current, at);
          return result ? { ...result, extras: { ...result.extras, settleClaims: [settle] } } : null;
        },
        { locked },
      );
    } catch (error) {
      if (error instanceof PostGoneError) await this.deps.claims.settle(settle.claim, 'sent', settle.remote);
      else if (!(error instanceof ClaimTakenError) && !(error instanceof EndpointsAppearedError)) {
        // (An endpoint that appeared wrote nothing: the caller writes again, with the claim's settle.)
        // The table failed: the claim still records the block if it can, so a retry finds it sent.
        await this.deps.claims.settle(settle.claim, 'sent', settle.remote).catch((failure: unknown) =>
          logger.warn('Could not settle the claim of a sent block; a retry will look it up', {
            postId: post.postId,
            error: failure as Error,
          }),
        );
      }
      throw error;
    }
    if (!written.extras?.settleClaims) await this.deps.claims.settle(settle.claim, 'sent', settle.remote);
    return written;
  }

  /**
   * Writes a channel's completion. Completions of one job's channels whose answers came in close
   * together are written in one transaction: each turn of the post's lock writes every completion
   * waiting by then.
   */
  private writeCompletion(completion: Completion): Promise<Written> {
    const { postId } = completion.round;
    return new Promise<Written>((resolve, reject) => {
      const waiting = this.completions.get(postId) ?? [];
      waiting.push({ ...completion, resolve, reject });
      this.completions.set(postId, waiting);
      // Each completion takes a turn of the lock after joining the line, so one that an earlier
      // turn did not take is written by its own turn at the latest.
      withPostLock(postId, () => this.writeWaiting(postId)).catch(reject);
    });
  }

  /**
   * A block's send (from its claim) starts; the returned function (idempotent) says it ended.
   * Completions wait a moment for the post's other sends in flight (see `writeWaiting`).
   */
  private sendStarted(postId: string): () => void {
    const sends = this.sending.get(postId) ?? { count: 0, settled: [] };
    sends.count++;
    this.sending.set(postId, sends);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--sends.count > 0) return;
      if (this.sending.get(postId) === sends) this.sending.delete(postId);
      for (const settled of sends.settled.splice(0)) settled();
    };
  }

  /** Resolves once no send of the post is in flight, or after `ms` at most. */
  private sendsSettled(postId: string, ms: number): Promise<void> {
    const sends = this.sending.get(postId);
    if (!sends || sends.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const settled = () => {
        clearTimeout(timer);
        resolve();
      };
      // Given up on after `ms`: no longer called when the sends end.
      const timer = setTimeout(() => {
        const at = sends.settled.indexOf(settled);
        if (at >= 0) sends.settled.splice(at, 1);
        resolve();
      }, ms);
      sends.settled.push(settled);
    });
  }

  /** One turn of the post's lock: the completions waiting now, together when they can be. */
  private async writeWaiting(postId: string): Promise<void> {
    // The post's other sends still in flight get a moment to answer (a group commit's short
    // delay: their completions then join this write instead of making writes of their own), and
    // answers that arrived meanwhile get to finish their channels' work.
    await this.sendsSettled(postId, COMPLETION_GROUP_WAIT_MS);
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = this.completions.get(postId) ?? [];
    const [first] = waiting;
    if (!first) return;
    // One job's completions (one held copy, one view of the endpoints), within a transaction's size.
    const group = waiting
      .filter((c) => c.round === first.round && sameGate(c.gate, first.gate))
      .slice(0, MAX_COMPLETIONS_PER_WRITE);
    const rest = waiting.filter((c) => !group.includes(c));
    if (rest.length > 0) this.completions.set(postId, rest);
    else this.completions.delete(postId);
    if (group.length > 1) {
      let together: { written: Written; settleAlone: Settle | undefined }[] | undefined;
      try {
        together = await this.writeTogether(group);
      } catch (error) {
        // The transaction wrote nothing (a claim taken over, an endpoint that appeared, a table
        // error): each completion is written alone, with its own outcome.
        logger.info('Channel completions written one by one after their joint write failed', {
          postId,
          error: error as Error,
        });
      }
      if (together) {
        for (const [i, c] of group.entries()) {
          const { written, settleAlone } = together[i] as (typeof together)[number];
          try {
            if (settleAlone) await this.deps.claims.settle(settleAlone.claim, 'sent', settleAlone.remote);
            c.resolve(written);
          } catch (error) {
            c.reject(error);
          }
        }
        return;
      }
    }
    for (const c of group) {
      try {
        c.resolve(await this.writeSettling(c.round, c.settle, alone(c), { locked: true }));
      } catch (error) {
        c.reject(error);
      }
    }
  }

  /**
   * Several completions of one job in one transaction, applied in turn to the post; each event's
   * snapshot is the post as written. A completion with nothing left to write (its channel is done
   * already) has its claim settled alone, as `writeSettling` does.
   */
  private async writeTogether(
    group: Completion[],
  ): Promise<{ written: Written; settleAlone: Settle | undefined }[]> {
    const first = group[0] as Completion;
    let parts: (CompletionChange | null)[] = [];
    let events: OutboxEvent[][] = [];
    const written = await this.mutate(
      first.round,
      (current, at) => {
        let post = current;
        parts = group.map((c) => {
          const part = c.complete(post, at);
          if (part) post = part.next;
          return part;
        });
        if (parts.every((part) => part === null)) return null;
        const final = writtenAs(post, current, at);
        events = parts.map((part) => part?.events(final) ?? []);
        const countPublished = parts.find((part) => part?.extras?.countPublished)?.extras?.countPublished;
        const settleClaims = group.flatMap((c, i) => (parts[i] && c.settle ? [c.settle] : []));
        const startTracking = parts.flatMap((part) => part?.extras?.startTracking ?? []);
        return {
          next: post,
          extras: {
            events: events.flat(),
            ...(first.gate ? { outbox: first.gate } : {}),
            ...(countPublished ? { countPublished } : {}),
            ...(settleClaims.length > 0 ? { settleClaims } : {}),
            ...(startTracking.length > 0 ? { startTracking } : {}),
          },
        };
      },
      { locked: true },
    );
    return group.map((c, i) => {
      const part = written.extras ? parts[i] : null;
      if (!part) return { written: { post: written.post, extras: undefined }, settleAlone: c.settle };
      const extras: PostWriteExtras = {
        ...part.extras,
        events: events[i] ?? [],
        ...(c.gate ? { outbox: c.gate } : {}),
        ...(c.settle ? { settleClaims: [c.settle] } : {}),
      };
      return { written: { post: written.post, extras }, settleAlone: undefined };
    });
  }

  /**
   * The block is live at `remote` under `held`, this worker's claim: recorded on the post with the
   * claim settled in one write, or, for the channel's last block, handed on to the write that
   * completes the channel.
   */
  private async sent(block: BlockContext, held: BlockClaim, remote: RemoteBlock): Promise<BlockStep> {
    if (!block.record) return { kind: 'sent', remote, claim: held };
    await this.recordBlock(block.post, block.channel.channelId, block.b, remote, held);
    return { kind: 'sent', remote };
  }

  private async keep(block: BlockContext, remote: RemoteBlock): Promise<void> {
    if (block.record) await this.recordBlock(block.post, block.channel.channelId, block.b, remote);
  }

  /**
   * The block's upload progress as the client sees it: saving it stores it with `held` (this
   * worker's claim) and extends the lease, so a long upload is not taken for a dead worker's.
   */
  private progressOf(held: BlockClaim): UploadProgress {
    const { deps } = this;
    return {
      get saved() {
        return held.progress ?? null;
      },
      save: async (state) => {
        const leaseUntil = this.leaseFrom(deps.clock.now());
        if (!(await deps.claims.saveProgress(held, state, leaseUntil))) throw new ClaimLostError();
        held.progress = state;
        held.leaseUntil = leaseUntil;
      },
    };
  }

  private newOwner(): string {
    return `${this.worker}-${randomUUID().slice(0, 8)}`;
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + this.deps.settings.leaseSeconds * 1000).toISOString();
  }

  private async resolveMedia(
    workspaceId: string,
    mediaIds: string[],
    altText: Record<string, string>,
  ): Promise<MediaForNetwork[] | string> {
    if (mediaIds.length === 0) return [];
    const records = await this.deps.media.getMany(workspaceId, mediaIds);
    const media: MediaForNetwork[] = [];
    for (const id of mediaIds) {
      const record = records.get(id);
      if (!record) return `The media file ${id} was deleted before publication.`;
      media.push({
        mediaId: id,
        mimeType: record.mimeType,
        size: record.size,
        altText: altText[id] ?? record.altText ?? null,
        url: await this.deps.mediaUrl(record),
      });
    }
    return media;
  }

  /** The post with block `b` of the channel live at `remote`, counted in posts.published if it is the post's first; null when already recorded. */
  private applyBlock(
    post: PostRecord,
    channelId: string,
    b: number,
    remote: RemoteBlock,
  ): { next: PostRecord; extras?: PostWriteExtras } | null {
    const c = post.channels.findIndex((ch) => ch.channelId === channelId);
    const channel = post.channels[c];
    const block = channel?.blocks[b];
    if (!channel || !block || block.remoteId === remote.remoteId) return null;
    const blocks = channel.blocks.map((bl, i) =>
      i === b
        ? { ...bl, remoteId: remote.remoteId, remoteUrl: remote.remoteUrl, remoteMeta: remote.meta }
        : bl,
    );
    const channels = post.channels.map((ch, i) =>
      i === c ? { ...progressed(ch), blocks, remoteUrl: b === 0 ? remote.remoteUrl : ch.remoteUrl } : ch,
    );
    // The post counts in posts.published once, when its first block reaches a network (live keys only).
    const count = post.mode === 'live' && !post.countedPublished;
    return {
      next: { ...post, channels, countedPublished: post.countedPublished || count },
      ...(count
        ? {
            extras: {
              countPublished: { accountId: post.accountId, period: usagePeriod(this.deps.clock.now()).id },
            },
          }
        : {}),
    };
  }

  /** Records block `b` on the post; with `claim` (this worker's), settles it as `sent` in the same write. */
  private async recordBlock(
    post: PostRecord,
    channelId: string,
    b: number,
    remote: RemoteBlock,
    claim?: BlockClaim,
  ): Promise<void> {
    await this.writeSettling(post, claim ? { claim, remote } : undefined, (current) =>
      this.applyBlock(current, channelId, b, remote),
    );
  }

  private async transientFailure(
    post: PostRecord,
    channelId: string,
    message: string,
    retryAfterSeconds: number | undefined,
  ): Promise<ChannelOutcome> {
    const { settings } = this.deps;
    let attempts = 0;
    let delaySeconds = 0;
    await this.mutate(post, (current) => {
      const now = this.deps.clock.now().getTime();
      const channels = current.channels.map((ch) => {
        if (ch.channelId !== channelId) return ch;
        attempts = (ch.attempts ?? 0) + 1;
        delaySeconds = Math.max(settings.retryBaseSeconds * 2 ** (attempts - 1), retryAfterSeconds ?? 0);
        // GET /posts/{id} shows the retry (why, and when) while the channel waits for it.
        return {
          ...ch,
          attempts,
          retryAt: new Date(now + delaySeconds * 1000).toISOString(),
          retryReason: message.slice(0, 300),
        };
      });
      return { next: { ...current, channels } };
    });
    if (attempts >= settings.maxTransientAttempts) {
      return this.failChannel(
        post,
        channelId,
        `The network was unavailable after ${attempts} attempts: ${message}`,
      );
    }
    return { kind: 'retry', delaySeconds };
  }

  /**
   * Runs a network call with the channel's credentials; when the network answers that the token
   * expired, the token service refreshes it (once for every caller) and the call runs once more.
   * The expired answer means the network did not act, so calling again cannot duplicate anything.
   * A refused refresh throws `reconnect` (the channel is then marked, with its one event).
   */
  private async withFreshToken<T>(
    block: BlockContext,
    call: (credentials: NetworkCredentials) => Promise<T>,
  ): Promise<T> {
    const { access } = block;
    try {
      return await call(access.credentials);
    } catch (error) {
      if (access.mode === 'test' || !isTokenExpired(error)) throw error;
      access.credentials = await this.deps
        .tokens()
        .afterExpired(access.channel, access.credentials, { postId: block.post.postId });
      return call(access.credentials);
    }
  }

  /**
   * The network's rate limit stopped the channel: it waits, still `publishing`, without spending
   * an attempt, until the announced reset or, when none was announced, the next step of a growing
   * schedule (rate-limit-wait.ts), in steps of at most the queue's ceiling. This job owns the first
   * step.
   */
  private async rateLimited(
    post: PostRecord,
    channel: PostChannel,
    answer: { retryAfterSeconds?: number; resetBySeconds?: number },
  ): Promise<ChannelOutcome> {
    const now = this.deps.clock.now();
    let waiting: RateLimitWait | null = null;
    await this.mutate(post, (current) => {
      const c = current.channels.find((ch) => ch.channelId === channel.channelId);
      waiting = null;
      if (c?.status !== 'publishing') return null;
      const wait = rateLimitWait(answer, {
        now,
        previousProbes: c.rateLimitProbes ?? 0,
        probeSeconds: this.deps.settings.rateLimitProbeSeconds ?? DEFAULT_RATE_LIMIT_PROBE_SECONDS,
      });
      waiting = wait;
      const stepAt = new Date(now.getTime() + this.stepSeconds(wait.until, now) * 1000).toISOString();
      const { rateLimitProbes: _p, rateLimitResetBy: _r, ...rest } = c;
      const next: PostChannel = {
        ...rest,
        rateLimitedUntil: wait.until.toISOString(),
        rateLimitStepAt: stepAt,
        ...(wait.probes > 0 ? { rateLimitProbes: wait.probes } : {}),
        ...(wait.resetBy ? { rateLimitResetBy: wait.resetBy.toISOString() } : {}),
      };
      const channels = current.channels.map((ch) => (ch === c ? next : ch));
      return { next: { ...current, channels } };
    });
    const wait = waiting as RateLimitWait | null;
    logger.info('Channel rate-limited by the network; waiting', {
      postId: post.postId,
      channelId: channel.channelId,
      until: wait?.until.toISOString(),
      announced: answer.retryAfterSeconds !== undefined,
      probes: wait?.probes,
    });
    return wait ? { kind: 'wait', delaySeconds: this.stepSeconds(wait.until, now) } : { kind: 'done' };
  }

  /**
   * A job visiting a channel that waits for a rate limit's reset. When the current step is due, this
   * job takes the next one (the write decides between concurrent jobs) and queues it: `wait`. When
   * the step is not due, another job owns it: `done` (nothing to queue for this channel). Null once
   * the reset has passed: the channel publishes. A job put back after a restart (`takeOver`) takes
   * the step even when it is not due: the job that owned it was lost with the restart.
   */
  private async waitStep(
    post: PostRecord,
    channelId: string,
    takeOver = false,
  ): Promise<ChannelOutcome | null> {
    let outcome: ChannelOutcome | null = null;
    await this.mutate(post, (current) => {
      const now = this.deps.clock.now();
      const c = current.channels.find((ch) => ch.channelId === channelId);
      outcome = null;
      if (c?.status !== 'publishing' || !c.rateLimitedUntil) return null;
      const reset = new Date(c.rateLimitedUntil);
      if (reset.getTime() <= now.getTime()) return null;
      if (!takeOver && c.rateLimitStepAt && Date.parse(c.rateLimitStepAt) - STEP_EARLY_MS > now.getTime()) {
        outcome = { kind: 'done' };
        return null;
      }
      const step = this.stepSeconds(reset, now);
      outcome = { kind: 'wait', delaySeconds: step };
      const stepAt = new Date(now.getTime() + step * 1000).toISOString();
      const channels = current.channels.map((ch) => (ch === c ? { ...ch, rateLimitStepAt: stepAt } : ch));
      return { next: { ...current, channels } };
    });
    return outcome;
  }

  /** The next step of a wait until `reset`: whole seconds, at most the queue's ceiling. */
  private stepSeconds(reset: Date, now: Date): number {
    return Math.max(
      1,
      Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil((reset.getTime() - now.getTime()) / 1000)),
    );
  }

  /** `error`: the network's refusal; a missing permission's message (it names it) is what the event and the failure say. */
  private async reconnectNeeded(
    post: PostRecord,
    channel: PostChannel,
    error?: NetworkError,
  ): Promise<ChannelOutcome> {
    const why = error?.details.missingPermission ? error.message : undefined;
    const { changed } = await this.deps.accounts.markNeedsReconnect(post.workspaceId, channel.channelId);
    const extraEvents: OutboxEvent[] = [];
    if (changed) {
      const record = await this.deps.accounts.getChannel(post.workspaceId, channel.channelId);
      extraEvents.push(
        this.event(post, 'channel.needs_reconnect', {
          channelId: channel.channelId,
          platform: channel.platform,
          channelName: record?.name ?? channel.channelId,
          postId: post.postId,
          error: why ?? 'The access token expired or was revoked.',
        }),
      );
    }
    return this.failChannel(
      post,
      channel.channelId,
      why
        ? `The channel must be reconnected, then the post published again: ${why}`
        : 'The access token of this channel expired or was revoked; reconnect the channel, then publish again.',
      extraEvents,
    );
  }

  private completeChannel(
    post: PostRecord,
    channelId: string,
    lastBlock?: { b: number; remote: RemoteBlock; claim?: BlockClaim },
  ): Promise<ChannelOutcome> {
    return this.finishChannel(post, channelId, 'published', null, [], lastBlock);
  }

  private failChannel(post: PostRecord, channelId: string, error: string, extraEvents: OutboxEvent[] = []) {
    return this.finishChannel(post, channelId, 'failed', error, extraEvents);
  }

  /**
   * Moves a channel to its final status with its event (and the post to its final status when it
   * was the last channel), in one write; with the last block's record and its claim's outcome
   * when `lastBlock` carries them.
   */
  private async finishChannel(
    round: PostRecord,
    channelId: string,
    status: 'published' | 'failed',
    error: string | null,
    extraEvents: OutboxEvent[] = [],
    lastBlock?: { b: number; remote: RemoteBlock; claim?: BlockClaim },
  ): Promise<ChannelOutcome> {
    const names = await this.tagNames(round.workspaceId);
    const settle = lastBlock?.claim ? { claim: lastBlock.claim, remote: lastBlock.remote } : undefined;
    let gate = await this.gates.get(round);
    for (;;) {
      try {
        return await this.finishWrite(
          round,
          channelId,
          status,
          error,
          extraEvents,
          lastBlock,
          names,
          settle,
          gate,
        );
      } catch (failure) {
        if (!(failure instanceof EndpointsAppearedError) || !gate) throw failure;
        // An endpoint was created since the job read the count: this write and the job's next keep their events.
        gate = { workspaceId: round.workspaceId, endpoints: null };
        this.gates.set(round, Promise.resolve(gate));
      }
    }
  }

  /** `finishChannel`'s write, with the events kept or left out as `gate` says. */
  private async finishWrite(
    round: PostRecord,
    channelId: string,
    status: 'published' | 'failed',
    error: string | null,
    extraEvents: OutboxEvent[],
    lastBlock: { b: number; remote: RemoteBlock; claim?: BlockClaim } | undefined,
    names: Map<string, string>,
    settle: { claim: BlockClaim; remote: RemoteBlock } | undefined,
    gate: OutboxGate | undefined,
  ): Promise<ChannelOutcome> {
    // The event's snapshot is the post as written, time and version included, so it equals
    // GET /posts/{id} to the letter.
    const { post: written, extras } = await this.writeCompletion({
      round,
      gate,
      ...(settle ? { settle } : {}),
      complete: (current, now) => {
        const channel = current.channels.find((c) => c.channelId === channelId);
        if (channel?.status !== 'publishing') return null;
        const applied = lastBlock ? this.applyBlock(current, channelId, lastBlock.b, lastBlock.remote) : null;
        const post = applied?.next ?? current;
        const channels = post.channels.map((c) =>
          c.channelId === channelId
            ? { ...progressed(c), status, error, publishedAt: status === 'published' ? now : null }
            : c,
        );
        let next: PostRecord = { ...post, channels };
        if (channels.every(isTerminal)) {
          const final = finalStatus(channels);
          next = { ...next, status: final, publishedAt: final === 'published' ? now : null };
        }
        const done = channels.find((c) => c.channelId === channelId) as PostChannel;
        const published = blocksPublished(done);
        const type: EventType =
          status === 'published' ? 'post.published' : published > 0 ? 'post.partially_failed' : 'post.failed';
        return {
          next,
          extras: {
            ...applied?.extras,
            ...(status === 'published' ? this.startTracking(current, next, channelId) : {}),
          },
          events: (final) => [
            ...extraEvents,
            this.event(post, type, {
              channelId,
              platform: done.platform,
              blocksPublished: published,
              blocksTotal: done.blocks.length,
              error,
              post: postView(final, names),
            }),
          ],
        };
      },
    });
    // Only the events the write kept go to the event queue.
    await this.dispatch(skipsEvents(extras?.outbox) ? [] : (extras?.events ?? []));
    // Written with the completion, or (when the write found the channel done already) started here.
    if (status === 'published' && !extras?.startTracking) await this.channelLive(written, channelId);
    return { kind: 'done' };
  }

  /** The tracking start of a channel that `next` makes live, over `current` (which the write replaces). */
  private startTracking(
    current: PostRecord,
    next: PostRecord,
    channelId: string,
  ): Pick<PostWriteExtras, 'startTracking'> {
    const tracker = this.deps.trackerFor?.(next, channelId);
    if (!tracker) return {};
    const liveBefore = current.channels.filter((c) => c.channelId !== channelId && c.status === 'published');
    return {
      startTracking: [
        {
          tracker,
          countPost: liveBefore.length === 0,
          countPlatform: !liveBefore.some((c) => c.platform === tracker.platform),
        },
      ],
    };
  }

  /** A failure here never fails the publication: the channel is live whatever its metrics do. */
  private async channelLive(post: PostRecord, channelId: string): Promise<void> {
    try {
      await this.deps.onChannelLive?.(post, channelId);
    } catch (error) {
      logger.error('Could not start metrics readings', {
        postId: post.postId,
        channelId,
        error: error as Error,
      });
    }
  }

  private event(post: PostRecord, type: EventType, data: OutboxEvent['data']): OutboxEvent {
    return {
      id: newId('evt'),
      type,
      createdAt: this.deps.clock.now().toISOString(),
      accountId: post.accountId,
      workspaceId: post.workspaceId,
      mode: post.mode,
      data,
    };
  }

  /** Hands committed live events to the event queue; one that fails here stays pending in the outbox. */
  private async dispatch(events: OutboxEvent[]): Promise<void> {
    for (const event of events) {
      if (event.mode !== 'live') continue;
      try {
        await this.deps
          .queue()
          .sendEvent(event.id, { workspaceId: event.workspaceId, type: event.type, mode: event.mode });
      } catch (error) {
        logger.warn('Event left pending in the outbox', { eventId: event.id, error: error as Error });
      }
    }
  }

  /** The workspace's tag names, read once for every completion of the next ten seconds (one read for concurrent callers). */
  private tagNames(workspaceId: string): Promise<Map<string, string>> {
    const cached = this.tagNameCache.get(workspaceId);
    if (cached && Date.now() - cached.at < 10_000) return cached.names;
    const names = this.deps.accounts
      .listTags(workspaceId)
      .then((tags) => new Map(tags.map((t) => [t.tagId, t.name])));
    const entry = { at: Date.now(), names };
    this.tagNameCache.set(workspaceId, entry);
    // A failed read is not kept: the next caller reads again.
    names.catch(() => {
      if (this.tagNameCache.get(workspaceId) === entry) this.tagNameCache.delete(workspaceId);
    });
    return names;
  }
}

const unknownOutcome = (b: number, channel: PostChannel, reason?: string) =>
  `The network did not confirm whether ${channel.blocks.length > 1 ? `block ${b + 1}` : 'the post'} was published (no answer, or an error after the request reached it) and ${reason ? `could not be checked (${reason})` : 'offers no way to check'}; Herald will not send it again, so that nothing is posted twice. Check the account on the network.`;
