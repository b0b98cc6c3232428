import type { PostView } from '../core/posts/post-view.ts';
import type { KeyMode } from './accounts.ts';
import type { RemoteBlock } from './network-client.ts';

/** A message on the publish queue: ids only, never copies of state. */
export interface PublishJob {
  postId: string;
  /** `scheduled`: a schedule fired (for `scheduledAt`); `run`: work on a post that is publishing. */
  kind: 'scheduled' | 'run';
  /** The scheduled time this firing is for; a firing for another time is stale and ignored. */
  scheduledAt?: string;
  /** The publication round the job belongs to; jobs of an earlier round are ignored. */
  round?: number;
}

/** Queues with optional delay (SQS on AWS, the SQS stand-in locally). */
export interface JobQueue {
  sendPublish(job: PublishJob, delaySeconds?: number): Promise<void>;
  sendEvent(eventId: string): Promise<void>;
}

/**
 * The claim on one block of one channel, written before the network is called, so that a block
 * is sent at most once whatever SQS redelivers and wherever a worker dies:
 * - `sending`: a worker holds it until `leaseUntil`; past that the outcome is unknown;
 * - `sent`: the network has it (`remote`);
 * - `not_sent`: the network certainly does not have it (refused, or failed before accepting);
 *   a later attempt may claim it again;
 * - `unknown`: the answer was lost and the network offers no lookup: never sent again.
 */
export type ClaimState = 'sending' | 'sent' | 'not_sent' | 'unknown';

export interface BlockClaim {
  postId: string;
  channelId: string;
  block: number;
  state: ClaimState;
  owner: string;
  leaseUntil: string;
  since: string;
  remote?: RemoteBlock;
}

export interface ClaimStore {
  /** Takes the claim if nobody holds it (absent or `not_sent`); otherwise returns the current claim. */
  acquire(claim: BlockClaim): Promise<{ acquired: true } | { acquired: false; current: BlockClaim }>;
  /** Takes over an expired `sending` claim (the previous holder is gone); false when someone else did first. */
  takeOver(previous: BlockClaim, claim: BlockClaim): Promise<boolean>;
  /** Records the outcome of a claim this owner holds. */
  settle(claim: BlockClaim, state: Exclude<ClaimState, 'sending'>, remote?: RemoteBlock): Promise<void>;
}

export type EventType =
  | 'post.published'
  | 'post.failed'
  | 'post.partially_failed'
  | 'channel.needs_reconnect';

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
  };
}
