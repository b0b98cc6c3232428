import type { KeyMode } from './key-mode.ts';
import type { PlatformId } from './platforms/types.ts';
import type { TimelineEvent } from './timeline.ts';

/** Summary status of a post (spec 3). */
export const POST_STATUSES = [
  'draft',
  'scheduled',
  'publishing',
  'published',
  'partially_published',
  'failed',
] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** Status of one channel of a post: the post's own values except `partially_published` (top level only). */
export type ChannelStatus = 'draft' | 'scheduled' | 'publishing' | 'published' | 'failed';

export type Intent = 'draft' | 'schedule' | 'now';

/** An option value as spec 2.1 sends it: a string (text, url, choice, "true"/"false", media id) or a list. */
export type OptionValue = string | string[];

export interface PostBlock {
  /** Empty string when the block carries only media. */
  content: string;
  mediaIds: string[];
  mediaAltText: Record<string, string>;
  /** The network's id of the published block; null until it is live. */
  remoteId: string | null;
  remoteUrl: string | null;
  /**
   * Network references kept for replies, edits and deletes (e.g. Bluesky's uri and cid). A key
   * `warning.<code>` (WARNING_META_PREFIX) holds a warning about the published block: its message
   * (YouTube's `warning.visibility_restricted`); the post view lists them as the channel's `warnings`.
   */
  remoteMeta?: Record<string, string>;
}

/** Block meta keys starting with this carry a warning for the channel's result: `warning.<code>` → message. */
export const WARNING_META_PREFIX = 'warning.';

export interface PostChannel {
  channelId: string;
  platform: PlatformId;
  status: ChannelStatus;
  error: string | null;
  remoteUrl: string | null;
  title: string | null;
  postType: string | null;
  options: Record<string, OptionValue>;
  blocks: PostBlock[];
  /** Transient failures in the current publication round (bounded, then the channel fails). */
  attempts?: number;
  /** When the channel reached published. */
  publishedAt?: string | null;
  /**
   * When the channel went live: its first block went live on the network (see `isChannelLive`).
   * Absent on channels that went live before it was recorded: their `publishedAt` stands for it.
   */
  liveAt?: string | null;
  /**
   * The network's rate limit holds this channel until then (the reset it announced): the channel
   * waits, still `publishing`, without spending attempts.
   */
  rateLimitedUntil?: string | null;
  /** While waiting: when the current step of the wait ends (steps are at most the queue's 15-minute delay). */
  rateLimitStepAt?: string | null;
  /**
   * Consecutive rate limits without an announced reset (the growing wait's step count); gone once
   * the network accepts a block.
   */
  rateLimitProbes?: number;
  /** With `rateLimitProbes`: the latest reset the network is known to have (LinkedIn's midnight UTC). */
  rateLimitResetBy?: string;
  /** After a transient failure: when the channel tries again, and why (gone once a block is accepted). */
  retryAt?: string;
  retryReason?: string;
}

/** A post as stored. */
export interface PostRecord {
  postId: string;
  accountId: string;
  workspaceId: string;
  /** The kind of key that created it: test posts run in the sandbox and are never published. */
  mode: KeyMode;
  status: PostStatus;
  scheduledAt: string | null;
  publishedAt: string | null;
  tagIds: string[];
  channels: PostChannel[];
  createdAt: string;
  updatedAt: string;
  /** Incremented on every write; conditional writes compare it. */
  version: number;
  /** Publication rounds started: 1 on the first publication, +1 on each retry by POST /posts/{id}/publish. */
  round?: number;
  /** When the current publication round started (scheduling precision is measured on it). */
  roundStartedAt?: string;
  /** Whether the post already counted in `posts.published` (it counts once, when a channel first goes live). */
  countedPublished?: boolean;
  /** Storage detail: how many text-chunk items hold this post's block texts (0 when none). */
  textChunks?: number;
  /**
   * The schedule that fires this post at `scheduledAt`: a name of its own per save, written before
   * the post refers to it (see save-post.ts). null when none; absent on posts saved before schedules
   * had their own names, whose schedule is named after the post.
   */
  scheduleName?: string | null;
  /** Held by a revise or retract in progress, which acts on the networks (see post-hold.ts). */
  hold?: PostHold | null;
  /**
   * What the engine did with each channel as a whole (queued, retries, waits, its end, revisions
   * and retractions), oldest first; each block's own steps are on its claim. Never in the post's view.
   */
  timeline?: TimelineEvent[];
  /** Older events dropped from `timeline`. */
  timelineDropped?: number;
}

/** A request's hold on a post while it acts on the networks; past `until` it is void. */
export interface PostHold {
  action: 'revise' | 'retract';
  until: string;
}

/** What the validator needs to know about a media file of the workspace. */
export interface MediaInfo {
  mediaId: string;
  mimeType: string;
  size: number;
  /** Only `ready` files can be attached. */
  status: 'pending' | 'ready';
}

/**
 * What "live" means, in one place: a channel is live on its network once its first block is live
 * there, whether the rest of a thread follows or not (a thread stopped halfway stays live, its post
 * `partially_published`). A live channel has a post on the network (its `remoteUrl`); its metrics
 * are read from that first block; GET /stats counts its post; and usage's `posts.published` counts
 * the post once, when its first channel goes live. All of these start in the one write that
 * records that first block. (A published channel is live: all its blocks are.)
 */
export const isChannelLive = (channel: PostChannel): boolean =>
  channel.status === 'published' || Boolean(channel.blocks[0]?.remoteId);

/** When a live channel went live (null when it is not live, or its time was never recorded). */
export const channelLiveAt = (channel: PostChannel): string | null =>
  isChannelLive(channel) ? (channel.liveAt ?? channel.publishedAt ?? null) : null;
