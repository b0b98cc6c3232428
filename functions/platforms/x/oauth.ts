import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * X (OAuth 2.0 authorization code with PKCE, confidential client). Consent at
 * `https://x.com/i/oauth2/authorize`; `POST https://api.x.com/2/oauth2/token` (HTTP Basic) for the
 * code and for refreshes; `POST /2/oauth2/revoke`. Access tokens live 2 hours; the refresh token
 * (only with `offline.access`) rotates: each refresh returns a new one and the old one is dead.
 * Identity: `GET /2/users/me`.
 */
export const X_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write'];

export const xAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const api = hostOf(config.baseUrls, 'x', 'https://api.x.com');
  const site = hostOf(config.baseUrls, 'x', 'https://x.com');
  const network = 'X';
  const common = { network, timeoutMs: config.timeoutMs };
  return {
    platform: 'x',
    kind: 'oauth2',
    usesPkce: true,
    scopes: X_SCOPES,
    policy: { marginSeconds: 300, proactiveAfterSeconds: null, rotatesRefreshToken: true },
    hasTargets: false,
    authorizeUrl: ({ app, redirectUri, state, codeChallenge }) =>
      urlWith(`${site}/i/oauth2/authorize`, {
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: redirectUri,
        scope: X_SCOPES.join(' '),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: codeChallenge ? 'S256' : null,
      }),
    exchangeCode: async ({ app, code, redirectUri, codeVerifier }) => {
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/2/oauth2/token`,
        basic: app,
        form: {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: codeVerifier ?? undefined,
          client_id: app.clientId,
        },
        grant: true,
      });
      return tokenSetOf(network, answer.body);
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${api}/2/users/me`,
        bearer: tokens.accessToken,
        grant: false,
      });
      return {
        remoteAccountId: requireString(network, answer.body, 'data.id'),
        name: requireString(network, answer.body, 'data.username'),
      };
    },
    refresh: async ({ app, tokens }) => {
      if (!tokens.refreshToken) {
        throw new NetworkError(
          'reconnect',
          'X granted no refresh token (offline.access was not accepted): the channel must be reconnected',
          {},
        );
      }
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/2/oauth2/token`,
        basic: app,
        form: { grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: app.clientId },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: tokens.scopes });
    },
    revoke: async ({ app, tokens }) => {
      // Revoking the refresh token ends the grant; the access token too, for networks that keep it.
      for (const [token, hint] of [
        [tokens.refreshToken, 'refresh_token'],
        [tokens.accessToken, 'access_token'],
      ] as const) {
        if (!token) continue;
        await oauthCall({
          ...common,
          method: 'POST',
          url: `${api}/2/oauth2/revoke`,
          basic: app,
          form: { token, token_type_hint: hint, client_id: app.clientId },
          grant: false,
        });
      }
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('tweet.write') && has('users.read');
      return { publish, manage: publish, threads: publish, metrics: grantsMetrics('x', scopes) };
    },
  };
};
