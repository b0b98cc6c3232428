/**
 * The timeline events of a block's claim protocol (block-send.ts): each rides on the claim's next
 * write (`BlockClaim.append`), so recording a step costs no request of its own.
 */
import {
  appendBounded,
  BLOCK_TIMELINE_LIMIT,
  type BlockEvent,
  clip,
  withBlockEvent,
} from '../../domain/timeline.ts';
import type { NetworkError, RemoteBlock } from '../../ports/network-client.ts';
import type { BlockClaim } from '../../ports/publishing.ts';

/** `claim` to be written with `events` after those it carries already. */
export const noting = (claim: BlockClaim, ...events: BlockEvent[]): BlockClaim => ({
  ...claim,
  append: [...(claim.append ?? []), ...events],
});

/** `claim` as its write stored it: its events appended to its timeline (bounded as the store bounds it). */
export const written = (claim: BlockClaim): BlockClaim => {
  const { append, ...stored } = claim;
  if (!append?.length) return stored;
  const bounded = appendBounded(stored.timeline, stored.timelineDropped, append, BLOCK_TIMELINE_LIMIT);
  return {
    ...stored,
    timeline: bounded.timeline,
    ...(bounded.dropped > 0 ? { timelineDropped: bounded.dropped } : {}),
  };
};

/** `held` (this worker's claim, updated in place after a save) as the store keeps it after `event`. */
export const afterSave = (held: BlockClaim, event: BlockEvent): void => {
  const bounded = withBlockEvent(held.timeline, held.timelineDropped, event);
  held.timeline = bounded.timeline;
  if (bounded.dropped > 0) held.timelineDropped = bounded.dropped;
};

/** A network's refusal as the timeline shows it. */
export const refusal = (error: NetworkError) => ({
  code: error.details.rateLimited ? 'rate_limited' : error.kind,
  message: clip(error.message),
});

export const blockEvents = {
  sending: (at: string, attempt: number): BlockEvent => ({
    at,
    kind: 'sending',
    detail: `Sending to the network (attempt ${attempt} of this round).`,
    attempt,
  }),
  workerStopped: (at: string): BlockEvent => ({
    at,
    kind: 'answer_lost',
    detail: 'The worker sending this block stopped before the answer was recorded; looking it up.',
  }),
  answerLost: (at: string, why: string): BlockEvent => ({
    at,
    kind: 'answer_lost',
    detail: clip(`The network's answer was lost (${why}); looking the block up.`),
  }),
  duplicate: (at: string, error: NetworkError): BlockEvent => ({
    at,
    kind: 'refused',
    detail: 'The network refused the send as a duplicate: an earlier send went through; looking it up.',
    error: refusal(error),
  }),
  refused: (at: string, label: string, error: NetworkError): BlockEvent => ({
    at,
    kind: 'refused',
    detail: clip(`${label}${error.message}`),
    error: refusal(error),
  }),
  /** A resumable upload or the network's processing continues in the next message. */
  continues: (at: string, error: NetworkError): BlockEvent => ({
    at,
    kind: /process/i.test(error.message) ? 'processing_wait' : 'upload_progress',
    detail: clip(error.message),
  }),
  uploadSaved: (at: string, state: Record<string, unknown>): BlockEvent => ({
    at,
    kind: 'upload_progress',
    detail: `The upload's progress was saved${typeof state.offset === 'number' ? ` (${state.offset} bytes sent)` : ''}.`,
  }),
  sent: (at: string, remote: RemoteBlock): BlockEvent => ({
    at,
    kind: 'sent',
    detail: 'The network accepted the block.',
    remoteId: remote.remoteId,
    url: remote.remoteUrl,
  }),
  found: (at: string, remote: RemoteBlock): BlockEvent => ({
    at,
    kind: 'lookup_found',
    detail: 'The lookup found the block on the network: the send had gone through.',
    remoteId: remote.remoteId,
    url: remote.remoteUrl,
  }),
  /** A lookup that found nothing (yet), or failed (`failed`: the network's answer). */
  notFound: (at: string, failed?: { code: string; message: string }): BlockEvent =>
    failed
      ? { at, kind: 'lookup_not_found', detail: clip(`The lookup failed: ${failed.message}`), error: failed }
      : { at, kind: 'lookup_not_found', detail: 'The lookup did not find the block (yet).' },
  lookupRefused: (at: string, error: NetworkError): BlockEvent => ({
    at,
    kind: 'lookup_not_found',
    detail: 'The lookup was refused: the channel must be reconnected; the block is looked up again then.',
    error: refusal(error),
  }),
  notPublished: (at: string): BlockEvent => ({
    at,
    kind: 'lookup_not_found',
    detail: "The lookup did not find the block after the network's consistency window: it was not published.",
  }),
  unknown: (at: string, reason: string): BlockEvent => ({
    at,
    kind: 'unknown',
    detail: clip(`Whether the network has the block cannot be checked (${reason}); it is never sent again.`),
  }),
  lookupsSpent: (at: string): BlockEvent => ({
    at,
    kind: 'unknown',
    detail: 'The lookups are spent without finding the block; it is never sent again.',
  }),
};
