import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';
import { GRAPH_ERRORS, graphErrorResponse } from '../framework/meta-graph.ts';

export const FBTRACE = 'AsimIgTrace0';

export const instagramError = (
  status: number,
  message: string,
  code: number,
  subcode?: number,
  extra: Record<string, unknown> = {},
  headers?: SimResponse['headers'],
): SimResponse =>
  graphErrorResponse(
    status,
    { message, type: 'OAuthException', code, subcode, more: extra, fbtraceId: FBTRACE },
    headers,
  );

/** The business-use-case usage header Instagram sends with its throttle answers. */
export const bucUsageHeader = (account: string, minutes: number, callCount = 100) =>
  JSON.stringify({
    [account]: [
      {
        type: 'instagram',
        call_count: callCount,
        total_cputime: 12,
        total_time: 20,
        estimated_time_to_regain_access: minutes,
      },
    ],
  });

export const instagramErrors: SimErrorBodies = {
  unauthorized: GRAPH_ERRORS.unauthorized,
  refused: () =>
    instagramError(400, 'We restrict certain activity to protect our community.', 4, 2207051, {
      is_transient: false,
      error_user_title: 'Action is blocked',
      error_user_msg: 'We restrict certain activity to protect our community. (sim:fail)',
    }),
  unavailable: () =>
    instagramError(503, 'Service temporarily unavailable', 2, undefined, { is_transient: true }),
  // A spent cap: the app's limit (code 4), whose `X-App-Usage` states no time; a short throttle:
  // the account's business-use-case limit, with the minutes until access returns.
  rateLimited: (_resetAt, seconds, kind) =>
    kind === 'daily'
      ? instagramError(
          400,
          'Application request limit reached',
          4,
          undefined,
          { is_transient: true },
          { 'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 20, total_time: 25 }) },
        )
      : instagramError(
          400,
          'Application request limit reached',
          80002,
          2446079,
          { is_transient: true },
          { 'x-business-use-case-usage': bucUsageHeader('0', Math.max(1, Math.ceil(seconds / 60))) },
        ),
  badRequest: (message) => instagramError(400, message, 100),
  notFound: (message) => instagramError(400, `Unknown path components: ${message}`, 2500),
};

/**
 * The permissions of Instagram API with Instagram Login, and which call needs which (each endpoint
 * reference's Requirements table, developers.facebook.com/docs/instagram-platform/…): every call
 * needs `instagram_business_basic`; containers, their status, `media_publish` and
 * `content_publishing_limit` need `instagram_business_content_publish` (IG Container, IG User Media
 * Publish, Content Publishing); comments (`/{media}/comments`, an IG Comment, its delete) need
 * `instagram_business_manage_comments` (Comment Moderation, IG Comment); `/{media}/insights` needs
 * `instagram_business_manage_insights` (Insights); the media list, stories and a media node need
 * basic only.
 */
export const IG_BASIC = 'instagram_business_basic';
export const IG_PUBLISH = 'instagram_business_content_publish';
export const IG_COMMENTS = 'instagram_business_manage_comments';
export const IG_INSIGHTS = 'instagram_business_manage_insights';

/**
 * Graph's refusal of a call the token's permissions do not cover, as graph.instagram.com sends it:
 * HTTP 403, code 10, type `IGApiException`, "Application does not have permission for this
 * action" (seen on graph.instagram.com: https://github.com/Dymantic/laravel-instagram-feed/issues/60).
 * It does not say which permission is missing.
 */
export const instagramPermissionError = (): SimResponse =>
  graphErrorResponse(403, {
    message: 'Application does not have permission for this action',
    type: 'IGApiException',
    code: 10,
    fbtraceId: FBTRACE,
  });

export const missingObject = (id: string, verb = 'get') =>
  instagramError(
    400,
    `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    100,
    33,
  );
