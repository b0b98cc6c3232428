import type { SimOAuthMount } from '../framework/framework.ts';
import { GRAPH_ERRORS, graphLoginSimulator, REDIRECT_URI_MISMATCH } from '../framework/meta-graph.ts';
import { errorPage, type SimOAuthApp, simOAuthApp } from '../framework/oauth.ts';

/**
 * Threads on the simulator (`graphLoginSimulator`, Meta's login as Instagram has it too):
 * `GET /oauth/authorize` (threads.net), `POST /oauth/access_token` (graph.threads.net, form) →
 * `{ access_token, user_id }` (short-lived, 1 hour), `GET /access_token?grant_type=th_exchange_token`
 * and `GET /refresh_access_token?grant_type=th_refresh_token` → `{ access_token, token_type,
 * expires_in }` (60 days), `GET /:version/me?fields=id,username`. Graph's error shapes throughout
 * (a bad app is code 1, a bad code 100, a redirect URI mismatch 100/36008); an unregistered
 * redirect URI at authorize is threads.net's error page. No revocation call;
 * `POST /_sim/oauth/permissions` takes permissions back from an account's grants. Not simulated:
 * refreshing needs a token at least 24 hours old.
 */
export const threadsOAuthSimulator = (
  options: { app?: SimOAuthApp } = {},
): SimOAuthMount & {
  userOf(token: string): string | null;
  scopesOf(token: string): readonly string[] | null;
} => {
  const login = graphLoginSimulator({
    app: options.app ?? simOAuthApp('threads'),
    prefix: 'th',
    shortLivedSeconds: 3600,
    knownScopes: [
      'threads_basic',
      'threads_content_publish',
      'threads_manage_replies',
      'threads_read_replies',
      'threads_manage_insights',
      'threads_delete',
      'threads_keyword_search',
      'threads_manage_mentions',
      'threads_location_tagging',
      'threads_profile_discovery',
    ],
    // threads.net's sign-in page refuses it (its exact wording is not verified).
    unregisteredRedirect: () =>
      errorPage(
        400,
        'Something went wrong',
        'Invalid redirect_uri: it is not one of the app’s Redirect Callback URLs.',
      ),
    grantTypes: { exchange: 'th_exchange_token', refresh: 'th_refresh_token' },
    badClient: () => GRAPH_ERRORS.error(400, 'Error validating client secret.', 1),
    badCode: (refusal) =>
      refusal.error === 'redirect_uri_mismatch'
        ? GRAPH_ERRORS.error(400, REDIRECT_URI_MISMATCH, 100, 36008)
        : GRAPH_ERRORS.error(400, 'Invalid verification code format.', 100),
    codeAnswer: (issued, grant) => ({ access_token: issued.accessToken, user_id: grant.account.id }),
    me: (grant) => ({ id: grant.account.id, username: grant.account.name }),
  });
  return {
    ...login,
    /** The Threads user a token it issued belongs to; null for tokens it did not issue. */
    userOf: (token: string) => login.grantOf(token)?.account.id ?? null,
  };
};
