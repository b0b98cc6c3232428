import type { Simulator } from '../framework/framework.ts';
import type { SimMedia, XMediaSwitches } from './media.ts';
import type { xOAuthSimulator } from './oauth.ts';

/** What the X simulator stores (tweets and their links), its options and its inspection surface. */
/** X's snowflake epoch (2010-11-04T01:42:54.657Z). */
export const X_EPOCH_MS = 1288834974657;
export const REPLY_SETTINGS = ['following', 'mentionedUsers', 'subscribers', 'verified'];

export interface TweetLink {
  /** The t.co link shown in place of the link. */
  url: string;
  expanded_url: string;
  display_url: string;
  start: number;
  end: number;
  /** Set on the link X appends for attached media. */
  media_key?: string;
}

export interface StoredTweet {
  id: string;
  /** The text as posted. */
  text: string;
  /** The text as X shows it: links replaced by t.co links. */
  shown: string;
  links: TweetLink[];
  authorId: string;
  createdAt: Date;
  inReplyTo: string | null;
  conversationId: string;
  replySettings: string;
  mediaIds: string[];
  deleted: boolean;
  /** Not visible to other users through the API (a protected or withheld account's reply). */
  hidden: boolean;
}
/** Default lag of the user timeline behind a stored tweet. */
export const DEFAULT_X_TIMELINE_LAG_MS = 3_000;
/** Default lag of recent search behind a tweet made (X indexes search separately, seconds later). */
export const DEFAULT_X_SEARCH_LAG_MS = 3_000;
/** Recent searches a user token may make per 15-minute window (X's documented limit). */
export const X_SEARCH_LIMIT_PER_WINDOW = 300;

export interface XSimulatorOptions {
  port?: number;
  holdMs?: number;
  /** How long a stored tweet stays out of the user timeline (default 3 s; tests shorten it). */
  timelineLagMs?: number;
  /** How long a new tweet stays out of recent search (default 3 s; `searchLagMs` switch changes it). */
  searchLagMs?: number;
  /** OAuth endpoints and token lifetimes (x/oauth-simulator.ts). */
  oauth?: Parameters<typeof xOAuthSimulator>[0];
  /** Media processing and failure switches to start with (tests change them later too). */
  media?: Partial<XMediaSwitches>;
}

/** What the inspection routes and tests see besides the common simulator. */
export interface XSimulator extends Simulator {
  /** Every media upload, with its alt text and the tweets carrying it. */
  media(): SimMedia[];
  /** Changes the awkward parts (`POST /_sim/x/switches` over HTTP); reset restores the defaults. */
  setSwitches(
    switches: Partial<XMediaSwitches> & {
      dailyLimitSeconds?: number;
      expireUploads?: boolean;
      serverErrorAfterStore?: boolean;
      /** Recent search's lag behind a tweet made, ms. */
      searchLagMs?: number;
      /** Recent searches per user and 15-minute window (default 300). */
      searchLimit?: number;
    },
  ): void;
}
