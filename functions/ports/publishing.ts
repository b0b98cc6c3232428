import type { ClaimState } from '../domain/block-activity.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { PostView } from '../domain/post-view.ts';
import type { BlockEvent } from '../domain/timeline.ts';
import type { RemoteBlock } from './network-client.ts';
import type { PublishJob } from './queue-messages.ts';

export type { JobReads, PublishJob } from './queue-messages.ts';
export { jobReadsOf } from './queue-messages.ts';

/** The `run` job of a post's current round, naming the channels it has left to publish. */
export const runJob = (post: {
  postId: string;
  workspaceId: string;
  round?: number;
  channels: { channelId: string; status: string }[];
}): PublishJob => ({
  postId: post.postId,
  kind: 'run',
  round: post.round ?? 1,
  reads: {
    workspaceId: post.workspaceId,
    channelIds: post.channels.filter((c) => c.status === 'publishing').map((c) => c.channelId),
  },
});

/** Queues with optional delay (SQS on AWS, the SQS stand-in locally). */
export interface JobQueue {
  sendPublish(job: PublishJob, delaySeconds?: number): Promise<void>;
  /**
   * Hands a committed event to the webhooks capability. With `about` (the event's fixed facts),
   * the dispatcher need not read the event when its workspace has no endpoint for it.
   */
  sendEvent(eventId: string, about?: EventFacts): Promise<void>;
}

/** What never changes about an event and tells whom it concerns: carried by its queue message. */
export type EventFacts = Pick<OutboxEvent, 'workspaceId' | 'type' | 'mode'>;

export type { ClaimState };

export interface BlockClaim {
  postId: string;
  channelId: string;
  block: number;
  state: ClaimState;
  owner: string;
  leaseUntil: string;
  /** When the current holder took the claim. */
  since: string;
  /** The block's first send: lookups search from here. Kept across takeovers and sends. */
  firstSentAt?: string;
  /** The block's latest send: the network's consistency window runs from here. */
  lastSentAt?: string;
  /** When an answer to a send of this block was first lost; a later duplicate refusal then means "already there". */
  lostAt?: string;
  /** Lookups since the latest send that found nothing or failed (bounds the schedule). */
  checks?: number;
  /** `checking`: the next lookup is not due before this. */
  nextCheckAt?: string;
  /** The network refused a resend as a duplicate: it has the block, so it is never sent again. */
  duplicate?: boolean;
  /** A resumable upload's state (session, offset) saved by the network client; kept across takeovers and retries. */
  progress?: Record<string, unknown>;
  remote?: RemoteBlock;
  /** What the engine did with the block, oldest first (the latest `BLOCK_TIMELINE_LIMIT`). */
  timeline?: BlockEvent[];
  /** Older events dropped from `timeline`. */
  timelineDropped?: number;
  /** Not stored as such: the events the next write of this claim (acquire, takeover, settle) appends to `timeline`. */
  append?: BlockEvent[];
}

export interface ClaimStore {
  /**
   * Takes the claim if nobody holds it (absent or `not_sent`); otherwise returns the current claim.
   * The block's send history (`firstSentAt`, `lostAt`) survives a `not_sent` claim being taken
   * again: the claim as stored is returned.
   */
  acquire(
    claim: BlockClaim,
  ): Promise<{ acquired: true; claim: BlockClaim } | { acquired: false; current: BlockClaim }>;
  /**
   * Replaces `previous` (an expired `sending` claim, a due `checking` one, or one this owner holds)
   * with `claim`, if it is still as read; false when someone else changed it first.
   */
  takeOver(previous: BlockClaim, claim: BlockClaim): Promise<boolean>;
  /** Records the outcome of a claim this owner holds, with its send history and lookup schedule. */
  settle(claim: BlockClaim, state: Exclude<ClaimState, 'sending'>, remote?: RemoteBlock): Promise<void>;
  /**
   * Stores a resumable upload's progress on a `sending` claim this owner holds and extends its
   * lease to `leaseUntil`, with `event` appended to its timeline; false when the claim is no
   * longer this owner's.
   */
  saveProgress(
    claim: BlockClaim,
    progress: Record<string, unknown>,
    leaseUntil: string,
    event?: BlockEvent,
  ): Promise<boolean>;
}

/** A write that settles a block's claim found another owner holding it (taken over): nothing was written. */
export class ClaimTakenError extends Error {
  constructor() {
    super('The block claim is held by another worker');
    this.name = 'ClaimTakenError';
  }
}

/**
 * What a write knows of its workspace's webhook endpoints: how many there are (`endpoints`, as a
 * read found them), or null when the workspace was never counted. With 0, the write keeps no
 * event: it checks, in the same transaction, that the workspace still has no endpoint instead
 * (`EndpointsAppearedError` when one was created meanwhile: write again with `endpoints: null`).
 */
export interface OutboxGate {
  workspaceId: string;
  endpoints: number | null;
}

/** A write that left its events out found that its workspace has a webhook endpoint now: nothing was written. */
export class EndpointsAppearedError extends Error {
  constructor() {
    super('A webhook endpoint was created in the workspace since its count was read');
    this.name = 'EndpointsAppearedError';
  }
}

/** Whether a write with `gate` leaves its events out (the workspace is known to have no endpoint). */
export const skipsEvents = (gate: OutboxGate | undefined): boolean => gate?.endpoints === 0;

export type EventType =
  | 'post.published'
  | 'post.failed'
  | 'post.partially_failed'
  | 'channel.needs_reconnect'
  | 'comment.received';

/** An event as stored in the outbox and delivered to webhooks (spec 6). */
export interface OutboxEvent {
  id: string;
  type: EventType;
  createdAt: string;
  accountId: string;
  workspaceId: string;
  mode: KeyMode;
  data: {
    channelId: string;
    platform: string;
    blocksPublished?: number;
    blocksTotal?: number;
    error: string | null;
    post?: PostView;
    /** channel.needs_reconnect: the channel's name and the post that found out. */
    channelName?: string;
    postId?: string;
    /** comment.received: the new comment, as GET /posts/{id}/comments shows it. */
    comment?: {
      id: string;
      remoteId: string;
      blockIndex: number | null;
      parentId: string | null;
      author: { name: string | null; handle: string | null };
      text: string;
      createdAt: string;
      likeCount: number | null;
      url: string | null;
      replyId: string | null;
    };
  };
}
