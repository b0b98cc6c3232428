import type { instagramOAuthSimulator } from './oauth.ts';

export interface InstagramSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof instagramOAuthSimulator>[0];
  /** How long a container stays IN_PROGRESS after its media arrived (default 300 ms). */
  processingMs?: number;
  /** Publications per account per rolling 24 hours (Instagram: 50). */
  publishLimit?: number;
  /** Container lifetime (Instagram: 24 hours). */
  containerTtlMs?: number;
  /**
   * Default true: `content_publishing_limit` reports `config` (`quota_total`, `quota_duration`)
   * when asked for it; false models an answer without it (only `quota_usage`).
   */
  reportsQuotaConfig?: boolean;
  /**
   * How long a new post or comment stays out of the account's `/media`, `/stories` and a post's
   * `/comments` lists (default `DEFAULT_INSTAGRAM_LIST_LAG_MS`; 0: listed at once).
   */
  listLagMs?: number;
}

/**
 * Graph's edges are read from replicas: a post (or comment) just published may be missing from the
 * lists for a moment. Instagram documents no bound (a guess, issue 26): the simulator lags 3 s, well
 * within the client's consistency window, so a lookup right after a lost answer finds nothing.
 */
export const DEFAULT_INSTAGRAM_LIST_LAG_MS = 3_000;
