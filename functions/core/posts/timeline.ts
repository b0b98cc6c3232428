import * as z from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import type { KeyMode } from '../../domain/key-mode.ts';
import type { PostRecord } from '../../domain/post.ts';
import {
  BLOCK_TIMELINE_LIMIT,
  POST_TIMELINE_LIMIT,
  queuedEvents,
  type TimelineEvent,
  type TimelineKind,
  timelineEventSchema,
} from '../../domain/timeline.ts';
import type { PostTimelines } from '../../ports/posts.ts';

/** Whose posts a timeline may be read for: a workspace, and (for an API key) the key's mode. */
export interface TimelineScope {
  accountId: string;
  workspaceId: string;
  /** An API key sees only its own mode's posts, as GET /posts/{id}; absent: both (the dashboard). */
  mode?: KeyMode;
}

/** A post's timeline as GET /posts/{id}/timeline answers it. */
export const postTimelineSchema = z.object({
  postId: z.string(),
  data: z
    .array(timelineEventSchema)
    .describe('What the engine did with each channel and block, oldest first.'),
  dropped: z
    .number()
    .int()
    .nonnegative()
    .describe(
      `Older events no longer kept (each block keeps its latest ${BLOCK_TIMELINE_LIMIT}, the post its latest ${POST_TIMELINE_LIMIT}).`,
    ),
});
export type PostTimeline = z.output<typeof postTimelineSchema>;

/**
 * Between events written at the same instant: the round's start first, then the block's steps,
 * then what the channel does about them (a retry, a wait), then its end.
 */
const RANK: Partial<Record<TimelineKind, number>> = {
  queued: 0,
  retry_scheduled: 2,
  rate_limit_wait: 2,
  channel_published: 3,
  channel_failed: 3,
  revised: 4,
  retracted: 4,
};
const rank = (event: TimelineEvent) => RANK[event.kind] ?? 1;

/**
 * The first round's `queued` events, read from the post rather than stored with it: every channel,
 * at the round's start. A later round's are stored when it starts (and the first one's start is
 * then no longer known).
 */
const firstRound = (post: PostRecord): TimelineEvent[] =>
  post.roundStartedAt && (post.round ?? 1) === 1
    ? queuedEvents(
        { round: 1, channels: post.channels.map((c) => ({ channelId: c.channelId, status: 'publishing' })) },
        new Date(post.roundStartedAt),
      )
    : [];

/** Each published channel's `channel_published`, read from the channel (when, how many blocks, its link). */
const published = (post: PostRecord): TimelineEvent[] =>
  post.channels.flatMap((c) =>
    c.status === 'published' && c.publishedAt
      ? [
          {
            at: c.publishedAt,
            channelId: c.channelId,
            block: null,
            kind: 'channel_published' as const,
            detail: `Published (${c.blocks.filter((b) => b.remoteId !== null).length} of ${c.blocks.length} blocks).`,
            ...(c.remoteUrl ? { url: c.remoteUrl } : {}),
          },
        ]
      : [],
  );

/**
 * What the engine did with each channel and block of a post, and when: the post's own events and
 * each block claim's, merged oldest first. Another workspace's post (or another mode's, for a key)
 * is `not_found`, as an unknown id.
 */
export const readTimeline = async (
  deps: { postTimelines: PostTimelines },
  scope: TimelineScope,
  postId: string,
): Promise<PostTimeline> => {
  // An id that cannot be a post's is answered without a read: its key could exceed DynamoDB's limits.
  const { post, blocks } = isId('post', postId)
    ? await deps.postTimelines.getTimeline(postId)
    : { post: null, blocks: [] };
  if (
    !post ||
    post.accountId !== scope.accountId ||
    post.workspaceId !== scope.workspaceId ||
    (scope.mode !== undefined && post.mode !== scope.mode)
  ) {
    throw new ApiError('not_found', `No post ${postId} exists in this workspace.`);
  }
  const events: TimelineEvent[] = [
    ...firstRound(post),
    ...(post.timeline ?? []),
    ...published(post),
    ...blocks.flatMap(({ channelId, block, events: own }) =>
      own.map((event) => ({ ...event, channelId, block })),
    ),
  ];
  const order = new Map(events.map((event, i) => [event, i]));
  const data = events.sort(
    (a, b) =>
      Date.parse(a.at) - Date.parse(b.at) ||
      rank(a) - rank(b) ||
      (order.get(a) as number) - (order.get(b) as number),
  );
  const dropped = (post.timelineDropped ?? 0) + blocks.reduce((sum, b) => sum + b.dropped, 0);
  return { postId: post.postId, data, dropped };
};
