/**
 * Waiting on a condition instead of a fixed time: a fixed sleep is either too short on a loaded
 * machine (a flaky failure) or too long on a quiet one (a slow suite), and a "nothing happened"
 * assertion after one passes falsely when the work had not run yet.
 */

export interface WaitOptions {
  /** How long the condition has to hold (default 15 s). */
  timeoutMs?: number;
  /** Pause between checks (default 25 ms). */
  intervalMs?: number;
  /** Named in the timeout error. */
  what?: string;
}

/**
 * Polls `check` until it returns a value other than `undefined`, `null` or `false` and returns
 * that value; a check that throws is retried until the deadline, then its last error is the cause.
 */
export const waitFor = async <T>(
  check: () => T | Promise<T>,
  { timeoutMs = 15_000, intervalMs = 25, what = 'a condition' }: WaitOptions = {},
): Promise<Exclude<T, undefined | null | false>> => {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false)
        return value as Exclude<T, undefined | null | false>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
