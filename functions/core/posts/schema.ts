import * as z from 'zod';

/**
 * Request bodies of the post routes (spec 2.1, 4.1). Only the shape lives here: types, required
 * keys, unknown keys (refused with their path) and generous caps that keep a body bounded. Every
 * rule that depends on a network, the workspace or the clock is in `validate.ts`, so those keep
 * their own error codes. The caps below sit above every network's limit on purpose: a thread of
 * 26 blocks on X must reach the validator and be refused as `too_many_blocks`, not here.
 */

/** Most channels in one post; a workspace may connect several accounts of one network. */
export const MAX_CHANNELS_PER_POST = 50;
/** Most blocks per channel the body accepts at all (the largest network takes 25). */
export const MAX_BLOCKS_PER_CHANNEL = 100;
/** Most media ids per block the body accepts at all (the largest network takes 20). */
export const MAX_MEDIA_PER_BLOCK = 100;
/** Most tags on one post. */
export const MAX_TAGS_PER_POST = 10;

const blockSchema = z.strictObject({
  /** May be left out when the block carries media. */
  content: z.string().optional(),
  mediaIds: z.array(z.string()).max(MAX_MEDIA_PER_BLOCK).optional(),
  /** Alt text keyed by a media id of the same block. */
  mediaAltText: z.record(z.string(), z.string()).optional(),
});

/** Text, url, choice, true/false and media options are strings; list options arrays of strings. */
const optionValueSchema = z.union([z.string(), z.array(z.string())], {
  error: 'Must be a string, or an array of strings for a list option.',
});

const channelSchema = z.strictObject({
  channelId: z.string(),
  blocks: z.array(blockSchema).min(1).max(MAX_BLOCKS_PER_CHANNEL),
  /** null is accepted and means "no title", so a post read back can be sent again unchanged. */
  title: z.string().nullable().optional(),
  /** null is accepted and means "no post type". */
  postType: z.string().nullable().optional(),
  options: z.record(z.string(), optionValueSchema).optional(),
});

/** Body of POST /v1/posts; PUT /v1/posts/{id} takes the same. */
export const postBody = z.strictObject({
  intent: z.enum(['draft', 'schedule', 'now'], {
    error: (issue) =>
      issue.input === undefined
        ? 'Required: "draft", "schedule" or "now".'
        : 'Must be "draft", "schedule" or "now".',
  }),
  /** Checked (format, timezone, real date, future) by the validator; null means absent. */
  scheduledAt: z.string().nullable().optional(),
  channels: z.array(channelSchema).min(1).max(MAX_CHANNELS_PER_POST),
  tagIds: z.array(z.string()).max(MAX_TAGS_PER_POST).optional(),
});
export type PostBody = z.output<typeof postBody>;
export type PostBodyChannel = PostBody['channels'][number];
export type PostBodyBlock = PostBodyChannel['blocks'][number];

/** Body of POST /v1/posts/{id}/revise: only words change, every channel and block is sent in order. */
export const reviseBody = z.strictObject({
  channels: z
    .array(
      z.strictObject({
        channelId: z.string(),
        blocks: z
          .array(z.strictObject({ content: z.string() }))
          .min(1)
          .max(MAX_BLOCKS_PER_CHANNEL),
      }),
    )
    .min(1)
    .max(MAX_CHANNELS_PER_POST),
});
export type ReviseBody = z.output<typeof reviseBody>;
