import type { SimOAuthMount, SimResponse, UnauthorizedReason } from '../simulator/framework.ts';
import {
  authorizeRoute,
  clientCredentials,
  errorPage,
  type IssuedTokens,
  mountOf,
  numericIdFor,
  orRefuse,
  paramsOf,
  requireGrant,
  type SimGrant,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../simulator/oauth.ts';

/**
 * Facebook Login on the simulator, with the Graph API's paths (any `v…` version) and shapes:
 * `GET /:version/dialog/oauth` (www.facebook.com), `GET /:version/oauth/access_token` for the code
 * (a short-lived user token, 2 hours) and with `grant_type=fb_exchange_token` for a long-lived one
 * (60 days), `GET /:version/me`, `GET /:version/me/permissions`, `DELETE /:version/me/permissions`
 * (revokes the login), and `GET /:version/me/accounts` (the pages, each with a page token that
 * does not expire but dies with the login). Errors are Graph's `{ error: { message, type, code,
 * error_subcode, fbtrace_id } }`: code 190 (subcode 463 expired, 460 revoked) for a refused token,
 * 100 for a bad code, 1 for a bad app secret. Each simulated user has two pages.
 */
export const GRAPH_ERRORS = {
  error: (status: number, message: string, code: number, subcode?: number): SimResponse => ({
    status,
    body: {
      error: {
        message,
        type: 'OAuthException',
        code,
        ...(subcode === undefined ? {} : { error_subcode: subcode }),
        fbtrace_id: 'AsimFbTrace0',
      },
    },
  }),
  unauthorized: (reason: UnauthorizedReason): SimResponse =>
    reason === 'expired'
      ? GRAPH_ERRORS.error(400, 'Error validating access token: Session has expired.', 190, 463)
      : reason === 'missing'
        ? GRAPH_ERRORS.error(
            400,
            'An active access token must be used to query information about the current user.',
            2500,
          )
        : GRAPH_ERRORS.error(
            400,
            'Error validating access token: The user has not authorized application.',
            190,
            458,
          ),
};

/** Graph's refusal of a code exchanged with another redirect_uri than the dialog's (Facebook, Threads). */
export const REDIRECT_URI_MISMATCH =
  'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request';

export const simFacebookPages = (userId: string) =>
  [1, 2].map((n) => ({ id: numericIdFor(`fb-page:${userId}:${n}`, 15), name: `Page ${n} of ${userId}` }));

/** Facebook Login's mount, and which page a page token it issued acts as. */
export interface FacebookOAuthMount extends SimOAuthMount {
  /** The page a page token stands for; undefined for user tokens and tokens it did not issue. */
  pageOf(token: string): string | undefined;
}

export const facebookOAuthSimulator = (options: { app?: SimOAuthApp } = {}): FacebookOAuthMount => {
  const app = options.app ?? simOAuthApp('facebook');
  const store = new SimTokenStore({
    prefix: 'fb',
    defaults: { accessSeconds: 7200, refreshSeconds: null },
    rotates: false,
    issuesRefresh: false,
  });
  /** Page tokens: `/me` with one is the page. */
  const pageTokens = new Map<string, { id: string; name: string }>();
  const pageToken = (grant: SimGrant, page: { id: string; name: string }) => {
    const token = store.issueLasting(grant);
    pageTokens.set(token, page);
    return token;
  };
  const answer = (issued: IssuedTokens): SimResponse => ({
    status: 200,
    body: {
      access_token: issued.accessToken,
      token_type: 'bearer',
      ...(issued.expiresIn === null ? {} : { expires_in: issued.expiresIn }),
    },
  });
  const checkApp = (params: Record<string, string>) => {
    const client = clientCredentials({}, params);
    if (client?.clientId !== app.clientId)
      return GRAPH_ERRORS.error(400, 'Error validating application. Invalid application ID.', 101);
    if (client.clientSecret !== app.clientSecret)
      return GRAPH_ERRORS.error(400, 'Error validating client secret.', 1);
    return null;
  };

  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'public_profile',
        'email',
        'pages_show_list',
        'pages_manage_posts',
        'pages_read_engagement',
        'pages_manage_engagement',
        'pages_manage_metadata',
        'pages_read_user_content',
        'read_insights',
        'business_management',
        'publish_video',
      ],
      unregisteredRedirect: () =>
        errorPage(
          400,
          'URL blocked',
          'This redirect failed because the redirect URI is not whitelisted in the app’s Client OAuth Settings. Make sure Client and Web OAuth Login are on and add all your app domains as Valid OAuth Redirect URIs.',
        ),
      path: '/:version/dialog/oauth',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({ id: numericIdFor(`fb:${user}`, 16), name: `Simulated ${user}` }),
    }),
    {
      method: 'GET',
      path: '/:version/oauth/access_token',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        const bad = checkApp(params);
        if (bad) return bad;
        if (params.grant_type === 'fb_exchange_token') {
          if (pageTokens.has(params.fb_exchange_token ?? '')) {
            return GRAPH_ERRORS.error(400, 'The access token is not a user access token.', 190);
          }
          return answer(
            orRefuse(store.exchange(params.fb_exchange_token ?? '', 60 * 86400), () =>
              GRAPH_ERRORS.error(400, 'Error validating access token: Session has expired.', 190, 463),
            ),
          );
        }
        const grant = orRefuse(
          store.redeemCode({
            code: params.code ?? '',
            clientId: app.clientId,
            redirectUri: params.redirect_uri ?? '',
            verifier: null,
          }),
          (refusal) =>
            refusal.error === 'redirect_uri_mismatch'
              ? GRAPH_ERRORS.error(400, REDIRECT_URI_MISMATCH, 100, 36008)
              : GRAPH_ERRORS.error(400, 'This authorization code has been used.', 100, 36009),
        );
        return answer(store.issue(grant));
      },
    },
    {
      method: 'GET',
      path: '/:version/me',
      auth: false,
      handler: (ctx) => {
        const { token, grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        const page = pageTokens.get(token);
        return {
          status: 200,
          body: page ? { id: page.id, name: page.name } : { id: grant.account.id, name: grant.account.name },
        };
      },
    },
    {
      method: 'GET',
      path: '/:version/me/permissions',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        return {
          status: 200,
          body: { data: grant.scopes.map((permission) => ({ permission, status: 'granted' })) },
        };
      },
    },
    {
      method: 'DELETE',
      path: '/:version/me/permissions',
      auth: false,
      handler: (ctx) => {
        const { token } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        store.revoke(token);
        return { status: 200, body: { success: true } };
      },
    },
    {
      method: 'GET',
      path: '/:version/me/accounts',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        const data = grant.scopes.includes('pages_show_list')
          ? simFacebookPages(grant.account.id).map((page) => ({
              id: page.id,
              name: page.name,
              category: 'Brand',
              access_token: pageToken(grant, page),
              tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
            }))
          : [];
        return { status: 200, body: { data, paging: { cursors: { before: 'QVFIUj', after: 'QVFIUk' } } } };
      },
    },
  ]);
  return { ...mount, pageOf: (token) => pageTokens.get(token)?.id };
};
