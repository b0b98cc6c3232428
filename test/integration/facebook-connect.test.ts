import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { FacebookClient } from '../../functions/platforms/facebook/client.ts';
import { FACEBOOK_SCOPES, facebookAuth, GRAPH_VERSION } from '../../functions/platforms/facebook/oauth.ts';
import type { NetworkAuth, NetworkTarget, TokenSet } from '../../functions/ports/network-auth.ts';
import { SIM_GRAPH_PAGE_MAX, simFacebookAssets } from '../../simulators/facebook/oauth.ts';
import { type FacebookSimulator, startFacebookSimulator } from '../../simulators/facebook/simulator.ts';
import { SIM_DEFAULT_REDIRECT_URI } from '../../simulators/framework/oauth.ts';
import { blockInput, failureOf } from '../support/network.ts';

/**
 * Facebook Login against the simulator: the pages a login reaches (its `/me/accounts`, read
 * through every page of results, and, with `business_management`, the pages of its Business
 * Portfolios), and the permission each Graph route needs (Graph's 403 refusal, which the client
 * reports as a reconnect naming the permission).
 */

const app = SIM_OAUTH_APPS.facebook;
let sim: FacebookSimulator;
let auth: NetworkAuth;
let client: FacebookClient;

beforeAll(async () => {
  sim = await startFacebookSimulator();
  auth = facebookAuth({ baseUrls: { facebook: sim.url }, timeoutMs: 5_000 });
  client = new FacebookClient({ baseUrl: sim.url, timeoutMs: 5_000 });
});
afterAll(async () => {
  await sim?.stop();
});
beforeEach(() => {
  sim.reset();
});

/** Consent as `user` (granting only `granted` of what Herald asks, when given), then the code exchange. */
const connect = async (user: string, granted?: string[]): Promise<TokenSet> => {
  const url = new URL(
    (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app,
      redirectUri: SIM_DEFAULT_REDIRECT_URI,
      state: 'st',
      codeChallenge: null,
    }),
  );
  url.searchParams.set('sim_user', user);
  if (granted) url.searchParams.set('sim_scopes', granted.join(','));
  const consent = await fetch(url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const code = new URL(consent.headers.get('location') as string).searchParams.get('code') as string;
  return (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
    app,
    code,
    redirectUri: SIM_DEFAULT_REDIRECT_URI,
    codeVerifier: null,
  });
};

const targetsOf = (tokens: TokenSet) =>
  (auth.targets as NonNullable<NetworkAuth['targets']>)({ app, tokens });
const pageTokenOf = (tokens: TokenSet, target: NetworkTarget) =>
  (auth.targetTokens as NonNullable<NetworkAuth['targetTokens']>)({ app, tokens, target });

const graphGet = async (path: string, token: string) => {
  const response = await fetch(`${sim.url}/${GRAPH_VERSION}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as any };
};

/** The simulated user's account id, as Facebook Login names it (`GET /me`). */
const userIdOf = async (tokens: TokenSet) =>
  (await graphGet('/me?fields=id', tokens.accessToken)).body.id as string;

describe('Facebook pages: every page of /me/accounts, and the pages of Business Portfolios', () => {
  it('the simulator pages /me/accounts with Graph cursors, and lists portfolio pages only with business_management', async () => {
    const tokens = await connect('portfolio-graph');
    const first = await graphGet('/me/accounts?fields=id,name', tokens.accessToken);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(SIM_GRAPH_PAGE_MAX);
    expect(first.body.paging).toMatchObject({
      cursors: { before: expect.any(String), after: expect.any(String) },
      next: expect.stringContaining(`after=${first.body.paging.cursors.after}`),
    });
    const next = new URL(first.body.paging.next as string);
    const second = await graphGet(`/me/accounts${next.search}`, tokens.accessToken);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.paging.next).toBeUndefined();
    // Pages are listed with their token only when `access_token` is asked.
    expect(first.body.data[0].access_token).toBeUndefined();

    const businesses = await graphGet('/me/businesses', tokens.accessToken);
    expect(businesses.body.data).toHaveLength(2);
    const owned = await graphGet(
      `/${businesses.body.data[0].id}/owned_pages?fields=id,name`,
      tokens.accessToken,
    );
    expect(owned.body.data).toHaveLength(SIM_GRAPH_PAGE_MAX);
    expect(owned.body.paging.next).toEqual(expect.any(String));

    const without = await connect(
      'portfolio-graph',
      FACEBOOK_SCOPES.filter((scope) => scope !== 'business_management'),
    );
    const refused = await graphGet('/me/businesses', without.accessToken);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      type: 'OAuthException',
      code: 200,
      message: expect.stringContaining('business_management'),
      fbtrace_id: expect.any(String),
    });
    expect((await graphGet(`/${businesses.body.data[0].id}/client_pages`, without.accessToken)).status).toBe(
      403,
    );
  });

  it('connects every page of a portfolio user: both pages of /me/accounts results, and each portfolio’s owned and client pages, once each', async () => {
    const tokens = await connect('portfolio-connect');
    expect(tokens.scopes).toEqual(expect.arrayContaining(['business_management', 'pages_show_list']));
    const assets = simFacebookAssets(await userIdOf(tokens), 'portfolio-connect');
    const expected = new Set([
      ...assets.accounts.map((p) => p.id),
      ...assets.businesses.flatMap((b) => [...b.owned, ...b.client].map((p) => p.id)),
    ]);
    // More than one page of /me/accounts results, pages only a portfolio reaches, a client page,
    // and a page listed twice (a classic role on a page its portfolio owns).
    expect(assets.accounts.length).toBeGreaterThan(SIM_GRAPH_PAGE_MAX);
    expect(assets.businesses.flatMap((b) => b.client)).not.toEqual([]);
    expect(expected.size).toBe(9);

    const targets = await targetsOf(tokens);
    expect(targets.map((t) => t.targetId).sort()).toEqual([...expected].sort());
    expect(targets.every((t) => t.platform === 'facebook' && t.kind === 'page')).toBe(true);
    // Each connects with its own page token, which publishes as that page.
    for (const target of targets) {
      const pageTokens = await pageTokenOf(tokens, target);
      expect(pageTokens).toMatchObject({ expiresAt: null, refreshToken: null });
      const post = await client.publish(
        blockInput({ accessToken: pageTokens.accessToken, remoteAccountId: target.targetId })(
          `hello from ${target.name}`,
        ),
      );
      expect(post.remoteId.startsWith(`${target.targetId}_`)).toBe(true);
    }
  });

  it('without business_management granted, every /me/accounts page is offered (across its pages of results), and no portfolio is read', async () => {
    const tokens = await connect(
      'portfolio-declined',
      FACEBOOK_SCOPES.filter((scope) => scope !== 'business_management'),
    );
    expect(tokens.scopes).not.toContain('business_management');
    const assets = simFacebookAssets(await userIdOf(tokens), 'portfolio-declined');
    expect((await targetsOf(tokens)).map((t) => t.targetId).sort()).toEqual(
      assets.accounts.map((p) => p.id).sort(),
    );
  });

  it('an ordinary user keeps its two pages', async () => {
    const tokens = await connect('plain');
    expect(await targetsOf(tokens)).toHaveLength(2);
  });
});

describe('Facebook permissions: each Graph route needs its own, and Herald asks for all it uses', () => {
  it('Herald asks for every permission its calls need, business_management included; the login grants only what was asked and consented to', async () => {
    const url = new URL(
      (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
        app,
        redirectUri: SIM_DEFAULT_REDIRECT_URI,
        state: 'st',
        codeChallenge: null,
      }),
    );
    expect((url.searchParams.get('scope') ?? '').split(',').sort()).toEqual(
      [
        'business_management',
        'pages_manage_engagement',
        'pages_manage_posts',
        'pages_read_engagement',
        'pages_read_user_content',
        'pages_show_list',
        'read_insights',
      ].sort(),
    );
    const partial = await connect('partial', ['pages_show_list', 'pages_manage_posts', 'public_profile']);
    // `public_profile` was not asked for: it is not granted.
    expect(partial.scopes.sort()).toEqual(['pages_manage_posts', 'pages_show_list']);
    expect(auth.capabilities?.(partial.scopes)).toMatchObject({
      publish: true,
      metrics: false,
      threads: false,
    });
  });

  /** A page token of a login that granted all Herald asks but `missing`. */
  const pageWithout = async (missing: string) => {
    const tokens = await connect(
      `lacks-${missing}`,
      FACEBOOK_SCOPES.filter((scope) => scope !== missing),
    );
    const [target] = await targetsOf(tokens);
    const page = target as NetworkTarget;
    const pageTokens = await pageTokenOf(tokens, page);
    return { accessToken: pageTokens.accessToken, remoteAccountId: page.targetId };
  };

  it('publishing without pages_manage_posts: Graph’s 403 (#200) OAuthException, reported as a reconnect naming the permission', async () => {
    const credentials = await pageWithout('pages_manage_posts');
    const raw = await fetch(`${sim.url}/${GRAPH_VERSION}/${credentials.remoteAccountId}/feed`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(raw.status).toBe(403);
    expect(((await raw.json()) as any).error).toMatchObject({
      type: 'OAuthException',
      code: 200,
      message: expect.stringMatching(/^\(#200\) .*pages_manage_posts/),
    });
    const error = await failureOf(client.publish(blockInput(credentials)('hello')));
    expect(error.kind).toBe('reconnect');
    expect(error.details.tokenExpired).toBeUndefined();
    expect(error.message).toMatch(/missing permission.*pages_manage_posts/);
    expect(sim.records()).toEqual([]);
  });

  it('lookups without pages_read_engagement: Graph’s 403 (#10), a reconnect naming it', async () => {
    const credentials = await pageWithout('pages_read_engagement');
    const raw = await graphGet(`/${credentials.remoteAccountId}/posts?fields=id`, credentials.accessToken);
    expect(raw.status).toBe(403);
    expect(raw.body.error).toMatchObject({ type: 'OAuthException', code: 10 });
    const error = await failureOf(
      client.lookup({ credentials, idempotencyKey: 'k', content: 'x', parent: null, since: new Date() }),
    );
    expect(error.kind).toBe('reconnect');
    expect(error.message).toMatch(/missing permission: pages_read_engagement/);
  });

  it('comments without pages_manage_engagement, and metrics without read_insights, are refused naming the permission; the rest works', async () => {
    const noEngagement = await pageWithout('pages_manage_engagement');
    const post = await client.publish(blockInput(noEngagement)('a post'));
    const comment = await failureOf(
      client.publish(blockInput(noEngagement)('a comment', { parent: { block: post, root: post } })),
    );
    expect(comment.kind).toBe('reconnect');
    expect(comment.message).toMatch(/missing permission: pages_manage_engagement/);

    const noInsights = await pageWithout('read_insights');
    const measured = await client.publish(blockInput(noInsights)('measured'));
    const metrics = await failureOf(client.metrics({ credentials: noInsights, block: measured }));
    expect(metrics.kind).toBe('reconnect');
    expect(metrics.message).toMatch(/missing permission: read_insights/);
    // Editing and deleting a post need pages_manage_posts, which this token has.
    await client.edit({ credentials: noInsights, block: measured, content: 'measured, edited' });
    await client.delete({ credentials: noInsights, block: measured });
  });

  it('with every permission Herald asks, a page token posts, comments, reads, measures, edits and deletes', async () => {
    const tokens = await connect('complete');
    const [target] = await targetsOf(tokens);
    const credentials = {
      accessToken: (await pageTokenOf(tokens, target as NetworkTarget)).accessToken,
      remoteAccountId: (target as NetworkTarget).targetId,
    };
    const since = new Date(Date.now() - 2_000);
    const post = await client.publish(blockInput(credentials)('all of it'));
    const comment = await client.publish(
      blockInput(credentials)('its comment', { parent: { block: post, root: post } }),
    );
    expect(
      await client.lookup({ credentials, idempotencyKey: 'k', content: 'all of it', parent: null, since }),
    ).toMatchObject({ remoteId: post.remoteId });
    expect(Object.keys(await client.metrics({ credentials, block: post })).sort()).toContain('likes');
    await client.edit({ credentials, block: comment, content: 'its comment, edited' });
    await client.delete({ credentials, block: comment });
    await client.delete({ credentials, block: post });
  });
});
