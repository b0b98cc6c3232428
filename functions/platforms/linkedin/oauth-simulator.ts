import type { SimOAuthMount, SimResponse } from '../simulator/framework.ts';
import {
  authorizeRoute,
  bearerOf,
  clientCredentials,
  errorPage,
  type IssuedTokens,
  mountOf,
  numericIdFor,
  orRefuse,
  paramsOf,
  type SimLifetimes,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../simulator/oauth.ts';

/**
 * LinkedIn's OAuth 2.0 on the simulator (3-legged, www.linkedin.com): `GET /oauth/v2/authorization`,
 * `POST /oauth/v2/accessToken` (form, client_id and client_secret in the body) for the code and for
 * refreshes, `POST /oauth/v2/revoke`; and on api.linkedin.com `GET /v2/userinfo` (OpenID Connect)
 * and the pages a member administers, `GET /rest/organizationAcls?q=roleAssignee` and
 * `GET /rest/organizations/{id}`. Access tokens live 60 days; refresh tokens (LinkedIn's partner
 * programme) 365 days, not rotated and not extended by a refresh (`refresh_token_expires_in`
 * counts down). LinkedIn echoes the granted scopes comma-separated and refuses every bad code or
 * refresh token with 400 `invalid_request`. Each simulated member administers two pages.
 */

const oauthError = (status: number, error: string, description: string): SimResponse => ({
  status,
  body: { error, error_description: description },
});

const restError = (status: number, code: string, message: string, serviceErrorCode = 100): SimResponse => ({
  status,
  body: { status, serviceErrorCode, code, message },
});

export const simLinkedInOrganizations = (memberId: string) =>
  [1, 2].map((n) => ({ id: numericIdFor(`li-org:${memberId}:${n}`, 8), name: `Page ${n} of ${memberId}` }));

export const linkedInOAuthSimulator = (
  options: { app?: SimOAuthApp; lifetimes?: Partial<SimLifetimes> } = {},
): SimOAuthMount => {
  const app = options.app ?? simOAuthApp('linkedin');
  const store = new SimTokenStore({
    prefix: 'li',
    defaults: { accessSeconds: 60 * 86400, refreshSeconds: 365 * 86400 },
    rotates: false,
    issuesRefresh: true,
  });
  if (options.lifetimes) store.setLifetimes(options.lifetimes);

  const answer = (issued: IssuedTokens): SimResponse => ({
    status: 200,
    body: {
      access_token: issued.accessToken,
      expires_in: issued.expiresIn,
      ...(issued.refreshToken
        ? { refresh_token: issued.refreshToken, refresh_token_expires_in: issued.refreshExpiresIn }
        : {}),
      scope: issued.grant.scopes.join(','),
    },
  });
  const authenticated = (ctx: Parameters<SimOAuthMount['routes'][number]['handler']>[0]) => {
    const token = bearerOf(ctx);
    const grant = token ? store.grantOf(token) : null;
    return { token, grant };
  };

  return mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'openid',
        'profile',
        'email',
        'w_member_social',
        'r_member_social',
        'r_member_postAnalytics',
        'w_organization_social',
        'w_organization_social_feed',
        'r_organization_social',
        'r_organization_social_feed',
        'rw_organization_admin',
        'r_organization_admin',
        'r_basicprofile',
      ],
      scopeError: 'unauthorized_scope_error',
      unregisteredRedirect: () =>
        errorPage(
          400,
          'Bummer, something went wrong.',
          'The redirect_uri does not match the registered value',
        ),
      path: '/oauth/v2/authorization',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({ id: `sim${numericIdFor(`li:${user}`, 7)}`, name: `Simulated ${user}` }),
    }),
    {
      method: 'POST',
      path: '/oauth/v2/accessToken',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        const client = clientCredentials(ctx.headers, params);
        if (client?.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return oauthError(401, 'invalid_client', 'Client authentication failed');
        }
        if (params.grant_type === 'authorization_code') {
          const grant = orRefuse(
            store.redeemCode({
              code: params.code ?? '',
              clientId: client.clientId,
              redirectUri: params.redirect_uri ?? '',
              verifier: params.code_verifier ?? null,
            }),
            (refusal) =>
              oauthError(
                400,
                // LinkedIn names the redirect URI in the code, with the same description.
                refusal.error === 'redirect_uri_mismatch' ? 'invalid_redirect_uri' : 'invalid_request',
                'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists',
              ),
          );
          return answer(store.issue(grant));
        }
        if (params.grant_type === 'refresh_token') {
          return answer(
            orRefuse(store.refresh(params.refresh_token ?? '', client.clientId), () =>
              oauthError(
                400,
                'invalid_request',
                'The provided authorization grant or refresh token is invalid, expired or revoked.',
              ),
            ),
          );
        }
        return oauthError(
          400,
          'unsupported_grant_type',
          'grant_type must be authorization_code or refresh_token',
        );
      },
    },
    {
      method: 'POST',
      path: '/oauth/v2/revoke',
      auth: false,
      handler: (ctx) => {
        const params = paramsOf(ctx);
        const client = clientCredentials(ctx.headers, params);
        if (client?.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return oauthError(401, 'invalid_client', 'Client authentication failed');
        }
        if (!params.token) return oauthError(400, 'invalid_request', 'token is required');
        store.revoke(params.token);
        return { status: 200 };
      },
    },
    {
      method: 'GET',
      path: '/v2/userinfo',
      handler: (ctx) => {
        const { grant } = authenticated(ctx);
        if (!grant) return restError(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600);
        return {
          status: 200,
          body: {
            sub: grant.account.id,
            name: grant.account.name,
            given_name: 'Simulated',
            family_name: grant.account.id,
            locale: { country: 'US', language: 'en' },
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/rest/organizationAcls',
      handler: (ctx) => {
        const { grant } = authenticated(ctx);
        if (!grant) return restError(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600);
        if (ctx.query.get('q') !== 'roleAssignee')
          return restError(400, 'ILLEGAL_ARGUMENT', 'q must be roleAssignee');
        const role = ctx.query.get('role');
        const elements = simLinkedInOrganizations(grant.account.id)
          .filter(() => role === null || role === 'ADMINISTRATOR')
          .map((org) => ({
            organization: `urn:li:organization:${org.id}`,
            role: 'ADMINISTRATOR',
            state: 'APPROVED',
            roleAssignee: `urn:li:person:${grant.account.id}`,
          }));
        return {
          status: 200,
          body: { elements, paging: { count: 10, start: 0, total: elements.length, links: [] } },
        };
      },
    },
    {
      method: 'GET',
      path: '/rest/organizations/:id',
      handler: (ctx) => {
        const { grant } = authenticated(ctx);
        const org = grant
          ? simLinkedInOrganizations(grant.account.id).find((o) => o.id === ctx.params.id)
          : undefined;
        if (!org) return restError(404, 'NOT_FOUND', `Organization ${ctx.params.id} not found`, 0);
        return {
          status: 200,
          body: {
            id: Number(org.id),
            localizedName: org.name,
            vanityName: `page-${org.id}`,
            $URN: `urn:li:organization:${org.id}`,
          },
        };
      },
    },
  ]);
};
