import type { SimErrorBodies, SimResponse, SimRoute } from '../framework/framework.ts';
import type { SpecIssue } from '../framework/spec-validation.ts';

export const problem = (
  status: number,
  title: string,
  detail: string,
  type = 'about:blank',
): SimResponse => ({
  status,
  body: { title, detail, type, status },
});

/**
 * The OAuth 2.0 scopes each endpoint needs (X's authentication mapping: every read of a post or a
 * user needs `tweet.read` and `users.read` together, a write adds `tweet.write`, and the v2 media
 * upload needs `media.write`). A token without them gets X's bare 403.
 */
export const SCOPES_BY_ROUTE: Record<string, string[]> = {
  'POST /2/tweets': ['tweet.read', 'tweet.write', 'users.read'],
  'DELETE /2/tweets/:id': ['tweet.read', 'tweet.write', 'users.read'],
  'GET /2/tweets/:id': ['tweet.read', 'users.read'],
  'GET /2/tweets/search/recent': ['tweet.read', 'users.read'],
  'GET /2/users/me': ['tweet.read', 'users.read'],
  'GET /2/users/:id/tweets': ['tweet.read', 'users.read'],
};
export const MEDIA_SCOPES = ['media.write'];

export const scopesOf = (route: SimRoute): string[] => {
  const scopes = SCOPES_BY_ROUTE[`${route.method} ${route.path}`];
  if (!scopes) throw new Error(`No scopes listed for the X simulator's ${route.method} ${route.path}`);
  return scopes;
};

/** X's answer to a user token that lacks a scope the endpoint needs. */
export const forbidden = (): SimResponse => problem(403, 'Forbidden', 'Forbidden');

export const invalidRequest = (message: string, parameters?: Record<string, string[]>): SimResponse => ({
  status: 400,
  body: {
    errors: [{ ...(parameters ? { parameters } : {}), message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  },
});

export const xErrors: SimErrorBodies = {
  // X answers every bad, expired or revoked token the same way.
  unauthorized: () => ({
    status: 401,
    body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
  }),
  refused: () => problem(403, 'Forbidden', 'You are not permitted to perform this action.'),
  unavailable: () => problem(503, 'Service Unavailable', 'Service Unavailable'),
  // A short throttle spends the 15-minute window (the 24-hour limit, sent alongside as X does, is
  // not spent); a spent cap is the user's 24-hour limit, reset at `resetAt`, beside a window with
  // requests left that resets 15 minutes on. Both announce their resets in headers.
  rateLimited: (resetAt, _seconds, kind) =>
    kind === 'daily'
      ? rateLimitedAnswer(new Date(Date.now() + 900_000), resetAt)
      : rateLimitedAnswer(resetAt, null),
  badRequest: (message) => invalidRequest(message),
  invalidRequest: (issue) => xInvalid(issue),
  missingScope: () => forbidden(),
  notFound: () => ({
    status: 404,
    body: { errors: [{ message: 'Sorry, that page does not exist', code: 34 }] },
  }),
};

/**
 * X's 400 for a request its OpenAPI description refuses. Query parameters: "The query parameter
 * [x] is not one of [...]". JSON bodies: the JSON-schema validator's `$.path: ...` wording with the
 * parent object in `parameters` (an answer quoted in plhery/node-twitter-api-v2#583:
 * `{"parameters":{"$.reply":["{}"]},"message":"$.reply.in_reply_to_tweet_id: is missing but it is required"}`).
 */
export const xInvalid = (issue: SpecIssue): SimResponse => {
  if (issue.location !== 'body') {
    const value = issue.value === undefined ? [] : [String(issue.value)];
    const allowed = (issue.allowed ?? []).join(',');
    const message =
      issue.kind === 'required'
        ? `The \`${issue.name}\` query parameter can not be empty`
        : issue.kind === 'enum'
          ? `The \`${issue.name}\` query parameter value [${String(issue.value)}] is not one of [${allowed}]`
          : issue.message;
    return invalidRequest(message, { [issue.name]: value });
  }
  const at = ['$', ...issue.path].join('.');
  const parent = ['$', ...issue.path.slice(0, -1)].join('.');
  const message =
    issue.kind === 'required'
      ? `${at}: is missing but it is required`
      : issue.kind === 'unknown'
        ? `${at}: is not defined in the schema and the schema does not allow additional properties`
        : issue.kind === 'enum'
          ? `${at}: does not have a value in the enumeration [${(issue.allowed ?? []).join(', ')}]`
          : `${at}: ${issue.message.replace(/^\S+ /, '')}`;
  const key = issue.kind === 'required' || issue.kind === 'unknown' ? parent : at;
  return invalidRequest(message, { [key]: [JSON.stringify(issue.value ?? {})] });
};

/**
 * X's 429: `x-rate-limit-*` for the endpoint's 15-minute window and `x-user-limit-24hour-*` for the
 * user's daily cap. With `dailyResetAt` the daily cap is spent (remaining 0, reset then) while the
 * 15-minute window resets sooner: a client must wait for the later of the two.
 */
export const rateLimitedAnswer = (windowResetAt: Date, dailyResetAt: Date | null): SimResponse => {
  const epoch = (date: Date) => Math.ceil(date.getTime() / 1000);
  return {
    ...problem(429, 'Too Many Requests', 'Too Many Requests'),
    headers: {
      'x-rate-limit-limit': 100,
      'x-rate-limit-remaining': dailyResetAt ? 99 : 0,
      'x-rate-limit-reset': epoch(windowResetAt),
      'x-user-limit-24hour-limit': 100,
      'x-user-limit-24hour-remaining': dailyResetAt ? 0 : 42,
      'x-user-limit-24hour-reset': epoch(dailyResetAt ?? new Date(Date.now() + 86_400_000)),
    },
  };
};
