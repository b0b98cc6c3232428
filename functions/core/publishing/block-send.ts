/**
 * The claim protocol of one block: claim it, send it, and settle the claim by the answer. A block
 * whose earlier send may have gone through (its worker died, or the answer was lost) is looked up,
 * never sent again blindly, until the network's consistency window and the in-flight grace (a
 * request that timed out on our side may still land) have passed since its latest send.
 */
import { randomUUID } from 'node:crypto';
import type { KeyMode } from '../../domain/key-mode.ts';
import type { PostChannel, PostRecord } from '../../domain/post.ts';
import type { ChannelRecord } from '../../ports/channels.ts';
import {
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
  type UploadProgress,
} from '../../ports/network-client.ts';
import type { BlockClaim } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import { isTokenExpired } from '../channels/token-service.ts';
import { afterSave, blockEvents, noting, refusal, written } from './block-events.ts';
import type { ChannelFinish, ChannelOutcome } from './channel-finish.ts';
import type { ChannelWaits } from './channel-waits.ts';
import type { SendsInFlight } from './completion-batcher.ts';
import type { PublishingDeps } from './deps.ts';
import type { JobWrites } from './job-writes.ts';
import { checkDelaySeconds, consistencyWindowEnd, lookupSince } from './retry-policy.ts';

/**
 * `sent` with `claim`: the block is live and its claim, still this worker's, is settled in the write
 * that records the block (the channel's completion, for its last block).
 */
export type BlockStep =
  | { kind: 'sent'; remote: RemoteBlock; claim?: BlockClaim }
  | { kind: 'stop'; outcome: ChannelOutcome };
const stop = (outcome: ChannelOutcome): BlockStep => ({ kind: 'stop', outcome });

/** A channel's stored record and the credentials its calls use now (shared by its blocks: a refresh during one serves the next). */
export interface ChannelAccess {
  channel: ChannelRecord;
  credentials: NetworkCredentials;
  mode: KeyMode;
}

/** One block being published: where it goes and whether its success is recorded at once. */
interface BlockContext {
  post: PostRecord;
  channel: PostChannel;
  b: number;
  client: NetworkClient;
  input: PublishBlockInput;
  /** false for a channel's last block, recorded in the write that completes the channel. */
  record: boolean;
  access: ChannelAccess;
}

/** Thrown by `UploadProgress.save` when another worker has taken the block's claim over. */
class ClaimLostError extends Error {
  constructor() {
    super('The block was taken over by another worker');
    this.name = 'ClaimLostError';
  }
}

/** The failure of a block whose outcome cannot be known. */
export const unknownOutcome = (b: number, channel: PostChannel, reason?: string) =>
  `The network did not confirm whether ${channel.blocks.length > 1 ? `block ${b + 1}` : 'the post'} was published (no answer, or an error after the request reached it) and ${reason ? `could not be checked (${reason})` : 'offers no way to check'}; Herald will not send it again, so that nothing is posted twice. Check the account on the network.`;

const labelOf = (channel: PostChannel, b: number) => (channel.blocks.length > 1 ? `block ${b + 1}: ` : '');

export class BlockSender {
  private readonly worker = `w-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly deps: Pick<PublishingDeps, 'clock' | 'claims' | 'settings' | 'tokens'>,
    private readonly writes: JobWrites,
    private readonly finish: ChannelFinish,
    private readonly waits: ChannelWaits,
    private readonly sends: SendsInFlight,
  ) {}

  /**
   * Claims, sends and records one block (`record` false: the channel's completion records it).
   * A block another worker holds, or whose earlier send may have gone through, is not sent.
   */
  async sendBlock(
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
    const attempt = (channel.attempts ?? 0) + 1;
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
      append: [blockEvents.sending(now.toISOString(), attempt)],
    };
    // From its claim to the network's answer (never while it writes the post), the block's send
    // keeps the post's completions waiting a moment (see completion-batcher.ts).
    const ended = this.sends.started(post.postId);
    const acquired = await deps.claims.acquire(fresh).catch((error: unknown) => {
      ended();
      throw error;
    });
    if (acquired.acquired) return this.send(block, acquired.claim, ended);
    ended();

    const current = acquired.current;
    if (current.state === 'sent' && current.remote) {
      if (record) await this.writes.recordBlock(post, channel.channelId, b, current.remote);
      return { kind: 'sent', remote: current.remote };
    }
    if (current.state === 'unknown')
      return stop(await this.finish.fail(post, channel.channelId, unknownOutcome(b, channel)));
    // `sending`: held by a live worker, or by one that died mid-send. `checking`: the next lookup's time.
    const due = current.state === 'checking' ? current.nextCheckAt : current.leaseUntil;
    const leftMs = due ? Date.parse(due) - now.getTime() : 0;
    if (leftMs > 0) return stop({ kind: 'retry', delaySeconds: Math.ceil(leftMs / 1000) + 1 });
    // Take it over keeping the send history: lookups search from the first send, and the
    // consistency window runs from the latest one, however many workers have held the claim.
    const mine: BlockClaim = {
      ...current,
      // A send whose worker stopped before its answer was recorded (the lease ran out).
      ...(current.state === 'sending' ? { append: [blockEvents.workerStopped(now.toISOString())] } : {}),
      state: 'sending',
      owner: this.newOwner(),
      leaseUntil: this.leaseFrom(now),
      since: now.toISOString(),
      firstSentAt: current.firstSentAt ?? current.since,
      lastSentAt: current.lastSentAt ?? current.since,
      lostAt: current.lostAt ?? now.toISOString(),
    };
    if (!(await deps.claims.takeOver(current, mine))) return stop({ kind: 'retry', delaySeconds: 1 });
    return this.check(block, written(mine));
  }

  /** Sends the block under `held` (a claim this worker holds) and settles the claim by the answer. */
  private async send(block: BlockContext, held: BlockClaim, ended: () => void): Promise<BlockStep> {
    const { deps } = this;
    const { post, channel, b } = block;
    const label = labelOf(channel, b);
    // The answer was lost: the network may have stored the block at any moment up to now (a
    // publish that uploads media first sends the post itself late in the call), so the
    // consistency window runs from now.
    const lost = (why: string) => {
      const now = deps.clock.now().toISOString();
      return noting(
        { ...held, lostAt: held.lostAt ?? now, lastSentAt: now },
        blockEvents.answerLost(now, why),
      );
    };
    const at = () => deps.clock.now().toISOString();
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
        return this.check(block, lost('an unexpected error'));
      }
      if (error.details.duplicate && held.lostAt) {
        // After a lost answer, "duplicate" means the earlier send went through: find it, never resend.
        return this.check(block, noting({ ...held, duplicate: true }, blockEvents.duplicate(at(), error)));
      }
      if (error.details.outcomeUnknown) return this.check(block, lost(error.message));
      const continues = error.kind === 'transient' && error.details.continueLater;
      await deps.claims.settle(
        noting(
          held,
          continues ? blockEvents.continues(at(), error) : blockEvents.refused(at(), label, error),
        ),
        'not_sent',
      );
      if (error.kind === 'transient' && error.details.continueLater) {
        // The upload's place is saved with the claim: the next message continues it, no attempt spent.
        return stop({ kind: 'retry', delaySeconds: 1 });
      }
      if (error.kind === 'transient' && error.details.rateLimited) {
        return stop(await this.waits.rateLimited(post, channel, error.details));
      }
      if (error.kind === 'permanent')
        return stop(await this.finish.fail(post, channel.channelId, `${label}${error.message}`));
      if (error.kind === 'reconnect') return stop(await this.finish.reconnectNeeded(post, channel, error));
      return stop(
        await this.waits.transientFailure(
          post,
          channel.channelId,
          `${label}${error.message}`,
          error.details.retryAfterSeconds,
        ),
      );
    }
    return this.sent(block, noting(held, blockEvents.sent(at(), remote)), remote);
  }

  /**
   * Looks up a block whose send may have gone through (`held` is this worker's claim). Found: it is
   * recorded. Not found within the network's consistency window or the in-flight grace after the
   * latest send (or after the network called a resend a duplicate): looked up again later, on a
   * growing schedule through the queue's delay. Not found after both: it was not stored, so the
   * channel counts a failed attempt and the block may be sent again.
   */
  private async check(block: BlockContext, held: BlockClaim): Promise<BlockStep> {
    const { deps } = this;
    const { post, channel, b, client, input } = block;
    const at = () => deps.clock.now().toISOString();
    const failUnknown = async (reason?: string) => {
      await deps.claims.settle(
        noting(held, blockEvents.unknown(at(), reason ?? 'the network offers no lookup')),
        'unknown',
      );
      return stop(await this.finish.fail(post, channel.channelId, unknownOutcome(b, channel, reason)));
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
          since: lookupSince(held),
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
        return this.lookAgain(block, held, counted, {
          retryAfterSeconds: error.details.retryAfterSeconds,
          failed: refusal(error),
        });
      }
      if (error instanceof NetworkError && error.kind === 'reconnect') {
        // The block stays to be checked when the channel publishes again with a working token.
        await deps.claims.settle(
          noting({ ...held, nextCheckAt: at() }, blockEvents.lookupRefused(at(), error)),
          'checking',
        );
        return stop(await this.finish.reconnectNeeded(post, channel, error));
      }
      return failUnknown(error instanceof NetworkError ? error.message : undefined);
    }
    if (found) return this.sent(block, noting(held, blockEvents.found(at(), found)), found);
    const windowEnd = consistencyWindowEnd(
      held,
      client.consistencyWindowSeconds,
      deps.settings.inFlightGraceSeconds,
    );
    if (held.duplicate || deps.clock.now().getTime() < windowEnd) {
      return this.lookAgain(block, held, 1, { windowEnd });
    }
    // Not on the network after its consistency window and the grace: the send did not go through,
    // and sending again cannot make a duplicate. It counts as one failed attempt of the channel.
    await deps.claims.settle(noting(held, blockEvents.notPublished(at())), 'not_sent');
    return stop(
      await this.waits.transientFailure(
        post,
        channel.channelId,
        `${labelOf(channel, b)}the network did not confirm the post and does not show it`,
        undefined,
      ),
    );
  }

  /** Parks the claim as `checking` until its next lookup, on a doubling schedule; bounded once the window has passed. */
  private async lookAgain(
    block: BlockContext,
    held: BlockClaim,
    counted: number,
    {
      retryAfterSeconds,
      windowEnd,
      failed,
    }: { retryAfterSeconds?: number; windowEnd?: number; failed?: { code: string; message: string } },
  ): Promise<BlockStep> {
    const { deps } = this;
    const now = deps.clock.now().getTime();
    const checks = (held.checks ?? 0) + counted;
    const delay = checkDelaySeconds({
      checks,
      baseSeconds: deps.settings.retryBaseSeconds,
      now,
      ...(windowEnd !== undefined ? { windowEnd } : {}),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    });
    const at = new Date(now).toISOString();
    const looked = blockEvents.notFound(at, failed);
    if (delay === null) {
      await deps.claims.settle(noting(held, looked, blockEvents.lookupsSpent(at)), 'unknown');
      const { post, channel, b } = block;
      return stop(await this.finish.fail(post, channel.channelId, unknownOutcome(b, channel)));
    }
    const nextCheckAt = new Date(now + delay * 1000).toISOString();
    await deps.claims.settle(
      noting({ ...held, checks, nextCheckAt }, { ...looked, until: nextCheckAt }),
      'checking',
    );
    return stop({ kind: 'retry', delaySeconds: delay });
  }

  /**
   * The block is live at `remote` under `held`, this worker's claim: recorded on the post with the
   * claim settled in one write, or, for the channel's last block, handed on to the write that
   * completes the channel.
   */
  private async sent(block: BlockContext, held: BlockClaim, remote: RemoteBlock): Promise<BlockStep> {
    if (!block.record) return { kind: 'sent', remote, claim: held };
    await this.writes.recordBlock(block.post, block.channel.channelId, block.b, remote, held);
    return { kind: 'sent', remote };
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
        const now = deps.clock.now();
        const leaseUntil = this.leaseFrom(now);
        const event = blockEvents.uploadSaved(now.toISOString(), state);
        if (!(await deps.claims.saveProgress(held, state, leaseUntil, event))) throw new ClaimLostError();
        held.progress = state;
        held.leaseUntil = leaseUntil;
        // As stored: the next write of the claim bounds its timeline from here.
        afterSave(held, event);
      },
    };
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

  private newOwner(): string {
    return `${this.worker}-${randomUUID().slice(0, 8)}`;
  }

  private leaseFrom(now: Date): string {
    return new Date(now.getTime() + this.deps.settings.leaseSeconds * 1000).toISOString();
  }
}
