import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';

/**
 * The OAuth scope each data route takes (https://www.reddit.com/dev/api, per endpoint): `submit`
 * for /api/submit and /api/comment (and, undocumented, the gallery submit and the media lease:
 * parts of a submission), `edit` for /api/editusertext and /api/del, `history` for
 * /user/{name}/submitted, `read` for /comments/{article} and /api/info, `flair` for
 * /r/{sr}/api/link_flair_v2; /api/v1/me takes `identity` (oauth-simulator.ts).
 */
export type RedditScope = 'submit' | 'edit' | 'history' | 'read' | 'flair';

export const FLAIR_TEMPLATE = 'a6b2c1de-0000-4000-8000-00000000f1a1';
export const WINDOW_SECONDS = 600;
export const WINDOW_CALLS = 1000;

export const redditError = (status: number): SimResponse => ({
  status,
  body: {
    message:
      status === 401
        ? 'Unauthorized'
        : status === 404
          ? 'Not Found'
          : status === 429
            ? 'Too Many Requests'
            : status === 503
              ? 'Service Unavailable'
              : 'Bad Request',
    error: status,
  },
});

/** Reddit's `api_type=json` answer with errors (HTTP 200). */
export const jsonErrors = (
  errors: [string, string, string | null][],
  extra: Record<string, unknown> = {},
) => ({
  status: 200,
  body: { json: { ...extra, errors } },
});

export const redditErrors: SimErrorBodies = {
  unauthorized: () => redditError(401),
  // Reddit refuses content inside a 200 answer.
  refused: () =>
    jsonErrors([
      [
        'SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING',
        'Your post contains a word or phrase that is not allowed in this community (sim:fail).',
        'text',
      ],
    ]),
  unavailable: () => redditError(503),
  // Reddit's limits are per 10-minute window; either kind announces its reset.
  rateLimited: (_resetAt, seconds) => ({
    ...redditError(429),
    headers: { 'x-ratelimit-used': WINDOW_CALLS, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': seconds },
  }),
  badRequest: () => redditError(400),
  notFound: () => redditError(404),
};
