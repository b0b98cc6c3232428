import { createHash } from 'node:crypto';
import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';
import { numericIdFor } from '../framework/oauth.ts';

export const NETWORK = 'Pinterest';
export const RATE_LIMIT = 100;

export const pinError = (
  status: number,
  code: number,
  message: string,
  headers?: SimResponse['headers'],
) => ({
  status,
  body: { code, message },
  ...(headers ? { headers } : {}),
});

export const rateLimited = (seconds: number): SimResponse =>
  pinError(429, 8, 'You have exceeded your rate limit. Try again later.', {
    'x-ratelimit-limit': RATE_LIMIT,
    'x-ratelimit-remaining': 0,
    'x-ratelimit-reset': Math.max(1, Math.ceil(seconds)),
  });

export const pinterestErrors: SimErrorBodies = {
  // Pinterest answers a missing, unknown, expired or revoked token alike.
  unauthorized: () => pinError(401, 2, 'Authentication failed.'),
  refused: () =>
    pinError(
      400,
      1,
      "Invalid request: this Pin can't be saved because it goes against Pinterest's community guidelines (sim:fail).",
    ),
  unavailable: () => pinError(503, 0, 'Service unavailable. Please try again later.'),
  rateLimited: (_resetAt, seconds) => rateLimited(seconds),
  badRequest: (message) => pinError(400, 1, message),
  // A request the OpenAPI description (pinterest/api-description) refuses: Pinterest's error
  // object `{ code, message }` (its `Error` schema), code 1 as for its other invalid requests.
  invalidRequest: (issue) => pinError(400, 1, `Invalid request: ${issue.message}.`),
  notFound: (message) => pinError(404, 404, message),
};

/** The simulated user behind a token the OAuth half did not issue: a stable id and username. */
export const simPinterestUserFor = (token: string) => {
  const hash = createHash('sha256').update(token).digest('hex');
  return { id: numericIdFor(`pin-token:${token}`, 18), username: `sim_${hash.slice(0, 8)}` };
};
