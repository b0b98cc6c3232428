import type { NetworkAuth, NetworkAuthConfig, NetworkTarget, TokenSet } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * Facebook Pages through Facebook Login (Graph API). Consent at
 * `https://www.facebook.com/{version}/dialog/oauth`; the code gives a short-lived user token
 * (`GET /{version}/oauth/access_token`), at once exchanged for a long-lived one (about 60 days,
 * `grant_type=fb_exchange_token`); the granted permissions come from `GET /me/permissions`. Pages
 * are targets (`GET /me/accounts`), each with its own page token, which does not expire while the
 * login stands. Refresh repeats the exchange with the current long-lived user token (the sweep does
 * it once the token is a week old); a page token is never exchanged: its refresh checks that it is
 * still accepted and keeps it. Revoke is `DELETE /me/permissions`.
 */
/**
 * The Graph API version every Facebook call names (Login and the Pages API alike). Meta keeps a
 * version for about two years after its release, so v21.0 (October 2024) is at its end; this is
 * v25.0, a current version (the reference shows v24.0 to v27.0 in use).
 */
export const GRAPH_VERSION = 'v25.0';
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'read_insights',
];

export const facebookAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const www = hostOf(config.baseUrls, 'facebook', 'https://www.facebook.com');
  const graph = `${hostOf(config.baseUrls, 'facebook', 'https://graph.facebook.com')}/${GRAPH_VERSION}`;
  const network = 'Facebook';
  const common = { network, timeoutMs: config.timeoutMs };

  const longLived = async (
    app: { clientId: string; clientSecret: string },
    token: string,
    scopes: string[],
  ) => {
    const answer = await oauthCall({
      ...common,
      method: 'GET',
      url: `${graph}/oauth/access_token`,
      query: {
        grant_type: 'fb_exchange_token',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        fb_exchange_token: token,
      },
      grant: true,
    });
    return tokenSetOf(network, answer.body, { fallbackScopes: scopes });
  };
  const granted = async (token: string) => {
    const answer = await oauthCall({
      ...common,
      method: 'GET',
      url: `${graph}/me/permissions`,
      bearer: token,
      grant: false,
    });
    const data = (answer.body as { data?: unknown }).data;
    return (Array.isArray(data) ? data : [])
      .filter((p: { status?: unknown }) => p.status === 'granted')
      .map((p: { permission?: unknown }) => p.permission)
      .filter((p): p is string => typeof p === 'string');
  };
  const pages = async (tokens: TokenSet) => {
    const answer = await oauthCall({
      ...common,
      method: 'GET',
      url: `${graph}/me/accounts`,
      query: { fields: 'id,name,access_token,tasks', limit: '100' },
      bearer: tokens.accessToken,
      grant: false,
    });
    const data = (answer.body as { data?: unknown }).data;
    return (Array.isArray(data) ? data : []) as { id?: unknown; name?: unknown; access_token?: unknown }[];
  };

  return {
    platform: 'facebook',
    kind: 'oauth2',
    usesPkce: false,
    scopes: FACEBOOK_SCOPES,
    policy: { marginSeconds: 86400, proactiveAfterSeconds: 7 * 86400, rotatesRefreshToken: false },
    hasTargets: true,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${www}/${GRAPH_VERSION}/dialog/oauth`, {
        client_id: app.clientId,
        redirect_uri: redirectUri,
        state,
        response_type: 'code',
        scope: FACEBOOK_SCOPES.join(','),
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const short = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/oauth/access_token`,
        query: { client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: redirectUri, code },
        grant: true,
      });
      const shortToken = requireString(network, short.body, 'access_token');
      const tokens = await longLived(app, shortToken, []);
      return { ...tokens, scopes: await granted(tokens.accessToken) };
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/me`,
        query: { fields: 'id,name' },
        bearer: tokens.accessToken,
        grant: false,
      });
      return {
        remoteAccountId: requireString(network, answer.body, 'id'),
        name: requireString(network, answer.body, 'name'),
      };
    },
    targets: async ({ tokens }) =>
      (await pages(tokens))
        .filter((page) => typeof page.id === 'string')
        .map(
          (page): NetworkTarget => ({
            targetId: page.id as string,
            name: typeof page.name === 'string' ? page.name : (page.id as string),
            platform: 'facebook',
            kind: 'page',
          }),
        ),
    targetTokens: async ({ tokens, target }) => {
      const page = (await pages(tokens)).find((p) => p.id === target.targetId);
      if (!page || typeof page.access_token !== 'string') {
        throw new NetworkError(
          'permanent',
          `Facebook gave no access to page ${target.targetId} with this login`,
          {},
        );
      }
      // A page token from a long-lived user token does not expire; it has no refresh token of its own.
      return {
        accessToken: page.access_token,
        refreshToken: null,
        expiresAt: null,
        refreshExpiresAt: null,
        scopes: tokens.scopes,
        issuedAt: new Date().toISOString(),
      };
    },
    refresh: async ({ app, tokens }) => {
      if (tokens.expiresAt === null) {
        // A page token: it does not expire and cannot be exchanged (that would turn it into a user
        // token, which cannot post as the page). It stays valid while the login stands: check that.
        await oauthCall({
          ...common,
          method: 'GET',
          url: `${graph}/me`,
          query: { fields: 'id' },
          bearer: tokens.accessToken,
          grant: true,
        });
        return { ...tokens, issuedAt: new Date().toISOString() };
      }
      return { ...(await longLived(app, tokens.accessToken, tokens.scopes)), scopes: tokens.scopes };
    },
    revoke: async ({ tokens }) => {
      await oauthCall({
        ...common,
        method: 'DELETE',
        url: `${graph}/me/permissions`,
        bearer: tokens.accessToken,
        grant: false,
      });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('pages_manage_posts') && has('pages_show_list');
      return {
        publish,
        manage: publish,
        threads: publish && has('pages_manage_engagement'),
        metrics: has('read_insights') && has('pages_read_engagement'),
      };
    },
  };
};
