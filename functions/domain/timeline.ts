/**
 * A post's timeline: what the engine did with each channel and block, and when. The engine records
 * each event in the write it makes anyway (a block's claim item, or the post's item), so an item
 * keeps its own bounded list: the latest events and a count of the older ones dropped.
 */

import { z } from 'zod';

export const TIMELINE_KINDS = [
  'queued',
  'sending',
  'sent',
  'refused',
  'answer_lost',
  'lookup_found',
  'lookup_not_found',
  'retry_scheduled',
  'rate_limit_wait',
  'processing_wait',
  'upload_progress',
  'unknown',
  'channel_published',
  'channel_failed',
  'revised',
  'retracted',
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** One step of the engine with one channel (`block` null: the channel as a whole). */
export const timelineEventSchema = z.object({
  at: z.string().describe('When it happened (ISO 8601).'),
  channelId: z.string(),
  block: z
    .number()
    .int()
    .nullable()
    .describe("The block's index in the channel (0 first), or null for the channel."),
  kind: z.enum(TIMELINE_KINDS),
  detail: z.string().describe('What happened, in a sentence.'),
  attempt: z.number().int().optional().describe("`sending`: the channel's attempt in this round (1 first)."),
  until: z.string().optional().describe("A wait's end: the next lookup, the retry, the rate limit's reset."),
  remoteId: z.string().optional().describe("`sent`, `lookup_found`: the network's id of the block."),
  url: z.string().optional().describe('`sent`, `lookup_found`, `channel_published`: its link.'),
  error: z
    .object({ code: z.string(), message: z.string() })
    .optional()
    .describe("`refused`, a failed lookup: the network's answer."),
});
export type TimelineEvent = z.infer<typeof timelineEventSchema>;

/** A block's own events (on its claim item): the channel and block are the item's, not repeated per event. */
export type BlockEvent = Omit<TimelineEvent, 'channelId' | 'block'>;

/** The events a claim item keeps; older ones are counted in `timelineDropped`. */
export const BLOCK_TIMELINE_LIMIT = 40;
/** The events a post's item keeps (its channels' queued, retries, waits, ends, revisions). */
export const POST_TIMELINE_LIMIT = 60;

/** `events` after `previous`, the oldest dropped past `limit`; `dropped` counts every event dropped so far. */
export const appendBounded = <T>(
  previous: readonly T[] | undefined,
  previousDropped: number | undefined,
  events: readonly T[],
  limit: number,
): { timeline: T[]; dropped: number } => {
  const all = [...(previous ?? []), ...events];
  const over = Math.max(0, all.length - limit);
  return { timeline: all.slice(over), dropped: (previousDropped ?? 0) + over };
};

/**
 * A resumable upload saves its place often (every few seconds, or every chunk): a save right after
 * another replaces it, so a run of saves is one event, the latest, and costs no growth.
 */
export const replacesLast = (timeline: readonly BlockEvent[] | undefined, event: BlockEvent): boolean =>
  event.kind === 'upload_progress' && timeline?.at(-1)?.kind === 'upload_progress';

/** A block's timeline after `event`: appended (bounded), or replacing the previous save of a run. */
export const withBlockEvent = (
  timeline: readonly BlockEvent[] | undefined,
  dropped: number | undefined,
  event: BlockEvent,
): { timeline: BlockEvent[]; dropped: number } =>
  replacesLast(timeline, event)
    ? { timeline: [...(timeline ?? []).slice(0, -1), event], dropped: dropped ?? 0 }
    : appendBounded(timeline, dropped, [event], BLOCK_TIMELINE_LIMIT);

/** `record` (a post) with `events` appended to its timeline, bounded by `POST_TIMELINE_LIMIT`. */
export const withEvents = <R extends { timeline?: TimelineEvent[]; timelineDropped?: number }>(
  record: R,
  events: readonly TimelineEvent[],
): R => {
  if (events.length === 0) return record;
  const { timeline, dropped } = appendBounded(
    record.timeline,
    record.timelineDropped,
    events,
    POST_TIMELINE_LIMIT,
  );
  return { ...record, timeline, ...(dropped > 0 ? { timelineDropped: dropped } : {}) };
};

/** A `queued` event for each channel a publication round starts. */
export const queuedEvents = (
  post: { round?: number; channels: readonly { channelId: string; status: string }[] },
  now: Date,
): TimelineEvent[] =>
  post.channels
    .filter((channel) => channel.status === 'publishing')
    .map((channel) => ({
      at: now.toISOString(),
      channelId: channel.channelId,
      block: null,
      kind: 'queued',
      detail:
        (post.round ?? 1) > 1 ? `Queued for publication (round ${post.round}).` : 'Queued for publication.',
    }));

/** A detail or error message as stored: at most 300 characters. */
export const clip = (text: string): string => (text.length > 300 ? `${text.slice(0, 299)}…` : text);
