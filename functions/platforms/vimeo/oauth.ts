import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../../ports/network-auth.ts';
import { cannotRefresh, hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * Vimeo. Consent at `https://api.vimeo.com/oauth/authorize`; `POST /oauth/access_token` with HTTP
 * Basic gives a token that does not expire and no refresh token (the answer names the user);
 * `DELETE /tokens` revokes the token it is called with. The account is `GET /me` (`/users/{id}`).
 * Scopes, per Vimeo's OpenAPI reference (https://github.com/vimeo/openapi): `upload` creates the
 * video and its text tracks, `edit` and `delete` change and remove it, `public` reads (and `/me`),
 * `private` reads a video that is not public (Herald's lookup lists the account's videos).
 */
export const VIMEO_SCOPES = [
  'public',
  'private',
  'create',
  'edit',
  'delete',
  'upload',
  'video_files',
  'stats',
];

const userIdOf = (uri: string) => /\/users\/(\d+)/.exec(uri)?.[1] ?? uri;

export const vimeoAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const api = hostOf(config.baseUrls, 'vimeo', 'https://api.vimeo.com');
  const network = 'Vimeo';
  const common = { network, timeoutMs: config.timeoutMs };
  return {
    platform: 'vimeo',
    kind: 'oauth2',
    usesPkce: false,
    scopes: VIMEO_SCOPES,
    policy: { marginSeconds: 0, proactiveAfterSeconds: null, rotatesRefreshToken: false },
    hasTargets: false,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${api}/oauth/authorize`, {
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: redirectUri,
        state,
        scope: VIMEO_SCOPES.join(' '),
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/oauth/access_token`,
        basic: app,
        headers: { accept: 'application/vnd.vimeo.*+json;version=3.4' },
        form: { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: VIMEO_SCOPES });
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${api}/me`,
        bearer: tokens.accessToken,
        grant: false,
      });
      return {
        remoteAccountId: userIdOf(requireString(network, answer.body, 'uri')),
        name: requireString(network, answer.body, 'name'),
      };
    },
    refresh: async () =>
      cannotRefresh(network, 'tokens cannot be refreshed (they do not expire; this one was refused)'),
    revoke: async ({ tokens }) => {
      await oauthCall({
        ...common,
        method: 'DELETE',
        url: `${api}/tokens`,
        bearer: tokens.accessToken,
        grant: false,
      });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      // Publishing reads the video back (`public`, and `private` for a video that is not public).
      const publish = has('upload') && has('create') && has('public') && has('private');
      return {
        publish,
        manage: has('edit') && has('delete'),
        threads: publish && has('interact'),
        metrics: grantsMetrics('vimeo', scopes),
      };
    },
  };
};
