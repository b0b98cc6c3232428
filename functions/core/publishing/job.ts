/**
 * A publish job: a queue message for a post, its round, and each channel's blocks in order. The
 * parts it is built from: block-send.ts (the claim protocol), channel-finish.ts and
 * channel-waits.ts (a channel's end and its waits), completion-batcher.ts (completions written
 * together), job-writes.ts and post-mutation.ts (the post's writes), outbox.ts (events).
 */
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { PostChannel, PostRecord } from '../../domain/post.ts';
import type { ChannelRecord } from '../../ports/channels.ts';
import {
  type MediaForNetwork,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
} from '../../ports/network-client.ts';
import { type JobReads, type PublishJob, runJob } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import { BlockSender, type ChannelAccess } from './block-send.ts';
import { ChannelFinish, type ChannelOutcome } from './channel-finish.ts';
import { ChannelWaits } from './channel-waits.ts';
import { CompletionBatcher, SendsInFlight } from './completion-batcher.ts';
import type { PublishingDeps } from './deps.ts';
import { JobWrites } from './job-writes.ts';
import { JobGates, TagNames } from './outbox.ts';
import { mutatePost, PostGoneError, PostLocks, remoteOf, startRound } from './post-mutation.ts';
import { queueDelay, scheduledQueueDelay } from './retry-policy.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a run job read with the post, when its message named the channels. */
interface ReadWithPost {
  reads: JobReads;
  channels: Map<string, ChannelRecord>;
  endpoints: number | null;
}

/** The publishing engine: one per runtime; its post locks and batches are its own. */
export class PublishingEngine {
  private readonly locks = new PostLocks();
  private readonly writes: JobWrites;
  private readonly gates = new JobGates();
  private readonly finish: ChannelFinish;
  private readonly waits: ChannelWaits;
  private readonly blocks: BlockSender;

  constructor(private readonly deps: PublishingDeps) {
    this.writes = new JobWrites(deps, this.locks);
    const sends = new SendsInFlight();
    const batcher = new CompletionBatcher(this.writes, deps.claims, sends);
    this.finish = new ChannelFinish(deps, batcher, this.gates, new TagNames(deps.tags));
    this.waits = new ChannelWaits(deps, this.writes, this.finish);
    this.blocks = new BlockSender(deps, this.writes, this.finish, this.waits, sends);
  }

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
      const delay = scheduledQueueDelay(wait);
      if (delay !== null) {
        await deps.queue().sendPublish(job, delay);
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
          this.locks,
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

  /**
   * The round's channels left to publish, all at once; then the job's next messages: the
   * soonest retry, and one per wait step this job owns.
   */
  private async runRound(
    post: PostRecord,
    deadline?: Date,
    readWithPost?: ReadWithPost,
    /** A job put back after a restart: it takes over wait steps whose owner was lost. */
    recovered = false,
  ): Promise<void> {
    const round = post.round ?? 1;
    this.writes.begin(post);
    const pending = post.channels.filter((c) => c.status === 'publishing').map((c) => c.channelId);
    // The channels' records in one read for the job, with the count of the workspace's webhook
    // endpoints: read with the post when the message named every channel left (and the post's
    // workspace), else now.
    const named =
      readWithPost &&
      readWithPost.reads.workspaceId === post.workspaceId &&
      pending.every((id) => readWithPost.reads.channelIds.includes(id));
    const read =
      pending.length === 0
        ? undefined
        : named
          ? Promise.resolve({ channels: readWithPost.channels, endpoints: readWithPost.endpoints })
          : this.deps.channels.getChannelsForJob(post.workspaceId, pending);
    const records = read?.then((found) => found.channels);
    // A failed read fails each channel that waits for it (the job comes back); not unhandled
    // when none does (every channel waiting for a rate limit).
    records?.catch(() => undefined);
    if (read) this.gates.read(post, read);
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
    const retries = outcomes.flatMap((o) => (o.kind === 'retry' ? [o.delaySeconds] : []));
    // Past the queue's ceiling the job comes early; each step finds what is not due yet and re-delays.
    if (retries.length > 0) await this.deps.queue().sendPublish(job, queueDelay(Math.min(...retries)));
    // Each wait step this job owns gets its own message: the chain of a rate-limited channel
    // never rides on another channel's retries, which may end first.
    const steps = new Set(outcomes.flatMap((o) => (o.kind === 'wait' ? [queueDelay(o.delaySeconds)] : [])));
    for (const delay of steps) await this.deps.queue().sendPublish(job, delay);
  }

  /** Publishes the channel's remaining blocks in order; never sends a block whose claim says it may be live. */
  private async publishChannel(
    post: PostRecord,
    channelId: string,
    deadline: Date | undefined,
    /** The job's channel records, read once for all its channels. */
    records: Promise<Map<string, ChannelRecord>> | undefined,
    recovered: boolean,
  ): Promise<ChannelOutcome> {
    const { deps, finish } = this;
    const { postId } = post;
    const channel = post.channels.find((c) => c.channelId === channelId);
    if (channel?.status !== 'publishing') return { kind: 'done' };
    const platform = getPlatform(channel.platform);
    if (!platform) return finish.fail(post, channelId, `Unknown network ${channel.platform}.`);
    if (channel.rateLimitedUntil && Date.parse(channel.rateLimitedUntil) > deps.clock.now().getTime()) {
      const waiting = await this.waits.waitStep(post, channelId, recovered);
      if (waiting) return waiting;
    }

    const record = records
      ? ((await records).get(channelId) ?? null)
      : await deps.channels.getChannel(post.workspaceId, channelId);
    if (!record) return finish.fail(post, channelId, 'The channel is no longer connected to this workspace.');
    if (record.connection === 'needs_reconnect') {
      return finish.fail(post, channelId, 'The channel must be reconnected before it can post.');
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
        if (error.kind === 'reconnect') return finish.reconnectNeeded(post, channel);
        if (error.kind === 'transient')
          return this.waits.transientFailure(post, channelId, error.message, error.details.retryAfterSeconds);
        return finish.fail(post, channelId, error.message);
      }
      logger.error('Could not decrypt a channel token', { channelId, error: error as Error });
      return finish.fail(post, channelId, 'The channel must be reconnected before it can post.');
    }
    const access: ChannelAccess = { channel: record, credentials, mode: post.mode };

    const blocks = [...channel.blocks];
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b] as PostChannel['blocks'][number];
      if (block.remoteId) continue;
      const first = remoteOf(blocks[0] as PostChannel['blocks'][number]);
      const previous = b > 0 ? remoteOf(blocks[b - 1] as PostChannel['blocks'][number]) : null;
      if (b > 0 && (!first || !previous)) return finish.fail(post, channelId, 'An earlier block is missing.');
      const parent =
        b === 0
          ? null
          : platform.limits.continuation === 'reply'
            ? { block: previous as RemoteBlock, root: first as RemoteBlock }
            : { block: first as RemoteBlock, root: first as RemoteBlock };

      const media = await this.resolveMedia(post.workspaceId, block.mediaIds, block.mediaAltText);
      if (typeof media === 'string') return finish.fail(post, channelId, media);
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
      if (typeof optionFiles === 'string') return finish.fail(post, channelId, optionFiles);

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
      const step = await this.blocks.sendBlock(post, channel, b, client, input, access, !last);
      if (step.kind !== 'sent') return step.outcome;
      if (last)
        return finish.complete(post, channelId, {
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
    return finish.complete(post, channelId);
  }

  /** The files for the network, with their URLs; a message when one was deleted meanwhile. */
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
}
