import type { SimOAuthMount, SimResponse, UnauthorizedReason } from '../framework/framework.ts';
import {
  authorizeRoute,
  clientCredentials,
  type IssuedTokens,
  mountOf,
  numericIdFor,
  orRefuse,
  paramsOf,
  requireGrant,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../framework/oauth.ts';

/**
 * Pinterest API v5 OAuth on the simulator: `GET /oauth/` (www.pinterest.com; scopes
 * comma-separated), `POST /v5/oauth/token` (api.pinterest.com, HTTP Basic, form) for the code and
 * refreshes → `{ access_token, refresh_token, response_type, token_type, expires_in,
 * refresh_token_expires_in, refresh_token_expires_at, scope }`, `GET /v5/user_account`,
 * `GET /v5/boards` (two boards per user). Errors are `{ code, message }`. Pinterest has no public
 * revocation call for user tokens.
 *
 * Refresh tokens follow Pinterest's continuous refresh model (api-description `v5/openapi.yaml`,
 * `/oauth/token`, https://github.com/pinterest/api-description): access tokens live 30 days,
 * refresh tokens 60 days, and every refresh answers a new refresh token (60 days from then). The
 * simulator takes the strict reading of "each refresh returns a new one": the refresh token just
 * used is dead from then on, so a second holder of the same copy is refused.
 *
 * The preset app is a legacy app (created before 2025-09-25, `legacyApp`, the strict default):
 * Pinterest "no longer supports the legacy refresh token (365-day expiration)" and tells such
 * apps to send `continuous_refresh=true`. A code exchange without it answers a legacy 365-day
 * refresh token, and a refresh without it is refused (the error's wording is not documented; this
 * one is ours). An app created since then (`legacyApp: false`) gets continuous tokens either way.
 */
const pinError = (status: number, code: number, message: string): SimResponse => ({
  status,
  body: { code, message },
});
const unauthorized = (_reason: UnauthorizedReason) => pinError(401, 2, 'Authentication failed.');

export const simPinterestBoards = (userId: string) =>
  [1, 2].map((n) => ({ id: numericIdFor(`pin-board:${userId}:${n}`, 18), name: `Board ${n}` }));

/** The OAuth half, and the account behind an access token it issued (null for any other token). */
export interface PinterestOAuthMount extends SimOAuthMount {
  accountOf(token: string): { id: string; username: string; scopes: string[] } | null;
}

/** How long Pinterest's legacy refresh tokens were said to last (what a legacy exchange answers). */
const LEGACY_REFRESH_SECONDS = 365 * 86400;

export interface PinterestOAuthOptions {
  app?: SimOAuthApp;
  /** The app was created before 2025-09-25 and must ask for continuous refresh tokens (default true). */
  legacyApp?: boolean;
}

export const pinterestOAuthSimulator = (options: PinterestOAuthOptions = {}): PinterestOAuthMount => {
  const app = options.app ?? simOAuthApp('pinterest');
  const legacyApp = options.legacyApp ?? true;
  const store = new SimTokenStore({
    prefix: 'pina',
    defaults: { accessSeconds: 30 * 86400, refreshSeconds: 60 * 86400 },
    rotates: true,
    issuesRefresh: true,
  });
  const answer = (issued: IssuedTokens, responseType: string, legacy = false): SimResponse => {
    const refreshIn = legacy ? LEGACY_REFRESH_SECONDS : issued.refreshExpiresIn;
    return {
      status: 200,
      body: {
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken,
        refresh_token_expires_in: refreshIn,
        ...(refreshIn === null
          ? {}
          : { refresh_token_expires_at: Math.floor(Date.now() / 1000) + refreshIn }),
        response_type: responseType,
        token_type: 'bearer',
        expires_in: issued.expiresIn,
        scope: issued.grant.scopes.join(' '),
      },
    };
  };
  /** A legacy app's request that does not ask for continuous refresh tokens. */
  const legacyRequest = (params: Record<string, string>) => legacyApp && params.continuous_refresh !== 'true';
  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'ads:read',
        'ads:write',
        'boards:read',
        'boards:read_secret',
        'boards:write',
        'boards:write_secret',
        'catalogs:read',
        'catalogs:write',
        'pins:read',
        'pins:read_secret',
        'pins:write',
        'pins:write_secret',
        'user_accounts:read',
      ],
      // Pinterest's sign-in answers this in its older API's failure shape.
      unregisteredRedirect: (redirectUri) => ({
        status: 400,
        body: {
          status: 'failure',
          message: 'You are not permitted to access that resource.',
          code: 7,
          data: `The provided redirect_uri ${redirectUri} does not match any of the registered redirect URIs.`,
        },
      }),
      path: '/oauth',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({ id: numericIdFor(`pin:${user}`, 18), name: user }),
    }),
    {
      method: 'POST',
      path: '/v5/oauth/token',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        const client = clientCredentials(ctx.headers, params);
        if (!client?.basic || client.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return pinError(401, 2, 'Authentication failed.');
        }
        if (params.grant_type === 'authorization_code') {
          const grant = orRefuse(
            store.redeemCode({
              code: params.code ?? '',
              clientId: app.clientId,
              redirectUri: params.redirect_uri ?? '',
              verifier: null,
            }),
            (refusal) =>
              refusal.error === 'redirect_uri_mismatch'
                ? // v5's shape; the message follows the sign-in's (not verified for the token call).
                  pinError(
                    400,
                    1,
                    'The provided redirect_uri does not match any of the registered redirect URIs.',
                  )
                : pinError(400, 1, 'Invalid authorization code'),
          );
          return answer(store.issue(grant), 'authorization_code', legacyRequest(params));
        }
        if (params.grant_type === 'refresh_token') {
          if (legacyRequest(params)) {
            return pinError(
              400,
              1,
              'Legacy refresh tokens are no longer supported: set continuous_refresh to true.',
            );
          }
          // Rotates: the refresh token just used is refused from now on.
          const issued = orRefuse(store.refresh(params.refresh_token ?? '', app.clientId), () =>
            pinError(400, 1, 'Invalid refresh token'),
          );
          return answer(issued, 'refresh_token');
        }
        return pinError(400, 1, 'grant_type must be authorization_code or refresh_token');
      },
    },
    {
      method: 'GET',
      path: '/v5/user_account',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, unauthorized);
        return {
          status: 200,
          body: {
            account_type: 'BUSINESS',
            id: grant.account.id,
            username: grant.account.name,
            profile_image: '',
            website_url: '',
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/v5/boards',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, unauthorized);
        if (!grant.scopes.includes('boards:read'))
          return pinError(403, 3, 'Not authorized to access the boards of this user.');
        const items = simPinterestBoards(grant.account.id).map((board) => ({
          ...board,
          privacy: 'PUBLIC',
          owner: { username: grant.account.name },
        }));
        return { status: 200, body: { items, bookmark: null } };
      },
    },
  ]);
  return {
    ...mount,
    accountOf: (token) => {
      const grant = store.grantOf(token);
      return grant ? { id: grant.account.id, username: grant.account.name, scopes: grant.scopes } : null;
    },
  };
};
