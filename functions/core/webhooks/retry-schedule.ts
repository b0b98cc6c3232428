/**
 * The webhook retry schedule, in units of the base (10 s in production): waits of 1, 2, 4, ...
 * times the base between attempts, at most 360 (one hour) apart, and a last attempt 1800 times
 * the base (five hours) after the first; a failure then gives up.
 */
export const RETRY_SCHEDULE = {
  /** Longest wait between two attempts, in bases. */
  maxWaitBases: 360,
  /** Time from the first attempt to the last one, in bases. */
  giveUpAfterBases: 1800,
} as const;

/**
 * Seconds to wait after attempt `attempt` (1-based) failed, `elapsedSeconds` after the first
 * attempt started; null when the delivery gives up.
 */
export const retryDelaySeconds = (
  attempt: number,
  elapsedSeconds: number,
  baseSeconds: number,
): number | null => {
  const horizon = RETRY_SCHEDULE.giveUpAfterBases * baseSeconds;
  // A hair of tolerance: the last attempt is made at the horizon, and its failure is final.
  if (elapsedSeconds >= horizon - baseSeconds / 1000) return null;
  const wait = Math.min(2 ** Math.min(attempt - 1, 30), RETRY_SCHEDULE.maxWaitBases) * baseSeconds;
  return Math.min(wait, horizon - elapsedSeconds);
};

/** The nominal schedule: offsets (seconds after the first attempt) of every attempt. */
export const nominalAttemptOffsets = (baseSeconds: number): number[] => {
  const offsets = [0];
  for (let attempt = 1; ; attempt++) {
    const elapsed = offsets.at(-1) as number;
    const wait = retryDelaySeconds(attempt, elapsed, baseSeconds);
    if (wait === null) return offsets;
    offsets.push(elapsed + wait);
  }
};
