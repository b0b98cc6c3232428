import type { SimOAuthMount } from '../framework/framework.ts';
import { graphLoginSimulator, REDIRECT_URI_MISMATCH } from '../framework/meta-graph.ts';
import { numericIdFor, type SimOAuthApp, simOAuthApp } from '../framework/oauth.ts';

/** Instagram Login's own error body (api.instagram.com's code exchange), not Graph's. */
const instagramError = (message: string) => ({
  status: 400,
  body: { error_type: 'OAuthException', code: 400, error_message: message },
});

/**
 * Instagram API with Instagram Login on the simulator (`graphLoginSimulator`, Meta's login as
 * Threads has it too): `GET /oauth/authorize` (www.instagram.com), `POST /oauth/access_token`
 * (api.instagram.com, form) → `{ data: [{ access_token, user_id, permissions }] }` with a
 * short-lived token (1 hour), `GET /access_token?grant_type=ig_exchange_token` and
 * `GET /refresh_access_token?grant_type=ig_refresh_token` (graph.instagram.com) → a long-lived
 * token (60 days), and `GET /:version/me?fields=user_id,username` (`id` an app-scoped id). A bad
 * app, code or redirect URI at the code exchange, and an unregistered redirect URI at authorize,
 * are `{ error_type: 'OAuthException', code: 400, error_message }`; a refused token Graph's code
 * 190. Instagram has no revocation call. A token holds the scopes its consent granted (those asked
 * for, narrowed by `sim_scopes`), echoed as `permissions`, less those `POST /_sim/oauth/permissions`
 * took back. Not simulated: a long-lived token can only be refreshed once it is 24 hours old.
 */
export const instagramOAuthSimulator = (
  options: { app?: SimOAuthApp } = {},
): SimOAuthMount & {
  /** The permissions a token it issued holds now; null for tokens it did not issue. */
  scopesOf(token: string): readonly string[] | null;
} =>
  graphLoginSimulator({
    app: options.app ?? simOAuthApp('instagram'),
    prefix: 'ig',
    shortLivedSeconds: 3600,
    knownScopes: [
      'instagram_business_basic',
      'instagram_business_content_publish',
      'instagram_business_manage_comments',
      'instagram_business_manage_insights',
      'instagram_business_manage_messages',
    ],
    unregisteredRedirect: () => instagramError('Redirect URI does not match registered redirect URI'),
    grantTypes: { exchange: 'ig_exchange_token', refresh: 'ig_refresh_token' },
    badClient: () => instagramError('Invalid platform app'),
    badCode: (refusal) =>
      instagramError(
        refusal.error === 'redirect_uri_mismatch' ? REDIRECT_URI_MISMATCH : 'Invalid authorization code',
      ),
    codeAnswer: (issued, grant) => ({
      data: [
        {
          access_token: issued.accessToken,
          user_id: grant.account.id,
          permissions: grant.scopes.join(','),
        },
      ],
    }),
    me: (grant) => ({
      id: numericIdFor(`ig-app-scoped:${grant.account.id}`, 17),
      user_id: grant.account.id,
      username: grant.account.name,
    }),
  });
