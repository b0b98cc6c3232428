import type { SimOAuthMount, SimResponse } from '../framework/framework.ts';
import {
  authorizeRoute,
  clientCredentials,
  errorPage,
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
 * Vimeo's OAuth 2.0 on the simulator (api.vimeo.com): `GET /oauth/authorize`,
 * `POST /oauth/access_token` (HTTP Basic; JSON or form) → `{ access_token, token_type, scope, user }`
 * with a token that does not expire and no refresh token, `DELETE /tokens` (revokes the token it is
 * called with: 204), and `GET /me`. Errors are `{ error, developer_message, error_code }`.
 */
const vimeoError = (status: number, error: string, code: number): SimResponse => ({
  status,
  body: { error, link: null, developer_message: error, error_code: code },
});
/**
 * Vimeo's refusal of a call the token's scopes do not cover: 403, with the wording Vimeo's API
 * answers (`Your access token does not have the "upload" scope`, quoted in
 * https://github.com/vimeo/vimeo.php/issues/100) and error code 3200, the reference's code for an
 * action the authenticated user may not take (https://github.com/vimeo/openapi `api.yaml`).
 */
export const vimeoScopeRefusal = (scope: string): SimResponse => ({
  status: 403,
  body: {
    error: `Your access token does not have the "${scope}" scope.`,
    link: null,
    developer_message: `The access token was not granted the "${scope}" scope this request needs; ask for it when the user authorizes the app.`,
    error_code: 3200,
  },
});
const unauthorized = () => vimeoError(401, 'You must provide a valid authenticated access token.', 8003);

export const vimeoOAuthSimulator = (
  options: { app?: SimOAuthApp } = {},
): SimOAuthMount & {
  accountOf(token: string): { id: string; name: string } | null;
  scopesOf(token: string): string[] | null;
} => {
  const app = options.app ?? simOAuthApp('vimeo');
  const store = new SimTokenStore({
    prefix: 'vimeo',
    defaults: { accessSeconds: null, refreshSeconds: null },
    rotates: false,
    issuesRefresh: false,
  });
  const userOf = (id: string, name: string) => ({
    uri: `/users/${id}`,
    name,
    link: `https://vimeo.com/user${id}`,
    account: 'standard',
  });
  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'public',
        'private',
        'purchased',
        'create',
        'edit',
        'delete',
        'interact',
        'upload',
        'promo_codes',
        'video_files',
        'stats',
      ],
      // Vimeo shows an error instead of redirecting (wording and error_code below not verified).
      unregisteredRedirect: () =>
        errorPage(400, 'Invalid redirect URI', 'The redirect_uri is not one of the app’s callback URLs.'),
      path: '/oauth/authorize',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({ id: numericIdFor(`vimeo:${user}`, 9), name: `Simulated ${user}` }),
    }),
    {
      method: 'POST',
      path: '/oauth/access_token',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        const client = clientCredentials(ctx.headers, params);
        if (!client?.basic || client.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return vimeoError(401, 'You must provide a valid client id and secret.', 8001);
        }
        if (params.grant_type !== 'authorization_code')
          return vimeoError(400, 'The grant type provided is invalid.', 2210);
        const grant = orRefuse(
          store.redeemCode({
            code: params.code ?? '',
            clientId: app.clientId,
            redirectUri: params.redirect_uri ?? '',
            verifier: null,
          }),
          (refusal) =>
            refusal.error === 'redirect_uri_mismatch'
              ? vimeoError(
                  400,
                  'The provided redirect_uri does not match the one the code was issued for.',
                  2201,
                )
              : vimeoError(400, 'The authorization code provided is invalid.', 2201),
        );
        const issued = store.issue(grant);
        return {
          status: 200,
          body: {
            access_token: issued.accessToken,
            token_type: 'bearer',
            scope: grant.scopes.join(' '),
            user: userOf(grant.account.id, grant.account.name),
          },
        };
      },
    },
    {
      method: 'DELETE',
      path: '/tokens',
      auth: false,
      handler: (ctx) => {
        const { token } = requireGrant(ctx, store, unauthorized);
        store.revoke(token);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: '/me',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, unauthorized);
        // GET /me takes the `public` scope (Vimeo's OpenAPI reference, default security).
        if (!grant.scopes.includes('public')) return vimeoScopeRefusal('public');
        return { status: 200, body: userOf(grant.account.id, grant.account.name) };
      },
    },
  ]);
  return {
    ...mount,
    /** The account a token the simulator issued belongs to; null for a token it did not issue. */
    accountOf: (token) => {
      const grant = store.grantOf(token);
      return grant ? { id: grant.account.id, name: grant.account.name } : null;
    },
    /** The scopes a token the simulator issued was granted (only those asked); null for a token it did not issue. */
    scopesOf: (token) => store.grantOf(token)?.scopes ?? null,
  };
};
