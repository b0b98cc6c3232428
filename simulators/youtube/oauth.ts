import { createHash } from 'node:crypto';
import type { SimOAuthMount, SimResponse } from '../framework/framework.ts';
import {
  authorizeRoute,
  clientCredentials,
  errorPage,
  type IssuedTokens,
  mountOf,
  orRefuse,
  paramsOf,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../framework/oauth.ts';

/**
 * Google OAuth 2.0 for YouTube on the simulator: `GET /o/oauth2/v2/auth` (accounts.google.com; PKCE
 * supported, a refresh token only with `access_type=offline`), `POST /token` (oauth2.googleapis.com,
 * form) → `{ access_token, expires_in, refresh_token, scope, token_type }` (1 hour; refreshes keep
 * the refresh token) and `POST /revoke?token=` (unknown token: 400 `invalid_token`). Refused codes
 * and refresh tokens are 400 `invalid_grant`. The API itself, `channels.list` included, is the
 * YouTube simulator's (simulator.ts), which asks `channelOf` for the channel behind a token and
 * `scopesOf` for the scopes its grant holds (exactly those asked for, or fewer with `sim_scopes`).
 *
 * A refresh token unused for six months dies (Google: "The user has not used the refresh token for
 * six months", https://developers.google.com/identity/protocols/oauth2#expiration): a refresh
 * with it is 400 `invalid_grant` from then on. "Unused" is measured on the simulator's clock
 * (`now`, which the YouTube simulator can move forward), from the code exchange or the last refresh.
 */
const oauthError = (status: number, error: string, description: string): SimResponse => ({
  status,
  body: { error, error_description: description },
});

export const simYouTubeChannelId = (accountId: string) =>
  `UC${createHash('sha256').update(`yt:${accountId}`).digest('base64url').slice(0, 22)}`;

/** The mount, and the channel behind an access token it issued (null for another token). */
export type YouTubeOAuthMount = SimOAuthMount & {
  channelOf(token: string): { id: string; title: string; customUrl: string } | null;
  /** The scopes granted with a token the simulator issued; null for a token it did not issue. */
  scopesOf(token: string): string[] | null;
};

/** Google's idle limit for a refresh token: six months (here 183 days). */
export const REFRESH_TOKEN_IDLE_SECONDS = 183 * 86_400;

export interface YouTubeOAuthOptions {
  app?: SimOAuthApp;
  /** The simulator's clock (ms), for the refresh tokens' idle limit; default the system's. */
  now?: () => number;
  /** How long a refresh token may go unused (default six months). */
  refreshIdleSeconds?: number;
}

export const youtubeOAuthSimulator = (options: YouTubeOAuthOptions = {}): YouTubeOAuthMount => {
  const app = options.app ?? simOAuthApp('youtube');
  const now = options.now ?? Date.now;
  const idleMs = (options.refreshIdleSeconds ?? REFRESH_TOKEN_IDLE_SECONDS) * 1000;
  /** When each refresh token was issued or last used, on the simulator's clock. */
  const lastUsed = new Map<string, number>();
  const used = (issued: IssuedTokens) => {
    if (issued.refreshToken) lastUsed.set(issued.refreshToken, now());
    return issued;
  };
  const refreshed = (refreshToken: string) => {
    const last = lastUsed.get(refreshToken);
    if (last !== undefined && now() - last > idleMs) {
      // Dead for good: Google does not bring an idle token back.
      store.revoke(refreshToken);
      lastUsed.delete(refreshToken);
    }
    const issued = store.refresh(refreshToken, app.clientId);
    if (!('error' in issued)) lastUsed.set(refreshToken, now());
    return issued;
  };
  const store = new SimTokenStore({
    prefix: 'ya29',
    defaults: { accessSeconds: 3599, refreshSeconds: null },
    rotates: false,
    issuesRefresh: true,
  });
  const offline = new Set<string>();
  const answer = (issued: IssuedTokens, withRefresh: boolean): SimResponse => ({
    status: 200,
    body: {
      access_token: issued.accessToken,
      expires_in: issued.expiresIn,
      ...(withRefresh && issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
      scope: issued.grant.scopes.join(' '),
      token_type: 'Bearer',
    },
  });
  const authorize = authorizeRoute({
    knownScopes: [
      'openid',
      'email',
      'profile',
      ...[
        'youtube',
        'youtube.upload',
        'youtube.force-ssl',
        'youtube.readonly',
        'youtubepartner',
        'yt-analytics.readonly',
        'youtube.channel-memberships.creator',
      ].map((s) => `https://www.googleapis.com/auth/${s}`),
    ],
    unregisteredRedirect: () =>
      errorPage(
        400,
        'Error 400: redirect_uri_mismatch',
        'You can’t sign in to this app because it doesn’t comply with Google’s OAuth 2.0 policy. If you’re the app developer, register the redirect URI in the Google Cloud Console.',
      ),
    path: '/o/oauth2/v2/auth',
    app,
    store,
    scopeSeparator: /\s+/,
    accountFor: (user) => ({
      id: createHash('sha256').update(`g:${user}`).digest('hex').slice(0, 21),
      name: `Simulated ${user}`,
    }),
  });
  const channelOf = (token: string) => {
    const grant = store.grantOf(token);
    if (!grant) return null;
    return {
      id: simYouTubeChannelId(grant.account.id),
      title: `${grant.account.name}'s channel`,
      customUrl: `@${grant.account.id}`,
    };
  };
  const mount = mountOf(store, [
    {
      ...authorize,
      handler: async (ctx) => {
        const response = await authorize.handler(ctx);
        const location = response.headers?.location;
        if (ctx.query.get('access_type') === 'offline' && typeof location === 'string') {
          const code = new URL(location).searchParams.get('code');
          if (code) offline.add(code);
        }
        return response;
      },
    },
    {
      method: 'POST',
      path: '/token',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        const client = clientCredentials(ctx.headers, params);
        if (client?.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return oauthError(401, 'invalid_client', 'Unauthorized');
        }
        if (params.grant_type === 'authorization_code') {
          const code = params.code ?? '';
          const grant = orRefuse(
            store.redeemCode({
              code,
              clientId: app.clientId,
              redirectUri: params.redirect_uri ?? '',
              verifier: params.code_verifier ?? null,
            }),
            (refusal) =>
              refusal.error === 'redirect_uri_mismatch'
                ? oauthError(400, 'redirect_uri_mismatch', 'Bad Request')
                : oauthError(400, 'invalid_grant', 'Bad Request'),
          );
          return answer(used(store.issue(grant)), offline.delete(code));
        }
        if (params.grant_type === 'refresh_token') {
          return answer(
            orRefuse(refreshed(params.refresh_token ?? ''), () =>
              oauthError(400, 'invalid_grant', 'Token has been expired or revoked.'),
            ),
            false,
          );
        }
        return oauthError(400, 'unsupported_grant_type', 'Invalid grant_type');
      },
    },
    {
      method: 'POST',
      path: '/revoke',
      auth: false,
      handler: (ctx) => {
        const token = paramsOf(ctx).token;
        if (!token || !store.revoke(token))
          return oauthError(400, 'invalid_token', 'Token expired or revoked');
        return { status: 200, body: {} };
      },
    },
  ]);
  const scopesOf = (token: string) => {
    const grant = store.grantOf(token);
    return grant ? [...grant.scopes] : null;
  };
  return { ...mount, channelOf, scopesOf };
};
