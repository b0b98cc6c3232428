/**
 * The one error catalogue. Every error response is built from a code listed here;
 * the error table of docs/reference.md is generated from the same list (see test/unit/errors.test.ts).
 */
export const ERROR_CATALOGUE = {
  validation_failed: { status: 400, message: 'The request is not valid.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  invalid_timezone: {
    status: 400,
    message: 'The time must carry a timezone (Z or an offset such as +02:00).',
  },
  invalid_date: { status: 400, message: 'The date or time does not exist.' },
  invalid_cursor: { status: 400, message: 'The cursor is not valid; start again without it.' },
  unauthorized: { status: 401, message: 'A valid API key is required (x-api-key or Authorization: Bearer).' },
  quota_exceeded: { status: 402, message: 'The plan allowance for this period is used up.' },
  forbidden: { status: 403, message: 'This API key is not allowed to do that.' },
  not_found: { status: 404, message: 'Nothing was found at this address.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  conflict: { status: 409, message: 'The resource is not in a state that allows this action.' },
  already_exists: { status: 409, message: 'A resource with this name already exists.' },
  idempotency_in_progress: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json.' },
  media_type_unsupported: {
    status: 415,
    message: 'The file is not of a supported type (JPEG, PNG, WebP, GIF, MP4, MOV, PDF, VTT, SRT).',
  },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request body.',
  },
  schedule_in_past: { status: 422, message: 'scheduledAt must be in the future.' },
  content_too_long: { status: 422, message: "The text exceeds the network's limit." },
  option_not_supported: { status: 422, message: 'The network does not have this option.' },
  network_not_configured: {
    status: 422,
    message:
      "This network cannot be connected: its app credentials are not configured (see docs/channels.md in Herald's repository).",
  },
  invalid_state: {
    status: 400,
    message:
      'The state of this connection is unknown, expired or already used; start again with POST /v1/channels/connect.',
  },
  connect_code_used: {
    status: 400,
    message: 'This connect code was already used; every code completes one connection once.',
  },
  connect_code_expired: {
    status: 400,
    message: 'This connect code expired (10 minutes after the network redirected back); connect again.',
  },
  network_refused: {
    status: 422,
    message: 'The network refused the credentials.',
  },
  channel_not_found: { status: 422, message: 'The channel does not exist in this workspace.' },
  channel_disconnected: { status: 422, message: 'The channel must be reconnected before it can post.' },
  duplicate_channel: { status: 422, message: 'The same channel appears twice in one post.' },
  too_many_blocks: { status: 422, message: 'The network does not take that many blocks.' },
  thread_not_supported: { status: 422, message: 'This channel cannot post threads.' },
  block_empty: { status: 422, message: 'A block needs content or media.' },
  media_not_found: { status: 422, message: 'The media file does not exist in this workspace.' },
  media_not_ready: { status: 422, message: 'The media upload has not been completed.' },
  media_type_mismatch: {
    status: 422,
    message: "The file's content does not match its declared type or file name extension.",
  },
  media_size_mismatch: { status: 422, message: 'The uploaded file is not the size declared for the upload.' },
  media_not_uploaded: { status: 409, message: 'No file has been uploaded to the upload URL yet.' },
  media_required: { status: 422, message: 'The network requires at least one media file.' },
  too_many_media: { status: 422, message: 'The network does not take that many media files.' },
  media_type_not_accepted: { status: 422, message: 'The network does not accept this type of file.' },
  media_too_large: { status: 422, message: 'The network does not take files of this type that large.' },
  alt_text_without_media: { status: 422, message: 'Alt text must be keyed by a media id of the same block.' },
  title_required: { status: 422, message: 'The network requires a title.' },
  title_too_long: { status: 422, message: "The title exceeds the network's limit." },
  title_not_supported: { status: 422, message: 'The network has no title.' },
  post_type_not_supported: { status: 422, message: 'The network has no such post type.' },
  option_required: { status: 422, message: 'The network requires this option.' },
  option_invalid: { status: 422, message: 'The option value is not valid for the network.' },
  revise_mismatch: {
    status: 422,
    message:
      'Revise takes every channel and every block of the post, in the same order, and only their text.',
  },
  comments_not_supported: {
    status: 422,
    message: 'This network does not let apps read or answer comments.',
  },
  reply_refused: { status: 422, message: 'The network refused the reply.' },
  tag_not_found: { status: 422, message: 'The tag does not exist in this workspace.' },
  url_not_allowed: {
    status: 422,
    message:
      'Herald calls a host a client chose (a webhook URL, a Bluesky PDS) only over https:// and only at public internet addresses.',
  },
  too_many_webhooks: {
    status: 422,
    message: 'The workspace already has the most webhook endpoints allowed.',
  },
  rate_limited: {
    status: 429,
    message: 'Too many requests; retry after the number of seconds in Retry-After.',
  },
  internal_error: {
    status: 500,
    message: 'Something went wrong on our side; the request id helps us find it.',
  },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable; retry shortly.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** An error meant for the client: a catalogue code, a message and, where an input is at fault, its path. */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly field?: string,
    headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'ApiError';
    this.status = ERROR_CATALOGUE[code].status;
    this.headers = headers;
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string; requestId: string };
}

export const errorBody = (error: ApiError, requestId: string): ErrorBody => ({
  error: {
    code: error.code,
    message: error.message,
    ...(error.field !== undefined ? { field: error.field } : {}),
    requestId,
  },
});
