import type { SimOAuthMount, SimResponse } from '../framework/framework.ts';
import {
  authorizeRoute,
  clientCredentials,
  errorPage,
  type GrantRefusal,
  type IssuedTokens,
  mountOf,
  numericIdFor,
  orRefuse,
  paramsOf,
  type SimLifetimes,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../framework/oauth.ts';

/**
 * X's OAuth 2.0 (authorization code with PKCE) on the simulator: `GET /i/oauth2/authorize`
 * (x.com), `POST /2/oauth2/token` and `POST /2/oauth2/revoke` (api.x.com; a confidential client
 * authenticates with HTTP Basic). Access tokens live 2 hours; a refresh token comes only with
 * `offline.access` and rotates: once used it is refused. X answers a bad code or refresh token
 * with 400 `invalid_request` ("Value passed for the token was invalid."), not `invalid_grant`.
 */

/** The X user behind each token the simulators issued (read by `xUserForToken`). */
const stores = new Set<SimTokenStore>();

export interface XUser {
  id: string;
  username: string;
  name: string;
}

/** The user a simulator-issued token belongs to; null for tokens the simulators did not issue. */
export const xIssuedUser = (token: string): XUser | null => {
  for (const store of stores) {
    const grant = store.grantOf(token);
    if (grant)
      return {
        id: grant.account.id,
        username: grant.account.extra?.username ?? grant.account.name,
        name: grant.account.name,
      };
  }
  return null;
};

/** The scopes a simulator-issued token was granted; null for tokens the simulators did not issue. */
export const xIssuedScopes = (token: string): string[] | null => {
  for (const store of stores) {
    const grant = store.grantOf(token);
    if (grant) return grant.scopes;
  }
  return null;
};

const oauthError = (status: number, error: string, description: string): SimResponse => ({
  status,
  body: { error, error_description: description },
});

export const xOAuthSimulator = (
  options: { app?: SimOAuthApp; lifetimes?: Partial<SimLifetimes> } = {},
): SimOAuthMount => {
  const app = options.app ?? simOAuthApp('x');
  const store = new SimTokenStore({
    prefix: 'x',
    defaults: { accessSeconds: 7200, refreshSeconds: null },
    rotates: true,
    issuesRefresh: true,
  });
  if (options.lifetimes) store.setLifetimes(options.lifetimes);
  stores.add(store);

  const tokenAnswer = (issued: IssuedTokens): SimResponse => {
    const offline = issued.grant.scopes.includes('offline.access');
    return {
      status: 200,
      body: {
        token_type: 'bearer',
        ...(issued.expiresIn === null ? {} : { expires_in: issued.expiresIn }),
        access_token: issued.accessToken,
        scope: issued.grant.scopes.join(' '),
        ...(offline && issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
      },
    };
  };
  const refused =
    (what: string) =>
    (refusal: GrantRefusal): SimResponse =>
      refusal.error === 'invalid_grant'
        ? oauthError(400, 'invalid_request', `Value passed for the ${what} was invalid.`)
        : refusal.error === 'redirect_uri_mismatch'
          ? // X's wording for its other bad parameters; this one's exact text is not verified.
            oauthError(400, 'invalid_request', 'Value passed for the redirect uri was invalid.')
          : oauthError(400, 'invalid_request', refusal.description);

  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'tweet.read',
        'tweet.write',
        'tweet.moderate.write',
        'users.read',
        'users.email',
        'follows.read',
        'follows.write',
        'offline.access',
        'space.read',
        'mute.read',
        'mute.write',
        'like.read',
        'like.write',
        'list.read',
        'list.write',
        'block.read',
        'block.write',
        'bookmark.read',
        'bookmark.write',
        'media.write',
        'dm.read',
        'dm.write',
      ],
      requirePkce: true,
      // x.com shows its sign-in error page and sends nothing back.
      unregisteredRedirect: () =>
        errorPage(
          400,
          'Something went wrong',
          'You weren’t able to give access to the App. Go back and try logging in again.',
        ),
      path: '/i/oauth2/authorize',
      app,
      store,
      scopeSeparator: /\s+/,
      accountFor: (user) => ({
        id: numericIdFor(`x:${user}`, 19),
        name: `Simulated ${user}`,
        extra: { username: user.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 15) },
      }),
    }),
    {
      method: 'POST',
      path: '/2/oauth2/token',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf({ query: new URLSearchParams(), body: ctx.body });
        const client = clientCredentials(ctx.headers, params);
        if (!client?.basic)
          return oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
        if (client.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
        }
        if (params.grant_type === 'authorization_code') {
          if (!params.code) return oauthError(400, 'invalid_request', 'Missing required parameter [code].');
          if (!params.code_verifier) {
            return oauthError(400, 'invalid_request', 'Missing required parameter [code_verifier].');
          }
          const grant = orRefuse(
            store.redeemCode({
              code: params.code,
              clientId: client.clientId,
              redirectUri: params.redirect_uri ?? '',
              verifier: params.code_verifier,
            }),
            refused('authorization code'),
          );
          return tokenAnswer(store.issue(grant));
        }
        if (params.grant_type === 'refresh_token') {
          if (!params.refresh_token) {
            return oauthError(400, 'invalid_request', 'Missing required parameter [refresh_token].');
          }
          return tokenAnswer(
            orRefuse(store.refresh(params.refresh_token, client.clientId), refused('token')),
          );
        }
        return oauthError(400, 'invalid_request', 'Value passed for the grant type was invalid.');
      },
    },
    {
      method: 'POST',
      path: '/2/oauth2/revoke',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf({ query: new URLSearchParams(), body: ctx.body });
        const client = clientCredentials(ctx.headers, params);
        if (
          !client ||
          client.clientId !== app.clientId ||
          (client.basic && client.clientSecret !== app.clientSecret)
        ) {
          return oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
        }
        if (!params.token) return oauthError(400, 'invalid_request', 'Missing required parameter [token].');
        store.revoke(params.token);
        // X answers revoked: true for any token, known or not.
        return { status: 200, body: { revoked: true } };
      },
    },
  ]);
  return mount;
};
