import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * TikTok Login Kit for Web (v2; PKCE is for desktop and mobile apps only). Consent at
 * `https://www.tiktok.com/v2/auth/authorize/` (`client_key`, comma-separated scopes);
 * `POST https://open.tiktokapis.com/v2/oauth/token/` (client key and secret in the form) for the
 * code and refreshes: access tokens 2 hours, refresh tokens 180 days (older apps: 24 hours and 365
 * days; the answer's `expires_in`/`refresh_expires_in` decide), and every refresh returns a new
 * refresh token: the one sent stops working (rotation). `POST /v2/oauth/revoke/`. The account is
 * `GET /v2/user/info/` (`open_id`).
 */
export const TIKTOK_SCOPES = ['user.info.basic', 'video.publish', 'video.upload', 'video.list'];

export const tiktokAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const www = hostOf(config.baseUrls, 'tiktok', 'https://www.tiktok.com');
  const api = hostOf(config.baseUrls, 'tiktok', 'https://open.tiktokapis.com');
  const network = 'TikTok';
  const common = { network, timeoutMs: config.timeoutMs };
  return {
    platform: 'tiktok',
    kind: 'oauth2',
    usesPkce: false,
    scopes: TIKTOK_SCOPES,
    policy: { marginSeconds: 600, proactiveAfterSeconds: null, rotatesRefreshToken: true },
    hasTargets: false,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${www}/v2/auth/authorize/`, {
        client_key: app.clientId,
        scope: TIKTOK_SCOPES.join(','),
        response_type: 'code',
        redirect_uri: redirectUri,
        state,
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/v2/oauth/token/`,
        form: {
          client_key: app.clientId,
          client_secret: app.clientSecret,
          code,
          grant_type: 'authorization_code',
          redirect_uri: redirectUri,
        },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: TIKTOK_SCOPES });
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${api}/v2/user/info/`,
        query: { fields: 'open_id,union_id,display_name' },
        bearer: tokens.accessToken,
        grant: false,
      });
      return {
        remoteAccountId: requireString(network, answer.body, 'data.user.open_id'),
        name: requireString(network, answer.body, 'data.user.display_name'),
      };
    },
    refresh: async ({ app, tokens }) => {
      if (!tokens.refreshToken)
        throw new NetworkError(
          'reconnect',
          'TikTok tokens have no refresh token: the channel must be reconnected',
          {},
        );
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/v2/oauth/token/`,
        form: {
          client_key: app.clientId,
          client_secret: app.clientSecret,
          grant_type: 'refresh_token',
          refresh_token: tokens.refreshToken,
        },
        grant: true,
      });
      return tokenSetOf(network, answer.body, {
        fallbackScopes: tokens.scopes,
        previousRefreshToken: tokens.refreshToken,
        previousRefreshExpiresAt: tokens.refreshExpiresAt,
      });
    },
    revoke: async ({ app, tokens }) => {
      await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/v2/oauth/revoke/`,
        form: { client_key: app.clientId, client_secret: app.clientSecret, token: tokens.accessToken },
        grant: false,
      });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('video.publish') && has('user.info.basic');
      return { publish, manage: false, threads: false, metrics: grantsMetrics('tiktok', scopes) };
    },
  };
};
