import type { Simulator } from '../framework/framework.ts';
import type { facebookOAuthSimulator } from './oauth.ts';
import type { SimFacebookMedia } from './records.ts';

export interface FacebookSwitches {
  /** How long a video takes to process after its download (default 300 ms). */
  videoProcessingMs: number;
  /** Video processing fails (an unsupported codec). */
  videoFails: boolean;
  /** The page's feed publishing cap is spent for this many minutes (0: not). */
  feedLimitMinutes: number;
  /** Reels a page may publish through the API in a moving 24 hours (Facebook's 30). */
  reelsPerDay: number;
  /**
   * Graph leaves out a comment's `from` for people who have not authorised the app (an app
   * without Advanced Access to `pages_read_user_content`; peers met it:
   * https://github.com/restfb/restfb/issues/1136): on, every commenter but the page is nameless.
   */
  hideCommenters: boolean;
}

export interface FacebookSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof facebookOAuthSimulator>[0];
  switches?: Partial<FacebookSwitches>;
}

export interface FacebookSimulator extends Simulator {
  media(): SimFacebookMedia[];
  setSwitches(switches: Partial<FacebookSwitches>): void;
}

export const DEFAULT_SWITCHES: FacebookSwitches = {
  videoProcessingMs: 300,
  videoFails: false,
  feedLimitMinutes: 0,
  reelsPerDay: 30,
  hideCommenters: false,
};
export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
