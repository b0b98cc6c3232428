import type { BlockActivity } from '../domain/block-activity.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { PostRecord, PostStatus } from '../domain/post.ts';
import type { BlockEvent } from '../domain/timeline.ts';
import type { ChannelRecord } from './channels.ts';
import type { MetricsTracker } from './metrics.ts';
import type { RemoteBlock } from './network-client.ts';
import type { BlockClaim, JobReads, OutboxEvent, OutboxGate } from './publishing.ts';
import type { KeyCount } from './rate-limiter.ts';

/** Written in the same transaction as a post change. */
export interface PostWriteExtras {
  /**
   * Outbox events the change produces (none is lost: they commit with it). Sandbox (test-key)
   * events are not kept: they are never delivered and nothing reads them.
   */
  events?: OutboxEvent[];
  /**
   * What the writer read of the workspace's webhook endpoints: known to have none, the events are
   * left out and the write checks that it still has none (`EndpointsAppearedError` otherwise).
   */
  outbox?: OutboxGate;
  /** Counts the post in `posts.published` of this account and period (`YYYY-MM`). */
  countPublished?: { accountId: string; period: string };
  /**
   * Block claims this owner holds, each settled as `sent` at its `remote` in the same write: the
   * blocks' records on the post and their claims' outcomes commit together. When another owner has
   * taken one of them over, nothing is written and the write throws `ClaimTakenError`.
   */
  settleClaims?: { claim: BlockClaim; remote: RemoteBlock }[];
  /**
   * Starts the metrics tracking of the channels this change makes live, in the same write, for the
   * common case: `countPost` when no other channel of the post was live before, `countPlatform`
   * when no other channel of the post on its network was (each judged after the starts before it in
   * the list). When the table shows another case (a count already made, a tracker already there),
   * the change is written alone and each tracking then starts on its own, as `MetricsStore.track`
   * does (a failure there is logged, never the write's: the change is in).
   */
  startTracking?: TrackingStart[];
}

/** One channel's metrics tracking start (see `PostWriteExtras.startTracking`). */
export interface TrackingStart {
  tracker: MetricsTracker;
  countPost: boolean;
  countPlatform: boolean;
}

/** The monthly `posts.created` allowance the create transaction checks and uses. */
export interface QuotaClaim {
  accountId: string;
  /** `YYYY-MM` of the UTC calendar month. */
  period: string;
  /** null: unlimited. */
  limit: number | null;
  /** false for sandbox (test-key) posts, which use no quota. */
  count: boolean;
}

export interface PostListQuery {
  workspaceId: string;
  /** Only posts of this mode: a key lists the posts of its own mode. */
  mode: KeyMode;
  /** Only posts in one of these statuses (none: any status). */
  statuses: PostStatus[];
  /** Only posts carrying one of these tags (none: any tags); with `statuses`, both must hold. */
  tagIds: string[];
  /** Inclusive bounds over the list time (ISO UTC). */
  from?: string;
  to?: string;
  limit: number;
  /** Position after which to continue (from a previous page's `next`). */
  after?: string;
}

export interface PostPage {
  posts: PostRecord[];
  /** Position of the last post returned when more follow, else null. */
  next: string | null;
}

export type { BlockActivity };

/** Posts and their list indexes. Every write is one transaction. */
/** One block's timeline, as its claim keeps it. */
export interface BlockTimeline {
  channelId: string;
  block: number;
  events: BlockEvent[];
  /** Older events the claim no longer keeps. */
  dropped: number;
}

/** A post with its blocks' timelines, read in one request (the claims live beside the post). */
export interface PostTimelines {
  getTimeline(postId: string): Promise<{ post: PostRecord | null; blocks: BlockTimeline[] }>;
}

export interface PostStore {
  /**
   * Saves a new post and takes one `posts.created` from the quota, atomically; `quota_exceeded`
   * when none is left. With `keyCount`, the same write counts the request in its key's window and
   * marks it counted; `KeyCountRefusedError` when the key's condition refused it, or when it kept
   * colliding with other writes (nothing written either way).
   */
  create(post: PostRecord, quota: QuotaClaim, keyCount?: KeyCount): Promise<void>;
  get(postId: string): Promise<PostRecord | null>;
  /**
   * `get`, with what the engine is doing with each block that has a claim (in the same request:
   * the claims live beside the post), for GET /posts/{id}'s `waiting`.
   */
  getWithActivity(postId: string): Promise<{ post: PostRecord | null; activity: BlockActivity[] }>;
  /**
   * Replaces `previous` with `next` if nobody wrote in between (`conflict` otherwise), with the
   * extras in the same transaction.
   */
  replace(previous: PostRecord, next: PostRecord, extras?: PostWriteExtras): Promise<void>;
  /**
   * A publish job's first read, one request: the post (null if gone) as `get` reads it and, as
   * `AccountStore.getChannelsForJob` reads them, the channels `reads` names and the count of the
   * workspace's webhook endpoints.
   */
  getForJob(
    postId: string,
    reads: JobReads,
  ): Promise<{ post: PostRecord | null; channels: Map<string, ChannelRecord>; endpoints: number | null }>;
  /** Removes the post and its index entries if nobody wrote in between (`conflict` otherwise). */
  delete(post: PostRecord): Promise<void>;
  list(query: PostListQuery): Promise<PostPage>;
}
