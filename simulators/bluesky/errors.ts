import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';

export const xrpcError = (
  status: number,
  error: string,
  message: string,
  headers?: SimResponse['headers'],
  extra?: Record<string, unknown>,
): SimResponse => ({
  status,
  body: { error, message, ...(extra ?? {}) },
  ...(headers ? { headers } : {}),
});

export const blueskyErrors: SimErrorBodies = {
  unauthorized: (reason) =>
    reason === 'missing'
      ? xrpcError(401, 'AuthMissing', 'Authentication Required')
      : reason === 'expired'
        ? xrpcError(400, 'ExpiredToken', 'Token has expired')
        : xrpcError(400, 'InvalidToken', 'Token could not be verified'),
  refused: () =>
    xrpcError(400, 'InvalidRequest', 'Invalid app.bsky.feed.post record: rejected by the PDS (sim:fail)'),
  unavailable: () => xrpcError(503, 'InternalServerError', 'Service temporarily unavailable'),
  // The PDS's write limits per account (docs.bsky.app, "Rate Limits"): 5,000 points an hour and
  // 35,000 a day; the headers name the limit that is spent (the daily one for a spent daily cap or
  // a wait of over an hour). Both announce their reset.
  rateLimited: (resetAt, seconds, kind) => {
    const [limit, window] = kind === 'daily' || seconds > 3600 ? [35_000, 86_400] : [5_000, 3_600];
    return xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded', {
      'ratelimit-limit': limit,
      'ratelimit-remaining': 0,
      'ratelimit-reset': Math.ceil(resetAt.getTime() / 1000),
      'ratelimit-policy': `${limit};w=${window}`,
    });
  },
  badRequest: (message) => xrpcError(400, 'InvalidRequest', message),
  // A request its Lexicon refuses: the PDS answers InvalidRequest with the validator's message
  // (xrpc-server wraps lexicon's ValidationError: `Input must have the property "repo"`).
  invalidRequest: (issue) => xrpcError(400, 'InvalidRequest', issue.message),
  notFound: () => xrpcError(404, 'XRPCNotSupported', 'XRPCNotSupported'),
};
