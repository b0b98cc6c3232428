/**
 * When the engine tries again: transient retries, lookups of a block whose answer was lost, and
 * the steps of a wait through the queue. Pure: numbers and dates in, numbers and dates out (the
 * rate limit's own wait is in rate-limit-wait.ts).
 */
import type { BlockClaim } from '../../ports/publishing.ts';

/** The first step of the growing wait after a rate limit that announced no reset. */
export const DEFAULT_RATE_LIMIT_PROBE_SECONDS = 60;
/** Lookups that find nothing (or fail) after the consistency window, at most, before the block counts as unknown. */
export const MAX_CHECKS = 10;
/** The longest wait between two lookups of a block. */
export const MAX_CHECK_DELAY_SECONDS = 300;
/** Lookups search from a minute before the first send: two machines' clocks never agree exactly. */
export const LOOKUP_SLACK_MS = 60_000;
/** SQS's longest message delay: longer waits go in steps of at most this. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
/** A wait step's message may arrive this early (the queue's delays are whole seconds, with jitter). */
export const STEP_EARLY_MS = 2_000;

/** The delay before a channel's next attempt after its `attempts`-th transient failure: doubling, or the network's ask. */
export const transientDelaySeconds = (
  attempts: number,
  baseSeconds: number,
  retryAfterSeconds: number | undefined,
): number => Math.max(baseSeconds * 2 ** (attempts - 1), retryAfterSeconds ?? 0);

/** Whether a channel with `attempts` transient failures has used them all. */
export const attemptsExhausted = (attempts: number, maxAttempts: number): boolean => attempts >= maxAttempts;

/** Where a lookup of the claim's block starts searching: its first send, less the clocks' slack. */
export const lookupSince = (claim: BlockClaim): Date =>
  new Date(Date.parse(claim.firstSentAt ?? claim.since) - LOOKUP_SLACK_MS);

/**
 * When a lookup that finds nothing may first lead to a resend (epoch ms): once both the network's
 * consistency window and the in-flight grace (a lost request may still land) have passed since
 * the claim's latest send.
 */
export const consistencyWindowEnd = (
  claim: BlockClaim,
  windowSeconds: number,
  graceSeconds: number,
): number => Date.parse(claim.lastSentAt ?? claim.since) + Math.max(windowSeconds, graceSeconds) * 1000;

/**
 * The next lookup of a block after `checks` that found nothing: `null` when the lookups are spent
 * (past `MAX_CHECKS`, the window closed), else the delay in whole seconds (at least 1): doubling
 * from `baseSeconds`, at most `MAX_CHECK_DELAY_SECONDS`, no later than the window's end while it is
 * open (the lookup that decides), and no sooner than the network's ask.
 */
export const checkDelaySeconds = ({
  checks,
  baseSeconds,
  now,
  windowEnd,
  retryAfterSeconds,
}: {
  checks: number;
  baseSeconds: number;
  now: number;
  windowEnd?: number;
  retryAfterSeconds?: number;
}): number | null => {
  const windowOpen = windowEnd !== undefined && now < windowEnd;
  if (checks > MAX_CHECKS && !windowOpen) return null;
  let delay = Math.min(baseSeconds * 2 ** Math.max(0, checks - 1), MAX_CHECK_DELAY_SECONDS);
  if (windowOpen) delay = Math.min(delay, (windowEnd - now) / 1000);
  return Math.max(1, Math.ceil(Math.max(delay, retryAfterSeconds ?? 0)));
};

/** The next step of a wait until `reset`: whole seconds, at least 1, at most the queue's ceiling. */
export const stepSeconds = (reset: Date, now: Date): number =>
  Math.max(1, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil((reset.getTime() - now.getTime()) / 1000)));

/** Whether a wait step planned for `stepAt` is due at `now` (its message may come a little early). */
export const stepDue = (stepAt: string | null | undefined, now: Date): boolean =>
  !stepAt || Date.parse(stepAt) - STEP_EARLY_MS <= now.getTime();

/** A job's delay on the queue: at most the queue's ceiling (the job then comes early and re-delays). */
export const queueDelay = (seconds: number): number => Math.min(seconds, MAX_QUEUE_DELAY_SECONDS);

/** How long a job for a scheduled post waits on the queue when the schedule fired early, or null to go now. */
export const scheduledQueueDelay = (waitMs: number): number | null =>
  waitMs > 2000 ? Math.floor(waitMs / 1000) - 1 : null;
