import { grantsMetrics } from '../../domain/platforms/metrics-permissions.ts';
import type { NetworkAuth, NetworkAuthConfig, NetworkTarget, TokenSet } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { hostOf, oauthCall, requireString, tokenSetOf, urlWith } from '../oauth-http.ts';

/**
 * Facebook Pages through Facebook Login (Graph API). Consent at
 * `https://www.facebook.com/{version}/dialog/oauth`; the code gives a short-lived user token
 * (`GET /{version}/oauth/access_token`), at once exchanged for a long-lived one (about 60 days,
 * `grant_type=fb_exchange_token`); the granted permissions come from `GET /me/permissions`. Pages
 * are targets, each with its own page token, which does not expire while the login stands: those
 * of `GET /me/accounts` and, with `business_management`, those of the user's Business Portfolios
 * (`GET /me/businesses`, then `/{business}/owned_pages` and `/{business}/client_pages`), every
 * list read through all its pages of results and the pages deduplicated by id. Refresh repeats the exchange with the current long-lived user token (the sweep does
 * it once the token is a week old); a page token is never exchanged: its refresh checks that it is
 * still accepted and keeps it. Revoke is `DELETE /me/permissions`.
 */
/**
 * The Graph API version every Facebook call names (Login and the Pages API alike). Meta keeps a
 * version for about two years after its release, so v21.0 (October 2024) is at its end; this is
 * v25.0, a current version (the reference shows v24.0 to v27.0 in use).
 */
export const GRAPH_VERSION = 'v25.0';
/**
 * Every permission the client's calls need (each Graph call names its own in client.ts):
 * `pages_show_list` (the page lists, and videos, reels and stories), `pages_manage_posts` and
 * `pages_read_engagement` (publishing, editing and deleting posts; reading the page's posts,
 * videos, stories and comments for lookups), `pages_read_user_content` (people's comments under
 * the page's posts: the comments Herald lists and answers), `pages_manage_engagement` (comments
 * and replies as the page, and their deletes),
 * `read_insights` (post insights), and `business_management`: without it Graph lists no page the
 * user reaches only through a Business Portfolio (`/me/businesses`, then each portfolio's
 * `owned_pages` and `client_pages`), which under the New Pages Experience is most pages of a
 * business (peers met it: https://github.com/getopenpost/openpost/issues/216,
 * https://github.com/trypostit/trypost/pull/301).
 */
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_read_user_content',
  'pages_manage_engagement',
  'read_insights',
  'business_management',
];

/** Graph answers a list in pages; at most this many are read from one list (100 entries each). */
const MAX_LIST_PAGES = 50;

interface ListedPage {
  id?: unknown;
  name?: unknown;
  access_token?: unknown;
}

export const facebookAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const www = hostOf(config.baseUrls, 'facebook', 'https://www.facebook.com');
  const graph = `${hostOf(config.baseUrls, 'facebook', 'https://graph.facebook.com')}/${GRAPH_VERSION}`;
  const network = 'Facebook';
  const common = { network, timeoutMs: config.timeoutMs };

  const longLived = async (
    app: { clientId: string; clientSecret: string },
    token: string,
    scopes: string[],
  ) => {
    const answer = await oauthCall({
      ...common,
      method: 'GET',
      url: `${graph}/oauth/access_token`,
      query: {
        grant_type: 'fb_exchange_token',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        fb_exchange_token: token,
      },
      grant: true,
    });
    return tokenSetOf(network, answer.body, { fallbackScopes: scopes });
  };
  const granted = async (token: string) => {
    const answer = await oauthCall({
      ...common,
      method: 'GET',
      url: `${graph}/me/permissions`,
      bearer: token,
      grant: false,
    });
    const data = (answer.body as { data?: unknown }).data;
    return (Array.isArray(data) ? data : [])
      .filter((p: { status?: unknown }) => p.status === 'granted')
      .map((p: { permission?: unknown }) => p.permission)
      .filter((p): p is string => typeof p === 'string');
  };
  /**
   * Every entry of a Graph list edge: Graph answers at most `limit` entries (possibly fewer) and
   * `paging.next` while more follow, so the next page is asked from `paging.cursors.after` (on
   * Herald's own Graph URL: the `next` link itself is not followed) until no `next` comes.
   */
  const list = async (path: string, fields: string, token: string): Promise<unknown[]> => {
    const entries: unknown[] = [];
    let after: string | undefined;
    for (let n = 0; n < MAX_LIST_PAGES; n++) {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}${path}`,
        query: { fields, limit: '100', ...(after === undefined ? {} : { after }) },
        bearer: token,
        grant: false,
      });
      const body = answer.body as {
        data?: unknown;
        paging?: { next?: unknown; cursors?: { after?: unknown } };
      };
      if (Array.isArray(body.data)) entries.push(...body.data);
      const cursor = body.paging?.cursors?.after;
      if (typeof body.paging?.next !== 'string' || typeof cursor !== 'string' || cursor === after) break;
      after = cursor;
    }
    return entries;
  };
  /** A portfolio list Graph refuses (no access to that business, or a permission) reaches no page. */
  const unlessRefused = async (read: () => Promise<unknown[]>): Promise<unknown[]> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof NetworkError && error.kind === 'permanent') return [];
      throw error;
    }
  };
  /**
   * Every page the login reaches, once each (by id, keeping a copy that carries a page token):
   * `/me/accounts` (pages with a classic Page role), then, with `business_management`, each
   * Business Portfolio's `owned_pages` and `client_pages` (`/me/businesses`), every list read to
   * its last page. A page listed with `fields=access_token` comes with its page token.
   */
  const pages = async (tokens: TokenSet): Promise<ListedPage[]> => {
    const fields = 'id,name,access_token';
    const found = new Map<string, ListedPage>();
    const add = (entries: unknown[]) => {
      for (const entry of entries as ListedPage[]) {
        if (entry === null || typeof entry !== 'object' || typeof entry.id !== 'string') continue;
        const known = found.get(entry.id);
        if (!known || (typeof known.access_token !== 'string' && typeof entry.access_token === 'string')) {
          found.set(entry.id, entry);
        }
      }
    };
    add(await list('/me/accounts', fields, tokens.accessToken));
    if (tokens.scopes.includes('business_management')) {
      const businesses = await unlessRefused(() => list('/me/businesses', 'id,name', tokens.accessToken));
      for (const business of businesses as { id?: unknown }[]) {
        if (typeof business?.id !== 'string') continue;
        for (const edge of ['owned_pages', 'client_pages']) {
          add(
            await unlessRefused(() =>
              list(`/${encodeURIComponent(business.id as string)}/${edge}`, fields, tokens.accessToken),
            ),
          );
        }
      }
    }
    return [...found.values()];
  };

  return {
    platform: 'facebook',
    kind: 'oauth2',
    usesPkce: false,
    scopes: FACEBOOK_SCOPES,
    policy: { marginSeconds: 86400, proactiveAfterSeconds: 7 * 86400, rotatesRefreshToken: false },
    hasTargets: true,
    authorizeUrl: ({ app, redirectUri, state }) =>
      urlWith(`${www}/${GRAPH_VERSION}/dialog/oauth`, {
        client_id: app.clientId,
        redirect_uri: redirectUri,
        state,
        response_type: 'code',
        scope: FACEBOOK_SCOPES.join(','),
      }),
    exchangeCode: async ({ app, code, redirectUri }) => {
      const short = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/oauth/access_token`,
        query: { client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: redirectUri, code },
        grant: true,
      });
      const shortToken = requireString(network, short.body, 'access_token');
      const tokens = await longLived(app, shortToken, []);
      return { ...tokens, scopes: await granted(tokens.accessToken) };
    },
    identify: async ({ tokens }) => {
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${graph}/me`,
        query: { fields: 'id,name' },
        bearer: tokens.accessToken,
        grant: false,
      });
      return {
        remoteAccountId: requireString(network, answer.body, 'id'),
        name: requireString(network, answer.body, 'name'),
      };
    },
    targets: async ({ tokens }) =>
      (await pages(tokens)).map(
        (page): NetworkTarget => ({
          targetId: page.id as string,
          name: typeof page.name === 'string' ? page.name : (page.id as string),
          platform: 'facebook',
          kind: 'page',
        }),
      ),
    targetTokens: async ({ tokens, target }) => {
      const page = (await pages(tokens)).find((p) => p.id === target.targetId);
      if (!page || typeof page.access_token !== 'string') {
        throw new NetworkError(
          'permanent',
          `Facebook gave no access to page ${target.targetId} with this login`,
          {},
        );
      }
      // A page token from a long-lived user token does not expire; it has no refresh token of its own.
      return {
        accessToken: page.access_token,
        refreshToken: null,
        expiresAt: null,
        refreshExpiresAt: null,
        scopes: tokens.scopes,
        issuedAt: new Date().toISOString(),
      };
    },
    refresh: async ({ app, tokens }) => {
      if (tokens.expiresAt === null) {
        // A page token: it does not expire and cannot be exchanged (that would turn it into a user
        // token, which cannot post as the page). It stays valid while the login stands: check that.
        await oauthCall({
          ...common,
          method: 'GET',
          url: `${graph}/me`,
          query: { fields: 'id' },
          bearer: tokens.accessToken,
          grant: true,
        });
        return { ...tokens, issuedAt: new Date().toISOString() };
      }
      return { ...(await longLived(app, tokens.accessToken, tokens.scopes)), scopes: tokens.scopes };
    },
    revoke: async ({ tokens }) => {
      await oauthCall({
        ...common,
        method: 'DELETE',
        url: `${graph}/me/permissions`,
        bearer: tokens.accessToken,
        grant: false,
      });
    },
    capabilities: (scopes) => {
      const has = (scope: string) => scopes.includes(scope);
      const publish = has('pages_manage_posts') && has('pages_show_list');
      return {
        publish,
        manage: publish,
        threads: publish && has('pages_manage_engagement'),
        metrics: grantsMetrics('facebook', scopes),
      };
    },
  };
};
