import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { headerOf, objectOf } from './http.ts';
import type {
  GrantRefusal,
  SimAccount,
  SimGrant,
  SimLifetimes,
  SimOAuthApp,
  SimTokenStore,
} from './token-store.ts';
import {
  type SimContext,
  SimHttpError,
  type SimOAuthMount,
  type SimResponse,
  type SimRoute,
  type UnauthorizedReason,
} from './types.ts';

/**
 * The shared half of the simulators' OAuth endpoints (issue 11): the preset app credentials, a
 * token store (authorization codes bound to client, redirect URI and PKCE challenge; access tokens
 * that expire; refresh tokens that expire, rotate where the network rotates, and die with a
 * revoked grant), and the helpers each network's `oauth-simulator.ts` builds its real paths and
 * answer shapes from.
 *
 * Tokens the simulator did not issue (pasted into the admin CLI, the `expired…`/`revoked…` test
 * tokens) are not its business: they keep working exactly as before.
 *
 * Lifetimes, so tests run fast (seconds; `0` or empty means the network's real default):
 * - `SIM_OAUTH_ACCESS_TTL_SECONDS`, `SIM_OAUTH_REFRESH_TTL_SECONDS` (environment, read whenever a
 *   token is issued), overridden per simulator by
 * - `POST /_sim/oauth/lifetimes` `{ accessSeconds?, refreshSeconds? }` → 204 (null: back to the default);
 * - `POST /_sim/oauth/expire` → 204: every expiring access token the simulator issued is expired now.
 *
 * Each app has its registered redirect URIs, as on the networks' developer consoles: an authorize
 * request naming another is refused with the network's own page or answer (and never redirected),
 * and a code is exchanged only with the very redirect URI it was issued for (the network's own
 * refusal otherwise). The local runtime registers Herald's configured callback for the preset apps.
 *
 * The consent screen is skipped: the authorize URL redirects straight back to `redirect_uri` with
 * `code` and `state`. `sim_user=<name>` picks the account that consents (default `sim-user`),
 * `sim_scopes=<space- or comma-separated>` grants fewer scopes than asked, and `sim_deny=1` makes
 * the user refuse (`error=access_denied`).
 */

export * from './token-store.ts';

/** The client credentials of a token request: HTTP Basic, else the body's (or query's) client_id/client_secret. */
export const clientCredentials = (
  headers: IncomingHttpHeaders,
  params: Record<string, string>,
): { clientId: string; clientSecret: string | null; basic: boolean } | null => {
  const header = headerOf(headers, 'authorization') ?? '';
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
      basic: true,
    };
  }
  const clientId = params.client_id ?? params.client_key;
  if (!clientId) return null;
  return { clientId, clientSecret: params.client_secret ?? null, basic: false };
};

/** The request's parameters: query merged with a form or JSON body (strings only). */
export const paramsOf = (ctx: Pick<SimContext, 'query' | 'body'>): Record<string, string> => {
  const params: Record<string, string> = Object.fromEntries(ctx.query);
  const body = objectOf(ctx.body);
  if (body) {
    for (const [key, value] of Object.entries(body)) if (typeof value === 'string') params[key] = value;
  }
  return params;
};

/** The bearer token of a request (or the `access_token` parameter, as Meta's Graph APIs take it). */
export const bearerOf = (ctx: Pick<SimContext, 'headers' | 'query' | 'body'>): string | null => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headerOf(ctx.headers, 'authorization') ?? '');
  return match?.[1] ?? paramsOf(ctx).access_token ?? null;
};

export interface AuthorizeRouteOptions {
  path: string;
  app: SimOAuthApp;
  store: SimTokenStore;
  /** The name of the client id parameter (TikTok: `client_key`). */
  clientIdParam?: string;
  /** How the network separates scopes in the `scope` parameter. */
  scopeSeparator: RegExp;
  /** The account a `sim_user` consents as. */
  accountFor(user: string): SimAccount;
  /** A bad authorize request, as the network shows it (default: 400 JSON). */
  invalid?(message: string): SimResponse;
  /** The scopes the network knows: asking for another one is refused (`invalid_scope`, or `scopeError`). */
  knownScopes?: readonly string[];
  /** The error code the network redirects back with for an unknown scope (default `invalid_scope`). */
  scopeError?: string;
  /** The network requires PKCE (X): no `code_challenge` is `invalid_request`. */
  requirePkce?: boolean;
  /**
   * The network's answer to a `redirect_uri` the app has not registered: its own error page or
   * JSON, never a redirect (a network sends nothing to an address the app did not register).
   */
  unregisteredRedirect(redirectUri: string): SimResponse;
}

/** An error page of a network's sign-in site (the request's values are not echoed into it). */
export const errorPage = (status: number, title: string, message: string): SimResponse => ({
  status,
  html: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${message}</p></body></html>`,
});

/** The consent screen, skipped: a 302 straight back to `redirect_uri` with `code` and `state`. */
export const authorizeRoute = (options: AuthorizeRouteOptions): SimRoute => ({
  method: 'GET',
  path: options.path,
  auth: false,
  handler: (ctx) => {
    const invalid =
      options.invalid ??
      ((message: string) => ({
        status: 400,
        body: { error: 'invalid_request', error_description: message },
      }));
    const q = ctx.query;
    const clientId = q.get(options.clientIdParam ?? 'client_id');
    const redirectUri = q.get('redirect_uri');
    if (clientId !== options.app.clientId) return invalid('Unknown client_id.');
    if (!redirectUri || !/^https?:\/\//.test(redirectUri))
      return invalid('redirect_uri must be an absolute URL.');
    if (!options.app.redirectUris.includes(redirectUri)) return options.unregisteredRedirect(redirectUri);
    const target = new URL(redirectUri);
    const state = q.get('state');
    if (state !== null) target.searchParams.set('state', state);
    const back = (params: Record<string, string>): SimResponse => {
      for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
      return { status: 302, headers: { location: target.toString() } };
    };
    if (q.get('response_type') !== 'code') {
      return back({ error: 'unsupported_response_type', error_description: 'response_type must be code' });
    }
    if (q.get('sim_deny') === '1') {
      return back({ error: 'access_denied', error_description: 'The user denied the request.' });
    }
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method');
    if (options.requirePkce && !challenge) {
      return back({ error: 'invalid_request', error_description: 'code_challenge is required' });
    }
    if (challenge !== null && method !== 'S256' && method !== 'plain') {
      return back({
        error: 'invalid_request',
        error_description: 'code_challenge_method must be S256 or plain',
      });
    }
    const asked = (q.get('scope') ?? '').split(options.scopeSeparator).filter(Boolean);
    const unknown = options.knownScopes ? asked.filter((scope) => !options.knownScopes?.includes(scope)) : [];
    if (unknown.length > 0) {
      return back({
        error: options.scopeError ?? 'invalid_scope',
        error_description: `Unknown scope: ${unknown.join(', ')}`,
      });
    }
    const only = q.get('sim_scopes');
    const scopes = only === null ? asked : only.split(/[\s,]+/).filter((scope) => asked.includes(scope));
    const code = options.store.issueCode({
      clientId,
      redirectUri,
      challenge,
      challengeMethod: challenge === null ? null : method,
      account: options.accountFor(q.get('sim_user') ?? 'sim-user'),
      scopes,
    });
    return back({ code });
  },
});

/** `POST /_sim/oauth/lifetimes` and `POST /_sim/oauth/expire` (no auth). */
export const lifetimeRoutes = (store: SimTokenStore): SimRoute[] => [
  {
    method: 'POST',
    path: '/_sim/oauth/lifetimes',
    auth: false,
    handler: (ctx) => {
      const body = objectOf(ctx.body) ?? {};
      const lifetimes: Partial<SimLifetimes> = {};
      for (const [field, key] of [
        ['accessSeconds', 'accessSeconds'],
        ['refreshSeconds', 'refreshSeconds'],
      ] as const) {
        const value = body[field];
        if (value === undefined) continue;
        if (value !== null && (typeof value !== 'number' || !(value > 0))) {
          return { status: 400, body: { message: `${field} must be a positive number of seconds or null` } };
        }
        lifetimes[key] = value as number | null;
      }
      store.setLifetimes(lifetimes);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/_sim/oauth/expire',
    auth: false,
    handler: () => {
      store.expireAll();
      return { status: 204 };
    },
  },
];

/** A stable numeric id (as a string) for a simulated user name. */
export const numericIdFor = (seed: string, digits = 17) => {
  const hash = createHash('sha256').update(seed).digest();
  return (hash.readBigUInt64BE(0) % 10n ** BigInt(digits)).toString().padStart(digits, '1');
};

/** Throws the answer when a refusal came back; returns the value otherwise. */
export const orRefuse = <T extends object>(
  value: T | GrantRefusal,
  shape: (refusal: GrantRefusal) => SimResponse,
): T => {
  if ('error' in value) throw new SimHttpError(shape(value as GrantRefusal));
  return value as T;
};

/** A mount for the framework (`startSimulator({ oauth })`). */
export const mountOf = (store: SimTokenStore, routes: SimRoute[]): SimOAuthMount => ({
  routes: [...lifetimeRoutes(store), ...routes],
  refusal: (token) => store.refusal(token),
  scopesOf: (token) => store.grantOf(token)?.scopes ?? null,
  reset: () => store.reset(),
});

/**
 * Serves a mount's routes from a server that is not built on the framework (the generic
 * simulator): null when no route matches.
 */
export const dispatchOAuth = async (
  mount: SimOAuthMount,
  request: { method: string; url: URL; headers: IncomingHttpHeaders; raw: string },
): Promise<SimResponse | null> => {
  const segments = request.url.pathname.split('/').filter(Boolean);
  for (const route of mount.routes) {
    if (route.method !== request.method) continue;
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const part = pattern[i] as string;
      const raw = segments[i] as string;
      if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(raw);
      else ok = part === raw;
    }
    if (!ok) continue;
    let body: unknown;
    if (/^application\/x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '')) {
      body = Object.fromEntries(new URLSearchParams(request.raw));
    } else if (request.raw.trim() !== '') {
      try {
        body = JSON.parse(request.raw);
      } catch {
        return { status: 400, body: { error: { message: 'Request body is not valid JSON' } } };
      }
    }
    const ctx = {
      method: request.method,
      path: request.url.pathname,
      params,
      query: request.url.searchParams,
      headers: request.headers,
      body,
      token: null,
    } as unknown as SimContext;
    try {
      return await route.handler(ctx);
    } catch (error) {
      if (error instanceof SimHttpError) return error.response;
      throw error;
    }
  }
  return null;
};

/**
 * The grant behind the request's bearer token (or `access_token` parameter) on a route that checks
 * its own token: throws `unauthorized(reason)` for a missing, unknown, expired or revoked token.
 */
export const requireGrant = (
  ctx: Pick<SimContext, 'headers' | 'query' | 'body'>,
  store: SimTokenStore,
  unauthorized: (reason: UnauthorizedReason) => SimResponse,
): { token: string; grant: SimGrant } => {
  const token = bearerOf(ctx);
  if (!token) throw new SimHttpError(unauthorized('missing'));
  const refusal = store.refusal(token);
  if (refusal) throw new SimHttpError(unauthorized(refusal));
  const grant = store.grantOf(token);
  if (!grant) throw new SimHttpError(unauthorized('revoked'));
  return { token, grant };
};
