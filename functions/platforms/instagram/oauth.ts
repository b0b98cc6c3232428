import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../../ports/network-auth.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * Instagram professional accounts through the Instagram API with Instagram Login. Consent at
 * `https://www.instagram.com/oauth/authorize`; `POST https://api.instagram.com/oauth/access_token`
 * gives a short-lived token (1 hour; `{ data: [{ access_token, user_id, permissions }] }`, or the
 * flat form), exchanged at once for a long-lived one (60 days) with
 * `GET https://graph.instagram.com/access_token?grant_type=ig_exchange_token`. A long-lived token is
 * extended with `GET /refresh_access_token?grant_type=ig_refresh_token` once it is at least 24
 * hours old (the sweep does it daily). Instagram has no revocation call.
 */
export const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
];
export const INSTAGRAM_GRAPH_VERSION = 'v25.0';

/** The code exchange's answer, in either of the shapes Instagram has used. */
export const instagramShortToken = (
  body: unknown,
): { accessToken: string; userId: string | null; scopes: string[] | null } => {
  const data = (body as { data?: unknown } | null)?.data;
  const entry = Array.isArray(data) ? data[0] : body;
  const accessToken = requireString('Instagram', entry, 'access_token');
  const userId = (entry as { user_id?: unknown }).user_id;
  const permissions = (entry as { permissions?: unknown }).permissions;
  return {
    accessToken,
    userId: typeof userId === 'string' || typeof userId === 'number' ? String(userId) : null,
    scopes:
      typeof permissions === 'string'
        ? permissions.split(',').filter(Boolean)
        : Array.isArray(permissions)
          ? permissions.map(String)
          : null,
  };
};

export const instagramAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const www = hostOf(config.baseUrls, 'instagram', 'https://www.instagram.com');
  const api = hostOf(config.baseUrls, 'instagram', 'https://api.instagram.com');
  const graph = hostOf(config.baseUrls, 'instagram', 'https://graph.instagram.com');
  const network = 'Instagram';
  const common = { network, timeoutMs: config.timeoutMs };
  return {
    platform: 'instagram',
    kind: 'oauth2',
    usesPkce: false,
    scopes: INSTAGRAM_SCOPES,
    policy: { marginSeconds: 86400, proactiveAfterSeconds: 86400, rotatesRefreshToken: false },
    hasTargets: false,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${www}/oauth/authorize`, {
        client_id: app.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: INSTAGRAM_SCOPES.join(','),
        state,
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${api}/oauth/access_token`,
        form: {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          grant_type: 'authorization_code',
          redirect_uri: redirectUri,
          code,
        },
        grant: true,
      });
      const short = instagramShortToken(answer.body);
      const long = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/access_token`,
        query: {
          grant_type: 'ig_exchange_token',
          client_secret: app.clientSecret,
          access_token: short.accessToken,
        },
        grant: true,
      });
      return tokenSetOf(network, long.body, { fallbackScopes: short.scopes ?? INSTAGRAM_SCOPES });
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/${INSTAGRAM_GRAPH_VERSION}/me`,
        query: { fields: 'user_id,username', access_token: tokens.accessToken },
        grant: false,
      });
      return {
        remoteAccountId: requireString(network, answer.body, 'user_id'),
        name: requireString(network, answer.body, 'username'),
      };
    },
    refresh: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/refresh_access_token`,
        query: { grant_type: 'ig_refresh_token', access_token: tokens.accessToken },
        grant: true,
      });
      return tokenSetOf(network, answer.body, { fallbackScopes: tokens.scopes });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('instagram_business_basic') && has('instagram_business_content_publish');
      return {
        publish,
        manage: publish,
        threads: publish && has('instagram_business_manage_comments'),
        metrics: grantsMetrics('instagram', scopes),
      };
    },
  };
};
