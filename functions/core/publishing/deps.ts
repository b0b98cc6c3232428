import type { KeyMode } from '../../domain/key-mode.ts';
import type { PlatformId } from '../../domain/platforms/types.ts';
import type { PostRecord } from '../../domain/post.ts';
import type { ChannelStore } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MediaRecord, MediaStore } from '../../ports/media.ts';
import type { MetricsTracker } from '../../ports/metrics.ts';
import type { NetworkClient } from '../../ports/network-client.ts';
import type { PostStore } from '../../ports/posts.ts';
import type { ClaimStore, JobQueue } from '../../ports/publishing.ts';
import type { TagStore } from '../../ports/tags.ts';
import type { TokenService } from '../channels/token-service.ts';

/** The post reads and writes the engine makes (a fake implements only these). */
export type EnginePosts = Pick<PostStore, 'get' | 'getForJob' | 'replace'>;
/** The channel reads, and the reconnect mark, the engine makes. */
export type EngineChannels = Pick<ChannelStore, 'getChannel' | 'getChannelsForJob' | 'markNeedsReconnect'>;
/** The tag read the engine makes (tag names in `post.published` events). */
export type EngineTags = Pick<TagStore, 'listTags'>;
/** The token calls the engine makes for live channels. */
export type EngineTokens = Pick<TokenService, 'credentials' | 'afterExpired'>;

/** What the publishing engine depends on. */
export interface PublishingDeps {
  clock: Clock;
  posts: EnginePosts;
  channels: EngineChannels;
  tags: EngineTags;
  media: Pick<MediaStore, 'getMany'>;
  claims: ClaimStore;
  queue: () => JobQueue;
  /** The client for a network: the sandbox for test keys, the real API (or its simulator) for live keys. */
  networks: (platform: PlatformId, mode: KeyMode) => NetworkClient;
  /** Live channels' valid access tokens (refreshed when they expire; see core/channels/token-service.ts). */
  tokens: () => EngineTokens;
  /** A temporary URL the network can fetch the file from. */
  mediaUrl: (record: MediaRecord) => Promise<string>;
  settings: PublishingSettings;
  /**
   * Called when a live channel's publication ends (again after a redelivery: it must be
   * idempotent) and its tracking was not written with it; starts its metrics readings.
   */
  onChannelLive?: (post: PostRecord, channelId: string) => Promise<void>;
  /**
   * The metrics tracker a channel starts with once live (null: none). With it, the start is
   * written with the block that makes the channel live (`isChannelLive`) instead of by
   * `onChannelLive` afterwards.
   */
  trackerFor?: (post: PostRecord, channelId: string) => MetricsTracker | null;
}

export interface PublishingSettings {
  /** Transient failures per channel and round before the channel fails. */
  maxTransientAttempts: number;
  /** How long a worker holds a block claim; past it, a `sending` claim's outcome is unknown. */
  leaseSeconds: number;
  /** First retry delay after a transient failure; doubles each time. */
  retryBaseSeconds: number;
  /**
   * First step of the growing wait after a rate limit that announced no reset (then 2×, 4×, 8×,
   * at most 15×); default 60 s.
   */
  rateLimitProbeSeconds?: number;
  /**
   * How long after a block's latest send a request whose answer was lost may still land on the
   * network (it timed out on our side, or is still being processed): a lookup that finds nothing
   * leads to a resend only once both this and the network's consistency window have passed.
   * Twice the network request timeout (`inFlightGraceFor`): 20 s with the default 10 s.
   */
  inFlightGraceSeconds: number;
}

/** The in-flight grace for clients whose requests time out after `networkTimeoutMs`: twice that, in whole seconds. */
export const inFlightGraceFor = (networkTimeoutMs: number): number =>
  Math.ceil((2 * networkTimeoutMs) / 1000);

export const DEFAULT_PUBLISHING_SETTINGS: PublishingSettings = {
  maxTransientAttempts: 5,
  leaseSeconds: 60,
  retryBaseSeconds: 2,
  inFlightGraceSeconds: inFlightGraceFor(10_000),
};
