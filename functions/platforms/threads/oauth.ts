import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../../ports/network-auth.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * Threads. Consent at `https://threads.net/oauth/authorize`; `POST
 * https://graph.threads.net/oauth/access_token` gives a short-lived token (1 hour, `{ access_token,
 * user_id }`), exchanged at once for a long-lived one (60 days) with `GET /access_token?grant_type=
 * th_exchange_token`; extended with `GET /refresh_access_token?grant_type=th_refresh_token` once at
 * least 24 hours old (the sweep does it daily). Threads echoes no scopes (the asked ones are kept)
 * and has no revocation call.
 */
export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
  // GET on reply endpoints: the lookup of a reply whose answer was lost, and the reply cap's timing
  // ("Required for making GET calls to reply endpoints", developers.facebook.com/docs/threads/
  // retrieve-and-manage-replies).
  'threads_read_replies',
  'threads_manage_insights',
  'threads_delete',
];

export const threadsAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const www = hostOf(config.baseUrls, 'threads', 'https://threads.net');
  const graph = hostOf(config.baseUrls, 'threads', 'https://graph.threads.net');
  const network = 'Threads';
  const common = { network, timeoutMs: config.timeoutMs };
  return {
    platform: 'threads',
    kind: 'oauth2',
    usesPkce: false,
    scopes: THREADS_SCOPES,
    policy: { marginSeconds: 86400, proactiveAfterSeconds: 86400, rotatesRefreshToken: false },
    hasTargets: false,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${www}/oauth/authorize`, {
        client_id: app.clientId,
        redirect_uri: redirectUri,
        scope: THREADS_SCOPES.join(','),
        response_type: 'code',
        state,
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const short = await oauthCall({
        ...common,
        method: 'POST',
        url: `${graph}/oauth/access_token`,
        form: {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          grant_type: 'authorization_code',
          redirect_uri: redirectUri,
          code,
        },
        grant: true,
      });
      const long = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/access_token`,
        query: {
          grant_type: 'th_exchange_token',
          client_secret: app.clientSecret,
          access_token: requireString(network, short.body, 'access_token'),
        },
        grant: true,
      });
      return tokenSetOf(network, long.body, { fallbackScopes: THREADS_SCOPES });
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/v1.0/me`,
        query: { fields: 'id,username', access_token: tokens.accessToken },
        grant: false,
      });
      return {
        remoteAccountId: requireString(network, answer.body, 'id'),
        name: requireString(network, answer.body, 'username'),
      };
    },
    refresh: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/refresh_access_token`,
        query: { grant_type: 'th_refresh_token', access_token: tokens.accessToken },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: tokens.scopes });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('threads_basic') && has('threads_content_publish');
      return {
        publish,
        manage: publish && has('threads_delete'),
        threads: publish && has('threads_manage_replies'),
        metrics: grantsMetrics('threads', scopes),
      };
    },
  };
};
