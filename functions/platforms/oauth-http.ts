import type { OAuthApp, TokenSet } from '../ports/network-auth.ts';
import { NetworkError } from '../ports/network-client.ts';
import { graphErrorOf, META_USAGE_HEADERS, regainMinutes } from './meta-graph.ts';
import { baseUrlOf, retryAfterSeconds } from './network-http.ts';

/**
 * What every network's `oauth.ts` shares: one HTTP call to an OAuth or identity endpoint (form,
 * JSON or query parameters; HTTP Basic or bearer), and the classification of its failures into
 * `NetworkError`s (ports/network-auth.ts): `reconnect` when the network refused the grant itself,
 * `transient` for 5xx, 429 and no answer, `permanent` otherwise. Messages carry the network's
 * error code and description, never a token or secret.
 */

export interface OAuthCall {
  network: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** application/x-www-form-urlencoded body. */
  form?: Record<string, string | undefined>;
  json?: unknown;
  query?: Record<string, string | undefined>;
  basic?: OAuthApp;
  bearer?: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  /**
   * The call presents a grant (a code, a refresh token, a token to exchange): a 400/401 refusal
   * means the grant is dead and the channel must be reconnected. Otherwise (identify, targets) a
   * 401 is an access token the network no longer accepts.
   */
  grant: boolean;
}

export interface OAuthAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

const REFUSED_GRANT = new Set([
  'invalid_grant',
  'invalid_token',
  'access_denied',
  'expired_token',
  'ExpiredToken',
  'InvalidToken',
  'AuthRequired',
  'AuthMissing',
]);
const APP_ERRORS = new Set([
  'invalid_client',
  'unauthorized_client',
  'invalid_scope',
  'unsupported_grant_type',
]);

/**
 * Graph's throttling codes (app 4, user 17, page 32, API-specific 613, business use case 80000s)
 * and its temporary failures (1 "unknown", 2 "service", or any error marked `is_transient`), from
 * Graph's error-handling guide (developers.facebook.com/docs/graph-api/guides/error-handling).
 * Graph sends them with HTTP 400, like a dead grant, so they are read before the 400 rule. These
 * numbers never clash with the other networks' numeric `error.code` (Google's is the HTTP status).
 */
const GRAPH_THROTTLE_CODES = new Set([4, 17, 32, 613]);
const isGraphThrottle = (code: number | undefined) =>
  code !== undefined && (GRAPH_THROTTLE_CODES.has(code) || (code >= 80_000 && code < 81_000));
/** Graph's code 1 is also its answer to a wrong app secret ("Error validating client secret"). */
const GRAPH_APP_REFUSAL = /client secret|application|app id|app secret/i;

/** The longest wait Meta's usage headers state, in seconds. */
const graphRegainSeconds = (headers: Headers | null): number | undefined => {
  let minutes: number | undefined;
  for (const name of META_USAGE_HEADERS) {
    const stated = regainMinutes(headers?.get(name) ?? undefined);
    if (stated !== undefined) minutes = Math.max(minutes ?? 0, stated);
  }
  return minutes === undefined ? undefined : minutes * 60;
};

const short = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** The network's error code and description, from the OAuth, XRPC, Graph, Google or TikTok shapes. */
export const oauthErrorOf = (
  body: unknown,
): { code: string | null; description: string | null; graphCode?: number; subcode?: number } => {
  if (body === null || typeof body !== 'object') return { code: null, description: null };
  const b = body as Record<string, unknown>;
  const nested =
    b.error !== null && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : null;
  if (nested) {
    // Graph API: { error: { message, type, code, error_subcode } }; TikTok: { error: { code, message } }; Google: { error: { status, message } }.
    return {
      code:
        typeof nested.type === 'string'
          ? nested.type
          : typeof nested.code === 'string'
            ? nested.code
            : typeof nested.status === 'string'
              ? nested.status
              : null,
      description: typeof nested.message === 'string' ? nested.message : null,
      graphCode: typeof nested.code === 'number' ? nested.code : undefined,
      subcode: typeof nested.error_subcode === 'number' ? nested.error_subcode : undefined,
    };
  }
  // Instagram's code exchange: { error_type, code, error_message }.
  const code =
    typeof b.error === 'string'
      ? b.error
      : typeof b.error_type === 'string'
        ? b.error_type
        : typeof b.code === 'string'
          ? b.code
          : null;
  const description =
    typeof b.error_description === 'string'
      ? b.error_description
      : typeof b.error_message === 'string'
        ? b.error_message
        : typeof b.message === 'string'
          ? b.message
          : null;
  return { code, description };
};

/** A body that says "error" although the status is 200 (Reddit's `{ error: 'invalid_grant' }`, TikTok's). */
const errorIn200 = (body: unknown): boolean => {
  if (body === null || typeof body !== 'object') return false;
  const error = (body as Record<string, unknown>).error;
  if (typeof error === 'string') return error !== '' && error !== 'ok';
  if (error !== null && typeof error === 'object') {
    const code = (error as Record<string, unknown>).code;
    return code !== undefined && code !== 'ok' && code !== 0;
  }
  return false;
};

export const classifyOAuthFailure = (
  network: string,
  status: number,
  body: unknown,
  headers: Headers | null,
  grant: boolean,
): NetworkError => {
  const { code, description, graphCode, subcode } = oauthErrorOf(body);
  const said = short([code, description].filter(Boolean).join(': ') || `HTTP ${status}`);
  if (status === 429) {
    const wait = retryAfterSeconds(headers?.get('retry-after') ?? undefined, new Date());
    return new NetworkError('transient', `${network} is rate-limiting this app (${said})`, {
      status,
      rateLimited: true,
      ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
    });
  }
  if (status >= 500) return new NetworkError('transient', `${network} failed (${said})`, { status });
  if (code !== null && APP_ERRORS.has(code)) {
    return new NetworkError(
      'permanent',
      `${network} refused Herald's app credentials (${said}): check the app's configuration`,
      { status },
    );
  }
  const graph = graphErrorOf(body);
  if (isGraphThrottle(graphCode)) {
    const wait =
      graphRegainSeconds(headers) ?? retryAfterSeconds(headers?.get('retry-after') ?? undefined, new Date());
    return new NetworkError('transient', `${network} is throttling this app (${said})`, {
      status,
      rateLimited: true,
      ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
    });
  }
  const appRefusal = graphCode === 101 || (graphCode === 1 && GRAPH_APP_REFUSAL.test(description ?? ''));
  if (!appRefusal && (graphCode === 1 || graphCode === 2 || graph?.transient === true)) {
    return new NetworkError('transient', `${network} failed for now (${said})`, { status });
  }
  // Graph API: code 101 (and code 1 naming the app secret) are the app's own credentials.
  if (appRefusal) {
    return new NetworkError(
      'permanent',
      `${network} refused Herald's app credentials (${said}): check the app's configuration`,
      { status },
    );
  }
  // Graph API: code 190 is an access token the network no longer accepts (subcode 463: expired).
  if (graphCode === 190) {
    return new NetworkError('reconnect', `${network} refused the token (${said})`, {
      status,
      ...(subcode === 463 && !grant ? { tokenExpired: true } : {}),
    });
  }
  if (grant && ((code !== null && REFUSED_GRANT.has(code)) || status === 400 || status === 401)) {
    return new NetworkError(
      'reconnect',
      `${network} refused the grant (${said}): the channel must be reconnected`,
      { status },
    );
  }
  // An access token refused on an ordinary call: a refresh decides whether the grant still lives.
  if (status === 401 || (code !== null && REFUSED_GRANT.has(code))) {
    return new NetworkError('reconnect', `${network} refused the access token (${said})`, {
      status,
      tokenExpired: true,
    });
  }
  return new NetworkError('permanent', `${network} refused the request (${said})`, { status });
};

/** Sends one OAuth or identity call; resolves with a 2xx answer's body, throws `NetworkError` otherwise. */
export const oauthCall = async (call: OAuthCall): Promise<OAuthAnswer> => {
  const url = new URL(call.url);
  for (const [key, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) url.searchParams.set(key, value);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'Herald/0.1 (social publishing API)',
    ...(call.headers ?? {}),
  };
  let body: string | undefined;
  if (call.form) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(call.form)) if (value !== undefined) form.set(key, value);
    body = form.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers['content-type'] = 'application/json';
  }
  if (call.basic) {
    const pair = `${encodeURIComponent(call.basic.clientId)}:${encodeURIComponent(call.basic.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else if (call.bearer) {
    headers.authorization = `Bearer ${call.bearer}`;
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: call.method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(call.timeoutMs),
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError' ? 'no answer in time' : 'could not be reached';
    throw new NetworkError('transient', `${call.network} ${reason}`, {});
  }
  const text = await response.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.status >= 200 && response.status < 300 && !errorIn200(parsed)) {
    return { status: response.status, headers: response.headers, body: parsed };
  }
  const status = response.status >= 200 && response.status < 300 ? 400 : response.status;
  throw classifyOAuthFailure(call.network, status, parsed, response.headers, call.grant);
};

/** Reads a field that must be a non-empty string of a network's answer, or throws a clear `permanent`. */
export const requireString = (network: string, body: unknown, path: string): string => {
  let value: unknown = body;
  for (const key of path.split('.')) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string' || value === '') {
    throw new NetworkError('permanent', `${network} answered without ${path}`, {});
  }
  return value;
};

const seconds = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null;
};

/**
 * A standard token response (RFC 6749 §5.1) as a TokenSet: `expires_in` and
 * `refresh_token_expires_in`/`refresh_expires_in` in seconds from `now`, `scope` split on spaces
 * or commas (`fallbackScopes` when the network does not echo them).
 */
export const tokenSetOf = (
  network: string,
  body: unknown,
  options: {
    now?: Date;
    fallbackScopes?: string[];
    previousRefreshToken?: string | null;
    previousRefreshExpiresAt?: string | null;
  } = {},
): TokenSet => {
  const now = options.now ?? new Date();
  const b = (body ?? {}) as Record<string, unknown>;
  const accessToken = requireString(network, body, 'access_token');
  const expiresIn = seconds(b.expires_in);
  const refreshIn = seconds(b.refresh_token_expires_in ?? b.refresh_expires_in);
  const refreshToken = typeof b.refresh_token === 'string' && b.refresh_token !== '' ? b.refresh_token : null;
  const scopeText =
    typeof b.scope === 'string' ? b.scope : typeof b.permissions === 'string' ? b.permissions : null;
  const at = (secs: number | null) =>
    secs === null ? null : new Date(now.getTime() + secs * 1000).toISOString();
  return {
    accessToken,
    refreshToken: refreshToken ?? options.previousRefreshToken ?? null,
    expiresAt: at(expiresIn),
    refreshExpiresAt: refreshToken ? at(refreshIn) : (options.previousRefreshExpiresAt ?? null),
    scopes: scopeText === null ? (options.fallbackScopes ?? []) : scopeText.split(/[\s,]+/).filter(Boolean),
    issuedAt: now.toISOString(),
  };
};

/** The base URL of a network's host: the simulator's when configured, else the network's own. */
export const hostOf = (baseUrls: Record<string, string>, platform: string, real: string) =>
  baseUrlOf(baseUrls[platform] ?? real);

/** An authorize URL with its query. */
export const urlWith = (base: string, query: Record<string, string | null | undefined>) => {
  const url = new URL(base);
  for (const [key, value] of Object.entries(query))
    if (value !== null && value !== undefined) url.searchParams.set(key, value);
  return url.toString();
};

/** The `refresh` of a network whose tokens cannot be refreshed: the channel must be reconnected. */
export const cannotRefresh = (network: string, why: string): never => {
  throw new NetworkError('reconnect', `${network} ${why}: the channel must be reconnected`, {});
};
