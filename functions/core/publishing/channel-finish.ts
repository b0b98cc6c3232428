/**
 * A channel's end: published or failed, with its event (and the post's final status when it was
 * the last channel), in one write that also records the last block and settles its claim.
 */

import { isChannelLive, type PostChannel, type PostRecord } from '../../domain/post.ts';
import { postView } from '../../domain/post-view.ts';
import { clip, withEvents } from '../../domain/timeline.ts';
import type { NetworkError, RemoteBlock } from '../../ports/network-client.ts';
import {
  type BlockClaim,
  EndpointsAppearedError,
  type OutboxEvent,
  skipsEvents,
} from '../../ports/publishing.ts';
import { countChannelOutcome, logger } from '../../shared/powertools.ts';
import type { CompletionBatcher } from './completion-batcher.ts';
import type { PublishingDeps } from './deps.ts';
import { completionEventType, dispatchEvents, type JobGates, newEvent, type TagNames } from './outbox.ts';
import { applyBlock, blocksPublished, finalStatus, isTerminal, progressed } from './post-mutation.ts';

/**
 * `retry`: the channel has more to do after the delay (the job comes back for the post); `wait`: a
 * rate-limited channel's next step, owned by this job, which queues a message of its own for it.
 */
export type ChannelOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'wait'; delaySeconds: number };

/** The channel's last block, live at `remote`, recorded with the channel's completion. */
export interface LastBlock {
  b: number;
  remote: RemoteBlock;
  claim?: BlockClaim;
}

type FinishDeps = Pick<PublishingDeps, 'clock' | 'channels' | 'queue' | 'onChannelLive' | 'trackerFor'>;

export class ChannelFinish {
  constructor(
    private readonly deps: FinishDeps,
    private readonly batcher: CompletionBatcher,
    private readonly gates: JobGates,
    private readonly tagNames: TagNames,
  ) {}

  complete(post: PostRecord, channelId: string, lastBlock?: LastBlock): Promise<ChannelOutcome> {
    return this.finish(post, channelId, 'published', null, [], lastBlock);
  }

  fail(post: PostRecord, channelId: string, error: string, extraEvents: OutboxEvent[] = []) {
    return this.finish(post, channelId, 'failed', error, extraEvents);
  }

  /** `error`: the network's refusal; a missing permission's message (it names it) is what the event and the failure say. */
  async reconnectNeeded(
    post: PostRecord,
    channel: PostChannel,
    error?: NetworkError,
  ): Promise<ChannelOutcome> {
    const why = error?.details.missingPermission ? error.message : undefined;
    const { changed } = await this.deps.channels.markNeedsReconnect(post.workspaceId, channel.channelId);
    const extraEvents: OutboxEvent[] = [];
    if (changed) {
      const record = await this.deps.channels.getChannel(post.workspaceId, channel.channelId);
      extraEvents.push(
        newEvent(this.deps.clock, post, 'channel.needs_reconnect', {
          channelId: channel.channelId,
          platform: channel.platform,
          channelName: record?.name ?? channel.channelId,
          postId: post.postId,
          error: why ?? 'The access token expired or was revoked.',
        }),
      );
    }
    return this.fail(
      post,
      channel.channelId,
      why
        ? `The channel must be reconnected, then the post published again: ${why}`
        : 'The access token of this channel expired or was revoked; reconnect the channel, then publish again.',
      extraEvents,
    );
  }

  /**
   * Moves a channel to its final status with its event (and the post to its final status when it
   * was the last channel), in one write; with the last block's record and its claim's outcome
   * when `lastBlock` carries them.
   */
  private async finish(
    round: PostRecord,
    channelId: string,
    status: 'published' | 'failed',
    error: string | null,
    extraEvents: OutboxEvent[] = [],
    lastBlock?: LastBlock,
  ): Promise<ChannelOutcome> {
    const names = await this.tagNames.of(round.workspaceId);
    let gate = await this.gates.get(round);
    for (;;) {
      try {
        return await this.finishWrite(round, channelId, status, error, extraEvents, lastBlock, names, gate);
      } catch (failure) {
        if (!(failure instanceof EndpointsAppearedError) || !gate) throw failure;
        // An endpoint was created since the job read the count: this write and the job's next keep their events.
        gate = this.gates.reopen(round);
      }
    }
  }

  /** `finish`'s write, with the events kept or left out as `gate` says. */
  private async finishWrite(
    round: PostRecord,
    channelId: string,
    status: 'published' | 'failed',
    error: string | null,
    extraEvents: OutboxEvent[],
    lastBlock: LastBlock | undefined,
    names: Map<string, string>,
    gate: Awaited<ReturnType<JobGates['get']>>,
  ): Promise<ChannelOutcome> {
    const settle = lastBlock?.claim ? { claim: lastBlock.claim, remote: lastBlock.remote } : undefined;
    // The event's snapshot is the post as written, time and version included, so it equals
    // GET /posts/{id} to the letter.
    const { post: written, extras } = await this.batcher.write({
      round,
      gate,
      ...(settle ? { settle } : {}),
      complete: (current, now) => {
        const channel = current.channels.find((c) => c.channelId === channelId);
        if (channel?.status !== 'publishing') return null;
        const applied = lastBlock
          ? applyBlock(
              current,
              channelId,
              lastBlock.b,
              lastBlock.remote,
              this.deps.clock.now(),
              this.deps.trackerFor,
            )
          : null;
        const post = applied?.next ?? current;
        const channels = post.channels.map((c) =>
          c.channelId === channelId
            ? { ...progressed(c), status, error, publishedAt: status === 'published' ? now : null }
            : c,
        );
        // A failure is on the timeline as it happened (a later round may publish the channel); a
        // channel's publication is read from the channel itself (`publishedAt`), stored once.
        let next: PostRecord =
          status === 'failed'
            ? withEvents({ ...post, channels }, [
                { at: now, channelId, block: null, kind: 'channel_failed', detail: clip(error ?? 'Failed.') },
              ])
            : { ...post, channels };
        if (channels.every(isTerminal)) {
          const final = finalStatus(channels);
          next = { ...next, status: final, publishedAt: final === 'published' ? now : null };
        }
        const done = channels.find((c) => c.channelId === channelId) as PostChannel;
        const published = blocksPublished(done);
        return {
          next,
          // The tracking started with the write of the block that made the channel live (this one's
          // when it is the channel's first).
          extras: { ...applied?.extras },
          events: (final) => [
            ...extraEvents,
            newEvent(this.deps.clock, post, completionEventType(status, published), {
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
    // Counted once: `extras` only when this write moved the channel (not when it found it done).
    const platform = written.channels.find((c) => c.channelId === channelId)?.platform;
    if (extras && platform && round.mode === 'live') countChannelOutcome(platform, status);
    // Only the events the write kept go to the event queue.
    await dispatchEvents(this.deps.queue(), skipsEvents(extras?.outbox) ? [] : (extras?.events ?? []));
    // A live channel's tracking started with the write that made it live (`trackerFor`); it starts
    // here (idempotent) when this write found the channel done already, when the channel went live
    // before that write started tracking (no `liveAt` recorded), or without `trackerFor`.
    const done = written.channels.find((c) => c.channelId === channelId);
    const started = this.deps.trackerFor && extras && done?.liveAt;
    const live = status === 'published' || (done !== undefined && isChannelLive(done));
    if (live && !started) await this.channelLive(written, channelId);
    return { kind: 'done' };
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
}
