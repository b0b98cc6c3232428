import { describe, expect, it } from 'vitest';
import {
  classifyFetchFailure,
  classifyHttpResponse,
  parseRetryAfter,
} from '../../functions/platforms/generic/client.ts';
import { NetworkError } from '../../functions/ports/network-client.ts';

const errorBody = (code: string, message: string) => JSON.stringify({ error: { code, message } });

/** The shape Node's fetch (undici) throws: TypeError('fetch failed') with the socket error as cause. */
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
const sysError = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('parseRetryAfter', () => {
  const now = new Date('2025-01-01T00:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
  });
  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

describe('classifyHttpResponse', () => {
  it.each([500, 502, 503])(
    '%i is transient with outcomeUnknown (the request reached the network, which may have stored the post)',
    (status) => {
      const error = classifyHttpResponse(status, { body: errorBody('unavailable', 'Down for a bit') });
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.kind).toBe('transient');
      expect(error.message).toBe('Down for a bit');
      expect(error.details).toEqual({ status, outcomeUnknown: true });
    },
  );

  it('504 is transient with outcomeUnknown (the gateway gave up, the network may have acted)', () => {
    const error = classifyHttpResponse(504, { body: '' });
    expect(error.kind).toBe('transient');
    expect(error.details).toEqual({ status: 504, outcomeUnknown: true });
  });

  it('429 is transient with retryAfterSeconds from Retry-After', () => {
    const error = classifyHttpResponse(429, {
      retryAfter: '17',
      body: errorBody('rate_limited', 'Slow down'),
    });
    expect(error.kind).toBe('transient');
    expect(error.details).toEqual({ status: 429, retryAfterSeconds: 17 });
    const dated = classifyHttpResponse(
      429,
      { retryAfter: 'Wed, 01 Jan 2025 00:01:00 GMT' },
      new Date('2025-01-01T00:00:00Z'),
    );
    expect(dated.details.retryAfterSeconds).toBe(60);
  });

  it('429 without Retry-After has no retryAfterSeconds', () => {
    expect(classifyHttpResponse(429, {}).details).toEqual({ status: 429 });
  });

  it('503 keeps a Retry-After too', () => {
    expect(classifyHttpResponse(503, { retryAfter: '3' }).details).toEqual({
      status: 503,
      retryAfterSeconds: 3,
      outcomeUnknown: true,
    });
  });

  it('401 asks for a reconnect, with the network message', () => {
    const error = classifyHttpResponse(401, { body: errorBody('token_expired', 'The token expired.') });
    expect(error.kind).toBe('reconnect');
    expect(error.message).toBe('The token expired.');
    expect(error.details.status).toBe(401);
  });

  it.each([400, 403, 404, 405, 409, 413, 422])('%i is permanent with the network message', (status) => {
    const error = classifyHttpResponse(status, {
      retryAfter: '9',
      body: errorBody('content_refused', `Refused with ${status}`),
    });
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe(`Refused with ${status}`);
    expect(error.details).toEqual({ status });
  });

  it('falls back to the code, then to the status, when there is no message', () => {
    expect(
      classifyHttpResponse(422, { body: JSON.stringify({ error: { code: 'media_required' } }) }).message,
    ).toBe('media_required (HTTP 422)');
    expect(classifyHttpResponse(418, { body: '<html>teapot</html>' }).message).toBe(
      'The network answered HTTP 418.',
    );
    expect(classifyHttpResponse(400, { body: JSON.stringify({ error: 'plain words' }) }).message).toBe(
      'plain words',
    );
  });
});

describe('classifyFetchFailure', () => {
  it.each([
    ['ECONNREFUSED', fetchFailed(sysError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'))],
    ['ENOTFOUND', fetchFailed(sysError('ENOTFOUND', 'getaddrinfo ENOTFOUND x.invalid'))],
    ['EAI_AGAIN', fetchFailed(sysError('EAI_AGAIN'))],
    ['UND_ERR_CONNECT_TIMEOUT', fetchFailed(sysError('UND_ERR_CONNECT_TIMEOUT'))],
    [
      'AggregateError of refusals (happy eyeballs)',
      fetchFailed(
        Object.assign(new AggregateError([sysError('ECONNREFUSED'), sysError('ECONNREFUSED')], 'refused'), {
          code: 'ECONNREFUSED',
        }),
      ),
    ],
    ['AggregateError without its own code', fetchFailed(new AggregateError([sysError('EHOSTUNREACH')], 'x'))],
  ])('nothing sent (%s): transient, outcome known', (_name, error) => {
    const classified = classifyFetchFailure(error);
    expect(classified).toBeInstanceOf(NetworkError);
    expect(classified.kind).toBe('transient');
    expect(classified.details.outcomeUnknown).toBeUndefined();
    expect(classified.message).toMatch(/Could not reach/);
  });

  it.each([
    ['our timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    ['an abort', new DOMException('This operation was aborted', 'AbortError')],
    ['other side closed', fetchFailed(sysError('UND_ERR_SOCKET', 'other side closed'))],
    ['socket hang up', fetchFailed(sysError('ECONNRESET', 'socket hang up'))],
    ['EPIPE', fetchFailed(sysError('EPIPE'))],
    ['headers timeout', fetchFailed(sysError('UND_ERR_HEADERS_TIMEOUT'))],
    ['something unknown', new Error('weird')],
    ['a thrown string', 'boom'],
  ])('after sending (%s): transient with outcomeUnknown', (_name, error) => {
    const classified = classifyFetchFailure(error);
    expect(classified.kind).toBe('transient');
    expect(classified.details.outcomeUnknown).toBe(true);
  });
});
