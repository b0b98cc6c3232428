import type { SimOAuthMount, SimResponse } from '../framework/framework.ts';
import {
  authorizeRoute,
  errorPage,
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
 * TikTok Login Kit (v2) on the simulator: `GET /v2/auth/authorize/` (www.tiktok.com; `client_key`,
 * comma-separated scopes), `POST /v2/oauth/token/` (open.tiktokapis.com, form with client_key and
 * client_secret) → `{ access_token, expires_in, open_id, refresh_expires_in, refresh_token, scope,
 * token_type }` (2 hours and 180 days, as TikTok's current docs give them), refreshes that rotate
 * the refresh token (the one sent stops working),
 * `POST /v2/oauth/revoke/`, and `GET /v2/user/info/?fields=…` → `{ data: { user }, error: { code:
 * 'ok' } }`. OAuth errors are `{ error, error_description, log_id }`; a refused access token on the
 * API is 401 `{ error: { code: 'access_token_invalid', message, log_id } }`.
 */
const logId = () => `2026SIM${Date.now()}`;
const oauthError = (error: string, description: string): SimResponse => ({
  status: 400,
  body: { error, error_description: description, log_id: logId() },
});

export const tiktokOAuthSimulator = (
  options: { app?: SimOAuthApp } = {},
): SimOAuthMount & {
  /** The open_id of the account an issued access token belongs to; null for a token it did not issue. */
  accountOf(token: string): string | null;
  /** The scopes an issued access token carries; null for a token it did not issue. */
  scopesOf(token: string): string[] | null;
} => {
  const app = options.app ?? simOAuthApp('tiktok');
  const store = new SimTokenStore({
    prefix: 'act',
    defaults: { accessSeconds: 7200, refreshSeconds: 180 * 86400 },
    rotates: true,
    issuesRefresh: true,
  });
  const answer = (issued: IssuedTokens): SimResponse => ({
    status: 200,
    body: {
      access_token: issued.accessToken,
      expires_in: issued.expiresIn,
      open_id: issued.grant.account.id,
      refresh_expires_in: issued.refreshExpiresIn,
      refresh_token: issued.refreshToken,
      scope: issued.grant.scopes.join(','),
      token_type: 'Bearer',
    },
  });
  const checkApp = (params: Record<string, string>) =>
    params.client_key === app.clientId && params.client_secret === app.clientSecret;
  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'user.info.basic',
        'user.info.profile',
        'user.info.stats',
        'video.list',
        'video.publish',
        'video.upload',
      ],
      unregisteredRedirect: () =>
        errorPage(
          400,
          'Something went wrong',
          'We couldn’t log in with TikTok. This may be due to specific app settings. If you’re a developer, correct the following and try again: redirect_uri',
        ),
      path: '/v2/auth/authorize',
      app,
      store,
      clientIdParam: 'client_key',
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({ id: `-000${numericIdFor(`tt:${user}`, 12)}`, name: `Simulated ${user}` }),
    }),
    {
      method: 'POST',
      path: '/v2/oauth/token',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        if (!checkApp(params)) return oauthError('invalid_client', 'Client key or secret is incorrect.');
        if (params.grant_type === 'authorization_code') {
          const grant = orRefuse(
            store.redeemCode({
              code: params.code ?? '',
              clientId: app.clientId,
              redirectUri: params.redirect_uri ?? '',
              verifier: params.code_verifier ?? null,
            }),
            (refusal) =>
              refusal.error === 'redirect_uri_mismatch'
                ? // TikTok's shape for a bad parameter; the description is not verified.
                  oauthError(
                    'invalid_request',
                    'The redirect_uri does not match the one the code was issued for.',
                  )
                : oauthError('invalid_grant', 'Authorization code is expired.'),
          );
          return answer(store.issue(grant));
        }
        if (params.grant_type === 'refresh_token') {
          return answer(
            orRefuse(store.refresh(params.refresh_token ?? '', app.clientId), () =>
              oauthError('invalid_grant', 'Refresh token is invalid or expired.'),
            ),
          );
        }
        return oauthError('invalid_request', 'grant_type is invalid.');
      },
    },
    {
      method: 'POST',
      path: '/v2/oauth/revoke',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        if (!checkApp(params)) return oauthError('invalid_client', 'Client key or secret is incorrect.');
        if (params.token) store.revoke(params.token);
        return { status: 200, body: {} };
      },
    },
    {
      method: 'GET',
      path: '/v2/user/info',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, () => ({
          status: 401,
          body: {
            error: {
              code: 'access_token_invalid',
              message: 'The access token is invalid or not found in the request.',
              log_id: logId(),
            },
          },
        }));
        return {
          status: 200,
          body: {
            data: {
              user: {
                open_id: grant.account.id,
                union_id: `u${grant.account.id}`,
                display_name: grant.account.name,
              },
            },
            error: { code: 'ok', message: '', log_id: logId() },
          },
        };
      },
    },
  ]);
  return {
    ...mount,
    accountOf: (token) => store.grantOf(token)?.account.id ?? null,
    scopesOf: (token) => store.grantOf(token)?.scopes ?? null,
  };
};
