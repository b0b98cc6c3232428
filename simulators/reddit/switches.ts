import type { Simulator } from '../framework/framework.ts';
import type { redditOAuthSimulator } from './oauth.ts';
import type { SimRedditAsset, SimRedditPost } from './records.ts';

export interface RedditSimSwitches {
  /** The account's posting limit is spent for this long: submits answer RATELIMIT (0: off). */
  postLimitSeconds: number;
  /** How long media processing takes before a media post shows in listings. */
  processingMs: number;
  /** Media processing fails: the post never appears. */
  mediaFails: boolean;
  /** The next this many reads of `/user/{name}/submitted` answer 503. */
  listingFailures: number;
  /** After processing, how much longer a media post takes to show in `/user/{name}/submitted`. */
  listingLagMs: number;
  /**
   * What a media post's socket does: `message` (success or failed once processed), `close`
   * (closes without a message), `refuse` (answers 503 instead of opening).
   */
  socket: 'message' | 'close' | 'refuse';
}

export const DEFAULT_SWITCHES: RedditSimSwitches = {
  postLimitSeconds: 0,
  processingMs: 200,
  mediaFails: false,
  listingFailures: 0,
  listingLagMs: 0,
  socket: 'message',
};

export interface RedditSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof redditOAuthSimulator>[0];
  switches?: Partial<RedditSimSwitches>;
}

export type RedditSimulator = Simulator & {
  /** Media-post sockets opened so far. */
  socketConnections(): number;
  posts(): SimRedditPost[];
  media(): SimRedditAsset[];
  setSwitches(switches: Partial<RedditSimSwitches>): void;
};
