import {
  type SimContext,
  SimHttpError,
  type SimOAuthMount,
  type SimResponse,
} from '../framework/framework.ts';
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
  type SimGrant,
  type SimLifetimes,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../framework/oauth.ts';

/**
 * LinkedIn's OAuth 2.0 on the simulator (3-legged, www.linkedin.com): `GET /oauth/v2/authorization`,
 * `POST /oauth/v2/accessToken` (form, client_id and client_secret in the body) for the code and for
 * refreshes, `POST /oauth/v2/revoke`; and on api.linkedin.com `GET /v2/userinfo` (OpenID Connect,
 * needs `openid`), `GET /v2/me` (Profile API, needs `r_basicprofile`) and the pages a member
 * administers, `GET /rest/organizationAcls?q=roleAssignee` and `GET /rest/organizations/{id}` (need
 * `rw_organization_admin`). Access tokens live 60 days; refresh tokens (LinkedIn's partner
 * programme) 365 days, not rotated and not extended by a refresh (`refresh_token_expires_in`
 * counts down). LinkedIn echoes the granted scopes comma-separated and refuses every bad code or
 * refresh token with 400 `invalid_request`. Each simulated member administers two pages.
 *
 * Two apps, as LinkedIn's developer portal allows them: the member app (products "Sign In with
 * LinkedIn using OpenID Connect" and "Share on LinkedIn": `openid profile email w_member_social`)
 * and the page app, whose only product is the Community Management API (LinkedIn requires it to be
 * alone on its app), so it cannot grant `openid`, `profile` or `email`: identity comes from
 * `/v2/me` with `r_basicprofile`. Consent for a scope the app's products do not grant is refused as
 * LinkedIn refuses it: a redirect with `error=unauthorized_scope_error` and
 * `Scope "<scope>" is not authorized for your application`, the whole request failing.
 */

/** What the member app (Sign In with LinkedIn using OpenID Connect, Share on LinkedIn) can grant. */
export const LINKEDIN_MEMBER_APP_SCOPES = [
  'openid',
  'profile',
  'email',
  'w_member_social',
  // Restricted (approved partners only); a member app that has them can ask for them.
  'r_member_social',
];
/** What the page app (Community Management API, alone on its app) can grant. */
export const LINKEDIN_PAGE_APP_SCOPES = [
  'r_basicprofile',
  'w_member_social',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
  'r_organization_admin',
];

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

/** The refusal of a call the token's grant has no scope for, in LinkedIn's words. */
export const linkedInAccessDenied = (resource: string): SimResponse =>
  restError(403, 'ACCESS_DENIED', `Not enough permissions to access: ${resource}`, 100);

export interface LinkedInOAuthSimulatorOptions {
  /** The member app (default: the preset `linkedin` app). */
  app?: SimOAuthApp;
  /** The page app, Community Management API only (default: the preset `linkedin_page` app, with the member app's redirect URIs). */
  pageApp?: SimOAuthApp;
  lifetimes?: Partial<SimLifetimes>;
}

export type LinkedInOAuthMount = SimOAuthMount & {
  /** The grant behind a token the simulator issued; null for other tokens (which keep every right). */
  grantOf(token: string): SimGrant | null;
};

export const linkedInOAuthSimulator = (options: LinkedInOAuthSimulatorOptions = {}): LinkedInOAuthMount => {
  const app = options.app ?? simOAuthApp('linkedin');
  const pageApp = options.pageApp ?? simOAuthApp('linkedin_page', app.redirectUris);
  const apps = [app, pageApp];
  /**
   * The client a token or revoke request authenticated as (HTTP Basic or the form's client_id and
   * client_secret, one of the two apps'); null when LinkedIn refuses it (`invalid_client`).
   */
  const authenticatedClient = (ctx: SimContext, params: Record<string, string>): string | null => {
    const client = clientCredentials(ctx.headers, params);
    return apps.some((a) => client?.clientId === a.clientId && client.clientSecret === a.clientSecret)
      ? (client?.clientId ?? null)
      : null;
  };
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
  const authenticated = (ctx: SimContext) => {
    const token = bearerOf(ctx);
    const grant = token ? store.grantOf(token) : null;
    return { token, grant };
  };
  /** The grant of the request, which must hold one of `anyOf` (LinkedIn's 403 otherwise); 401 without one. */
  const granted = (ctx: SimContext, anyOf: string[], resource: string): SimGrant => {
    const { grant } = authenticated(ctx);
    if (!grant) throw new SimHttpError(restError(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600));
    if (!anyOf.some((scope) => grant.scopes.includes(scope)))
      throw new SimHttpError(linkedInAccessDenied(resource));
    return grant;
  };

  const authorizeFor = (which: SimOAuthApp, knownScopes: string[]) =>
    authorizeRoute({
      knownScopes,
      scopeError: 'unauthorized_scope_error',
      unregisteredRedirect: () =>
        errorPage(
          400,
          'Bummer, something went wrong.',
          'The redirect_uri does not match the registered value',
        ),
      path: '/oauth/v2/authorization',
      app: which,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({ id: `sim${numericIdFor(`li:${user}`, 7)}`, name: `Simulated ${user}` }),
    });
  const memberAuthorize = authorizeFor(app, LINKEDIN_MEMBER_APP_SCOPES);
  const pageAuthorize = authorizeFor(pageApp, LINKEDIN_PAGE_APP_SCOPES);

  return Object.assign(
    mountOf(store, [
      {
        method: 'GET',
        path: '/oauth/v2/authorization',
        auth: false,
        handler: async (ctx) => {
          const route = ctx.query.get('client_id') === pageApp.clientId ? pageAuthorize : memberAuthorize;
          const consent = await route.handler(ctx);
          // LinkedIn names the first scope the app's products do not grant.
          const location = consent.headers?.location;
          if (typeof location !== 'string') return consent;
          const back = new URL(location);
          if (back.searchParams.get('error') !== 'unauthorized_scope_error') return consent;
          const scope = /^Unknown scope: ([^,]+)/.exec(back.searchParams.get('error_description') ?? '')?.[1];
          back.searchParams.set(
            'error_description',
            `Scope "${scope}" is not authorized for your application`,
          );
          return { ...consent, headers: { ...consent.headers, location: back.toString() } };
        },
      },
      {
        method: 'POST',
        path: '/oauth/v2/accessToken',
        auth: false,
        handler: (ctx) => {
          const params = paramsOf(ctx);
          const clientId = authenticatedClient(ctx, params);
          if (!clientId) return oauthError(401, 'invalid_client', 'Client authentication failed');
          if (params.grant_type === 'authorization_code') {
            const grant = orRefuse(
              store.redeemCode({
                code: params.code ?? '',
                clientId,
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
              orRefuse(store.refresh(params.refresh_token ?? '', clientId), () =>
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
          if (!authenticatedClient(ctx, params)) {
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
          // OpenID Connect's userinfo needs `openid` (a Community Management app cannot have it).
          const grant = granted(ctx, ['openid'], 'userinfo.GET.NO_VERSION');
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
        path: '/v2/me',
        handler: (ctx) => {
          // The Profile API: the member behind the token, with `r_basicprofile` (or the older `r_liteprofile`).
          const grant = granted(ctx, ['r_basicprofile', 'r_liteprofile'], 'me.GET.NO_VERSION');
          const [first, ...rest] = grant.account.name.split(' ');
          const last = rest.join(' ');
          const localized = (value: string) => ({
            localized: { en_US: value },
            preferredLocale: { country: 'US', language: 'en' },
          });
          return {
            status: 200,
            body: {
              id: grant.account.id,
              localizedFirstName: first,
              localizedLastName: last,
              firstName: localized(first ?? ''),
              lastName: localized(last),
              vanityName: `member-${grant.account.id}`,
              localizedHeadline: '',
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/rest/organizationAcls',
        handler: (ctx) => {
          const grant = granted(
            ctx,
            ['rw_organization_admin', 'r_organization_admin'],
            'organizationAcls.FINDER-roleAssignee',
          );
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
          const grant = granted(ctx, ['rw_organization_admin', 'r_organization_admin'], 'organizations.GET');
          const org = simLinkedInOrganizations(grant.account.id).find((o) => o.id === ctx.params.id);
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
    ]),
    { grantOf: (token: string) => store.grantOf(token) },
  );
};
