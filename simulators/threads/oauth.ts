import type { SimOAuthMount } from '../framework/framework.ts';
import {
  GRAPH_ERRORS,
  graphGrantFaults,
  REDIRECT_URI_MISMATCH,
  withGrantFaults,
} from '../framework/meta-graph.ts';
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
import { droppedPermissions } from '../framework/oauth-permissions.ts';

/**
 * Threads on the simulator: `GET /oauth/authorize` (threads.net), `POST /oauth/access_token`
 * (graph.threads.net, form) → `{ access_token, user_id }` (short-lived, 1 hour),
 * `GET /access_token?grant_type=th_exchange_token` and
 * `GET /refresh_access_token?grant_type=th_refresh_token` → `{ access_token, token_type,
 * expires_in }` (60 days), `GET /:version/me?fields=id,username`. Graph's error shapes; no
 * revocation call; the grant endpoints have the fault switch of `graphGrantFaults`
 * (`POST /_sim/oauth/grant-fault`); `POST /_sim/oauth/permissions` takes permissions back from an
 * account's grants (`droppedPermissions`). Not simulated: refreshing needs a token at least 24 hours old.
 */
export const threadsOAuthSimulator = (
  options: { app?: SimOAuthApp } = {},
): SimOAuthMount & {
  userOf(token: string): string | null;
  scopesOf(token: string): readonly string[] | null;
} => {
  const app = options.app ?? simOAuthApp('threads');
  const store = new SimTokenStore({
    prefix: 'th',
    defaults: { accessSeconds: 3600, refreshSeconds: null },
    rotates: false,
    issuesRefresh: false,
  });
  const faults = graphGrantFaults();
  const accountIdOf = (user: string) => numericIdFor(`th:${user}`, 17);
  const permissions = droppedPermissions(accountIdOf);
  const exchange =
    (grantType: string) => (ctx: Parameters<SimOAuthMount['routes'][number]['handler']>[0]) => {
      const fault = faults.take();
      if (fault) return fault;
      const params = paramsOf(ctx);
      if (params.grant_type !== grantType)
        return GRAPH_ERRORS.error(400, `grant_type must be ${grantType}`, 100);
      if (grantType === 'th_exchange_token' && params.client_secret !== app.clientSecret) {
        return GRAPH_ERRORS.error(400, 'Error validating client secret.', 1);
      }
      const issued = orRefuse(store.exchange(params.access_token ?? '', 60 * 86400), () =>
        GRAPH_ERRORS.error(400, 'Error validating access token: Session has expired.', 190, 463),
      );
      return {
        status: 200,
        body: { access_token: issued.accessToken, token_type: 'bearer', expires_in: issued.expiresIn },
      };
    };
  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'threads_basic',
        'threads_content_publish',
        'threads_manage_replies',
        'threads_read_replies',
        'threads_manage_insights',
        'threads_delete',
        'threads_keyword_search',
        'threads_manage_mentions',
        'threads_location_tagging',
        'threads_profile_discovery',
      ],
      // threads.net's sign-in page refuses it (its exact wording is not verified).
      unregisteredRedirect: () =>
        errorPage(
          400,
          'Something went wrong',
          'Invalid redirect_uri: it is not one of the app’s Redirect Callback URLs.',
        ),
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
          return GRAPH_ERRORS.error(400, 'Error validating client secret.', 1);
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
              : GRAPH_ERRORS.error(400, 'Invalid verification code format.', 100),
        );
        const issued = store.issue(grant);
        return { status: 200, body: { access_token: issued.accessToken, user_id: grant.account.id } };
      },
    },
    { method: 'GET', path: '/access_token', auth: false, handler: exchange('th_exchange_token') },
    { method: 'GET', path: '/refresh_access_token', auth: false, handler: exchange('th_refresh_token') },
    {
      method: 'GET',
      path: '/:version/me',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        return { status: 200, body: { id: grant.account.id, username: grant.account.name } };
      },
    },
    permissions.route,
  ]);
  const withFaults = withGrantFaults(mount, faults);
  /** The Threads user a token it issued belongs to; null for tokens it did not issue. */
  return {
    ...withFaults,
    reset: () => {
      permissions.reset();
      withFaults.reset();
    },
    userOf: (token: string) => store.grantOf(token)?.account.id ?? null,
    /** The permissions a token it issued holds now (granted, less those taken back); null for tokens it did not issue. */
    scopesOf: (token: string) => {
      const grant = store.grantOf(token);
      return grant ? permissions.scopesOf(grant) : null;
    },
  };
};
