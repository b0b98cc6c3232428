import { randomBytes } from 'node:crypto';
import { headerOf, type SimContext, type SimOAuthMount, type SimResponse } from '../framework/framework.ts';
import {
  type IssuedTokens,
  mountOf,
  type SimGrant,
  type SimLifetimes,
  SimTokenStore,
} from '../framework/oauth.ts';

/**
 * A PDS's sessions on the simulator (what app passwords use): `com.atproto.server.createSession`
 * `{ identifier, password }` → `{ did, handle, accessJwt, refreshJwt, didDoc, active }`,
 * `refreshSession` and `deleteSession` with the refreshJwt as bearer, `getSession` with the
 * accessJwt. Tokens are JWT-shaped (`sub` is the DID, `exp` the expiry, `scope`
 * `com.atproto.appPass` / `com.atproto.refresh`); the access JWT lives 2 hours, the refresh JWT 90
 * days. A refreshed refreshJwt is refused at once (a PDS allows a short grace period; Herald must
 * not rely on it). An app password must look like one (`xxxx-xxxx-xxxx-xxxx`; anything else is
 * `AuthenticationRequired`), and createSession is limited like the PDS's: 30 per 5 minutes per
 * identifier. The account's DID is the handle's (`simDidForHandle`).
 */

const xrpcError = (
  status: number,
  error: string,
  message: string,
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: { error, message },
  ...(headers ? { headers } : {}),
});

const jwt = (payload: Record<string, unknown>) =>
  [
    Buffer.from(JSON.stringify({ typ: 'at+jwt', alg: 'ES256K' })).toString('base64url'),
    Buffer.from(JSON.stringify(payload)).toString('base64url'),
    randomBytes(32).toString('base64url'),
  ].join('.');

/** The `exp` claim of a JWT-shaped token (seconds), or null. */
export const jwtExp = (token: string): number | null => {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? payload.exp : null;
  } catch {
    return null;
  }
};

const APP_PASSWORD = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/;
const SESSION_LIMIT = 30;
const SESSION_WINDOW_MS = 5 * 60_000;

export const blueskyOAuthSimulator = (options: {
  didForHandle: (handle: string) => string;
  lifetimes?: Partial<SimLifetimes>;
}): SimOAuthMount => {
  const aud = 'did:web:pds.sim.invalid';
  const seconds = (at: number | null) => (at === null ? undefined : Math.floor(at / 1000));
  const store = new SimTokenStore({
    prefix: 'bsky',
    defaults: { accessSeconds: 7200, refreshSeconds: 90 * 86400 },
    rotates: true,
    issuesRefresh: true,
    mintAccess: (grant, expiresAt) =>
      jwt({
        scope: 'com.atproto.appPass',
        sub: grant.account.id,
        aud,
        iat: Math.floor(Date.now() / 1000),
        exp: seconds(expiresAt),
      }),
    mintRefresh: (grant, expiresAt) =>
      jwt({
        scope: 'com.atproto.refresh',
        sub: grant.account.id,
        aud,
        jti: randomBytes(16).toString('base64url'),
        iat: Math.floor(Date.now() / 1000),
        exp: seconds(expiresAt),
      }),
  });
  if (options.lifetimes) store.setLifetimes(options.lifetimes);
  const sessions = new Map<string, number[]>();

  const pdsUrl = (ctx: SimContext) => `http://${headerOf(ctx.headers, 'host') ?? '127.0.0.1'}`;
  const sessionBody = (ctx: SimContext, issued: IssuedTokens | null, grant: SimGrant) => ({
    did: grant.account.id,
    handle: grant.account.name,
    ...(issued ? { accessJwt: issued.accessToken, refreshJwt: issued.refreshToken } : {}),
    didDoc: {
      '@context': ['https://www.w3.org/ns/did/v1'],
      id: grant.account.id,
      alsoKnownAs: [`at://${grant.account.name}`],
      service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: pdsUrl(ctx) }],
    },
    active: true,
  });
  const bearer = (ctx: SimContext) =>
    /^Bearer\s+(\S+)\s*$/i.exec(headerOf(ctx.headers, 'authorization') ?? '')?.[1] ?? null;

  /** The refresh JWT of a refreshSession/deleteSession call, or the PDS's refusal. */
  const refreshGrant = (ctx: SimContext): { token: string; grant: SimGrant } | SimResponse => {
    const token = bearer(ctx);
    if (!token) return xrpcError(401, 'AuthMissing', 'Authentication Required');
    const grant = store.grantOf(token);
    if (!grant) return xrpcError(400, 'InvalidToken', 'Token could not be verified');
    if (store.kindOf(token) !== 'refresh') return xrpcError(400, 'InvalidToken', 'Invalid token type');
    return { token, grant };
  };

  return mountOf(store, [
    {
      method: 'POST',
      path: '/xrpc/com.atproto.server.createSession',
      auth: false,
      handler: (ctx) => {
        const body = (ctx.body ?? {}) as Record<string, unknown>;
        if (typeof body.identifier !== 'string' || body.identifier === '') {
          return xrpcError(400, 'InvalidRequest', 'Input must have the property "identifier"');
        }
        if (typeof body.password !== 'string')
          return xrpcError(400, 'InvalidRequest', 'Input must have the property "password"');
        const identifier = body.identifier.toLowerCase();
        const now = Date.now();
        const recent = (sessions.get(identifier) ?? []).filter((at) => at > now - SESSION_WINDOW_MS);
        if (recent.length >= SESSION_LIMIT) {
          const reset = Math.ceil(((recent[0] as number) + SESSION_WINDOW_MS) / 1000);
          return xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded', {
            'ratelimit-limit': SESSION_LIMIT,
            'ratelimit-remaining': 0,
            'ratelimit-reset': reset,
            'ratelimit-policy': '30;w=300',
          });
        }
        recent.push(now);
        sessions.set(identifier, recent);
        if (!APP_PASSWORD.test(body.password))
          return xrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password');
        const did = identifier.startsWith('did:') ? identifier : options.didForHandle(identifier);
        const handle = identifier.startsWith('did:') ? `${identifier.slice(-8)}.sim.bsky.social` : identifier;
        const grant = store.grantFor('app-password', { id: did, name: handle }, ['com.atproto.appPass']);
        return { status: 200, body: sessionBody(ctx, store.issue(grant), grant) };
      },
    },
    {
      method: 'POST',
      path: '/xrpc/com.atproto.server.refreshSession',
      auth: false,
      handler: (ctx) => {
        const found = refreshGrant(ctx);
        if ('status' in found) return found;
        if (found.grant.revoked) return xrpcError(400, 'InvalidToken', 'Token has been revoked');
        const exp = jwtExp(found.token);
        if (exp !== null && exp * 1000 < Date.now())
          return xrpcError(400, 'ExpiredToken', 'Token has expired');
        const issued = store.refresh(found.token, null);
        if ('error' in issued) return xrpcError(400, 'InvalidToken', 'Token has been revoked');
        return { status: 200, body: sessionBody(ctx, issued, found.grant) };
      },
    },
    {
      method: 'POST',
      path: '/xrpc/com.atproto.server.deleteSession',
      auth: false,
      handler: (ctx) => {
        const found = refreshGrant(ctx);
        if ('status' in found) return found;
        store.revoke(found.token);
        return { status: 200 };
      },
    },
    {
      method: 'GET',
      path: '/xrpc/com.atproto.server.getSession',
      handler: (ctx) => {
        const grant = store.grantOf(ctx.token as string);
        if (!grant) {
          // A token the simulator did not issue (pasted): the JWT's subject, else a handle-less session.
          return xrpcError(400, 'InvalidToken', 'Token could not be verified');
        }
        return { status: 200, body: sessionBody(ctx, null, grant) };
      },
    },
  ]);
};
