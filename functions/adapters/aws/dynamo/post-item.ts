/**
 * The checks a post's items pass when read: the main item (`Post`) and the chunk items holding
 * block texts that did not fit in it (`PostText`). Every field a post has had since posts were first
 * stored is named; fields added since are optional (`round`, `scheduleName`, `hold`, ...), and their
 * absence keeps its meaning for the code that reads them (a post saved before schedules had names
 * of their own has no `scheduleName`: its schedule is named after the post).
 */
import { z } from 'zod';
import { PLATFORM_IDS } from '../../../domain/platforms/types.ts';
import { POST_STATUSES, type PostRecord } from '../../../domain/post.ts';
import { timelineEventSchema } from '../../../domain/timeline.ts';
import type { OverduePost } from '../../../ports/overdue-posts.ts';
import { itemKey, MalformedItemError, parseItem } from './item.ts';

const nullableString = z.string().nullable();

const blockSchema = z.looseObject({
  content: z.string(),
  mediaIds: z.array(z.string()),
  mediaAltText: z.record(z.string(), z.string()),
  remoteId: nullableString,
  remoteUrl: nullableString,
  remoteMeta: z.record(z.string(), z.string()).optional(),
});

const channelSchema = z.looseObject({
  channelId: z.string(),
  platform: z.enum(PLATFORM_IDS),
  status: z.enum(['draft', 'scheduled', 'publishing', 'published', 'failed']),
  error: nullableString,
  remoteUrl: nullableString,
  title: nullableString,
  postType: nullableString,
  options: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  blocks: z.array(blockSchema),
  attempts: z.number().optional(),
  publishedAt: nullableString.optional(),
  liveAt: nullableString.optional(),
  rateLimitedUntil: nullableString.optional(),
  rateLimitStepAt: nullableString.optional(),
  rateLimitProbes: z.number().optional(),
  rateLimitResetBy: z.string().optional(),
  retryAt: z.string().optional(),
  retryReason: z.string().optional(),
});

const postSchema: z.ZodType<PostRecord> = z.looseObject({
  postId: z.string(),
  accountId: z.string(),
  workspaceId: z.string(),
  mode: z.enum(['live', 'test']),
  status: z.enum(POST_STATUSES),
  scheduledAt: nullableString,
  publishedAt: nullableString,
  tagIds: z.array(z.string()),
  channels: z.array(channelSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
  round: z.number().int().optional(),
  roundStartedAt: z.string().optional(),
  countedPublished: z.boolean().optional(),
  textChunks: z.number().int().optional(),
  scheduleName: nullableString.optional(),
  hold: z
    .object({ action: z.enum(['revise', 'retract']), until: z.string() })
    .nullable()
    .optional(),
  timeline: z.array(timelineEventSchema).optional(),
  timelineDropped: z.number().int().optional(),
});

/** A block text kept in a chunk item: channel `c`, block `b`. */
export interface TextRef {
  c: number;
  b: number;
  content: string;
}

const textChunkSchema = z.looseObject({
  texts: z.array(z.object({ c: z.number().int(), b: z.number().int(), content: z.string() })),
});

/** A post's main item as its record (texts held in chunks still empty); `MalformedItemError` if it is not one. */
export const postFromMainItem = (item: Record<string, unknown>): PostRecord =>
  parseItem('Post', postSchema, item);

/** The block texts a post's chunk item holds; `MalformedItemError` if it is not one. */
export const textsFromChunkItem = (item: Record<string, unknown>): TextRef[] =>
  parseItem('PostText', textChunkSchema, item).texts;

/**
 * A post's entry in the due index, as the overdue query projects it. Its round is absent on posts
 * saved before rounds (the first), its scheduled time on posts saved before it was stored when unset
 * (null), and its schedule's name on posts saved before schedules had names of their own (kept
 * absent: the post id names the schedule).
 */
const dueEntrySchema = z
  .object({
    postId: z.string().min(1),
    status: z.enum(['publishing', 'scheduled']),
    version: z.number().int(),
    round: z.number().int().positive().default(1),
    scheduledAt: z.string().nullable().default(null),
    scheduleName: z.string().nullable().optional(),
  })
  .strip();

export const overdueFromItem = (item: Record<string, unknown>): OverduePost => {
  const sortKey = item.GSI1SK;
  if (typeof sortKey !== 'string' || !sortKey.includes('#')) {
    throw new MalformedItemError('due post', itemKey(item), 'GSI1SK: invalid_type');
  }
  const { scheduleName, ...entry } = parseItem('due post', dueEntrySchema, item);
  return {
    ...entry,
    ...(scheduleName !== undefined ? { scheduleName } : {}),
    dueAt: sortKey.slice(0, sortKey.lastIndexOf('#')),
  };
};
