import {
  type SimContext,
  SimHttpError,
  type SimOAuthMount,
  type SimResponse,
  type SimRoute,
} from '../framework/framework.ts';
import {
  exchangeForLongLived,
  GRAPH_ERRORS,
  graphGrantFaults,
  graphTokenAnswer,
  REDIRECT_URI_MISMATCH,
  redeemGraphCode,
  withGrantFaults,
} from '../framework/meta-graph.ts';
import {
  authorizeRoute,
  clientCredentials,
  errorPage,
  mountOf,
  numericIdFor,
  paramsOf,
  requireGrant,
  type SimGrant,
  type SimOAuthApp,
  SimTokenStore,
  simOAuthApp,
} from '../framework/oauth.ts';

interface SimPage {
  id: string;
  name: string;
}

/** A page of a simulated user, with a classic Page role (listed by `/me/accounts`). */
const classicPage = (userId: string, n: number): SimPage => ({
  id: numericIdFor(`fb-page:${userId}:${n}`, 15),
  name: `Page ${n} of ${userId}`,
});

/** A page a simulated user reaches only through a Business Portfolio. */
const businessPage = (userId: string, label: string): SimPage => ({
  id: numericIdFor(`fb-biz-page:${userId}:${label}`, 15),
  name: `Business page ${label} of ${userId}`,
});

/** What a simulated user reaches: pages with a classic role, and Business Portfolios with their pages. */
export interface SimFacebookAssets {
  accounts: SimPage[];
  businesses: { id: string; name: string; owned: SimPage[]; client: SimPage[] }[];
}

/**
 * The pages a simulated user manages. Any `sim_user` has two pages with a classic Page role
 * (`/me/accounts`). A `sim_user` starting with `portfolio` is the New Pages Experience case: four
 * pages with a classic role (more than one page of `/me/accounts` results), and two Business
 * Portfolios (`/me/businesses`): the first owns one of those four pages again plus three pages
 * `/me/accounts` does not list, and manages one client page of another business; the second owns
 * one page. Nine distinct pages in all, five of them reachable only with `business_management`.
 */
export const simFacebookAssets = (userId: string, simUser = ''): SimFacebookAssets => {
  if (!simUser.startsWith('portfolio')) {
    return { accounts: [1, 2].map((n) => classicPage(userId, n)), businesses: [] };
  }
  const accounts = [1, 2, 3, 4].map((n) => classicPage(userId, n));
  return {
    accounts,
    businesses: [
      {
        id: numericIdFor(`fb-business:${userId}:1`, 15),
        name: `Business 1 of ${userId}`,
        owned: [accounts[3] as SimPage, ...['1a', '1b', '1c'].map((l) => businessPage(userId, l))],
        client: [businessPage(userId, 'client')],
      },
      {
        id: numericIdFor(`fb-business:${userId}:2`, 15),
        name: `Business 2 of ${userId}`,
        owned: [businessPage(userId, '2a')],
        client: [],
      },
    ],
  };
};

/** The two classic pages of an ordinary simulated user. */
export const simFacebookPages = (userId: string) => simFacebookAssets(userId).accounts;

/**
 * Graph's refusal of a call the token's permissions do not cover (HTTP 403, `OAuthException`):
 * code 200 for publishing and managing ("(#200) If posting to a page, requires both
 * pages_read_engagement and pages_manage_posts as an admin with sufficient administrative
 * permission", the text Graph sends for a page post), code 10 for reading ("(#10) This endpoint
 * requires the 'pages_read_engagement' permission or the 'Page Public Content Access' feature").
 * Both codes are Graph's permission errors (https://developers.facebook.com/docs/graph-api/guides/error-handling:
 * 10 and 200-299 "Permission denied"); the SDKs map them alike (facebook php-graph-sdk:
 * `$code == 10 || ($code >= 200 && $code <= 299)` is FacebookPermissionException).
 */
export const graphPermissionError = (code: 10 | 200, message: string): SimResponse => ({
  ...GRAPH_ERRORS.error(403, message, code),
});

/** The permissions a grant lacks among `needed`; empty for tokens the simulator did not issue. */
export const missingScopes = (grant: SimGrant | null, needed: readonly string[]) =>
  grant ? needed.filter((scope) => !grant.scopes.includes(scope)) : [];

/** Lists as Graph pages them: `limit` (default 25) but never more than this many per answer. */
export const SIM_GRAPH_PAGE_MAX = 3;

/**
 * One page of a Graph list edge: `limit` (default 25) entries from the `after` cursor, never more
 * than `SIM_GRAPH_PAGE_MAX` (Graph documents `limit` as a maximum: "a query may return fewer",
 * so a client follows `paging.next`), with `paging.cursors.before/after` and `paging.next` (the
 * same request from the next cursor) while more follow.
 */
export const graphPage = <T>(
  ctx: Pick<SimContext, 'query' | 'path' | 'headers'>,
  items: T[],
): SimResponse => {
  const cursor = ctx.query.get('after');
  let start = 0;
  if (cursor !== null) {
    const decoded = Number(
      Buffer.from(cursor, 'base64url')
        .toString('utf8')
        .replace(/^offset:/, ''),
    );
    if (!Number.isInteger(decoded) || decoded < 0) {
      return GRAPH_ERRORS.error(400, '(#100) The after cursor is not valid', 100);
    }
    start = decoded;
  }
  const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), SIM_GRAPH_PAGE_MAX);
  const data = items.slice(start, start + limit);
  const end = start + data.length;
  const encode = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
  const paging: Record<string, unknown> = {
    cursors: { before: encode(start), after: encode(end) },
  };
  if (end < items.length) {
    const next = new URL(`http://${ctx.headers.host ?? '127.0.0.1'}${ctx.path}`);
    for (const [key, value] of ctx.query)
      if (key !== 'after' && key !== 'before') next.searchParams.set(key, value);
    next.searchParams.set('after', encode(end));
    paging.next = next.toString();
  }
  return { status: 200, body: { data, paging } };
};

/** Facebook Login's mount, and which page a page token it issued acts as. */
export interface FacebookOAuthMount extends SimOAuthMount {
  /** The page a page token stands for; undefined for user tokens and tokens it did not issue. */
  pageOf(token: string): string | undefined;
  /** The grant behind a token it issued (user or page token); null for tokens it did not issue. */
  grantOf(token: string): SimGrant | null;
}

/**
 * Facebook Login on the simulator, with the Graph API's paths (any `v…` version) and shapes:
 * `GET /:version/dialog/oauth` (www.facebook.com), `GET /:version/oauth/access_token` for the code
 * (a short-lived user token, 2 hours) and with `grant_type=fb_exchange_token` for a long-lived one
 * (60 days), `GET /:version/me`, `GET /:version/me/permissions`, `DELETE /:version/me/permissions`
 * (revokes the login), `GET /:version/me/accounts` (the pages the user holds a classic role on,
 * `pages_show_list`), `GET /:version/me/businesses` and `GET /:version/{business}/owned_pages` /
 * `client_pages` (Business Portfolios and their pages, `business_management`); a page listed
 * with `fields=access_token` carries a page token that does not expire but dies with the login.
 * Every list is paged (`graphPage`). The login grants only the scopes the authorize request asked
 * for and the user consented to (`sim_scopes`); a list the grant does not cover is Graph's 403
 * permission error. Errors are Graph's `{ error: { message, type, code, error_subcode, fbtrace_id
 * } }`: code 190 (subcode 463 expired, 460 revoked) for a refused token, 100 for a bad code, 1 for
 * a bad app secret. Simulated users' pages: `simFacebookAssets`. The grant endpoints (the code and
 * token exchange, `/me`) have the fault switch of `graphGrantFaults`.
 */
export const facebookOAuthSimulator = (options: { app?: SimOAuthApp } = {}): FacebookOAuthMount => {
  const app = options.app ?? simOAuthApp('facebook');
  const store = new SimTokenStore({
    prefix: 'fb',
    defaults: { accessSeconds: 7200, refreshSeconds: null },
    rotates: false,
    issuesRefresh: false,
  });
  /** Page tokens: `/me` with one is the page. */
  const pageTokens = new Map<string, { id: string; name: string }>();
  const pageToken = (grant: SimGrant, page: { id: string; name: string }) => {
    const token = store.issueLasting(grant);
    pageTokens.set(token, page);
    return token;
  };
  const assetsOf = (grant: SimGrant) => simFacebookAssets(grant.account.id, grant.account.extra?.simUser);
  /** Graph refuses a call whose permissions the token lacks (see `graphPermissionError`). */
  const requireScopes = (grant: SimGrant, needed: readonly string[], code: 10 | 200) => {
    const missing = missingScopes(grant, needed);
    if (missing.length > 0) {
      throw new SimHttpError(
        graphPermissionError(
          code,
          code === 10
            ? `(#10) This endpoint requires the '${missing.join("', '")}' permission`
            : `(#200) Requires ${missing.join(' and ')} permission to manage the object`,
        ),
      );
    }
  };
  /** A page as a page list shows it: `access_token` only when the `fields` ask for it. */
  const pageEntry = (ctx: SimContext, grant: SimGrant, page: SimPage) => {
    const fields = (ctx.query.get('fields') ?? 'id,name').split(',').map((f) => f.trim());
    return {
      id: page.id,
      ...(fields.includes('name') ? { name: page.name } : {}),
      ...(fields.includes('category') ? { category: 'Brand' } : {}),
      ...(fields.includes('access_token') ? { access_token: pageToken(grant, page) } : {}),
      ...(fields.includes('tasks')
        ? { tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'] }
        : {}),
    };
  };
  const faults = graphGrantFaults();
  const checkApp = (params: Record<string, string>) => {
    const client = clientCredentials({}, params);
    if (client?.clientId !== app.clientId)
      return GRAPH_ERRORS.error(400, 'Error validating application. Invalid application ID.', 101);
    if (client.clientSecret !== app.clientSecret)
      return GRAPH_ERRORS.error(400, 'Error validating client secret.', 1);
    return null;
  };

  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: [
        'public_profile',
        'email',
        'pages_show_list',
        'pages_manage_posts',
        'pages_read_engagement',
        'pages_manage_engagement',
        'pages_manage_metadata',
        'pages_read_user_content',
        'read_insights',
        'business_management',
        'publish_video',
      ],
      unregisteredRedirect: () =>
        errorPage(
          400,
          'URL blocked',
          'This redirect failed because the redirect URI is not whitelisted in the app’s Client OAuth Settings. Make sure Client and Web OAuth Login are on and add all your app domains as Valid OAuth Redirect URIs.',
        ),
      path: '/:version/dialog/oauth',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => ({
        id: numericIdFor(`fb:${user}`, 16),
        name: `Simulated ${user}`,
        extra: { simUser: user },
      }),
    }),
    {
      method: 'GET',
      path: '/:version/oauth/access_token',
      auth: false,
      handler: (ctx) => {
        const fault = faults.take();
        if (fault) return fault;
        const params = paramsOf(ctx);
        const bad = checkApp(params);
        if (bad) return bad;
        if (params.grant_type === 'fb_exchange_token') {
          if (pageTokens.has(params.fb_exchange_token ?? '')) {
            return GRAPH_ERRORS.error(400, 'The access token is not a user access token.', 190);
          }
          return exchangeForLongLived(store, params.fb_exchange_token ?? '');
        }
        const grant = redeemGraphCode(store, app, params, (refusal) =>
          refusal.error === 'redirect_uri_mismatch'
            ? GRAPH_ERRORS.error(400, REDIRECT_URI_MISMATCH, 100, 36008)
            : GRAPH_ERRORS.error(400, 'This authorization code has been used.', 100, 36009),
        );
        return graphTokenAnswer(store.issue(grant));
      },
    },
    {
      method: 'GET',
      path: '/:version/me',
      auth: false,
      // Herald's page-token check calls it as the refresh of a page token.
      handler: (ctx) => {
        const fault = faults.take();
        if (fault) return fault;
        const { token, grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        const page = pageTokens.get(token);
        return {
          status: 200,
          body: page ? { id: page.id, name: page.name } : { id: grant.account.id, name: grant.account.name },
        };
      },
    },
    {
      method: 'GET',
      path: '/:version/me/permissions',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        return {
          status: 200,
          body: { data: grant.scopes.map((permission) => ({ permission, status: 'granted' })) },
        };
      },
    },
    {
      method: 'DELETE',
      path: '/:version/me/permissions',
      auth: false,
      handler: (ctx) => {
        const { token } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        store.revoke(token);
        return { status: 200, body: { success: true } };
      },
    },
    {
      method: 'GET',
      path: '/:version/me/accounts',
      auth: false,
      // The pages the user holds a classic Page role on (not those reached only through a
      // Business Portfolio), paged; each with a page token when `access_token` is asked.
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        requireScopes(grant, ['pages_show_list'], 10);
        const { accounts } = assetsOf(grant);
        return graphPage(
          ctx,
          accounts.map((page) => pageEntry(ctx, grant, page)),
        );
      },
    },
    {
      method: 'GET',
      path: '/:version/me/businesses',
      auth: false,
      // The Business Portfolios the user belongs to: `business_management` only.
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        requireScopes(grant, ['business_management'], 200);
        return graphPage(
          ctx,
          assetsOf(grant).businesses.map((business) => ({ id: business.id, name: business.name })),
        );
      },
    },
    ...(['owned_pages', 'client_pages'] as const).map(
      (edge): SimRoute => ({
        method: 'GET',
        path: `/:version/:business/${edge}`,
        auth: false,
        // A portfolio's own pages and the client pages it manages, paged: `business_management`
        // (and `pages_show_list`, as for any page list). A page token comes with a page when
        // `access_token` is asked, as on `/me/accounts` (the user can perform tasks on these pages).
        handler: (ctx) => {
          const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
          requireScopes(grant, ['business_management', 'pages_show_list'], 200);
          const business = assetsOf(grant).businesses.find((b) => b.id === ctx.params.business);
          if (!business) {
            return GRAPH_ERRORS.error(
              400,
              `Unsupported get request. Object with ID '${ctx.params.business}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
              100,
              33,
            );
          }
          const pages = edge === 'owned_pages' ? business.owned : business.client;
          return graphPage(
            ctx,
            pages.map((page) => pageEntry(ctx, grant, page)),
          );
        },
      }),
    ),
  ]);
  return {
    ...withGrantFaults(mount, faults),
    pageOf: (token) => pageTokens.get(token)?.id,
    grantOf: (token) => store.grantOf(token),
  };
};
