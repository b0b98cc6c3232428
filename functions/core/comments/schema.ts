import * as z from 'zod';
import { idSchema } from '../../domain/ids.ts';

/**
 * The shapes of the comment routes (issue 31): `GET /v1/posts/{id}/comments`,
 * `POST /v1/posts/{id}/comments/{commentId}/replies` and `DELETE …/replies/{replyId}`, written
 * once here for validation, types and the OpenAPI document.
 */

/** The query of GET /v1/posts/{id}/comments. */
export const commentsQuerySchema = z.strictObject({
  channelId: z.string().optional(),
  since: z.string().optional(),
  cursor: z.string().optional(),
  limit: z.string().optional(),
});

/** Most files a reply may name (the networks' own caps are lower: see `commentReplies`). */
const MAX_REPLY_MEDIA = 4;

export const replyBodySchema = z.strictObject({
  channelId: idSchema('ch'),
  content: z
    .string({ error: 'content is required: the text of the reply.' })
    .refine((text) => text.trim().length > 0, 'content must not be empty.'),
  mediaIds: z.array(z.string()).max(MAX_REPLY_MEDIA).optional(),
});
export type ReplyBody = z.infer<typeof replyBodySchema>;

export const commentSchema = z.strictObject({
  id: z
    .string()
    .meta({ description: "Herald's id of the comment (`cmt_…`): the network's id, made safe for a path." }),
  remoteId: z.string().meta({ description: "The network's own id of the comment." }),
  blockIndex: z.number().int().nullable().meta({
    description: 'The block of the post the conversation answers (0: the first); null when not on this page.',
  }),
  parentId: z.string().nullable().meta({
    description: 'The comment it answers (`cmt_…`); null when it answers the post (a block) itself.',
  }),
  author: z.strictObject({ name: z.string().nullable(), handle: z.string().nullable() }),
  text: z.string(),
  createdAt: z.string(),
  likeCount: z.number().int().nullable().meta({ description: 'null where the network does not report it.' }),
  url: z.string().nullable(),
  replyId: z.string().nullable().meta({
    description: 'When Herald sent this comment as a reply: the reply (`rpl_…`); otherwise null.',
  }),
});

export const COMMENT_CHANNEL_STATUSES = [
  'ok',
  'unsupported',
  'not_live',
  'disconnected',
  'needs_reconnect',
  'missing_permission',
  'unavailable',
] as const;
export type CommentChannelStatus = (typeof COMMENT_CHANNEL_STATUSES)[number];

export const channelCommentsSchema = z.strictObject({
  channelId: z.string(),
  platform: z.string(),
  status: z.enum(COMMENT_CHANNEL_STATUSES).meta({
    description:
      '`ok`: `comments` is what the network shows. Otherwise `comments` is null and `reason` says why: `unsupported` (the network does not let apps read comments), `not_live`, `disconnected`, `needs_reconnect`, `missing_permission` (reconnect to grant it), `unavailable` (the network failed or refused; `retryAfterSeconds` when it said when).',
  }),
  reason: z.string().nullable(),
  windowDays: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'How far back the network lets comments be read (X: 7 days); null: no limit.' }),
  comments: z.array(commentSchema).nullable(),
  nextCursor: z.string().nullable().meta({ description: 'Pass with the same channelId for the next page.' }),
  retryAfterSeconds: z.number().int().optional(),
});
export type ChannelComments = z.infer<typeof channelCommentsSchema>;
export type CommentView = z.infer<typeof commentSchema>;

export const postCommentsSchema = z.strictObject({
  postId: z.string(),
  channels: z.array(channelCommentsSchema),
});
export type PostComments = z.infer<typeof postCommentsSchema>;

export const replySchema = z.strictObject({
  id: z.string().meta({ description: 'The reply (`rpl_…`).' }),
  postId: z.string(),
  channelId: z.string(),
  platform: z.string(),
  commentId: z.string().meta({ description: 'The comment answered (`cmt_…`).' }),
  status: z.enum(['sent', 'deleted']),
  content: z.string(),
  mediaIds: z.array(z.string()),
  remoteCommentId: z.string().meta({
    description: 'The reply as a comment on the network (`cmt_…`): how it shows in GET /comments.',
  }),
  remoteId: z.string(),
  url: z.string().nullable(),
  createdAt: z.string(),
});
export type ReplyView = z.infer<typeof replySchema>;
