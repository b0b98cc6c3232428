import type { SimOAuthMount, SimResponse } from '../framework/framework.ts';
import {
  authorizeRoute,
  bearerOf,
  clientCredentials,
  errorPage,
  type IssuedTokens,
  mountOf,
  numericIdFor,
  paramsOf,
  requireGrant,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../framework/oauth.ts';

/**
 * Reddit's OAuth 2.0 on the simulator: `GET /api/v1/authorize` (www.reddit.com; `duration=permanent`
 * gives a refresh token), `POST /api/v1/access_token` (HTTP Basic, form) for the code and refreshes,
 * `POST /api/v1/revoke_token` (204 whatever the token), and `GET /api/v1/me` (oauth.reddit.com).
 * Access tokens live 1 hour; refresh tokens do not expire and are not rotated. Reddit's awkward
 * part: a refused code or refresh token is HTTP **200** `{ "error": "invalid_grant" }`; a bad app is
 * 401 `{ "message": "Unauthorized", "error": 401 }`.
 */
/**
 * Reddit's refusal of a call outside the token's scopes: 403 with `www-authenticate: Bearer
 * realm="reddit", error="insufficient_scope"` (what prawcore reads to raise InsufficientScope:
 * https://github.com/praw-dev/prawcore `prawcore/util.py` and its recorded answer
 * `tests/integration/cassettes/TestSession.test_request__with_insufficient_scope.json`).
 */
export const redditScopeRefusal = (): SimResponse => ({
  status: 403,
  headers: { 'www-authenticate': 'Bearer realm="reddit", error="insufficient_scope"' },
  body: { message: 'Forbidden', error: 403 },
});

export const redditOAuthSimulator = (
  options: {
    app?: SimOAuthApp;
    /**
     * The account of a bearer token this mount did not issue (channels connected with a token
     * made elsewhere, as the tests do): default none, such a token is refused by `/api/v1/me`.
     */
    accountOf?: (token: string) => { id: string; name: string } | null;
  } = {},
): SimOAuthMount & {
  accountOf(token: string): { id: string; name: string } | null;
  scopesOf(token: string): string[] | null;
} => {
  const app = options.app ?? simOAuthApp('reddit');
  const store = new SimTokenStore({
    prefix: 'rd',
    defaults: { accessSeconds: 3600, refreshSeconds: null },
    rotates: false,
    issuesRefresh: true,
  });
  /** Codes asked for with duration=temporary: no refresh token. */
  const answer = (issued: IssuedTokens): SimResponse => ({
    status: 200,
    body: {
      access_token: issued.accessToken,
      token_type: 'bearer',
      expires_in: issued.expiresIn,
      scope: issued.grant.scopes.join(' '),
      ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
    },
  });
  const badApp: SimResponse = { status: 401, body: { message: 'Unauthorized', error: 401 } };
  const checkApp = (ctx: Parameters<SimOAuthMount['routes'][number]['handler']>[0]) => {
    const client = clientCredentials(ctx.headers, paramsOf(ctx));
    return client?.basic && client.clientId === app.clientId && client.clientSecret === app.clientSecret;
  };
  /** The account behind a token: one this mount issued, else the `accountOf` option's. */
  const accountOf = (token: string) => {
    const grant = store.grantOf(token);
    if (grant) return { id: grant.account.id, name: grant.account.name };
    return options.accountOf?.(token) ?? null;
  };
  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'identity',
        'edit',
        'flair',
        'history',
        'modconfig',
        'modflair',
        'modlog',
        'modposts',
        'modwiki',
        'mysubreddits',
        'privatemessages',
        'read',
        'report',
        'save',
        'submit',
        'subscribe',
        'vote',
        'wikiedit',
        'wikiread',
      ],
      unregisteredRedirect: () => errorPage(400, 'Bad Request', 'invalid redirect_uri parameter.'),
      path: '/api/v1/authorize',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({
        id: numericIdFor(`rd:${user}`, 10),
        name: user.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 20),
      }),
    }),
    {
      method: 'POST',
      path: '/api/v1/access_token',
      auth: false,
      handler: (ctx) => {
        if (!checkApp(ctx)) return badApp;
        const params = paramsOf(ctx);
        if (params.grant_type === 'authorization_code') {
          const grant = store.redeemCode({
            code: params.code ?? '',
            clientId: app.clientId,
            redirectUri: params.redirect_uri ?? '',
            verifier: null,
          });
          return 'error' in grant
            ? { status: 200, body: { error: 'invalid_grant' } }
            : answer(store.issue(grant));
        }
        if (params.grant_type === 'refresh_token') {
          const issued = store.refresh(params.refresh_token ?? '', app.clientId);
          return 'error' in issued ? { status: 200, body: { error: 'invalid_grant' } } : answer(issued);
        }
        return { status: 200, body: { error: 'unsupported_grant_type' } };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/revoke_token',
      auth: false,
      handler: (ctx) => {
        if (!checkApp(ctx)) return badApp;
        const token = paramsOf(ctx).token;
        if (token) store.revoke(token);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/me',
      auth: false,
      handler: (ctx) => {
        const unauthorized = () => ({ status: 401, body: { message: 'Unauthorized', error: 401 } });
        const token = bearerOf(ctx);
        const other = token && !store.grantOf(token) ? (options.accountOf?.(token) ?? null) : null;
        if (token && other && !store.refusal(token)) {
          return { status: 200, body: { id: other.id, name: other.name, created_utc: 1.6e9 } };
        }
        const { grant } = requireGrant(ctx, store, unauthorized);
        if (!grant.scopes.includes('identity')) return redditScopeRefusal();
        return {
          status: 200,
          body: { id: Number(grant.account.id).toString(36), name: grant.account.name, created_utc: 1.6e9 },
        };
      },
    },
  ]);
  /** The scopes a token this mount issued was granted (only those asked); null for a token it did not issue. */
  const scopesOf = (token: string) => store.grantOf(token)?.scopes ?? null;
  return { ...mount, accountOf, scopesOf };
};
