import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';

/** YouTube's categories and privacy values, and Google's error bodies. */
export const YOUTUBE_CATEGORY_IDS = [
  '1',
  '2',
  '10',
  '15',
  '17',
  '19',
  '20',
  '22',
  '23',
  '24',
  '25',
  '26',
  '27',
  '28',
  '29',
];
export const PRIVACY = ['public', 'unlisted', 'private'];
export const THUMBNAIL_MAX_BYTES = 2 * 1024 * 1024;

export const googleError = (
  status: number,
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
): SimResponse => ({
  status,
  body: {
    error: { code: status, message, errors: [{ message, domain: 'youtube.video', reason, ...extra }] },
  },
});

export const youtubeErrors: SimErrorBodies = {
  unauthorized: () => ({
    status: 401,
    body: {
      error: {
        code: 401,
        message:
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        errors: [
          {
            message: 'Invalid Credentials',
            domain: 'global',
            reason: 'authError',
            location: 'Authorization',
            locationType: 'header',
          },
        ],
        status: 'UNAUTHENTICATED',
      },
    },
  }),
  refused: () =>
    googleError(400, 'invalidDescription', 'The request metadata specifies an invalid video description.'),
  unavailable: () => googleError(503, 'backendError', 'Backend Error'),
  // A short throttle (`rateLimitExceeded`), or the project's spent daily quota (`quotaExceeded`,
  // which resets at midnight Pacific time). Neither announces its reset.
  rateLimited: (_resetAt, _seconds, kind) =>
    kind === 'daily'
      ? googleError(
          403,
          'quotaExceeded',
          'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        )
      : googleError(
          403,
          'rateLimitExceeded',
          'The request cannot be completed because you have exceeded your quota.',
        ),
  badRequest: (message) => googleError(400, 'badRequest', message),
  // A request the discovery document refuses: Google's error with the parameter in `location`
  // (reasons from https://developers.google.com/youtube/v3/docs/errors: `required`/
  // `missingRequiredParameter`, `unexpectedParameter`, `invalidParameter`).
  invalidRequest: (issue) => {
    const reason =
      { unknown: 'unexpectedParameter', required: 'required' }[issue.kind as string] ?? 'invalidParameter';
    const location = issue.location === 'body' ? issue.path.join('.') : issue.name;
    return {
      status: 400,
      body: {
        error: {
          code: 400,
          message: issue.message,
          errors: [
            {
              message: issue.message,
              domain: 'global',
              reason,
              location,
              locationType: issue.location === 'body' ? 'other' : 'parameter',
            },
          ],
          status: 'INVALID_ARGUMENT',
        },
      },
    };
  },
  notFound: (message) => googleError(404, 'notFound', message),
  badGateway: () => ({ status: 502, body: { error: { code: 502, message: 'Bad Gateway' } } }),
};
