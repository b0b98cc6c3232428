import { createHash } from 'node:crypto';
import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';
import { GRAPH_ERRORS, graphErrorResponse } from '../framework/meta-graph.ts';

export const graphError = (
  status: number,
  message: string,
  code: number,
  extra: { subcode?: number; type?: string; title?: string; userMessage?: string; transient?: boolean } = {},
  headers?: SimResponse['headers'],
): SimResponse =>
  graphErrorResponse(
    status,
    {
      message,
      type: extra.type ?? 'THApiException',
      code,
      subcode: extra.subcode,
      more: {
        ...(extra.transient === undefined ? {} : { is_transient: extra.transient }),
        ...(extra.title === undefined ? {} : { error_user_title: extra.title }),
        ...(extra.userMessage === undefined ? {} : { error_user_msg: extra.userMessage }),
      },
      fbtraceId: `Asim${createHash('sha256').update(`${Date.now()}${Math.random()}`).digest('hex').slice(0, 16)}`,
    },
    headers,
  );

export const invalidParam = (message: string) => graphError(400, message, 100);
export const unsupported = (method: string, id: string) =>
  graphError(
    400,
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    100,
    { subcode: 33, type: 'GraphMethodException' },
  );

/**
 * The Threads permissions and which call needs which (developers.facebook.com/docs/threads/…):
 * `threads_basic` "for making any calls to all Threads API endpoints"; `threads_content_publish`
 * for the publishing endpoints (containers, `threads_publish`, `threads_publishing_limit`);
 * `threads_manage_replies` "for making POST calls to reply endpoints" (a reply container) and for
 * `threads_publishing_limit`'s reply quota; `threads_read_replies` "for making GET calls to reply
 * endpoints" (retrieve-and-manage-replies); `threads_manage_insights` for the insights endpoints;
 * `threads_delete` "for making any delete calls" (posts/delete-posts).
 */
export const TH_BASIC = 'threads_basic';
export const TH_PUBLISH = 'threads_content_publish';
export const TH_MANAGE_REPLIES = 'threads_manage_replies';
export const TH_READ_REPLIES = 'threads_read_replies';
export const TH_INSIGHTS = 'threads_manage_insights';
export const TH_DELETE = 'threads_delete';

/**
 * Graph's refusal of a call the token's permissions do not cover: HTTP 403, code 10, "Application
 * does not have permission for this action", as graph.instagram.com sends it (Threads' exact
 * wording is not verified; its error type is THApiException). It does not say which permission
 * is missing.
 */
export const missingPermission = () =>
  graphError(403, 'Application does not have permission for this action', 10);

/** Graph's app rate limit (code 4) with its usage header; Meta sends no Retry-After. */
export const appRateLimited = (minutes: number | null): SimResponse =>
  graphError(
    400,
    'Application request limit reached',
    4,
    { transient: true },
    {
      'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 28, total_time: 41 }),
      ...(minutes === null
        ? {}
        : {
            'x-business-use-case-usage': JSON.stringify({
              threads: [
                {
                  type: 'threads',
                  call_count: 100,
                  total_cputime: 28,
                  total_time: 41,
                  estimated_time_to_regain_access: minutes,
                },
              ],
            }),
          }),
    },
  );

export const threadsErrors: SimErrorBodies = {
  unauthorized: GRAPH_ERRORS.unauthorized,
  refused: () =>
    graphError(400, 'The post was refused.', 1, {
      subcode: 2207051,
      title: 'Action blocked',
      userMessage: 'This post goes against our Community Guidelines (sim:fail).',
    }),
  unavailable: () =>
    graphError(503, 'Service temporarily unavailable', 2, { transient: true, type: 'OAuthException' }),
  // A short throttle states the minutes until access returns; a spent cap states none.
  rateLimited: (_resetAt, seconds, kind) =>
    kind === 'daily' ? appRateLimited(null) : appRateLimited(Math.max(1, Math.ceil(seconds / 60))),
  badRequest: (message) => invalidParam(message),
  notFound: (message) =>
    graphError(400, `Unknown path components: ${message}`, 2500, { type: 'OAuthException' }),
  badGateway: () => ({ status: 502, body: { error: { message: 'Bad Gateway', code: 1 } } }),
};
