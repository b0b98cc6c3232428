import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * Reddit. Consent at `https://www.reddit.com/api/v1/authorize` with `duration=permanent` (a refresh
 * token); `POST https://www.reddit.com/api/v1/access_token` with HTTP Basic for the code and
 * refreshes (access tokens 1 hour; the refresh token is kept); `POST /api/v1/revoke_token`. The
 * account is `GET https://oauth.reddit.com/api/v1/me` (its name: Reddit's API addresses users by
 * name). Reddit answers a refused grant with HTTP 200 `{ "error": "invalid_grant" }`, which is
 * read as a refusal. Every call carries a descriptive User-Agent, as Reddit requires.
 */
export const REDDIT_SCOPES = ['identity', 'submit', 'edit', 'read', 'history'];

export const redditAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const www = hostOf(config.baseUrls, 'reddit', 'https://www.reddit.com');
  const api = hostOf(config.baseUrls, 'reddit', 'https://oauth.reddit.com');
  const network = 'Reddit';
  const common = { network, timeoutMs: config.timeoutMs };
  return {
    platform: 'reddit',
    kind: 'oauth2',
    usesPkce: false,
    scopes: REDDIT_SCOPES,
    policy: { marginSeconds: 300, proactiveAfterSeconds: null, rotatesRefreshToken: false },
    hasTargets: false,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${www}/api/v1/authorize`, {
        client_id: app.clientId,
        response_type: 'code',
        state,
        redirect_uri: redirectUri,
        duration: 'permanent',
        scope: REDDIT_SCOPES.join(' '),
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${www}/api/v1/access_token`,
        basic: app,
        form: { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: REDDIT_SCOPES });
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${api}/api/v1/me`,
        bearer: tokens.accessToken,
        grant: false,
      });
      const name = requireString(network, answer.body, 'name');
      return { remoteAccountId: name, name };
    },
    refresh: async ({ app, tokens }) => {
      if (!tokens.refreshToken)
        throw new NetworkError(
          'reconnect',
          'Reddit granted no refresh token: the channel must be reconnected',
          {},
        );
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${www}/api/v1/access_token`,
        basic: app,
        form: { grant_type: 'refresh_token', refresh_token: tokens.refreshToken },
        grant: true,
      });
      return tokenSetOf(network, answer.body, {
        fallbackScopes: tokens.scopes,
        previousRefreshToken: tokens.refreshToken,
        previousRefreshExpiresAt: tokens.refreshExpiresAt,
      });
    },
    revoke: async ({ app, tokens }) => {
      const [token, hint] = tokens.refreshToken
        ? [tokens.refreshToken, 'refresh_token']
        : [tokens.accessToken, 'access_token'];
      await oauthCall({
        ...common,
        method: 'POST',
        url: `${www}/api/v1/revoke_token`,
        basic: app,
        form: { token, token_type_hint: hint },
        grant: false,
      });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('submit') && has('identity');
      return {
        publish,
        manage: publish && has('edit'),
        threads: publish,
        metrics: grantsMetrics('reddit', scopes),
      };
    },
  };
};
