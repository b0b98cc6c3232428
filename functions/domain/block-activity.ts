/**
 * The claim on one block of one channel, written before the network is called, so that a block
 * is sent at most once whatever SQS redelivers and wherever a worker dies:
 * - `sending`: a worker holds it until `leaseUntil` (sending, or looking the block up); past that
 *   the outcome of its send is unknown;
 * - `checking`: a send's answer was lost (timeout, reset, 5xx) and the network has not shown the
 *   block yet; it is looked up again from `nextCheckAt`, and sent again only once a lookup finds
 *   nothing after the network's consistency window (from `lastSentAt`) has passed;
 * - `sent`: the network has it (`remote`);
 * - `not_sent`: the network certainly does not have it (refused, failed before accepting, or not
 *   found after the consistency window); a later attempt may claim it again;
 * - `unknown`: the answer was lost and the network offers no (working) lookup: never sent again.
 */
export type ClaimState = 'sending' | 'checking' | 'sent' | 'not_sent' | 'unknown';

/** What the engine is doing with one block, as its claim says (domain/post-view.ts reads it). */
export interface BlockActivity {
  channelId: string;
  block: number;
  state: ClaimState;
  /** The block's first send. */
  firstSentAt?: string;
  /** `checking`: when the next lookup is due. */
  nextCheckAt?: string;
  /** A resumable upload or the network's processing is under way (its place is saved). */
  inProgress: boolean;
}
