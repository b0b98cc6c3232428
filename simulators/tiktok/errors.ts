import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';
import { logId } from './limits.ts';

export const tiktokError = (
  status: number,
  code: string,
  message: string,
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: { error: { code, message, log_id: logId() } },
  ...(headers ? { headers } : {}),
});

export const ok = (data: unknown): SimResponse => ({
  status: 200,
  body: { data, error: { code: 'ok', message: '', log_id: logId() } },
});

export const tiktokErrors: SimErrorBodies = {
  // A route needs one scope (SimRoute.scopes); TikTok names it.
  missingScope: (missing) =>
    tiktokError(401, 'scope_not_authorized', `The user did not authorize the scope required: ${missing[0]}.`),
  unauthorized: (reason) =>
    tiktokError(
      401,
      'access_token_invalid',
      reason === 'expired'
        ? 'The access token is invalid or not found in the request. (expired)'
        : 'The access token is invalid or not found in the request.',
    ),
  refused: () => tiktokError(403, 'spam_risk_text', 'The post title was flagged as spam (sim:fail).'),
  unavailable: () => tiktokError(503, 'internal_error', 'Service is temporarily unavailable. Please retry.'),
  // TikTok's 429 carries no Retry-After: the limits are per minute.
  // A short throttle (per-minute limits), or the creator's spent daily post cap.
  rateLimited: (_resetAt, _seconds, kind) =>
    kind === 'daily'
      ? tiktokError(
          403,
          'spam_risk_too_many_posts',
          'The daily post cap from the API is reached for the current user.',
        )
      : tiktokError(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.'),
  badRequest: (message) => tiktokError(400, 'invalid_params', message),
  notFound: (message) => tiktokError(404, 'invalid_params', message),
};
