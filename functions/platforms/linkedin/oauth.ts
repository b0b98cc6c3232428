import type { NetworkAuth, NetworkAuthConfig, NetworkTarget } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';
import { DEFAULT_LINKEDIN_VERSION } from './version.ts';

/**
 * LinkedIn (3-legged OAuth 2.0, no PKCE for web apps). Consent at
 * `https://www.linkedin.com/oauth/v2/authorization`; `POST /oauth/v2/accessToken` (client id and
 * secret in the form) for the code and, for apps in LinkedIn's partner programme, refreshes
 * (refresh tokens last 365 days and are not extended by refreshing); `POST /oauth/v2/revoke`.
 * Access tokens last 60 days. The member is `GET https://api.linkedin.com/v2/userinfo` (`sub`);
 * for `linkedin_page` the pages the member administers come from `GET /rest/organizationAcls`.
 */
export const LINKEDIN_MEMBER_SCOPES = ['openid', 'profile', 'w_member_social'];
export const LINKEDIN_PAGE_SCOPES = [
  'openid',
  'profile',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
];

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
        const metrics =
          platform === 'linkedin'
            ? has('r_member_social') || has('r_member_postAnalytics')
            : has('r_organization_social') || has('rw_organization_admin');
        return { publish, manage: publish, threads: publish, metrics };
      },
    };
  };

export const linkedInMemberAuth = linkedInAuth('linkedin');
export const linkedInPageAuth = linkedInAuth('linkedin_page');
