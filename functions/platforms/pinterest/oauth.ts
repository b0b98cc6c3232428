import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * Pinterest API v5. Consent at `https://www.pinterest.com/oauth/` (scopes comma-separated);
 * `POST https://api.pinterest.com/v5/oauth/token` with HTTP Basic for the code and refreshes. The
 * account is `GET /v5/user_account`; its boards (`GET /v5/boards`) are the targets, all connected
 * from one grant (stored once and shared by the board channels: core/channels/grants.ts). Pinterest
 * has no public revocation call for user tokens.
 *
 * Tokens (api-description `v5/openapi.yaml`, `/oauth/token`,
 * https://github.com/pinterest/api-description): access tokens live 30 days; continuous refresh
 * tokens 60 days, and every refresh answers a new one (`OauthAccessTokenResponseRefresh`), which
 * we take to end the old one (rotation). Apps created before 2025-09-25 must send
 * `continuous_refresh=true`, as "Pinterest no longer supports the legacy refresh token (365-day
 * expiration)"; the parameter was documented on the code exchange (v5.15 to v5.18) and the note now
 * sits on the endpoint that serves both, so both send it (newer apps get continuous tokens anyway).
 * The sweep refreshes a token once it is a week old, well inside the 60 days.
 */
export const PINTEREST_SCOPES = ['user_accounts:read', 'boards:read', 'pins:read', 'pins:write'];

export const pinterestAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const www = hostOf(config.baseUrls, 'pinterest', 'https://www.pinterest.com');
  const api = hostOf(config.baseUrls, 'pinterest', 'https://api.pinterest.com');
  const network = 'Pinterest';
  const common = { network, timeoutMs: config.timeoutMs };
  return {
    platform: 'pinterest',
    kind: 'oauth2',
    usesPkce: false,
    scopes: PINTEREST_SCOPES,
    policy: { marginSeconds: 86400, proactiveAfterSeconds: 7 * 86400, rotatesRefreshToken: true },
    hasTargets: true,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${www}/oauth/`, {
        client_id: app.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: PINTEREST_SCOPES.join(','),
        state,
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/v5/oauth/token`,
        basic: app,
        form: {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          continuous_refresh: 'true',
        },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: PINTEREST_SCOPES });
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${api}/v5/user_account`,
        bearer: tokens.accessToken,
        grant: false,
      });
      const username = requireString(network, answer.body, 'username');
      const id = (answer.body as { id?: unknown }).id;
      return { remoteAccountId: typeof id === 'string' && id !== '' ? id : username, name: username };
    },
    targets: async ({ tokens }) => {
      const targets = [];
      let bookmark: string | undefined;
      do {
        const answer = await oauthCall({
          ...common,
          method: 'GET',
          url: `${api}/v5/boards`,
          query: { page_size: '100', bookmark },
          bearer: tokens.accessToken,
          grant: false,
        });
        const body = answer.body as { items?: unknown; bookmark?: unknown };
        for (const item of Array.isArray(body.items) ? body.items : []) {
          const board = item as { id?: unknown; name?: unknown };
          if (typeof board.id !== 'string') continue;
          targets.push({
            targetId: board.id,
            name: typeof board.name === 'string' ? board.name : board.id,
            platform: 'pinterest' as const,
            kind: 'board',
          });
        }
        bookmark = typeof body.bookmark === 'string' && body.bookmark !== '' ? body.bookmark : undefined;
      } while (bookmark && targets.length < 1000);
      return targets;
    },
    refresh: async ({ app, tokens }) => {
      if (!tokens.refreshToken)
        throw new NetworkError(
          'reconnect',
          'Pinterest tokens have no refresh token: the channel must be reconnected',
          {},
        );
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/v5/oauth/token`,
        basic: app,
        form: { grant_type: 'refresh_token', refresh_token: tokens.refreshToken, continuous_refresh: 'true' },
        grant: true,
      });
      return tokenSetOf(network, answer.body, {
        fallbackScopes: tokens.scopes,
        previousRefreshToken: tokens.refreshToken,
        previousRefreshExpiresAt: tokens.refreshExpiresAt,
      });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('pins:write') && has('boards:read');
      return {
        publish,
        manage: publish,
        threads: false,
        metrics: grantsMetrics('pinterest', scopes),
      };
    },
  };
};
