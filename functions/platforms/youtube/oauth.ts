import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig, NetworkTarget } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * YouTube through Google OAuth 2.0 (web server flow with PKCE). Consent at
 * `https://accounts.google.com/o/oauth2/v2/auth` with `access_type=offline&prompt=consent` (so a
 * refresh token comes every time); `POST https://oauth2.googleapis.com/token` for the code and
 * refreshes (access tokens about 1 hour; the refresh token is kept, and dies after 6 months unused,
 * so idle channels are refreshed every 30 days by the token sweep, or after 7 days for apps in
 * "Testing"); `POST https://oauth2.googleapis.com/revoke`. The channels of the
 * grant (`GET /youtube/v3/channels?mine=true`) are the targets; the account is the first.
 */
/** An idle YouTube channel's tokens are refreshed by the token sweep after this long (30 days). */
export const YOUTUBE_IDLE_REFRESH_SECONDS = 30 * 86_400;

/**
 * The scopes Herald asks for, each for calls it makes (Google's discovery document lists the
 * scopes each method accepts): `youtube.upload` for `videos.insert` and `thumbnails.set`;
 * `youtube.force-ssl` for `videos.update`, `videos.delete` and `captions.insert` (which takes no
 * other user scope); `youtube.readonly` for `videos.list` (processing, statistics),
 * `channels.list` and `playlistItems.list`.
 */
export const YOUTUBE_SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.force-ssl',
  'https://www.googleapis.com/auth/youtube.readonly',
];

export const youtubeAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const accounts = hostOf(config.baseUrls, 'youtube', 'https://accounts.google.com');
  const oauth = hostOf(config.baseUrls, 'youtube', 'https://oauth2.googleapis.com');
  const api = hostOf(config.baseUrls, 'youtube', 'https://www.googleapis.com');
  const network = 'YouTube';
  const common = { network, timeoutMs: config.timeoutMs };
  const channels = async (accessToken: string) => {
    const answer = await oauthCall({
      ...common,
      method: 'GET',
      url: `${api}/youtube/v3/channels`,
      query: { part: 'snippet', mine: 'true', maxResults: '50' },
      bearer: accessToken,
      grant: false,
    });
    const items = (answer.body as { items?: unknown }).items;
    return (Array.isArray(items) ? items : [])
      .map((item) => item as { id?: unknown; snippet?: { title?: unknown } })
      .filter((item) => typeof item.id === 'string')
      .map(
        (item): NetworkTarget => ({
          targetId: item.id as string,
          name: typeof item.snippet?.title === 'string' ? item.snippet.title : (item.id as string),
          platform: 'youtube',
          kind: 'channel',
        }),
      );
  };
  return {
    platform: 'youtube',
    kind: 'oauth2',
    usesPkce: true,
    scopes: YOUTUBE_SCOPES,
    // A refresh token unused for six months dies (Google: "has not been used for six months",
    // https://developers.google.com/identity/protocols/oauth2#expiration): the token sweep
    // refreshes a channel whose tokens were last refreshed 30 days ago, which every use of the
    // channel does within the hour (access tokens live one hour), so only an idle channel waits
    // for the sweep, and it is kept alive with five months to spare.
    policy: {
      marginSeconds: 300,
      proactiveAfterSeconds: YOUTUBE_IDLE_REFRESH_SECONDS,
      rotatesRefreshToken: false,
    },
    hasTargets: true,
    authorizeUrl: ({ app, redirectUri, state, codeChallenge }) =>
      urlWith(`${accounts}/o/oauth2/v2/auth`, {
        client_id: app.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: YOUTUBE_SCOPES.join(' '),
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
        code_challenge: codeChallenge,
        code_challenge_method: codeChallenge ? 'S256' : null,
      }),
    exchangeCode: async ({ app, code, redirectUri, codeVerifier }) => {
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${oauth}/token`,
        form: {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          code,
          code_verifier: codeVerifier ?? undefined,
          grant_type: 'authorization_code',
          redirect_uri: redirectUri,
        },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: YOUTUBE_SCOPES });
    },
    identify: async ({ tokens }) => {
      const first = (await channels(tokens.accessToken))[0];
      if (!first) throw new NetworkError('permanent', 'This Google account has no YouTube channel', {});
      return { remoteAccountId: first.targetId, name: first.name };
    },
    targets: async ({ tokens }) => channels(tokens.accessToken),
    refresh: async ({ app, tokens }) => {
      if (!tokens.refreshToken)
        throw new NetworkError(
          'reconnect',
          'Google granted no refresh token: the channel must be reconnected',
          {},
        );
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${oauth}/token`,
        form: {
          client_id: app.clientId,
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
    revoke: async ({ tokens }) => {
      await oauthCall({
        ...common,
        method: 'POST',
        url: `${oauth}/revoke`,
        form: { token: tokens.refreshToken ?? tokens.accessToken },
        grant: false,
      }).catch((error: unknown) => {
        // Already revoked or expired: nothing left to revoke.
        if (error instanceof NetworkError && error.details.status === 400) return;
        throw error;
      });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(`https://www.googleapis.com/auth/${scope}`);
      const publish = has('youtube.upload') || has('youtube');
      const manage = has('youtube.force-ssl') || has('youtube');
      return {
        publish,
        manage,
        threads: has('youtube.force-ssl'),
        metrics: grantsMetrics('youtube', scopes),
      };
    },
  };
};
