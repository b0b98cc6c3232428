/**
 * A channel that must wait: a transient failure (an attempt spent, a growing delay, failed past
 * the last attempt) or the network's rate limit (no attempt spent, steps through the queue).
 */

import type { PostChannel, PostRecord } from '../../domain/post.ts';
import { clip, type TimelineEvent, withEvents } from '../../domain/timeline.ts';
import { logger } from '../../shared/powertools.ts';
import type { ChannelFinish, ChannelOutcome } from './channel-finish.ts';
import type { PublishingDeps } from './deps.ts';
import type { JobWrites } from './job-writes.ts';
import { type RateLimitWait, rateLimitWait } from './rate-limit-wait.ts';
import {
  attemptsExhausted,
  DEFAULT_RATE_LIMIT_PROBE_SECONDS,
  stepDue,
  stepSeconds,
  transientDelaySeconds,
} from './retry-policy.ts';

export class ChannelWaits {
  constructor(
    private readonly deps: Pick<PublishingDeps, 'clock' | 'settings'>,
    private readonly writes: JobWrites,
    private readonly finish: ChannelFinish,
  ) {}

  /** Counts a failed attempt and plans the next (shown on the post), or fails the channel after the last. */
  async transientFailure(
    post: PostRecord,
    channelId: string,
    message: string,
    retryAfterSeconds: number | undefined,
  ): Promise<ChannelOutcome> {
    const { settings } = this.deps;
    let attempts = 0;
    let delaySeconds = 0;
    await this.writes.mutate(post, (current) => {
      const now = this.deps.clock.now().getTime();
      const events: TimelineEvent[] = [];
      const channels = current.channels.map((ch) => {
        if (ch.channelId !== channelId) return ch;
        attempts = (ch.attempts ?? 0) + 1;
        delaySeconds = transientDelaySeconds(attempts, settings.retryBaseSeconds, retryAfterSeconds);
        if (!attemptsExhausted(attempts, settings.maxTransientAttempts)) {
          events.push({
            at: new Date(now).toISOString(),
            channelId,
            block: null,
            kind: 'retry_scheduled',
            detail: clip(`Attempt ${attempts} failed: ${message}`),
            attempt: attempts,
            until: new Date(now + delaySeconds * 1000).toISOString(),
          });
        }
        // GET /posts/{id} shows the retry (why, and when) while the channel waits for it.
        return {
          ...ch,
          attempts,
          retryAt: new Date(now + delaySeconds * 1000).toISOString(),
          retryReason: message.slice(0, 300),
        };
      });
      return { next: withEvents({ ...current, channels }, events) };
    });
    if (attemptsExhausted(attempts, settings.maxTransientAttempts)) {
      return this.finish.fail(
        post,
        channelId,
        `The network was unavailable after ${attempts} attempts: ${message}`,
      );
    }
    return { kind: 'retry', delaySeconds };
  }

  /**
   * The network's rate limit stopped the channel: it waits, still `publishing`, without spending
   * an attempt, until the announced reset or, when none was announced, the next step of a growing
   * schedule (rate-limit-wait.ts), in steps of at most the queue's ceiling. This job owns the first
   * step.
   */
  async rateLimited(
    post: PostRecord,
    channel: PostChannel,
    answer: { retryAfterSeconds?: number; resetBySeconds?: number },
  ): Promise<ChannelOutcome> {
    const now = this.deps.clock.now();
    let waiting: RateLimitWait | null = null;
    await this.writes.mutate(post, (current) => {
      const c = current.channels.find((ch) => ch.channelId === channel.channelId);
      waiting = null;
      if (c?.status !== 'publishing') return null;
      const wait = rateLimitWait(answer, {
        now,
        previousProbes: c.rateLimitProbes ?? 0,
        probeSeconds: this.deps.settings.rateLimitProbeSeconds ?? DEFAULT_RATE_LIMIT_PROBE_SECONDS,
      });
      waiting = wait;
      const stepAt = new Date(now.getTime() + stepSeconds(wait.until, now) * 1000).toISOString();
      const { rateLimitProbes: _p, rateLimitResetBy: _r, ...rest } = c;
      const next: PostChannel = {
        ...rest,
        rateLimitedUntil: wait.until.toISOString(),
        rateLimitStepAt: stepAt,
        ...(wait.probes > 0 ? { rateLimitProbes: wait.probes } : {}),
        ...(wait.resetBy ? { rateLimitResetBy: wait.resetBy.toISOString() } : {}),
      };
      const channels = current.channels.map((ch) => (ch === c ? next : ch));
      const event: TimelineEvent = {
        at: now.toISOString(),
        channelId: channel.channelId,
        block: null,
        kind: 'rate_limit_wait',
        detail:
          answer.retryAfterSeconds !== undefined
            ? "The network's rate limit: waiting for the reset it announced."
            : `The network's rate limit, no reset announced: trying again after a growing wait (step ${wait.probes}).`,
        until: wait.until.toISOString(),
      };
      return { next: withEvents({ ...current, channels }, [event]) };
    });
    const wait = waiting as RateLimitWait | null;
    logger.info('Channel rate-limited by the network; waiting', {
      postId: post.postId,
      channelId: channel.channelId,
      until: wait?.until.toISOString(),
      announced: answer.retryAfterSeconds !== undefined,
      probes: wait?.probes,
    });
    return wait ? { kind: 'wait', delaySeconds: stepSeconds(wait.until, now) } : { kind: 'done' };
  }

  /**
   * A job visiting a channel that waits for a rate limit's reset. When the current step is due, this
   * job takes the next one (the write decides between concurrent jobs) and queues it: `wait`. When
   * the step is not due, another job owns it: `done` (nothing to queue for this channel). Null once
   * the reset has passed: the channel publishes. A job put back after a restart (`takeOver`) takes
   * the step even when it is not due: the job that owned it was lost with the restart.
   */
  async waitStep(post: PostRecord, channelId: string, takeOver = false): Promise<ChannelOutcome | null> {
    let outcome: ChannelOutcome | null = null;
    await this.writes.mutate(post, (current) => {
      const now = this.deps.clock.now();
      const c = current.channels.find((ch) => ch.channelId === channelId);
      outcome = null;
      if (c?.status !== 'publishing' || !c.rateLimitedUntil) return null;
      const reset = new Date(c.rateLimitedUntil);
      if (reset.getTime() <= now.getTime()) return null;
      if (!takeOver && !stepDue(c.rateLimitStepAt, now)) {
        outcome = { kind: 'done' };
        return null;
      }
      const step = stepSeconds(reset, now);
      outcome = { kind: 'wait', delaySeconds: step };
      const stepAt = new Date(now.getTime() + step * 1000).toISOString();
      const channels = current.channels.map((ch) => (ch === c ? { ...ch, rateLimitStepAt: stepAt } : ch));
      return { next: { ...current, channels } };
    });
    return outcome;
  }
}
