/**
 * When a live channel's metrics are read (spec 4.1, "Polling reads"): hourly during the first day,
 * daily for the first week, weekly up to 30 days, then never again.
 */

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Seconds after the channel went live at which each reading is due (24 hourly + 6 daily + 3 weekly). */
export const READING_OFFSETS_SECONDS: readonly number[] = [
  ...Array.from({ length: 24 }, (_, i) => (i + 1) * HOUR),
  ...Array.from({ length: 6 }, (_, i) => (i + 2) * DAY),
  ...[14, 21, 28].map((d) => d * DAY),
];

/** Readings per channel over its 30 days. */
export const READINGS_PER_CHANNEL = READING_OFFSETS_SECONDS.length;

/**
 * How fast the cadence runs: 1 in production; tests and demos divide every interval by a larger
 * number (3600 makes an hour last a second), so a whole series can be watched quickly.
 */
export interface CadenceSettings {
  timeScale: number;
}

/** A span of seconds as a person reads it: `100 ms`, `1 s`, `12 min`, `10 h`, `3 days`. */
const span = (seconds: number): string => {
  const round = (n: number) => String(Number(n.toPrecision(2)));
  if (seconds < 1) return `${round(seconds * 1000)} ms`;
  if (seconds < 120) return `${round(seconds)} s`;
  if (seconds < 2 * HOUR) return `${round(seconds / 60)} min`;
  if (seconds < 2 * DAY) return `${round(seconds / HOUR)} h`;
  return `${round(seconds / DAY)} days`;
};

/**
 * What a cadence at another pace than the real one means, in a line (the local runtime's banner
 * prints it); null at the real pace (1).
 */
export const cadencePace = (settings: CadenceSettings): string | null => {
  const scale = settings.timeScale;
  if (scale === 1) return null;
  const last = READING_OFFSETS_SECONDS.at(-1) as number;
  return (
    `at ${scale}x the real pace (METRICS_TIME_SCALE=${scale}): an hour of the cadence lasts ` +
    `${span(HOUR / scale)}, and a post's last reading (day ${last / DAY}) comes ${span(last / scale)} after it goes live`
  );
};

/** When reading number `step` (0-based) of a channel that went live at `liveAt` is due; null after the last. */
export const readingDueAt = (liveAt: Date, step: number, settings: CadenceSettings): Date | null => {
  const offset = READING_OFFSETS_SECONDS[step];
  if (offset === undefined) return null;
  return new Date(liveAt.getTime() + (offset * 1000) / settings.timeScale);
};

/** The nominal age (seconds, unscaled) of the post at reading `step`: what simulated networks grow their counts from. */
export const readingAgeSeconds = (step: number): number => READING_OFFSETS_SECONDS[step] ?? 0;

/** Tries per reading (the first plus retries) before it is recorded as missed. */
export const READING_ATTEMPTS = 3;

/** Wait before retry `attempt` (2, 3, ...) of a failed reading, in real seconds: 60 s, 120 s, ... scaled. */
export const retryDelaySeconds = (attempt: number, settings: CadenceSettings): number =>
  (60 * 2 ** (attempt - 2)) / settings.timeScale;

/**
 * How long a reading handed to the queue stays out of the sweep: if its message is lost, the sweep
 * hands it out again after this (10 minutes, scaled; longer than every retry of a reading).
 */
export const leaseSeconds = (settings: CadenceSettings): number => 600 / settings.timeScale;
