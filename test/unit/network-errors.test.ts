import { describe, expect, it } from 'vitest';
import { classifyBlueskyFailure } from '../../functions/platforms/bluesky/client.ts';
import { classifyLinkedInFailure } from '../../functions/platforms/linkedin/client.ts';
import { type HttpFailure, retryAfterSeconds } from '../../functions/platforms/network-http.ts';
import { classifyXFailure } from '../../functions/platforms/x/client.ts';
import type { NetworkError, NetworkErrorKind } from '../../functions/ports/network-client.ts';

/** 2026-03-01T12:00:00Z: 12 hours before midnight UTC. */
const NOW = new Date('2026-03-01T12:00:00Z');
const NOW_EPOCH = 1772366400;

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): HttpFailure => ({
  type: 'answer',
  status,
  headers,
  body,
});
const refused: HttpFailure = { type: 'transport', sent: false, code: 'ECONNREFUSED' };
const dns: HttpFailure = { type: 'transport', sent: false, code: 'ENOTFOUND' };
const timedOut: HttpFailure = { type: 'transport', sent: true, code: 'TIMEOUT' };
const reset: HttpFailure = { type: 'transport', sent: true, code: 'ECONNRESET' };

interface Row {
  name: string;
  failure: HttpFailure;
  kind: NetworkErrorKind;
  details: NetworkError['details'];
  message?: string;
}

/** Rows every network shares: failures without an answer. */
const transportRows = (network: string): Row[] => [
  {
    name: 'connection refused',
    failure: refused,
    kind: 'transient',
    details: {},
    message: `${network} could not be reached (ECONNREFUSED)`,
  },
  { name: 'DNS failure', failure: dns, kind: 'transient', details: {} },
  { name: 'timeout after sending', failure: timedOut, kind: 'transient', details: { outcomeUnknown: true } },
  { name: 'reset after sending', failure: reset, kind: 'transient', details: { outcomeUnknown: true } },
];

const xRows: Row[] = [
  ...transportRows('X'),
  {
    name: '429 with x-rate-limit-reset',
    failure: answer(
      429,
      { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
      {
        'x-rate-limit-reset': String(NOW_EPOCH + 900),
      },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 900, rateLimited: true },
    message: 'Too Many Requests',
  },
  {
    name: '429 with the 24-hour cap spent waits for its reset',
    failure: answer(
      429,
      { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
      {
        'x-rate-limit-remaining': '12',
        'x-rate-limit-reset': String(NOW_EPOCH + 300),
        'x-user-limit-24hour-remaining': '0',
        'x-user-limit-24hour-reset': String(NOW_EPOCH + 40_000),
      },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 40_000, rateLimited: true },
    message: 'Too Many Requests (the 24-hour limit of this account is reached)',
  },
  {
    // A cap whose reset is sooner than the window's (near the daily reset): the window, with
    // requests left, is not what refused, and waiting for it would add up to 15 minutes.
    name: '429 with the 24-hour cap spent and the 15-minute window not waits for the cap, however soon',
    failure: answer(
      429,
      { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
      {
        'x-rate-limit-remaining': '99',
        'x-rate-limit-reset': String(NOW_EPOCH + 900),
        'x-user-limit-24hour-remaining': '0',
        'x-user-limit-24hour-reset': String(NOW_EPOCH + 3),
      },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 3, rateLimited: true },
    message: 'Too Many Requests (the 24-hour limit of this account is reached)',
  },
  {
    name: '429 with both the 24-hour cap and the 15-minute window spent waits for the later reset',
    failure: answer(
      429,
      {},
      {
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(NOW_EPOCH + 900),
        'x-user-limit-24hour-remaining': '0',
        'x-user-limit-24hour-reset': String(NOW_EPOCH + 3),
      },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 900, rateLimited: true },
  },
  {
    name: '429 with the 24-hour cap not spent waits for the 15-minute window',
    failure: answer(
      429,
      {},
      {
        'x-rate-limit-reset': String(NOW_EPOCH + 300),
        'x-user-limit-24hour-remaining': '7',
        'x-user-limit-24hour-reset': String(NOW_EPOCH + 40_000),
      },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 300, rateLimited: true },
  },
  {
    name: '429 whose reset has passed waits at least a second',
    failure: answer(429, {}, { 'x-rate-limit-reset': String(NOW_EPOCH - 5) }),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 1, rateLimited: true },
  },
  {
    name: '429 without headers',
    failure: answer(429, {}),
    kind: 'transient',
    details: { status: 429, rateLimited: true },
  },
  {
    name: '503',
    failure: answer(503, {
      title: 'Service Unavailable',
      detail: 'Service Unavailable',
      type: 'about:blank',
      status: 503,
    }),
    kind: 'transient',
    // X may have stored the tweet before failing: look it up before sending again.
    details: { status: 503, outcomeUnknown: true },
  },
  {
    name: '500 with Retry-After',
    failure: answer(500, {}, { 'retry-after': '7' }),
    kind: 'transient',
    details: { status: 500, retryAfterSeconds: 7, outcomeUnknown: true },
  },
  {
    name: '502 from a gateway (HTML body)',
    failure: answer(502, undefined),
    kind: 'transient',
    details: { status: 502, outcomeUnknown: true },
    message: 'X answered HTTP 502',
  },
  {
    name: '504',
    failure: answer(504, undefined),
    kind: 'transient',
    details: { status: 504, outcomeUnknown: true },
  },
  {
    name: '401',
    failure: answer(401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' }),
    kind: 'reconnect',
    details: { status: 401, tokenExpired: true },
    message: 'Unauthorized',
  },
  {
    name: '403 duplicate',
    failure: answer(403, {
      detail: 'You are not allowed to create a Tweet with duplicate content.',
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
    }),
    kind: 'permanent',
    details: { status: 403, duplicate: true },
    message: 'You are not allowed to create a Tweet with duplicate content.',
  },
  {
    name: '403 other than duplicate content',
    failure: answer(403, {
      detail: 'You are not permitted to perform this action.',
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
    }),
    kind: 'permanent',
    details: { status: 403 },
  },
  {
    name: '400 invalid request uses the first error message',
    failure: answer(400, {
      errors: [{ parameters: { text: [''] }, message: 'Tweet text is empty' }],
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: 'https://api.twitter.com/2/problems/invalid-request',
    }),
    kind: 'permanent',
    details: { status: 400 },
    message: 'Tweet text is empty',
  },
  {
    name: 'v1.1-style 404 body',
    failure: answer(404, { errors: [{ message: 'Sorry, that page does not exist', code: 34 }] }),
    kind: 'permanent',
    details: { status: 404 },
    message: 'Sorry, that page does not exist',
  },
  {
    name: 'unreadable body',
    failure: answer(400, undefined),
    kind: 'permanent',
    details: { status: 400 },
    message: 'X answered HTTP 400',
  },
];

const blueskyRows: Row[] = [
  ...transportRows('Bluesky'),
  {
    name: '400 ExpiredToken (how a PDS answers an expired access JWT)',
    failure: answer(400, { error: 'ExpiredToken', message: 'Token has expired' }),
    kind: 'reconnect',
    details: { status: 400, tokenExpired: true },
    message: 'Token has expired',
  },
  {
    name: '400 InvalidToken',
    failure: answer(400, { error: 'InvalidToken', message: 'Token could not be verified' }),
    kind: 'reconnect',
    details: { status: 400 },
  },
  {
    name: '401 AuthMissing',
    failure: answer(401, { error: 'AuthMissing', message: 'Authentication Required' }),
    kind: 'reconnect',
    details: { status: 401 },
  },
  {
    name: '401 ExpiredToken through an entryway',
    failure: answer(401, { error: 'ExpiredToken', message: 'Token has expired' }),
    kind: 'reconnect',
    details: { status: 401, tokenExpired: true },
  },
  {
    name: '401 AccountTakedown cannot be fixed by reconnecting',
    failure: answer(401, { error: 'AccountTakedown', message: 'Account has been taken down' }),
    kind: 'permanent',
    details: { status: 401 },
  },
  {
    name: '429 with ratelimit-reset',
    failure: answer(
      429,
      { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
      {
        'ratelimit-reset': String(NOW_EPOCH + 60),
        'ratelimit-remaining': '0',
      },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 60, rateLimited: true },
    message: 'Rate Limit Exceeded',
  },
  {
    name: '429 with the daily write limit spent waits for its reset',
    failure: answer(
      429,
      { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
      {
        'ratelimit-limit': '35000',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(NOW_EPOCH + 40_000),
        'ratelimit-policy': '35000;w=86400',
      },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 40_000, rateLimited: true },
  },
  {
    name: '429 without headers is a rate limit with no announced reset',
    failure: answer(429, { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' }),
    kind: 'transient',
    details: { status: 429, rateLimited: true },
  },
  {
    name: '429 with only Retry-After',
    failure: answer(
      429,
      { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
      { 'retry-after': '30' },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 30, rateLimited: true },
  },
  {
    name: '502 UpstreamFailure',
    failure: answer(502, { error: 'UpstreamFailure', message: 'Upstream Failure' }),
    kind: 'transient',
    details: { status: 502, outcomeUnknown: true },
  },
  {
    name: '500 for a record key already taken (how a PDS answers a repeated rkey)',
    failure: answer(500, { error: 'InternalServerError', message: 'There is already a value at key' }),
    kind: 'transient',
    details: { status: 500, outcomeUnknown: true },
    message: 'There is already a value at key',
  },
  {
    name: '503',
    failure: answer(503, { error: 'InternalServerError', message: 'Service temporarily unavailable' }),
    kind: 'transient',
    details: { status: 503, outcomeUnknown: true },
  },
  {
    name: '400 InvalidRequest',
    failure: answer(400, { error: 'InvalidRequest', message: 'Record already exists' }),
    kind: 'permanent',
    details: { status: 400 },
    message: 'Record already exists',
  },
  {
    name: '400 with only an error name',
    failure: answer(400, { error: 'InvalidSwap' }),
    kind: 'permanent',
    details: { status: 400 },
    message: 'InvalidSwap',
  },
];

const linkedInRows: Row[] = [
  ...transportRows('LinkedIn'),
  {
    name: '401 EXPIRED_ACCESS_TOKEN',
    failure: answer(401, {
      status: 401,
      serviceErrorCode: 65601,
      code: 'EXPIRED_ACCESS_TOKEN',
      message: 'The token used in the request has expired',
    }),
    kind: 'reconnect',
    details: { status: 401, tokenExpired: true },
    message: 'The token used in the request has expired',
  },
  {
    name: '401 REVOKED_ACCESS_TOKEN',
    failure: answer(401, {
      status: 401,
      serviceErrorCode: 65602,
      code: 'REVOKED_ACCESS_TOKEN',
      message: 'revoked',
    }),
    kind: 'reconnect',
    details: { status: 401 },
  },
  {
    name: '429 with Retry-After',
    failure: answer(
      429,
      { status: 429, code: 'TOO_MANY_REQUESTS', message: 'throttled' },
      { 'retry-after': '120' },
    ),
    kind: 'transient',
    details: { status: 429, retryAfterSeconds: 120, rateLimited: true },
  },
  {
    name: '429 without Retry-After: no reset announced (a short throttle or the daily limit), midnight UTC at the latest',
    failure: answer(429, { status: 429, code: 'TOO_MANY_REQUESTS', message: 'throttled' }),
    kind: 'transient',
    details: { status: 429, resetBySeconds: 12 * 3600, rateLimited: true },
  },
  {
    name: '504',
    failure: answer(504, { status: 504, message: 'Gateway Timeout' }),
    kind: 'transient',
    details: { status: 504, outcomeUnknown: true },
  },
  {
    name: '503',
    failure: answer(503, { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable' }),
    kind: 'transient',
    details: { status: 503, outcomeUnknown: true },
  },
  {
    name: '422 content problem',
    failure: answer(422, {
      status: 422,
      code: 'DUPLICATE_POST',
      message: 'Content is a duplicate of urn:li:share:1',
    }),
    kind: 'permanent',
    details: { status: 422, duplicate: true },
    message: 'Content is a duplicate of urn:li:share:1',
  },
  {
    name: '422 DUPLICATE_POST in errorDetails.inputErrors',
    failure: answer(422, {
      status: 422,
      message: 'Content is a duplicate of urn:li:share:2',
      errorDetails: { inputErrors: [{ code: 'DUPLICATE_POST', description: 'duplicate' }] },
    }),
    kind: 'permanent',
    details: { status: 422, duplicate: true },
  },
  {
    name: '422 other validation problem',
    failure: answer(422, { status: 422, code: 'UNPROCESSABLE_ENTITY', message: 'field is required' }),
    kind: 'permanent',
    details: { status: 422 },
  },
  {
    name: '403 ACCESS_DENIED',
    failure: answer(403, {
      status: 403,
      serviceErrorCode: 100,
      code: 'ACCESS_DENIED',
      message: 'Not enough permissions',
    }),
    kind: 'permanent',
    details: { status: 403 },
  },
  {
    name: '426 sunset API version',
    failure: answer(426, {
      status: 426,
      code: 'NONEXISTENT_VERSION',
      message: 'Requested version 202301 is not active',
    }),
    kind: 'permanent',
    details: { status: 426 },
    message:
      'LinkedIn no longer serves the API version Herald sends (Requested version 202301 is not active); set LINKEDIN_API_VERSION to a current version (YYYYMM).',
  },
  {
    name: '426 VERSION_MISSING',
    failure: answer(426, {
      status: 426,
      code: 'VERSION_MISSING',
      message: 'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
    }),
    kind: 'permanent',
    details: { status: 426 },
  },
  {
    name: 'body with only a code',
    failure: answer(400, { status: 400, code: 'VERSION_MISSING' }),
    kind: 'permanent',
    details: { status: 400 },
    message: 'VERSION_MISSING',
  },
];

const networks = [
  { network: 'X', classify: classifyXFailure, rows: xRows },
  { network: 'Bluesky', classify: classifyBlueskyFailure, rows: blueskyRows },
  { network: 'LinkedIn', classify: classifyLinkedInFailure, rows: linkedInRows },
];

describe.each(networks)('$network error classification', ({ classify, rows }) => {
  it.each(rows)('$name → $kind', ({ failure, kind, details, message }) => {
    const error = classify(failure, NOW);
    expect(error.name).toBe('NetworkError');
    expect(error.kind).toBe(kind);
    expect(error.details).toEqual(details);
    if (message !== undefined) expect(error.message).toBe(message);
    expect(error.message).not.toBe('');
  });
});

describe('Retry-After parsing', () => {
  it.each([
    ['120', 120],
    ['0', 1],
    ['Sun, 01 Mar 2026 12:01:00 GMT', 60],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s', (value, expected) => {
    expect(retryAfterSeconds(value, NOW)).toBe(expected);
  });
});
