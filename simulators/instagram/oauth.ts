import type { SimOAuthMount, SimResponse } from '../framework/framework.ts';
import {
  GRAPH_ERRORS,
  graphGrantFaults,
  REDIRECT_URI_MISMATCH,
  withGrantFaults,
} from '../framework/meta-graph.ts';
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
import { droppedPermissions } from '../framework/oauth-permissions.ts';

/**
 * Instagram API with Instagram Login on the simulator: `GET /oauth/authorize` (www.instagram.com),
 * `POST /oauth/access_token` (api.instagram.com, form) → `{ data: [{ access_token, user_id,
 * permissions }] }` with a short-lived token (1 hour), `GET /access_token?grant_type=ig_exchange_token`
 * and `GET /refresh_access_token?grant_type=ig_refresh_token` (graph.instagram.com) → a long-lived
 * token (60 days), and `GET /:version/me?fields=user_id,username`. A bad code is
 * `{ error_type: 'OAuthException', code: 400, error_message }`; a refused token Graph's code 190.
 * Instagram has no revocation call. The grant endpoints have the fault switch of
 * `graphGrantFaults` (`POST /_sim/oauth/grant-fault`). A token holds the scopes its consent
 * granted (those asked for, narrowed by `sim_scopes`), echoed as `permissions`, less those
 * `POST /_sim/oauth/permissions` took back (`droppedPermissions`). Not simulated: a long-lived token
 * can only be refreshed once it is 24 hours old.
 */
export const instagramOAuthSimulator = (
  options: { app?: SimOAuthApp } = {},
): SimOAuthMount & {
  /** The permissions a token it issued holds now; null for tokens it did not issue. */
  scopesOf(token: string): readonly string[] | null;
} => {
  const app = options.app ?? simOAuthApp('instagram');
  const store = new SimTokenStore({
    prefix: 'ig',
    defaults: { accessSeconds: 3600, refreshSeconds: null },
    rotates: false,
    issuesRefresh: false,
  });
  const longLived = (issued: IssuedTokens): SimResponse => ({
    status: 200,
    body: { access_token: issued.accessToken, token_type: 'bearer', expires_in: issued.expiresIn },
  });
  const faults = graphGrantFaults();
  const accountIdOf = (user: string) => numericIdFor(`ig:${user}`, 17);
  const permissions = droppedPermissions(accountIdOf);
  const exchange =
    (grantType: string) => (ctx: Parameters<SimOAuthMount['routes'][number]['handler']>[0]) => {
      const fault = faults.take();
      if (fault) return fault;
      const params = paramsOf(ctx);
      if (params.grant_type !== grantType)
        return GRAPH_ERRORS.error(400, `grant_type must be ${grantType}`, 100);
      if (grantType === 'ig_exchange_token' && params.client_secret !== app.clientSecret) {
        return GRAPH_ERRORS.error(400, 'Error validating client secret.', 1);
      }
      return longLived(
        orRefuse(store.exchange(params.access_token ?? '', 60 * 86400), () =>
          GRAPH_ERRORS.error(400, 'Error validating access token: Session has expired.', 190, 463),
        ),
      );
    };
  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'instagram_business_basic',
        'instagram_business_content_publish',
        'instagram_business_manage_comments',
        'instagram_business_manage_insights',
        'instagram_business_manage_messages',
      ],
      unregisteredRedirect: () => ({
        status: 400,
        body: {
          error_type: 'OAuthException',
          code: 400,
          error_message: 'Redirect URI does not match registered redirect URI',
        },
      }),
      path: '/oauth/authorize',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => {
        const id = accountIdOf(user);
        permissions.regranted(id);
        return { id, name: user.replace(/[^a-z0-9_.]/gi, '_') };
      },
    }),
    {
      method: 'POST',
      path: '/oauth/access_token',
      auth: false,
      handler: (ctx) => {
        const fault = faults.take();
        if (fault) return fault;
        const params = paramsOf(ctx);
        const client = clientCredentials({}, params);
        if (client?.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return {
            status: 400,
            body: { error_type: 'OAuthException', code: 400, error_message: 'Invalid platform app' },
          };
        }
        const grant = orRefuse(
          store.redeemCode({
            code: params.code ?? '',
            clientId: app.clientId,
            redirectUri: params.redirect_uri ?? '',
            verifier: null,
          }),
          (refusal) => ({
            status: 400,
            body: {
              error_type: 'OAuthException',
              code: 400,
              error_message:
                refusal.error === 'redirect_uri_mismatch'
                  ? REDIRECT_URI_MISMATCH
                  : 'Invalid authorization code',
            },
          }),
        );
        const issued = store.issue(grant);
        return {
          status: 200,
          body: {
            data: [
              {
                access_token: issued.accessToken,
                user_id: grant.account.id,
                permissions: grant.scopes.join(','),
              },
            ],
          },
        };
      },
    },
    { method: 'GET', path: '/access_token', auth: false, handler: exchange('ig_exchange_token') },
    { method: 'GET', path: '/refresh_access_token', auth: false, handler: exchange('ig_refresh_token') },
    {
      method: 'GET',
      path: '/:version/me',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        return {
          status: 200,
          body: {
            id: numericIdFor(`ig-app-scoped:${grant.account.id}`, 17),
            user_id: grant.account.id,
            username: grant.account.name,
          },
        };
      },
    },
    permissions.route,
  ]);
  const withFaults = withGrantFaults(mount, faults);
  return {
    ...withFaults,
    reset: () => {
      permissions.reset();
      withFaults.reset();
    },
    scopesOf: (token) => {
      const grant = store.grantOf(token);
      return grant ? permissions.scopesOf(grant) : null;
    },
  };
};
