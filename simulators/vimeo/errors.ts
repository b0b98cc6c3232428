import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';
import { vimeoScopeRefusal } from './oauth.ts';

export const vimeoError = (
  status: number,
  code: number,
  error: string,
  developerMessage = error,
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: { error, link: null, developer_message: developerMessage, error_code: code },
  ...(headers ? { headers } : {}),
});

export const RATE_LIMIT = 250;

export const vimeoErrors: SimErrorBodies = {
  // Vimeo names the one scope a route needs (SimRoute.scopes holds one per route).
  missingScope: (missing) => vimeoScopeRefusal(missing[0] as string),
  unauthorized: (reason) =>
    reason === 'missing'
      ? vimeoError(
          401,
          8002,
          'You must provide a valid authenticated access token.',
          'No access token was sent.',
        )
      : vimeoError(
          401,
          8003,
          'You must provide a valid authenticated access token.',
          'The access token is invalid or has been revoked.',
        ),
  refused: () =>
    vimeoError(
      400,
      2204,
      'The parameters passed to this API endpoint did not pass Vimeo’s validation.',
      'The description was refused (sim:fail).',
    ),
  unavailable: () =>
    vimeoError(
      503,
      9000,
      'Vimeo is temporarily unavailable.',
      'Something strange occurred. Please try again.',
    ),
  rateLimited: (resetAt) =>
    vimeoError(
      429,
      9000,
      'You have made too many requests.',
      'You have exceeded the rate limit for this application. Try again after X-RateLimit-Reset.',
      {
        'x-ratelimit-limit': RATE_LIMIT,
        'x-ratelimit-remaining': 0,
        'x-ratelimit-reset': resetAt.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      },
    ),
  badRequest: (message) =>
    vimeoError(
      400,
      2204,
      'The parameters passed to this API endpoint did not pass Vimeo’s validation.',
      message,
    ),
  // A request the OpenAPI description refuses: 2204 with the field in `invalid_parameters`.
  invalidRequest: (issue) => {
    const answer = vimeoErrors.badRequest(issue.message);
    const field = issue.location === 'body' ? issue.path.join('.') : issue.name;
    const invalid = { field, error_code: 2205, error: issue.message, developer_message: issue.message };
    return { ...answer, body: { ...(answer.body as object), invalid_parameters: [invalid] } };
  },
  notFound: (message) => vimeoError(404, 5000, 'The requested video couldn’t be found.', message),
  badGateway: () => ({ status: 502, body: { message: 'Bad Gateway' } }),
};

export const VIMEO_PRIVACY = ['anybody', 'nobody', 'unlisted', 'password', 'users', 'disable'] as const;
