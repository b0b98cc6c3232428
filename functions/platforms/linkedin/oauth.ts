import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig, NetworkTarget } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';
import { DEFAULT_LINKEDIN_VERSION } from './version.ts';

/**
 * LinkedIn (3-legged OAuth 2.0, no PKCE for web apps). Consent at
 * `https://www.linkedin.com/oauth/v2/authorization`; `POST /oauth/v2/accessToken` (client id and
 * secret in the form) for the code and, for apps in LinkedIn's partner programme, refreshes
 * (refresh tokens last 365 days and are not extended by refreshing); `POST /oauth/v2/revoke`.
 * Access tokens last 60 days.
 *
 * Two apps, because LinkedIn requires the Community Management API to be the only product on its
 * app (so a page app cannot also have "Sign In with LinkedIn using OpenID Connect", and asking it
 * for `openid` or `profile` fails the whole consent with `unauthorized_scope_error`):
 * - `linkedin` (products Sign In with LinkedIn using OpenID Connect and Share on LinkedIn):
 *   `openid profile w_member_social`; the member is `GET https://api.linkedin.com/v2/userinfo` (`sub`).
 * - `linkedin_page` (Community Management API alone): `r_basicprofile` and the organization
 *   scopes; the member is `GET /v2/me` (Profile API, `id` and localized names), the pages it
 *   administers come from `GET /rest/organizationAcls` and `GET /rest/organizations/{id}`
 *   (`rw_organization_admin`); posts, comments and uploads as the page need `w_organization_social`,
 *   the page's posts and comments are read with `r_organization_social` (lookups, a comment's
 *   metrics) and its share statistics with `rw_organization_admin`.
 */
export const LINKEDIN_MEMBER_SCOPES = ['openid', 'profile', 'w_member_social'];
export const LINKEDIN_PAGE_SCOPES = [
  'r_basicprofile',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
];

/** The member's display name from `/v2/me`: localized first and last name, else the id. */
const nameFromProfile = (body: unknown, id: string): string => {
  const profile = (body ?? {}) as { localizedFirstName?: unknown; localizedLastName?: unknown };
  const parts = [profile.localizedFirstName, profile.localizedLastName].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  return parts.length > 0 ? parts.join(' ') : id;
};

const linkedInAuth =
  (platform: 'linkedin' | 'linkedin_page') =>
  (config: NetworkAuthConfig): NetworkAuth => {
    const www = hostOf(config.baseUrls, platform, 'https://www.linkedin.com');
    const api = hostOf(config.baseUrls, platform, 'https://api.linkedin.com');
    const network = 'LinkedIn';
    const common = { network, timeoutMs: config.timeoutMs };
    const scopes = platform === 'linkedin' ? LINKEDIN_MEMBER_SCOPES : LINKEDIN_PAGE_SCOPES;
    const rest = { 'LinkedIn-Version': DEFAULT_LINKEDIN_VERSION, 'X-Restli-Protocol-Version': '2.0.0' };
    return {
      platform,
      kind: 'oauth2',
      usesPkce: false,
      scopes,
      policy: { marginSeconds: 86400, proactiveAfterSeconds: null, rotatesRefreshToken: false },
      hasTargets: platform === 'linkedin_page',
      authorizeUrl: ({ app, redirectUri, state }) =>
        urlWith(`${www}/oauth/v2/authorization`, {
          response_type: 'code',
          client_id: app.clientId,
          redirect_uri: redirectUri,
          state,
          scope: scopes.join(' '),
        }),
      exchangeCode: async ({ app, code, redirectUri }) => {
        const answer = await oauthCall({
          ...common,
          method: 'POST',
          url: `${www}/oauth/v2/accessToken`,
          form: {
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            client_id: app.clientId,
            client_secret: app.clientSecret,
          },
          grant: true,
        });
        return tokenSetOf(network, answer.body, { fallbackScopes: scopes });
      },
      identify: async ({ tokens }) => {
        if (platform === 'linkedin_page') {
          // The Community Management app has no OpenID Connect: the Profile API names the member.
          const answer = await oauthCall({
            ...common,
            method: 'GET',
            url: `${api}/v2/me`,
            bearer: tokens.accessToken,
            grant: false,
          });
          const id = requireString(network, answer.body, 'id');
          return { remoteAccountId: id, name: nameFromProfile(answer.body, id) };
        }
        const answer = await oauthCall({
          ...common,
          method: 'GET',
          url: `${api}/v2/userinfo`,
          bearer: tokens.accessToken,
          grant: false,
        });
        const body = answer.body as { name?: unknown };
        const sub = requireString(network, answer.body, 'sub');
        return {
          remoteAccountId: sub,
          name: typeof body.name === 'string' && body.name !== '' ? body.name : sub,
        };
      },
      ...(platform === 'linkedin_page'
        ? {
            targets: async ({ tokens }) => {
              const acls = await oauthCall({
                ...common,
                method: 'GET',
                url: `${api}/rest/organizationAcls`,
                query: { q: 'roleAssignee', role: 'ADMINISTRATOR', state: 'APPROVED' },
                headers: rest,
                bearer: tokens.accessToken,
                grant: false,
              });
              const elements = (acls.body as { elements?: unknown }).elements;
              const targets: NetworkTarget[] = [];
              for (const element of Array.isArray(elements) ? elements : []) {
                const urn = (element as { organization?: unknown }).organization;
                const id = typeof urn === 'string' ? /^urn:li:organization:(\d+)$/.exec(urn)?.[1] : undefined;
                if (!id) continue;
                const org = await oauthCall({
                  ...common,
                  method: 'GET',
                  url: `${api}/rest/organizations/${id}`,
                  headers: rest,
                  bearer: tokens.accessToken,
                  grant: false,
                });
                const name = (org.body as { localizedName?: unknown }).localizedName;
                targets.push({
                  targetId: id,
                  name: typeof name === 'string' ? name : `Organization ${id}`,
                  platform: 'linkedin_page',
                  kind: 'organization',
                });
              }
              return targets;
            },
          }
        : {}),
      refresh: async ({ app, tokens }) => {
        if (!tokens.refreshToken) {
          throw new NetworkError(
            'reconnect',
            'LinkedIn issued no refresh token (only partner apps get one): the channel must be reconnected',
            {},
          );
        }
        const answer = await oauthCall({
          ...common,
          method: 'POST',
          url: `${www}/oauth/v2/accessToken`,
          form: {
            grant_type: 'refresh_token',
            refresh_token: tokens.refreshToken,
            client_id: app.clientId,
            client_secret: app.clientSecret,
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
          url: `${www}/oauth/v2/revoke`,
          form: { client_id: app.clientId, client_secret: app.clientSecret, token: tokens.accessToken },
          grant: false,
        });
      },
      capabilities: (granted) => {
        const has = (scope: string) => granted.includes(scope);
        const publish = platform === 'linkedin' ? has('w_member_social') : has('w_organization_social');
        // A member's post metrics are `GET /rest/socialActions/{urn}` (r_member_social, restricted to
        // approved apps); a page's are its share statistics (rw_organization_admin) and, for a
        // comment, its social actions (r_organization_social).
        return { publish, manage: publish, threads: publish, metrics: grantsMetrics(platform, granted) };
      },
    };
  };

export const linkedInMemberAuth = linkedInAuth('linkedin');
export const linkedInPageAuth = linkedInAuth('linkedin_page');
