import { type SimErrorBodies, type SimResponse, snowflake } from '../framework/framework.ts';
import { GRAPH_ERRORS, graphErrorResponse } from '../framework/meta-graph.ts';

/**
 * The permissions each call needs, as Meta's references list them for a page token: publishing
 * to the feed (`/feed`, `/photos`) `pages_manage_posts` and `pages_read_engagement` (Page Feed
 * reference, https://developers.facebook.com/docs/graph-api/reference/page/feed); videos, reels
 * and stories also `pages_show_list` (Reels Publishing guide "Before you start",
 * https://developers.facebook.com/docs/video-api/guides/reels-publishing); comments as the page,
 * their edits and deletes `pages_manage_engagement` (Comments reference,
 * https://developers.facebook.com/docs/graph-api/reference/object/comments); reading the page's
 * posts, videos, stories, comments and objects `pages_read_engagement`; insights `read_insights`
 * with `pages_read_engagement` (Insights reference,
 * https://developers.facebook.com/docs/graph-api/reference/insights).
 */
export const PERMISSIONS = {
  post: { scopes: ['pages_manage_posts', 'pages_read_engagement'], code: 200 },
  video: { scopes: ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement'], code: 200 },
  engage: { scopes: ['pages_manage_engagement'], code: 200 },
  read: { scopes: ['pages_read_engagement'], code: 10 },
  /**
   * Comments are what people wrote on the page: reading them (the `/comments` edge, a comment)
   * also needs `pages_read_user_content` ("read user-generated content on the Page, such as posts,
   * comments, and ratings", Permissions reference,
   * https://developers.facebook.com/docs/permissions#p).
   */
  comments: { scopes: ['pages_read_engagement', 'pages_read_user_content'], code: 10 },
  insights: { scopes: ['read_insights', 'pages_read_engagement'], code: 10 },
} as const;

export const graphError = (
  status: number,
  code: number,
  message: string,
  extra: { subcode?: number; type?: string; transient?: boolean; headers?: SimResponse['headers'] } = {},
): SimResponse =>
  graphErrorResponse(
    status,
    {
      message,
      type: extra.type ?? 'OAuthException',
      code,
      subcode: extra.subcode,
      more: extra.transient === undefined ? {} : { is_transient: extra.transient },
      fbtraceId: `Asim${snowflake().slice(-10)}`,
    },
    extra.headers,
  );

/** `X-Business-Use-Case-Usage` for a page whose calls are throttled for `minutes`. */
export const bucUsage = (pageId: string, minutes: number) =>
  JSON.stringify({
    [pageId]: [
      {
        type: 'pages',
        call_count: 100,
        total_cputime: 12,
        total_time: 14,
        estimated_time_to_regain_access: minutes,
      },
    ],
  });

export const facebookErrors: SimErrorBodies = {
  unauthorized: GRAPH_ERRORS.unauthorized,
  refused: () =>
    graphError(
      400,
      368,
      'The action attempted has been deemed abusive or is otherwise disallowed (sim:fail)',
      { subcode: 1390008 },
    ),
  unavailable: () =>
    graphError(503, 2, 'An unexpected error has occurred. Please retry your request later.', {
      transient: true,
    }),
  // A short throttle: the page's business-use-case limit, which states the minutes until access
  // returns. A spent cap: the app's limit (code 4), whose `X-App-Usage` states no time at all.
  rateLimited: (_resetAt, seconds, kind) =>
    kind === 'daily'
      ? graphError(400, 4, '(#4) Application request limit reached', {
          transient: true,
          headers: { 'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 12, total_time: 14 }) },
        })
      : graphError(
          400,
          80001,
          '(#80001) There have been too many calls to this Page account. Wait a bit and try again.',
          {
            headers: { 'x-business-use-case-usage': bucUsage('page', Math.max(1, Math.ceil(seconds / 60))) },
          },
        ),
  badRequest: (message) => graphError(400, 100, `(#100) ${message}`),
  notFound: (message) =>
    graphError(400, 100, `(#100) ${message}`, { subcode: 33, type: 'GraphMethodException' }),
  badGateway: () => ({ status: 502, body: { message: 'Bad Gateway' } }),
};
