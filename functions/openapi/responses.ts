import * as z from 'zod';
import type { channelView } from '../core/channels/channel-view.ts';
import { METRICS_HINT_DESCRIPTION } from '../core/channels/schema.ts';
import { commentSchema } from '../core/comments/schema.ts';
import type { mediaView } from '../core/media/media-context.ts';
import type { startUpload } from '../core/media/presigned-upload.ts';
import type { retractPost, revisePost } from '../core/publishing/revise-retract.ts';
import type { tagView } from '../core/tags/tag-view.ts';
import type { getUsage } from '../core/usage/get-usage.ts';
import type { attemptView, endpointView, rollWebhookSecret } from '../core/webhooks/endpoints.ts';
import { ERROR_CATALOGUE, type ErrorBody } from '../domain/errors.ts';
import { PLANS } from '../domain/plans.ts';
import { PLATFORM_IDS, type Platform } from '../domain/platforms/types.ts';
import { POST_STATUSES } from '../domain/post.ts';
import type { PostView } from '../domain/post-view.ts';
import { EVENT_TYPES } from '../ports/webhooks.ts';

/**
 * Response bodies as zod schemas: what the OpenAPI document says each route answers, and what the
 * contract test (test/support/contract.ts) checks every e2e response against. Objects are strict
 * (`additionalProperties: false`), so a field a view adds without a schema fails the contract.
 * Each schema is tied to the code that builds the answer by `Same<>` checks at the bottom: changing
 * a view without its schema (or the reverse) is a type error.
 */

const dateTime = (description?: string) =>
  z.string().meta({ format: 'date-time', ...(description ? { description } : {}) });
const nullableDateTime = (description?: string) => dateTime(description).nullable();

export const errorSchema = z.strictObject({
  error: z.strictObject({
    code: z.enum(Object.keys(ERROR_CATALOGUE) as [keyof typeof ERROR_CATALOGUE]),
    message: z.string(),
    field: z
      .string()
      .optional()
      .meta({ description: 'Path of the input at fault, such as `channels[0].blocks[1].content`.' }),
    requestId: z.string().meta({ description: 'Also in the X-Request-Id header.' }),
  }),
});

const optionValue = z.union([z.string(), z.array(z.string())]);

export const postSchema = z.strictObject({
  id: z.string(),
  status: z.enum(POST_STATUSES),
  mode: z.enum(['live', 'test']).meta({ description: 'test: created with a test key; never published.' }),
  scheduledAt: nullableDateTime(),
  publishedAt: nullableDateTime(),
  createdAt: dateTime(),
  updatedAt: dateTime(),
  tags: z.array(z.strictObject({ id: z.string(), name: z.string().nullable() })),
  channels: z.array(
    z.strictObject({
      channelId: z.string(),
      platform: z.enum(PLATFORM_IDS),
      status: z.enum(['draft', 'scheduled', 'publishing', 'published', 'failed']),
      error: z.string().nullable(),
      remoteUrl: z.string().nullable(),
      title: z.string().nullable(),
      postType: z.string().nullable(),
      options: z.record(z.string(), optionValue).meta({
        description:
          "The channel's network options; the keys each network takes are data from GET /v1/platforms.",
      }),
      waiting: z
        .strictObject({
          reason: z.enum(['rate_limit', 'retry', 'confirming', 'processing']),
          since: nullableDateTime(),
          until: nullableDateTime(),
          message: z.string(),
        })
        .nullable()
        .meta({
          description:
            'Why a `publishing` channel is not moving now, and until when; null otherwise. `rate_limit`: the ' +
            "network's rate limit (`until`: the next try: the announced reset, or the next step of a wait " +
            'that grows 1, 2, 4, 8, then 15 minutes when the network announced none); `retry`: a transient ' +
            'failure (`until`: the next try); `confirming`: the answer to a send was lost and Herald looks the ' +
            'block up before any resend (`until`: the next lookup); `processing`: a media upload or the ' +
            "network's processing is under way (`until` null). GET /v1/posts/{id} reads it live; lists and " +
            "webhook events carry it as of the post's last write (`rate_limit` and `retry` only).",
        }),
      warnings: z
        .array(
          z.strictObject({
            code: z.string().meta({
              description:
                'What happened: `visibility_restricted` (YouTube made the video private because the Google Cloud project is not audited).',
            }),
            message: z.string().meta({ description: 'What it means and what to do, for a person.' }),
          }),
        )
        .meta({
          description:
            'What the network did otherwise than asked although the channel is published (the post still counts as published). Always present; empty when there is nothing to say.',
        }),
      blocks: z.array(
        z.strictObject({
          content: z.string(),
          mediaIds: z.array(z.string()),
          mediaAltText: z.record(z.string(), z.string()),
          remoteUrl: z.string().nullable(),
        }),
      ),
    }),
  ),
});

const cursor = z
  .string()
  .nullable()
  .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' });

export const postListSchema = z.strictObject({ data: z.array(postSchema), nextCursor: cursor });

export const deletedSchema = z.strictObject({ id: z.string(), deleted: z.literal(true) });

const channelResult = z.strictObject({
  channelId: z.string(),
  platform: z.string(),
  reason: z.string().nullable(),
});
export const reviseResultSchema = z.strictObject({
  revised: z.array(channelResult.extend({ blocks: z.array(z.number().int()) })),
  unchanged: z.array(channelResult),
});
export const retractResultSchema = z.strictObject({
  removed: z.array(channelResult),
  remaining: z.array(channelResult),
});

export const channelSchema = z.strictObject({
  id: z.string(),
  platform: z.string().meta({ description: 'A platform id of GET /v1/platforms.' }),
  name: z.string(),
  status: z.enum(['connected', 'needs_reconnect']),
  manageStatus: z.enum(['available', 'unsupported', 'missing_permission', 'needs_reconnect']),
  continuationStatus: z.enum(['available', 'unsupported', 'missing_permission', 'needs_reconnect']),
  metricsStatus: z.enum(['available', 'unsupported', 'missing_permission', 'needs_reconnect']),
  metricsHint: z.string().optional().meta({ description: METRICS_HINT_DESCRIPTION }),
  createdAt: dateTime(),
});
export const channelListSchema = z.strictObject({ data: z.array(channelSchema) });

export const platformSchema = z
  .strictObject({
    id: z.enum(PLATFORM_IDS),
    name: z.string(),
    kind: z.string(),
    limits: z.strictObject({
      maxLength: z.number().int(),
      textCounting: z.enum(['weighted', 'graphemes', 'codepoints_emoji_bytes', 'codepoints']),
      maxBlocks: z.number().int(),
      continuationMaxLength: z.number().int().optional().meta({
        description:
          'Text limit of every block after the first, where it is below `maxLength` (LinkedIn comments).',
      }),
      continuationTextOnly: z.boolean().optional().meta({
        description:
          'true: the blocks after the first carry text only (Facebook, Instagram, Reddit comments).',
      }),
      continuationMedia: z
        .strictObject({ maxMedia: z.number().int(), acceptedMimeTypes: z.array(z.string()) })
        .optional()
        .meta({
          description:
            'What each block after the first may carry where it is less than the first (LinkedIn comments: one JPEG, PNG or GIF image).',
        }),
      continuation: z.enum(['reply', 'comment']).nullable(),
      title: z.strictObject({ required: z.boolean(), maxLength: z.number().int() }).nullable(),
      options: z
        .array(
          z.strictObject({
            key: z.string(),
            type: z.enum(['text', 'url', 'choice', 'boolean', 'list', 'media']),
            required: z.boolean(),
            allowedValues: z.array(z.string()).nullable(),
            maxLength: z.number().int().nullable(),
            description: z.string(),
          }),
        )
        .meta({
          description:
            "The option keys this network takes in a post channel's `options`. They are data, not part of this document: read them here at run time.",
        }),
      remoteEdit: z.array(z.enum(['text', 'title', 'options'])).nullable(),
      supportsRemoteDelete: z.boolean(),
      acceptedMimeTypes: z.array(z.string()),
      maxMedia: z.number().int(),
      maxBytes: z
        .number()
        .int()
        .optional()
        .meta({ description: 'A cap on the text in UTF-8 bytes, besides maxLength (Bluesky: 3000).' }),
      maxMediaBytes: z.record(z.string(), z.number().int()).optional().meta({
        description: "The network's size cap per media type in bytes, where it is below Herald's own.",
      }),
      soleMediaTypes: z
        .array(z.string())
        .optional()
        .meta({ description: 'Media types a block carries only alone (X: one GIF or one video).' }),
      requiresMedia: z.boolean(),
      commentsReadable: z.boolean(),
      commentsWindowDays: z.number().int().nullable(),
      commentReplies: z
        .strictObject({
          maxLength: z.number().int(),
          maxBytes: z.number().int().optional(),
          maxMedia: z.number().int(),
          acceptedMimeTypes: z.array(z.string()),
        })
        .nullable()
        .meta({
          description:
            'What a reply to a comment may carry (text counted as textCounting says); null where comments cannot be read or answered.',
        }),
    }),
    postTypes: z.array(z.strictObject({ key: z.string(), name: z.string(), description: z.string() })),
    supportsMetrics: z.boolean(),
  })
  .meta({ description: "A network's rules, the same data the post validator reads." });
export const platformListSchema = z.strictObject({ data: z.array(platformSchema) });

export const tagSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  color: z.string().nullable(),
  createdAt: dateTime(),
});
export const tagListSchema = z.strictObject({ data: z.array(tagSchema) });

const limited = z.strictObject({ used: z.number().int(), limit: z.number().int().nullable() });
export const usageSchema = z.strictObject({
  plan: z.enum(Object.keys(PLANS) as [keyof typeof PLANS]),
  periodStart: dateTime(),
  periodEnd: dateTime(),
  posts: z.strictObject({ created: limited, published: z.number().int() }),
  channels: limited,
  storage: z.strictObject({ bytesUsed: z.number().int(), bytesLimit: z.number().int().nullable() }),
});

const mediaCommon = {
  id: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  size: z.number().int(),
  altText: z.string().nullable(),
};
export const mediaSchema = z
  .discriminatedUnion('status', [
    z.strictObject({
      ...mediaCommon,
      status: z.literal('ready'),
      url: z.string().meta({ description: 'Presigned GET, fresh on every response.' }),
      urlExpiresAt: dateTime(),
      createdAt: dateTime(),
    }),
    z.strictObject({
      ...mediaCommon,
      status: z.literal('pending'),
      url: z.null(),
      urlExpiresAt: z.null(),
      createdAt: z.null(),
      expiresAt: dateTime('When the unfinished upload is void.'),
    }),
  ])
  .meta({ description: 'A file of the media library, or an upload not completed yet.' });
export const mediaListSchema = z.strictObject({ data: z.array(mediaSchema), nextCursor: cursor });
export const startUploadResultSchema = z.strictObject({
  media: mediaSchema,
  upload: z.strictObject({
    url: z.string(),
    method: z.literal('PUT'),
    headers: z
      .record(z.string(), z.string())
      .meta({ description: 'Send exactly these headers with the PUT.' }),
    expiresAt: dateTime(),
  }),
});

export const webhookSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.enum(EVENT_TYPES)),
  enabled: z.boolean(),
  status: z.enum(['enabled', 'disabled']),
  disabledReason: z.enum(['consecutive_failures', 'request']).nullable(),
  disabledAt: nullableDateTime(),
  consecutiveFailures: z.number().int(),
  createdAt: dateTime(),
  updatedAt: dateTime(),
});
export const webhookListSchema = z.strictObject({ data: z.array(webhookSchema) });
export const webhookWithSecretSchema = z.strictObject({
  secret: z.string().meta({ description: 'The signing secret (`whsec_...`): shown only here.' }),
  endpoint: webhookSchema,
});
export const deliveryAttemptSchema = z.strictObject({
  deliveryId: z.string(),
  eventId: z.string(),
  eventType: z.enum(EVENT_TYPES),
  attempt: z.number().int(),
  attemptedAt: dateTime(),
  durationMs: z.number(),
  outcome: z.enum(['succeeded', 'retrying', 'failed']),
  responseStatus: z.number().int().nullable(),
  errorCode: z
    .enum([
      'http_status',
      'redirect',
      'timeout',
      'connection_failed',
      'tls_failed',
      'dns_failed',
      'url_not_allowed',
    ])
    .nullable(),
  error: z.string().nullable(),
  nextAttemptAt: nullableDateTime(),
});
export const deliveryListSchema = z.strictObject({
  data: z.array(deliveryAttemptSchema),
  nextCursor: cursor,
});

export const healthSchema = z.strictObject({ status: z.literal('ok') });

/** The body of every webhook delivery (spec 6): exactly these four keys, the same on every attempt. */
export const webhookEventSchema = (type: (typeof EVENT_TYPES)[number]) =>
  z.strictObject({
    id: z.string().meta({ description: 'Event id, also in x-herald-event-id; the same on every attempt.' }),
    type: z.literal(type),
    createdAt: dateTime(),
    data:
      type === 'comment.received'
        ? z.strictObject({
            channelId: z.string(),
            platform: z.string(),
            postId: z.string(),
            error: z.null(),
            comment: commentSchema,
          })
        : type === 'channel.needs_reconnect'
          ? z.strictObject({
              channelId: z.string(),
              platform: z.string(),
              error: z.string().nullable(),
              channelName: z.string().optional(),
              postId: z.string().optional(),
            })
          : z.strictObject({
              channelId: z.string(),
              platform: z.string(),
              blocksPublished: z.number().int().optional(),
              blocksTotal: z.number().int().optional(),
              error: z.string().nullable(),
              post: postSchema.optional(),
            }),
  });

// --- The schemas say what the code answers: each pair must be the same type. ---
type Extends<A, B> = [A] extends [B] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <_T extends true>() => undefined;
type Awaited2<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
same<Same<z.output<typeof postSchema>, PostView>>();
same<Same<z.output<typeof channelSchema>, ReturnType<typeof channelView>>>();
// Exact, optional properties included: the network rules grow new optional limits, and a limit the
// schema does not know would fail every contract check of GET /platforms.
type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
same<Exact<z.output<typeof platformSchema>, Platform>>();
same<Same<z.output<typeof tagSchema>, ReturnType<typeof tagView>>>();
same<Same<z.output<typeof usageSchema>, Awaited2<typeof getUsage>>>();
// The view's type does not tie `status` to the fields it sets, so the schema (which does) is only
// checked to be one of the values the view's type allows.
same<Extends<z.output<typeof mediaSchema>, Awaited2<typeof mediaView>>>();
same<Extends<z.output<typeof startUploadResultSchema>, Awaited2<typeof startUpload>>>();
same<Same<z.output<typeof webhookSchema>, ReturnType<typeof endpointView>>>();
same<Same<z.output<typeof deliveryAttemptSchema>, ReturnType<typeof attemptView>>>();
same<Same<z.output<typeof webhookWithSecretSchema>, Awaited2<typeof rollWebhookSecret>>>();
same<Same<z.output<typeof reviseResultSchema>, Awaited2<typeof revisePost>>>();
same<Same<z.output<typeof retractResultSchema>, Awaited2<typeof retractPost>>>();
same<Same<z.output<typeof errorSchema>, ErrorBody>>();
