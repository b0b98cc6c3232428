/**
 * What the OpenAPI document says about each route: one entry per route of the route manifest
 * (functions/http/routes.ts), keyed by `"METHOD /path"` exactly as the manifest writes it. A test
 * fails when a manifest route has no entry here, or an entry has no route.
 *
 * Adding a route = adding one entry:
 *
 *   'GET /v1/things/{id}': {
 *     summary: 'One thing',                 // short line shown in /docs
 *     description: 'Longer text (Markdown).', // optional
 *     tag: 'Things',                        // a group of /docs (add it to TAGS if new)
 *     params: { id: 'The thing id (thg_...).' },   // every `{param}` of the path, described
 *     query: [{ name: 'limit', description: '...', schema: z.int() }], // optional
 *     body: thingBody,                      // the zod schema the handler validates with, if any
 *     idempotent: true,                     // the route honours an Idempotency-Key header
 *     responses: { 200: { description: 'The thing.', schema: thingSchema } }, // success answers
 *     errors: ['not_found'],                // error codes of the route itself (see below)
 *   },
 *
 * `errors` lists the codes the route's own code can answer (functions/domain/errors.ts); the
 * document adds the ones every route shares: authentication (unauthorized, forbidden for writes
 * with a read-only key), rate_limited and internal_error on every keyed route; payload_too_large on
 * every route (API Gateway's limits on the request line and headers, and on the body); invalid_json,
 * unsupported_media_type and validation_failed on routes with a JSON body;
 * idempotency_key_reused, idempotency_in_progress and service_unavailable on idempotent ones.
 * Each error status is answered with the error envelope, its `code` limited to that route's codes.
 * Response schemas are zod schemas (functions/openapi/responses.ts); a response schema is what the
 * contract test checks every e2e response against, so it must be what the code answers.
 */
import * as z from 'zod';
import {
  chooseTargetsBody,
  chooseTargetsResponse,
  completeConnectBody,
  connectChannelBody,
  connectChannelResponse,
  channelResponse as connectedChannelSchema,
  createChannelBody,
  disconnectResponse,
  listTargetsResponse,
  pendingTargetsResponse,
} from '../core/channels/schema.ts';
import { postCommentsSchema, replyBodySchema, replySchema } from '../core/comments/schema.ts';
import { startUploadBody } from '../core/media/start-upload-body.ts';
import { updateMediaBody } from '../core/media/update-media.ts';
import { GRANULARITIES, postMetricsResponseSchema, statsResponseSchema } from '../core/metrics/schema.ts';
import { postBody, reviseBody } from '../core/posts/schema.ts';
import { postTimelineSchema } from '../core/posts/timeline.ts';
import { createTagBody } from '../core/tags/tags.ts';
import { createWebhookBody, updateWebhookBody } from '../core/webhooks/schema.ts';
import type { ErrorCode } from '../domain/errors.ts';
import { POST_STATUSES } from '../domain/post.ts';
import { BLOCK_TIMELINE_LIMIT, POST_TIMELINE_LIMIT } from '../domain/timeline.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../shared/pagination.ts';
import { accountOperations } from './account-operations.ts';
import {
  channelListSchema,
  deletedSchema,
  deliveryListSchema,
  errorSchema,
  healthSchema,
  mediaListSchema,
  mediaSchema,
  platformListSchema,
  postListSchema,
  postSchema,
  retractResultSchema,
  reviseResultSchema,
  startUploadResultSchema,
  tagListSchema,
  tagSchema,
  usageSchema,
  webhookListSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from './responses.ts';

export const TAGS = [
  { name: 'Posts', description: 'Create, schedule, publish, edit and retract posts across networks.' },
  { name: 'Media', description: 'The media library: files posts refer to by id.' },
  { name: 'Channels', description: 'Connected social accounts of the workspace.' },
  { name: 'Metrics', description: 'Engagement readings per post and totals across posts.' },
  { name: 'Comments', description: 'Comments under published posts, and the replies Herald sends to them.' },
  { name: 'Reference', description: 'Network rules, tags and plan usage.' },
  { name: 'Webhooks', description: 'Endpoints that receive signed events.' },
  { name: 'Service', description: 'Health and this document.' },
  {
    name: 'Dashboard (management)',
    description:
      "The dashboard's routes: a person's access token (`userJwt`), never an API key. Keys, workspaces, usage, and the workspace's channels, posts and webhooks as the key routes answer them.",
  },
] as const;
export type TagName = (typeof TAGS)[number]['name'];

export interface QueryParam {
  name: string;
  description: string;
  schema: z.ZodType;
  /** The parameter may be repeated (`?status=a&status=b`). */
  repeatable?: boolean;
}

export interface Operation {
  summary: string;
  description?: string;
  tag: TagName;
  /**
   * `key` (the default): an API key is required. `none`: public. `user`: a person's access token
   * (the dashboard's routes), checked by API Gateway's JWT authorizer before the function runs.
   */
  auth?: 'key' | 'none' | 'user';
  params?: Record<string, string>;
  query?: QueryParam[];
  /** JSON body, validated by this schema. */
  body?: z.ZodType;
  /** A body that is not JSON (for example multipart/form-data): media type and schema. */
  rawBody?: { mediaType: string; schema: Record<string, unknown>; description: string };
  idempotent?: boolean;
  responses: Record<number, { description: string; schema?: z.ZodType; mediaType?: string }>;
  errors?: ErrorCode[];
  /** The error answers are also a small HTML page, for a browser that asks for one (Accept: text/html). */
  htmlErrors?: boolean;
}

const limit: QueryParam = {
  name: 'limit',
  description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
  schema: z.int().min(1).max(MAX_PAGE_SIZE),
};
const cursorParam: QueryParam = {
  name: 'cursor',
  description: 'The `nextCursor` of the previous page; leave out for the first page.',
  schema: z.string(),
};
const page = [limit, cursorParam];

const postId = { id: 'The post id (`pst_...`).' };
const mediaId = { id: 'The media id (`med_...`).' };
const webhookId = { id: 'The webhook endpoint id (`wh_...`).' };

/** Codes the post validator answers for a post body (spec 7). */
const postRules: ErrorCode[] = [
  'invalid_timezone',
  'invalid_date',
  'schedule_in_past',
  'content_too_long',
  'option_not_supported',
  'option_required',
  'option_invalid',
  'channel_not_found',
  'channel_disconnected',
  'duplicate_channel',
  'too_many_blocks',
  'thread_not_supported',
  'block_empty',
  'media_not_found',
  'media_not_ready',
  'media_required',
  'too_many_media',
  'media_type_not_accepted',
  'media_too_large',
  'alt_text_without_media',
  'title_required',
  'title_too_long',
  'title_not_supported',
  'post_type_not_supported',
  'tag_not_found',
  'quota_exceeded',
];

const post = (description: string) => ({ description, schema: postSchema });

const keyOperations: Record<string, Operation> = {
  'GET /v1/platforms': {
    summary: 'List the networks and their rules',
    description:
      "Text limits, media, titles, post types and each network's option keys. The option keys are data: read them here, they are not fixed by this document.",
    tag: 'Reference',
    responses: { 200: { description: 'Every network.', schema: platformListSchema } },
  },
  'GET /v1/channels': {
    summary: "List the workspace's channels",
    tag: 'Channels',
    responses: {
      200: { description: 'Connected accounts, by platform and name.', schema: channelListSchema },
    },
  },
  'POST /v1/channels/connect': {
    summary: "Start connecting an account through the network's consent screen",
    description:
      'Answers the consent URL to open in the browser (scopes for publishing, editing, deleting and metrics; PKCE where the network supports it) and a single-use `state` bound to this workspace, valid 10 minutes. After consent the network redirects to GET /v1/channels/callback, which redirects to `redirectUrl` with `connectCode` and `state` (or `error`, `error_description` and `state`). No channel exists until your server completes the code with POST /v1/channels/connect/complete.',
    tag: 'Channels',
    body: connectChannelBody,
    responses: { 201: { description: 'The consent URL and its state.', schema: connectChannelResponse } },
    errors: ['network_not_configured', 'quota_exceeded'],
  },
  'GET /v1/channels/callback': {
    summary: "The network's redirect after consent",
    description:
      'Not called by API clients: the network redirects the browser here. The `state` authenticates the request (no key). Exchanges the code, reads the account and keeps the grant (encrypted) for 10 minutes, then redirects to the `redirectUrl` given at connect time with a single-use `connectCode` and the `state`, or with `error`, `error_description` and `state`. An unknown, used or expired state is answered here (400 `invalid_state`, an HTML page for a browser), never redirected.',
    tag: 'Channels',
    auth: 'none',
    query: [
      { name: 'state', description: 'The state answered by POST /v1/channels/connect.', schema: z.string() },
      { name: 'code', description: "The network's authorization code.", schema: z.string() },
      { name: 'error', description: 'The network refused or the user declined.', schema: z.string() },
    ],
    responses: {
      302: { description: 'Redirect to the redirectUrl given at connect time (Location header).' },
    },
    errors: ['invalid_state', 'validation_failed'],
    htmlErrors: true,
  },
  'GET /v1/channels/connect/{state}/targets': {
    summary: 'The targets a connected account may post to',
    description:
      'For networks where an account owns several targets (Facebook pages, LinkedIn organizations, Pinterest boards, YouTube channels), after POST /v1/channels/connect/complete.',
    tag: 'Channels',
    params: { state: 'The connection: its `connectionId` (`con_...`) or its `state`.' },
    responses: { 200: { description: 'The targets to choose from.', schema: listTargetsResponse } },
    errors: ['invalid_state', 'not_found'],
  },
  'POST /v1/channels/connect/{state}/targets': {
    summary: 'Choose which targets become channels',
    description:
      'All or none, once: the chosen targets become channels in one write (a target the workspace already has a channel of reconnects it and is not counted again). When the new ones would take the account past its plan: 402, nothing is created and the choice stays open.',
    tag: 'Channels',
    params: { state: 'The connection: its `connectionId` (`con_...`) or its `state`.' },
    body: chooseTargetsBody,
    responses: { 201: { description: 'The channels created or updated.', schema: chooseTargetsResponse } },
    errors: [
      'invalid_state',
      'not_found',
      'quota_exceeded',
      'network_not_configured',
      'network_refused',
      'service_unavailable',
    ],
  },
  'POST /v1/channels': {
    summary: 'Connect a Bluesky account with an app password',
    description:
      'Creates a session once (Bluesky rate-limits createSession) and keeps its refresh token; `service` names the PDS of accounts hosted elsewhere. 201 for a new channel, 200 when the account was already connected (its channel is updated).',
    tag: 'Channels',
    body: createChannelBody,
    responses: {
      200: { description: 'The existing channel, reconnected.', schema: connectedChannelSchema },
      201: { description: 'The new channel.', schema: connectedChannelSchema },
    },
    errors: [
      'network_not_configured',
      'network_refused',
      'url_not_allowed',
      'quota_exceeded',
      'service_unavailable',
    ],
  },
  'POST /v1/channels/connect/complete': {
    summary: 'Complete a connection with the connect code from the redirect',
    description:
      "Your server's step, with a write key of the workspace that started the connection: check first that the user who came back is the one who started it (compare the redirect's `state` with the one you kept in their session). Single use, within 10 minutes of the redirect. 201 with the new channel; 200 with the channel when the workspace already had one of that account (it is reconnected, with the same id, and not counted again); 200 with `pending: \"targets\"` on networks whose accounts own targets (pages, organizations, boards, channels): choose them with POST /v1/channels/connect/{connectionId}/targets. At the plan's channel limit: 402, and the code stays usable until it expires. Another workspace's code, or an unknown one: 404.",
    tag: 'Channels',
    body: completeConnectBody,
    idempotent: true,
    responses: {
      200: {
        description: 'The channel, reconnected; or the targets to choose.',
        schema: z.union([connectedChannelSchema, pendingTargetsResponse]),
      },
      201: { description: 'The new channel.', schema: connectedChannelSchema },
    },
    errors: ['not_found', 'connect_code_used', 'connect_code_expired', 'quota_exceeded'],
  },
  'GET /v1/channels/{id}': {
    summary: 'One channel and its statuses',
    tag: 'Channels',
    params: { id: 'The channel id (ch_...).' },
    responses: { 200: { description: 'The channel.', schema: connectedChannelSchema } },
    errors: ['not_found'],
  },
  'DELETE /v1/channels/{id}': {
    summary: 'Disconnect a channel',
    description:
      'Revokes the grant at the network where it has a revocation call, then removes the tokens. Posts keep their history.',
    tag: 'Channels',
    params: { id: 'The channel id (ch_...).' },
    responses: { 200: { description: 'The channel is disconnected.', schema: disconnectResponse } },
    errors: ['not_found'],
  },
  'GET /v1/posts/{id}/metrics': {
    summary: "A post's metrics per channel, over time",
    description:
      'Per channel: platform, metricsStatus, the latest totals and the readings (running totals as the network reported them; a metric the network did not report is absent, never 0). `granularity` keeps the last reading of each hour, day or week; `raw` (default) answers every reading.',
    tag: 'Metrics',
    params: { id: 'The post id (post_...).' },
    query: [
      {
        name: 'granularity',
        description: 'raw (default), hour, day or week.',
        schema: z.enum(GRANULARITIES),
      },
    ],
    responses: {
      200: { description: 'The metrics of each channel of the post.', schema: postMetricsResponseSchema },
    },
    errors: ['not_found', 'validation_failed'],
  },
  'GET /v1/posts/{id}/timeline': {
    summary: 'What the engine did with a post, step by step',
    description:
      "For each channel and block, oldest first: `queued` (a publication round starts), `sending` (with the round's attempt), `sent` (the network's id and link), `refused` (its error), `answer_lost` (no answer, or a worker that stopped mid-send), `lookup_found` / `lookup_not_found` (each lookup after a lost answer, with the next one's time in `until`), `retry_scheduled` (why, and when in `until`), `rate_limit_wait` (until the reset), `upload_progress` and `processing_wait` (a resumable upload, the network's processing), `unknown` (the outcome cannot be known: never sent again), `channel_published` / `channel_failed`, `revised`, `retracted`. `block` is null for the channel as a whole." +
      ` Each block keeps its latest ${BLOCK_TIMELINE_LIMIT} events and the post its latest ${POST_TIMELINE_LIMIT}; \`dropped\` counts the older ones. A read-only key is enough.`,
    tag: 'Posts',
    params: { id: 'The post id (post_...).' },
    responses: { 200: { description: "The post's timeline.", schema: postTimelineSchema } },
    errors: ['not_found'],
  },
  'GET /v1/posts/{id}/comments': {
    summary: 'The comments under a post, per channel, as the networks show them',
    description:
      "Per channel of the post, one page of the comments under its live blocks (answers to the post, to a thread's later blocks and to other comments, each with its `parentId`), read from the network now. A channel whose network does not let apps read comments answers `status: unsupported` and a `reason`, never an empty list; so do channels not live yet, disconnected, or missing a permission. X shows the last 7 days only (`windowDays`). `since` keeps comments made at or after a time; `limit` (1-100, default 50) is the page size per channel; a channel's `nextCursor` pages that channel alone (send it with its `channelId`). Replies Herald sent carry their `replyId`. Test keys: sandbox posts show simulated comments.",
    tag: 'Comments',
    params: postId,
    query: [
      { name: 'channelId', description: 'Only this channel of the post.', schema: z.string() },
      {
        name: 'since',
        description: 'Comments made at or after this ISO 8601 time (with a timezone).',
        schema: z.string(),
      },
      { name: 'cursor', description: "A channel's `nextCursor` (with its channelId).", schema: z.string() },
      { name: 'limit', description: 'Comments per channel, 1-100 (default 50).', schema: z.string() },
    ],
    responses: {
      200: { description: 'The comments of each channel of the post.', schema: postCommentsSchema },
    },
    errors: ['not_found', 'validation_failed', 'invalid_cursor', 'invalid_timezone'],
  },
  'POST /v1/posts/{id}/comments/{commentId}/replies': {
    summary: 'Answer a comment under a post',
    description:
      "Sends `content` (and images where the network's `commentReplies` takes them) as a reply to the comment on the channel, checked first against the network's comment rules (GET /v1/platforms, `commentReplies`). Never sent twice: with an Idempotency-Key a retry answers the first reply; without one, the same text to the same comment on the same channel is one reply (200 with it). When the network's answer is lost Herald looks the reply up before it may send again: such a request answers 503 with Retry-After, and the same request sent again settles it. 201: the reply as the network stored it.",
    tag: 'Comments',
    params: {
      id: 'The post id (post_...).',
      commentId: 'The comment answered (cmt_..., from GET /v1/posts/{id}/comments).',
    },
    body: replyBodySchema,
    idempotent: true,
    responses: {
      201: { description: 'The reply, as the network stored it.', schema: replySchema },
      200: {
        description: 'The same reply, sent before (no Idempotency-Key, same text).',
        schema: replySchema,
      },
    },
    errors: [
      'not_found',
      'validation_failed',
      'conflict',
      'channel_not_found',
      'channel_disconnected',
      'comments_not_supported',
      'content_too_long',
      'too_many_media',
      'media_not_found',
      'media_not_ready',
      'media_type_not_accepted',
      'reply_refused',
      'rate_limited',
    ],
  },
  'DELETE /v1/posts/{id}/comments/{commentId}/replies/{replyId}': {
    summary: 'Delete a reply Herald sent',
    description:
      'Removes the reply from the network; deleting it again answers the same. A reply whose send the network has not confirmed yet answers 409.',
    tag: 'Comments',
    params: {
      id: 'The post id (post_...).',
      commentId: 'The comment it answers (cmt_...).',
      replyId: 'The reply (rpl_...).',
    },
    responses: { 200: { description: 'The reply, deleted.', schema: replySchema } },
    errors: [
      'not_found',
      'conflict',
      'channel_disconnected',
      'reply_refused',
      'rate_limited',
      'service_unavailable',
    ],
  },
  'GET /v1/stats': {
    summary: "Totals across the workspace's posts published in a range",
    description:
      'Per platform and overall, with the number of posts counted. `from` and `to` take a date (a whole UTC day) or a full ISO 8601 time with a timezone, as GET /v1/posts does.',
    tag: 'Metrics',
    query: [
      { name: 'from', description: 'Published at or after (date or ISO 8601 time).', schema: z.string() },
      { name: 'to', description: 'Published before (date or ISO 8601 time).', schema: z.string() },
    ],
    responses: { 200: { description: 'The totals.', schema: statsResponseSchema } },
    errors: ['invalid_date', 'invalid_timezone', 'validation_failed'],
  },
  'GET /v1/tags': {
    summary: 'List tags',
    tag: 'Reference',
    responses: { 200: { description: "The workspace's tags.", schema: tagListSchema } },
  },
  'POST /v1/tags': {
    summary: 'Create a tag',
    tag: 'Reference',
    body: createTagBody,
    responses: { 201: { description: 'The new tag.', schema: tagSchema } },
    errors: ['already_exists'],
  },
  'GET /v1/usage': {
    summary: 'Plan and usage of the account',
    tag: 'Reference',
    responses: { 200: { description: 'Usage this monthly period.', schema: usageSchema } },
  },
  'POST /v1/posts': {
    summary: 'Create a post',
    description:
      'A draft (`intent: "draft"`), a scheduled post (`"schedule"` with `scheduledAt`) or one that starts publishing now (`"now"`). Channel `options` keys come from GET /v1/platforms.',
    tag: 'Posts',
    body: postBody,
    idempotent: true,
    responses: { 201: post('The new post.') },
    errors: postRules,
  },
  'GET /v1/posts': {
    summary: 'List posts',
    tag: 'Posts',
    query: [
      {
        name: 'status',
        description: 'Only posts in these statuses.',
        schema: z.enum(POST_STATUSES),
        repeatable: true,
      },
      {
        name: 'tag',
        description:
          'Only posts with one of these tag ids (at most 10); combined with `status`, both must match.',
        schema: z.string(),
        repeatable: true,
      },
      {
        name: 'from',
        description:
          'Posts whose scheduled time (`scheduledAt`, or the creation time of a post without one) is at or after this: a date (`2031-01-11`, the whole UTC day) or a full ISO 8601 time with a timezone.',
        schema: z.string(),
      },
      {
        name: 'to',
        description:
          'Posts whose scheduled time is at or before this: a date (the whole UTC day) or a full time with a timezone.',
        schema: z.string(),
      },
      ...page,
    ],
    responses: {
      200: {
        description: 'A page of posts, newest scheduled time first; stop when nextCursor is null.',
        schema: postListSchema,
      },
    },
    errors: ['invalid_cursor', 'invalid_date', 'invalid_timezone', 'validation_failed'],
  },
  'GET /v1/posts/{id}': {
    summary: 'Get a post',
    tag: 'Posts',
    params: postId,
    responses: { 200: post('The post with the result of every channel.') },
    errors: ['not_found'],
  },
  'PUT /v1/posts/{id}': {
    summary: 'Replace a draft or scheduled post',
    tag: 'Posts',
    params: postId,
    body: postBody,
    idempotent: true,
    responses: { 200: post('The post as saved.') },
    errors: ['not_found', 'conflict', ...postRules],
  },
  'POST /v1/posts/{id}/publish': {
    summary: 'Publish a draft now, or retry the channels not yet published',
    tag: 'Posts',
    params: postId,
    idempotent: true,
    responses: { 200: post('The post, publishing.') },
    errors: [
      'not_found',
      'conflict',
      'channel_not_found',
      'channel_disconnected',
      'media_not_found',
      'media_not_ready',
      'quota_exceeded',
    ],
  },
  'POST /v1/posts/{id}/revise': {
    summary: 'Change the words of a live post',
    tag: 'Posts',
    params: postId,
    body: reviseBody,
    responses: {
      200: {
        description: 'Which channels were edited and why the others were not.',
        schema: reviseResultSchema,
      },
    },
    errors: ['not_found', 'conflict', 'revise_mismatch', 'content_too_long', 'block_empty'],
  },
  'POST /v1/posts/{id}/retract': {
    summary: 'Remove a post from the networks that allow it',
    tag: 'Posts',
    params: postId,
    responses: { 200: { description: 'Channels removed and channels left.', schema: retractResultSchema } },
    errors: ['not_found', 'conflict'],
  },
  'DELETE /v1/posts/{id}': {
    summary: 'Delete a post from the service',
    description: 'A live post stays on the networks; use retract first to remove it there.',
    tag: 'Posts',
    params: postId,
    responses: { 200: { description: 'Deleted.', schema: deletedSchema } },
    errors: ['not_found', 'conflict'],
  },
  'POST /v1/media': {
    summary: 'Upload a file (up to 4 MiB)',
    tag: 'Media',
    rawBody: {
      mediaType: 'multipart/form-data',
      description: 'The file in the field `file`; optional `altText` field.',
      schema: {
        type: 'object',
        properties: {
          file: { type: 'string', contentMediaType: 'application/octet-stream' },
          altText: { type: 'string' },
        },
        required: ['file'],
      },
    },
    responses: { 201: { description: 'The media record.', schema: mediaSchema } },
    errors: [
      'validation_failed',
      'unsupported_media_type',
      'media_type_unsupported',
      'media_type_mismatch',
      'payload_too_large',
      'quota_exceeded',
    ],
  },
  'GET /v1/media': {
    summary: 'List the media library',
    tag: 'Media',
    query: page,
    responses: { 200: { description: 'A page of files, newest first.', schema: mediaListSchema } },
    errors: ['invalid_cursor', 'validation_failed'],
  },
  'POST /v1/media/uploads': {
    summary: 'Start a direct upload (up to 100 MiB)',
    tag: 'Media',
    body: startUploadBody,
    responses: {
      201: {
        description: 'The pending media and a presigned PUT for the bytes.',
        schema: startUploadResultSchema,
      },
    },
    errors: ['media_type_unsupported', 'media_type_mismatch', 'quota_exceeded'],
  },
  'POST /v1/media/{id}/complete': {
    summary: 'Complete a direct upload',
    tag: 'Media',
    params: mediaId,
    responses: { 200: { description: 'The ready file.', schema: mediaSchema } },
    errors: [
      'not_found',
      'media_not_uploaded',
      'media_size_mismatch',
      'media_type_mismatch',
      'payload_too_large',
      'quota_exceeded',
    ],
  },
  'GET /v1/media/{id}': {
    summary: 'Get a file',
    tag: 'Media',
    params: mediaId,
    responses: {
      200: { description: 'The file (or pending upload) with a fresh url.', schema: mediaSchema },
    },
    errors: ['not_found'],
  },
  'PUT /v1/media/{id}': {
    summary: "Set a file's alt text",
    tag: 'Media',
    params: mediaId,
    body: updateMediaBody,
    responses: { 200: { description: 'The file.', schema: mediaSchema } },
    errors: ['not_found', 'media_not_ready'],
  },
  'DELETE /v1/media/{id}': {
    summary: 'Delete a file',
    tag: 'Media',
    params: mediaId,
    responses: { 200: { description: 'Deleted.', schema: deletedSchema } },
    errors: ['not_found'],
  },
  'POST /v1/webhooks': {
    summary: 'Create a webhook endpoint',
    description:
      'The answer carries the signing secret; it is never shown again (a replay with the same Idempotency-Key shows it too).',
    tag: 'Webhooks',
    body: createWebhookBody,
    idempotent: true,
    responses: { 201: { description: 'The secret and the endpoint.', schema: webhookWithSecretSchema } },
    errors: ['url_not_allowed', 'too_many_webhooks'],
  },
  'GET /v1/webhooks': {
    summary: 'List webhook endpoints',
    tag: 'Webhooks',
    responses: { 200: { description: 'Every endpoint, oldest first.', schema: webhookListSchema } },
  },
  'GET /v1/webhooks/{id}': {
    summary: 'Get a webhook endpoint',
    tag: 'Webhooks',
    params: webhookId,
    responses: { 200: { description: 'The endpoint.', schema: webhookSchema } },
    errors: ['not_found'],
  },
  'PUT /v1/webhooks/{id}': {
    summary: 'Change a webhook endpoint',
    tag: 'Webhooks',
    params: webhookId,
    body: updateWebhookBody,
    responses: { 200: { description: 'The endpoint.', schema: webhookSchema } },
    errors: ['not_found', 'url_not_allowed', 'service_unavailable'],
  },
  'DELETE /v1/webhooks/{id}': {
    summary: 'Delete a webhook endpoint',
    tag: 'Webhooks',
    params: webhookId,
    responses: { 200: { description: 'Deleted.', schema: deletedSchema } },
    errors: ['not_found'],
  },
  'POST /v1/webhooks/{id}/roll-secret': {
    summary: 'Roll the signing secret',
    tag: 'Webhooks',
    params: webhookId,
    responses: {
      200: { description: 'The new secret, used from the next attempt on.', schema: webhookWithSecretSchema },
    },
    errors: ['not_found'],
  },
  'GET /v1/webhooks/{id}/deliveries': {
    summary: 'List delivery attempts',
    tag: 'Webhooks',
    params: webhookId,
    query: page,
    responses: { 200: { description: 'Every attempt, newest first.', schema: deliveryListSchema } },
    errors: ['not_found', 'invalid_cursor', 'validation_failed'],
  },
  'GET /v1/openapi.json': {
    summary: 'This document',
    tag: 'Service',
    auth: 'none',
    responses: {
      200: { description: 'The OpenAPI 3.1 document.', schema: z.record(z.string(), z.unknown()) },
    },
  },
  'GET /docs': {
    summary: 'The API reference page',
    description:
      'Swagger UI rendering this document, with "Try it out" against this server; every asset is served by Herald.',
    tag: 'Service',
    auth: 'none',
    responses: { 200: { description: 'The HTML page.', mediaType: 'text/html' } },
  },
  'GET /docs/{asset}': {
    summary: 'A file of the reference page',
    tag: 'Service',
    auth: 'none',
    params: { asset: 'swagger-ui-bundle.js, swagger-ui.css or init.js.' },
    responses: {
      200: { description: 'The script or stylesheet.', mediaType: 'text/*' },
      404: { description: 'No such file.', schema: errorSchema },
    },
  },
  'GET /health': {
    summary: 'Liveness',
    tag: 'Service',
    auth: 'none',
    responses: { 200: { description: 'The service answers.', schema: healthSchema } },
  },
};

/** Every operation: the key routes and public ones above, and the dashboard's (account-operations.ts). */
export const operations: Record<string, Operation> = {
  ...keyOperations,
  ...accountOperations(keyOperations),
};
