/**
 * How long a channel waits after the network's rate limit stopped it: a pure policy, no I/O.
 *
 * - The network announced its reset (`Retry-After`, a reset header): the channel waits until then.
 * - It announced none: the limit may be a short throttle (seconds) or a daily cap (hours), and the
 *   answer alone cannot tell them apart (LinkedIn answers both with a bare 429). The channel tries
 *   again after growing steps, 1, 2, 4, 8 then 15 minutes (with the default probe of 60 s),
 *   counted over consecutive unannounced limits, and never later than the latest reset the
 *   network is known to have (LinkedIn's daily limits reset at midnight UTC). A short throttle so
 *   costs at most a minute; a daily cap costs a try every 15 minutes, each one a single call.
 */

/** The longest step of the growing schedule, in probes: 15 × 60 s = 15 minutes by default. */
export const MAX_PROBE_STEPS = 15;

export interface RateLimitAnswer {
  /** The reset the network announced, in seconds from `now`. */
  retryAfterSeconds?: number;
  /** The latest reset the network is known to have, in seconds from `now` (e.g. its daily reset). */
  resetBySeconds?: number;
}

export interface RateLimitWait {
  /** When the channel tries again. */
  until: Date;
  /** Consecutive unannounced limits so far, this one included (0 after an announced one). */
  probes: number;
  /** The latest reset the network is known to have (unannounced limits only), or null. */
  resetBy: Date | null;
}

/**
 * The wait after a rate limit. `previousProbes`: consecutive unannounced limits before this one
 * (the channel's count, reset by every block the network accepts). `probeSeconds`: the first step.
 */
export const rateLimitWait = (
  answer: RateLimitAnswer,
  { now, previousProbes, probeSeconds }: { now: Date; previousProbes: number; probeSeconds: number },
): RateLimitWait => {
  const at = (seconds: number) => new Date(now.getTime() + Math.max(0, seconds) * 1000);
  if (answer.retryAfterSeconds !== undefined) {
    return { until: at(answer.retryAfterSeconds), probes: 0, resetBy: null };
  }
  const probes = Math.max(0, previousProbes) + 1;
  const step = Math.min(probeSeconds * 2 ** Math.min(probes - 1, 30), probeSeconds * MAX_PROBE_STEPS);
  const resetBy = answer.resetBySeconds !== undefined ? at(answer.resetBySeconds) : null;
  const until = resetBy && resetBy.getTime() < at(step).getTime() ? resetBy : at(step);
  return { until, probes, resetBy };
};
