import { NetworkError } from '../../ports/network-client.ts';
import {
  details,
  type HttpAnswer,
  type HttpCall,
  type HttpFailure,
  retryAfterSeconds,
  sendOrClassify,
  serverError,
  stringField,
  transportError,
} from '../network-http.ts';

/**
 * Reddit's HTTP answers and their classification, shared by the client and the metrics reader.
 * Reddit requires a descriptive User-Agent (`<platform>:<app id>:<version> (by /u/<name>)`) and
 * throttles or blocks generic ones; `REDDIT_USER_AGENT` overrides the default.
 */
export const DEFAULT_REDDIT_USER_AGENT = 'server:herald-publishing-api:0.1.0 (Herald social publishing API)';

export const redditUserAgentOf = (
  configured: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string => configured ?? (env.REDDIT_USER_AGENT?.trim() || DEFAULT_REDDIT_USER_AGENT);

const NETWORK = 'Reddit';

/** Seconds in Reddit's "try again in N minutes/seconds" wording, or undefined. */
export const waitInMessage = (message: string): number | undefined => {
  const match = /(\d+)\s*(millisecond|second|minute|hour)s?/i.exec(message);
  if (!match) return undefined;
  const n = Number(match[1]);
  const unit = (match[2] as string).toLowerCase();
  const seconds = unit === 'hour' ? n * 3600 : unit === 'minute' ? n * 60 : unit === 'second' ? n : n / 1000;
  return Math.max(1, Math.ceil(seconds));
};

/**
 * A failed call (an HTTP answer that is not 2xx, or no answer): 401 (Reddit answers expired,
 * revoked and unknown tokens alike with `{ message: 'Unauthorized', error: 401 }`) is `reconnect`
 * marked `tokenExpired`, so the token service tries a refresh first and only a refused refresh
 * makes the channel reconnect; 403 `insufficient_scope` is reconnect too (a scope the grant
 * lacks); 429 is the rate limit, waiting `x-ratelimit-reset` seconds; 5xx
 * and lost answers after sending are outcome-unknown; other 4xx are permanent.
 */
export const classifyRedditFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const message =
    stringField(body, 'explanation') ??
    stringField(body, 'message') ??
    stringField(body, 'reason') ??
    `Reddit answered HTTP ${status}`;
  if (status === 429) {
    const reset = headers['x-ratelimit-reset'];
    const wait =
      (reset !== undefined && /^\d+(\.\d+)?$/.test(reset.trim())
        ? Math.max(1, Math.ceil(Number(reset)))
        : undefined) ??
      retryAfterSeconds(headers['retry-after'], now) ??
      60;
    return new NetworkError('transient', `Reddit's rate limit is spent (${message})`, {
      ...details(status, wait),
      rateLimited: true,
    });
  }
  if (status >= 500) return serverError(`Reddit answered HTTP ${status} (${message})`, status);
  if (status === 401) {
    return new NetworkError('reconnect', `Reddit refused the access token (${message})`, {
      status,
      tokenExpired: true,
    });
  }
  // A token without the scope the call needs: 403 with `www-authenticate: Bearer realm="reddit",
  // error="insufficient_scope"` (as prawcore reads it). Only a new consent grants the scope.
  if (status === 403 && /insufficient_scope/.test(headers['www-authenticate'] ?? '')) {
    return new NetworkError(
      'reconnect',
      "Reddit refused the call: the channel's grant lacks the OAuth scope it needs (insufficient_scope); reconnect the channel to grant it.",
      { status, missingPermission: true },
    );
  }
  if (status === 403) {
    return new NetworkError(
      'permanent',
      `Reddit refused the request (${message}): the account may be banned from the subreddit, or the subreddit is private or restricted.`,
      { status },
    );
  }
  return new NetworkError('permanent', `Reddit refused the request: ${message}`, { status });
};

/** `json.errors` of an `api_type=json` answer: `[code, message, field]` triples. */
export const apiErrorsOf = (body: unknown): [string, string, string][] => {
  const errors = (body as { json?: { errors?: unknown } } | null | undefined)?.json?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e): e is unknown[] => Array.isArray(e))
    .map((e) => [String(e[0] ?? ''), String(e[1] ?? ''), String(e[2] ?? '')]);
};

/**
 * Reddit refuses most things inside an HTTP 200 (`{ json: { errors: [[code, message, field]] } }`):
 * `RATELIMIT` (the account's posting limit: wait `json.ratelimit` seconds, or what the message
 * says) is a rate limit; `USER_REQUIRED` means the token no longer stands for a user
 * (reconnect, refresh first); `ALREADY_SUB` is a duplicate; every other code is a permanent
 * refusal of the content with Reddit's own message.
 */
export const classifyApiErrors = (
  errors: [string, string, string][],
  body: unknown,
  status = 200,
): NetworkError => {
  const [code, message, field] = errors[0] as [string, string, string];
  const text = `Reddit refused the ${field || 'request'}: ${message} (${code})`;
  if (code === 'RATELIMIT') {
    const seconds = (body as { json?: { ratelimit?: unknown } }).json?.ratelimit;
    const wait =
      typeof seconds === 'number' && Number.isFinite(seconds)
        ? Math.max(1, Math.ceil(seconds))
        : waitInMessage(message);
    return new NetworkError('transient', `Reddit's posting limit for this account is spent: ${message}`, {
      ...details(status, wait ?? 600),
      rateLimited: true,
    });
  }
  if (code === 'USER_REQUIRED') {
    return new NetworkError('reconnect', text, { status, tokenExpired: true });
  }
  if (code === 'ALREADY_SUB') return new NetworkError('permanent', text, { status, duplicate: true });
  return new NetworkError('permanent', text, { status });
};

export interface RedditConnection {
  baseUrl: string;
  timeoutMs: number;
  userAgent: string;
}

/** One call to Reddit's API: a 2xx answer whose `json.errors` is empty, or a classified NetworkError. */
export const redditCall = async (
  connection: RedditConnection,
  accessToken: string,
  request: { method: HttpCall['method']; path: string; form?: Record<string, string>; json?: unknown },
  alsoFine: number[] = [],
): Promise<HttpAnswer> => {
  const answer = await sendOrClassify(
    {
      method: request.method,
      url: `${connection.baseUrl}${request.path}`,
      headers: { authorization: `Bearer ${accessToken}`, 'user-agent': connection.userAgent },
      ...(request.form ? { form: request.form } : {}),
      ...(request.json !== undefined ? { json: request.json } : {}),
      timeoutMs: connection.timeoutMs,
    },
    (failure) => classifyRedditFailure(failure),
    (candidate) => alsoFine.includes(candidate.status),
  );
  const errors = apiErrorsOf(answer.body);
  if (errors.length > 0) throw classifyApiErrors(errors, answer.body, answer.status);
  return answer;
};
