import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import { networkAuths } from '../../functions/platforms/auth-registry.ts';
import { BlueskyClient } from '../../functions/platforms/bluesky/client.ts';
import { blueskyAuth } from '../../functions/platforms/bluesky/oauth.ts';
import { FacebookClient } from '../../functions/platforms/facebook/client.ts';
import { facebookAuth, GRAPH_VERSION } from '../../functions/platforms/facebook/oauth.ts';
import { InstagramClient } from '../../functions/platforms/instagram/client.ts';
import { instagramAuth } from '../../functions/platforms/instagram/oauth.ts';
import { LinkedInClient } from '../../functions/platforms/linkedin/client.ts';
import { linkedInMemberAuth, linkedInPageAuth } from '../../functions/platforms/linkedin/oauth.ts';
import { PinterestClient } from '../../functions/platforms/pinterest/client.ts';
import { pinterestAuth } from '../../functions/platforms/pinterest/oauth.ts';
import { RedditClient } from '../../functions/platforms/reddit/client.ts';
import { redditAuth } from '../../functions/platforms/reddit/oauth.ts';
import { ThreadsClient } from '../../functions/platforms/threads/client.ts';
import { threadsAuth } from '../../functions/platforms/threads/oauth.ts';
import { tiktokCall } from '../../functions/platforms/tiktok/client.ts';
import { tiktokAuth } from '../../functions/platforms/tiktok/oauth.ts';
import { VimeoClient } from '../../functions/platforms/vimeo/client.ts';
import { vimeoAuth } from '../../functions/platforms/vimeo/oauth.ts';
import { XClient } from '../../functions/platforms/x/client.ts';
import { xAuth } from '../../functions/platforms/x/oauth.ts';
import { YouTubeClient } from '../../functions/platforms/youtube/client.ts';
import { youtubeAuth } from '../../functions/platforms/youtube/oauth.ts';
import type { NetworkAuth, TokenSet } from '../../functions/ports/network-auth.ts';
import type { NetworkClient } from '../../functions/ports/network-client.ts';
import { startBlueskySimulator } from '../../simulators/bluesky/simulator.ts';
import { startFacebookSimulator } from '../../simulators/facebook/simulator.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { pkceChallenge } from '../../simulators/framework/oauth.ts';
import { startInstagramSimulator } from '../../simulators/instagram/simulator.ts';
import { startLinkedInSimulator } from '../../simulators/linkedin/simulator.ts';
import { startPinterestSimulator } from '../../simulators/pinterest/simulator.ts';
import { startRedditSimulator } from '../../simulators/reddit/simulator.ts';
import { startThreadsSimulator } from '../../simulators/threads/simulator.ts';
import { startTikTokSimulator } from '../../simulators/tiktok/simulator.ts';
import { startVimeoSimulator } from '../../simulators/vimeo/simulator.ts';
import { startXSimulator } from '../../simulators/x/simulator.ts';
import { startYouTubeSimulator } from '../../simulators/youtube/simulator.ts';
import { blockInput, failureOf } from '../support/network.ts';

/**
 * Each network's NetworkAuth (functions/platforms/<network>/oauth.ts) against its simulator's
 * OAuth endpoints: authorize → code → exchange → identify → refresh (a rotating network refuses the
 * old refresh token) → revoke → refresh refused → reconnect; an expired access token is reported
 * by the network's client as `tokenExpired`.
 */

const REDIRECT = 'https://herald.example/v1/channels/callback';
const TIMEOUT = 5_000;

/** Follows the authorize URL to the simulator's consent, which redirects straight back. */
const consent = async (url: string, extra: Record<string, string> = {}) => {
  const target = new URL(url);
  for (const [key, value] of Object.entries(extra)) target.searchParams.set(key, value);
  const response = await fetch(target, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return location.searchParams;
};

const connect = async (auth: NetworkAuth, app: { clientId: string; clientSecret: string }, extra = {}) => {
  const state = randomBytes(12).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const url = (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
    app,
    redirectUri: REDIRECT,
    state,
    codeChallenge: auth.usesPkce ? pkceChallenge(verifier) : null,
  });
  const back = await consent(url, extra);
  expect(back.get('state')).toBe(state);
  const code = back.get('code') as string;
  expect(code).toBeTruthy();
  const tokens = await (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
    app,
    code,
    redirectUri: REDIRECT,
    codeVerifier: auth.usesPkce ? verifier : null,
  });
  return { tokens, code, verifier };
};

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const expectFuture = (iso: string | null, minSeconds: number, maxSeconds: number) => {
  expect(iso).not.toBeNull();
  const seconds = (Date.parse(iso as string) - Date.now()) / 1000;
  expect(seconds).toBeGreaterThan(minSeconds);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
};

describe('auth registry', () => {
  it('has an auth for X and Bluesky', () => {
    const auths = networkAuths({ baseUrls: {}, timeoutMs: TIMEOUT });
    expect(auths('x')?.platform).toBe('x');
    expect(auths('bluesky')?.kind).toBe('app_password');
  });
});

describe('X OAuth 2.0 with PKCE against the X simulator', () => {
  let sim: Simulator;
  let auth: NetworkAuth;
  const app = SIM_OAUTH_APPS.x;
  beforeAll(async () => {
    sim = await startXSimulator({ timelineLagMs: 0 });
    auth = xAuth({ baseUrls: { x: sim.url }, timeoutMs: TIMEOUT });
  });
  afterAll(async () => {
    await sim?.stop();
  });

  it('authorize URL: the real consent path, every scope Herald needs, S256 PKCE', () => {
    const real = xAuth({ baseUrls: {}, timeoutMs: TIMEOUT });
    const url = new URL(
      (real.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
        app,
        redirectUri: REDIRECT,
        state: 's',
        codeChallenge: 'c',
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://x.com/i/oauth2/authorize');
    expect(url.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write']),
    );
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('response_type')).toBe('code');
  });

  it('connects, identifies, refreshes with rotation, revokes; then refresh is refused with reconnect', async () => {
    const { tokens } = await connect(auth, app, { sim_user: 'alice' });
    expect(tokens.refreshToken).toBeTruthy();
    expectFuture(tokens.expiresAt, 7000, 7200);
    expect(tokens.scopes).toContain('tweet.write');

    const account = await auth.identify({ app, tokens });
    expect(account.remoteAccountId).toMatch(/^\d+$/);
    expect(account.name).toBe('alice');

    // The token publishes as the identified user.
    const client = new XClient({ baseUrl: sim.url, timeoutMs: TIMEOUT });
    const block = await client.publish(
      blockInput({ accessToken: tokens.accessToken, remoteAccountId: account.name })('hello'),
    );
    expect(sim.records().find((r) => r.id === block.remoteId)?.account).toBe(account.remoteAccountId);

    const refreshed = await auth.refresh({ app, tokens });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    expect((await auth.identify({ app, tokens: refreshed })).remoteAccountId).toBe(account.remoteAccountId);

    // X rotates: the refresh token just used is dead.
    const reused = await failureOf(auth.refresh({ app, tokens }));
    expect(reused.kind).toBe('reconnect');
    expect(reused.message).not.toContain(tokens.refreshToken as string);

    await (auth.revoke as NonNullable<NetworkAuth['revoke']>)({ app, tokens: refreshed });
    const afterRevoke = await failureOf(auth.refresh({ app, tokens: refreshed }));
    expect(afterRevoke.kind).toBe('reconnect');
    const used = await failureOf(
      client.publish(
        blockInput({ accessToken: refreshed.accessToken, remoteAccountId: 'alice' })('after revoke'),
      ),
    );
    expect(used.kind).toBe('reconnect');
  });

  it('a token granted fewer scopes is refused where X refuses it: bare 403, a message naming the scopes', async () => {
    // Granted without tweet.write: reads work, a post is refused.
    const reader = await connect(auth, app, {
      sim_user: 'carol',
      sim_scopes: 'tweet.read users.read offline.access',
    });
    expect(reader.tokens.scopes).not.toContain('tweet.write');
    expect((await auth.identify({ app, tokens: reader.tokens })).name).toBe('carol');
    const client = new XClient({ baseUrl: sim.url, timeoutMs: TIMEOUT });
    const raw = await fetch(`${sim.url}/2/tweets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader.tokens.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'no scope' }),
    });
    expect(raw.status).toBe(403);
    expect(await raw.json()).toEqual({
      title: 'Forbidden',
      detail: 'Forbidden',
      type: 'about:blank',
      status: 403,
    });
    const refused = await failureOf(
      client.publish(
        blockInput({ accessToken: reader.tokens.accessToken, remoteAccountId: 'carol' })('no scope'),
      ),
    );
    expect(refused.kind).toBe('permanent');
    expect(refused.message).toMatch(/tweet\.write.*reconnect/);
    expect(sim.records().filter((r) => r.text === 'no scope')).toEqual([]);
    // users.read without tweet.read cannot even read the user (X needs both).
    const userOnly = await connect(auth, app, { sim_user: 'dan', sim_scopes: 'users.read' });
    const me = await fetch(`${sim.url}/2/users/me`, {
      headers: { authorization: `Bearer ${userOnly.tokens.accessToken}` },
    });
    expect(me.status).toBe(403);
    // Without media.write, the media upload is refused.
    const noMedia = await connect(auth, app, {
      sim_user: 'erin',
      sim_scopes: 'tweet.read tweet.write users.read offline.access',
    });
    const init = await fetch(`${sim.url}/2/media/upload/initialize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${noMedia.tokens.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ media_type: 'image/png', total_bytes: 10, media_category: 'tweet_image' }),
    });
    expect(init.status).toBe(403);
  });

  it('an expired access token is tokenExpired at the client; a refresh brings it back', async () => {
    const { tokens } = await connect(auth, app, { sim_user: 'bob' });
    expect((await post(`${sim.url}/_sim/oauth/expire`, {})).status).toBe(204);
    const client = new XClient({ baseUrl: sim.url, timeoutMs: TIMEOUT });
    const input = blockInput({ accessToken: tokens.accessToken, remoteAccountId: 'bob' });
    const expired = await failureOf(client.publish(input('while expired')));
    expect(expired).toMatchObject({ kind: 'reconnect', details: { status: 401, tokenExpired: true } });
    const refreshed = await auth.refresh({ app, tokens });
    await client.publish(
      blockInput({ accessToken: refreshed.accessToken, remoteAccountId: 'bob' })('after refresh'),
    );
  });

  it('short lifetimes: tokens issued after POST /_sim/oauth/lifetimes expire that fast', async () => {
    expect((await post(`${sim.url}/_sim/oauth/lifetimes`, { accessSeconds: 1 })).status).toBe(204);
    try {
      const { tokens } = await connect(auth, app);
      expectFuture(tokens.expiresAt, 0, 1);
    } finally {
      await post(`${sim.url}/_sim/oauth/lifetimes`, { accessSeconds: null });
    }
  });

  it('refuses a wrong PKCE verifier, a replayed code and a wrong client secret', async () => {
    const state = 'st';
    const verifier = randomBytes(32).toString('base64url');
    const url = (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app,
      redirectUri: REDIRECT,
      state,
      codeChallenge: pkceChallenge(verifier),
    });
    const code = (await consent(url)).get('code') as string;
    const exchange = auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>;
    const wrong = await failureOf(
      exchange({ app, code, redirectUri: REDIRECT, codeVerifier: 'not-the-verifier' }),
    );
    expect(wrong.kind).toBe('reconnect');
    // The code was spent by the failed attempt: it cannot be replayed.
    const replay = await failureOf(exchange({ app, code, redirectUri: REDIRECT, codeVerifier: verifier }));
    expect(replay.kind).toBe('reconnect');
    const code2 = (await consent(url)).get('code') as string;
    const badApp = await failureOf(
      exchange({
        app: { ...app, clientSecret: 'wrong' },
        code: code2,
        redirectUri: REDIRECT,
        codeVerifier: verifier,
      }),
    );
    expect(badApp.kind).toBe('permanent');
    expect(badApp.message).not.toContain('wrong');
  });

  it('the user refusing consent comes back as error=access_denied', async () => {
    const url = (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app,
      redirectUri: REDIRECT,
      state: 's1',
      codeChallenge: 'c',
    });
    const back = await consent(url, { sim_deny: '1' });
    expect(back.get('error')).toBe('access_denied');
    expect(back.get('state')).toBe('s1');
    expect(back.get('code')).toBeNull();
  });

  it('like X, the simulator refuses an authorize request without PKCE or with an unknown scope', async () => {
    const authorize = auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>;
    const noPkce = await consent(authorize({ app, redirectUri: REDIRECT, state: 's2', codeChallenge: null }));
    expect(noPkce.get('error')).toBe('invalid_request');
    const url = new URL(authorize({ app, redirectUri: REDIRECT, state: 's3', codeChallenge: 'c' }));
    url.searchParams.set('scope', 'tweet.read tweet.writes');
    const unknown = await consent(url.toString());
    expect(unknown.get('error')).toBe('invalid_scope');
    expect(unknown.get('code')).toBeNull();
  });

  it('capabilities follow the granted scopes', async () => {
    expect(auth.capabilities(auth.scopes)).toEqual({
      publish: true,
      manage: true,
      threads: true,
      metrics: true,
    });
    const { tokens } = await connect(auth, app, { sim_scopes: 'tweet.read users.read' });
    expect(tokens.refreshToken).toBeNull();
    expect(auth.capabilities(tokens.scopes)).toMatchObject({ publish: false, metrics: true });
  });

  it('pasted tokens the simulator did not issue keep working', async () => {
    const client = new XClient({ baseUrl: sim.url, timeoutMs: TIMEOUT });
    await client.publish(blockInput({ accessToken: 'pasted-token', remoteAccountId: 'p' })('pasted'));
  });
});

describe('Bluesky app password sessions against the Bluesky simulator', () => {
  let sim: Simulator;
  let auth: NetworkAuth;
  const app = { clientId: '', clientSecret: '' };
  beforeAll(async () => {
    sim = await startBlueskySimulator();
    auth = blueskyAuth({ baseUrls: { bluesky: sim.url }, timeoutMs: TIMEOUT });
  });
  afterAll(async () => {
    await sim?.stop();
  });

  const session = (identifier = 'alice.bsky.social') =>
    (auth.createSession as NonNullable<NetworkAuth['createSession']>)({
      identifier,
      appPassword: 'abcd-efgh-ijkl-mnop',
      serviceUrl: 'https://bsky.social',
    });

  it('createSession → identify → refresh (rotation) → deleteSession → refresh refused', async () => {
    const { tokens, account } = await session();
    expect(account.remoteAccountId).toMatch(/^did:plc:/);
    expect(account.name).toBe('alice.bsky.social');
    expect(account.serviceUrl).toBe(sim.url);
    expectFuture(tokens.expiresAt, 7000, 7200);
    expectFuture(tokens.refreshExpiresAt, 89 * 86400, 90 * 86400);

    expect(await auth.identify({ app, tokens, serviceUrl: account.serviceUrl })).toEqual(account);

    const client = new BlueskyClient({ baseUrl: sim.url, timeoutMs: TIMEOUT });
    const credentials = {
      accessToken: tokens.accessToken,
      remoteAccountId: account.remoteAccountId,
      serviceUrl: account.serviceUrl,
    };
    await client.publish(blockInput(credentials)('hello'));

    const refreshed = await auth.refresh({ app, tokens, serviceUrl: account.serviceUrl });
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    const reused = await failureOf(auth.refresh({ app, tokens, serviceUrl: account.serviceUrl }));
    expect(reused.kind).toBe('reconnect');

    await (auth.revoke as NonNullable<NetworkAuth['revoke']>)({
      app,
      tokens: refreshed,
      serviceUrl: account.serviceUrl,
    });
    const afterRevoke = await failureOf(
      auth.refresh({ app, tokens: refreshed, serviceUrl: account.serviceUrl }),
    );
    expect(afterRevoke.kind).toBe('reconnect');
  });

  it('an expired access JWT is ExpiredToken → tokenExpired at the client; refresh brings it back', async () => {
    const { tokens, account } = await session('bob.bsky.social');
    expect((await post(`${sim.url}/_sim/oauth/expire`, {})).status).toBe(204);
    const client = new BlueskyClient({ baseUrl: sim.url, timeoutMs: TIMEOUT });
    const publish = (token: TokenSet) =>
      client.publish(
        blockInput({ accessToken: token.accessToken, remoteAccountId: account.remoteAccountId })('post'),
      );
    const expired = await failureOf(publish(tokens));
    expect(expired).toMatchObject({ kind: 'reconnect', details: { status: 400, tokenExpired: true } });
    await publish(await auth.refresh({ app, tokens }));
  });

  it('an expired refresh JWT is refused with reconnect', async () => {
    expect((await post(`${sim.url}/_sim/oauth/lifetimes`, { refreshSeconds: 1 })).status).toBe(204);
    try {
      const { tokens } = await session('carol.bsky.social');
      const past = { ...tokens, refreshToken: tokens.refreshToken };
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const refused = await failureOf(auth.refresh({ app, tokens: past }));
      expect(refused.kind).toBe('reconnect');
      expect(refused.message).toMatch(/ExpiredToken/);
    } finally {
      await post(`${sim.url}/_sim/oauth/lifetimes`, { refreshSeconds: null });
    }
  });

  it('a wrong app password is permanent (the client must fix it), not reconnect', async () => {
    const refused = await failureOf(
      (auth.createSession as NonNullable<NetworkAuth['createSession']>)({
        identifier: 'dave.bsky.social',
        appPassword: 'my-real-password',
        serviceUrl: 'https://bsky.social',
      }),
    );
    expect(refused.kind).toBe('permanent');
    expect(refused.message).not.toContain('my-real-password');
  });

  it('createSession is rate-limited like a PDS: 30 per 5 minutes per identifier', async () => {
    for (let i = 0; i < 30; i++) await session('eve.bsky.social');
    const limited = await failureOf(session('eve.bsky.social'));
    expect(limited).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
  });
});

/** One OAuth 2.0 network of the table below: its auth, simulator and a call through its real client. */
interface OAuthCase {
  platform: PlatformId;
  factory: (config: { baseUrls: Record<string, string>; timeoutMs: number }) => NetworkAuth;
  start(): Promise<{ url: string; stop(): Promise<void> }>;
  /** A post through the network's own client, as the account (or target) the tokens belong to. */
  use(url: string, tokens: TokenSet, accountId: string): Promise<unknown>;
  /** How the network's client reports an expired access token. */
  expiredStatus: number;
  /** Refreshing gives new tokens (false: Vimeo's tokens never expire and cannot be refreshed). */
  refreshes: boolean;
  rotates: boolean;
  revokes: boolean;
  /**
   * The refresh extends the access token itself (Facebook, Instagram, Threads long-lived tokens):
   * once it has expired, nothing can extend it and the channel must be reconnected.
   */
  extendsAccessToken?: boolean;
  /** The real consent page. */
  authorizePage: string;
}

/** A call that needs a valid token and nothing else: a lookup of the account's recent posts. */
const lookupWith =
  (clientFor: (url: string) => NetworkClient): OAuthCase['use'] =>
  async (url, tokens, accountId) => {
    const client = clientFor(url);
    if (!client.lookup) throw new Error(`${client.platform}'s client has no lookup`);
    return client.lookup({
      credentials: { accessToken: tokens.accessToken, remoteAccountId: accountId },
      idempotencyKey: randomBytes(8).toString('hex'),
      content: 'x',
      parent: null,
      since: new Date(),
    });
  };

const oauthCases: OAuthCase[] = [
  {
    platform: 'youtube',
    factory: youtubeAuth,
    start: () => startYouTubeSimulator(),
    // A lookup reads the channel's uploads playlist with the token.
    use: lookupWith((url) => new YouTubeClient({ baseUrl: url, timeoutMs: TIMEOUT })),
    expiredStatus: 401,
    refreshes: true,
    rotates: false,
    revokes: true,
    authorizePage: 'https://accounts.google.com/o/oauth2/v2/auth',
  },
  {
    platform: 'reddit',
    factory: redditAuth,
    start: () => startRedditSimulator(),
    use: (url, tokens, accountId) =>
      new RedditClient({ baseUrl: url, timeoutMs: TIMEOUT }).publish(
        blockInput({ accessToken: tokens.accessToken, remoteAccountId: accountId })(
          `hello ${randomBytes(4).toString('hex')}`,
          { title: 'OAuth check', options: { subreddit: 'heraldtest' } },
        ),
      ),
    expiredStatus: 401,
    refreshes: true,
    rotates: false,
    revokes: true,
    authorizePage: 'https://www.reddit.com/api/v1/authorize',
  },
  {
    platform: 'pinterest',
    factory: pinterestAuth,
    start: () => startPinterestSimulator(),
    // Pinterest's own client: the account's pins, looked up with the token.
    use: lookupWith((url) => new PinterestClient({ baseUrl: url, timeoutMs: TIMEOUT })),
    expiredStatus: 401,
    refreshes: true,
    // Continuous refresh tokens: each refresh answers a new one, and the simulator kills the old.
    rotates: true,
    revokes: false,
    authorizePage: 'https://www.pinterest.com/oauth/',
  },
  {
    platform: 'linkedin',
    factory: linkedInMemberAuth,
    start: () => startLinkedInSimulator(),
    use: (url, tokens, accountId) =>
      new LinkedInClient('linkedin', { baseUrl: url, timeoutMs: TIMEOUT }).publish(
        blockInput({ accessToken: tokens.accessToken, remoteAccountId: accountId })(
          `hello ${randomBytes(4).toString('hex')}`,
        ),
      ),
    expiredStatus: 401,
    refreshes: true,
    rotates: false,
    revokes: true,
    authorizePage: 'https://www.linkedin.com/oauth/v2/authorization',
  },
  {
    platform: 'linkedin_page',
    factory: linkedInPageAuth,
    start: () => startLinkedInSimulator(),
    use: (url, tokens, accountId) =>
      new LinkedInClient('linkedin_page', { baseUrl: url, timeoutMs: TIMEOUT }).publish(
        blockInput({ accessToken: tokens.accessToken, remoteAccountId: accountId })(
          `page ${randomBytes(4).toString('hex')}`,
        ),
      ),
    expiredStatus: 401,
    refreshes: true,
    rotates: false,
    revokes: true,
    authorizePage: 'https://www.linkedin.com/oauth/v2/authorization',
  },
  {
    platform: 'instagram',
    factory: instagramAuth,
    start: () => startInstagramSimulator(),
    // The media list needs a valid token and nothing else.
    use: lookupWith((url) => new InstagramClient({ baseUrl: url, timeoutMs: TIMEOUT })),
    // Graph answers a refused token with HTTP 400 and code 190.
    expiredStatus: 400,
    refreshes: true,
    rotates: false,
    revokes: false,
    extendsAccessToken: true,
    authorizePage: 'https://www.instagram.com/oauth/authorize',
  },
  {
    platform: 'tiktok',
    factory: tiktokAuth,
    start: () => startTikTokSimulator(),
    // TikTok's client starts every post with creator_info: a call that needs a valid token.
    use: (url, tokens, accountId) =>
      tiktokCall(
        { baseUrl: url, timeoutMs: TIMEOUT },
        { accessToken: tokens.accessToken, remoteAccountId: accountId },
        '/v2/post/publish/creator_info/query/',
        {},
      ),
    expiredStatus: 401,
    refreshes: true,
    rotates: true,
    revokes: true,
    authorizePage: 'https://www.tiktok.com/v2/auth/authorize/',
  },
  {
    platform: 'facebook',
    factory: facebookAuth,
    start: () => startFacebookSimulator(),
    // Graph answers a refused token with HTTP 400 and code 190.
    use: (url, tokens, accountId) =>
      new FacebookClient({ baseUrl: url, timeoutMs: TIMEOUT }).publish(
        blockInput({ accessToken: tokens.accessToken, remoteAccountId: accountId })(
          `page ${randomBytes(4).toString('hex')}`,
        ),
      ),
    expiredStatus: 400,
    refreshes: true,
    rotates: false,
    revokes: true,
    extendsAccessToken: true,
    authorizePage: `https://www.facebook.com/${GRAPH_VERSION}/dialog/oauth`,
  },
  {
    platform: 'threads',
    factory: threadsAuth,
    start: () => startThreadsSimulator(),
    use: (url, tokens, accountId) =>
      new ThreadsClient({ baseUrl: url, timeoutMs: TIMEOUT }).publish(
        blockInput({ accessToken: tokens.accessToken, remoteAccountId: accountId })(
          `thread ${randomBytes(4).toString('hex')}`,
        ),
      ),
    // Graph answers an expired session with 400, code 190, subcode 463.
    expiredStatus: 400,
    refreshes: true,
    rotates: false,
    revokes: false,
    extendsAccessToken: true,
    authorizePage: 'https://threads.net/oauth/authorize',
  },
  {
    platform: 'vimeo',
    factory: vimeoAuth,
    start: () => startVimeoSimulator(),
    // Vimeo's lookup reads the account's videos: it needs a valid token.
    use: lookupWith((url) => new VimeoClient({ baseUrl: url, timeoutMs: TIMEOUT })),
    expiredStatus: 401,
    refreshes: false,
    rotates: false,
    revokes: true,
    authorizePage: 'https://api.vimeo.com/oauth/authorize',
  },
];

describe.each(oauthCases)('$platform OAuth against its simulator', (c) => {
  let sim: { url: string; stop(): Promise<void> };
  let auth: NetworkAuth;
  const app = SIM_OAUTH_APPS[c.platform];
  beforeAll(async () => {
    sim = await c.start();
    auth = c.factory({ baseUrls: { [c.platform]: sim.url }, timeoutMs: TIMEOUT });
  });
  afterAll(async () => {
    await sim?.stop();
  });

  /** The account a post goes out as: the first target where the network has targets. */
  const postingAs = async (tokens: TokenSet) => {
    const account = await auth.identify({ app, tokens });
    if (!auth.hasTargets) return { account, as: account.remoteAccountId, tokens };
    const targets = await (auth.targets as NonNullable<NetworkAuth['targets']>)({ app, tokens });
    expect(targets.length).toBeGreaterThan(0);
    const target = targets[0] as NonNullable<(typeof targets)[number]>;
    const targetTokens = auth.targetTokens ? await auth.targetTokens({ app, tokens, target }) : tokens;
    return { account, as: target.targetId, tokens: targetTokens, target };
  };

  it('is registered, and its authorize URL is the real consent page with every scope', () => {
    expect(networkAuths({ baseUrls: {}, timeoutMs: TIMEOUT })(c.platform)?.platform).toBe(c.platform);
    const real = c.factory({ baseUrls: {}, timeoutMs: TIMEOUT });
    const url = new URL(
      (real.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
        app,
        redirectUri: REDIRECT,
        state: 'st',
        codeChallenge: real.usesPkce ? 'challenge' : null,
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(c.authorizePage);
    expect(url.searchParams.get('state')).toBe('st');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    const scope = url.searchParams.get('scope') ?? '';
    for (const wanted of real.scopes) expect(scope).toContain(wanted);
    expect(real.capabilities(real.scopes).publish).toBe(true);
  });

  it('connect → identify → post → refresh → revoke → refresh refused (reconnect)', async () => {
    const { tokens } = await connect(auth, app, { sim_user: `u${randomBytes(3).toString('hex')}` });
    expect(tokens.accessToken).toBeTruthy();
    expect(auth.capabilities(tokens.scopes).publish).toBe(true);
    const first = await postingAs(tokens);
    expect(first.account.remoteAccountId).toBeTruthy();
    await c.use(sim.url, first.tokens, first.as);

    if (!c.refreshes) {
      expect((await failureOf(auth.refresh({ app, tokens }))).kind).toBe('reconnect');
    } else {
      const refreshed = await auth.refresh({ app, tokens });
      expect(refreshed.accessToken).not.toBe(tokens.accessToken);
      const again = await postingAs(refreshed);
      expect(again.account.remoteAccountId).toBe(first.account.remoteAccountId);
      await c.use(sim.url, again.tokens, again.as);
      if (c.rotates) expect((await failureOf(auth.refresh({ app, tokens }))).kind).toBe('reconnect');
      if (c.revokes) {
        await (auth.revoke as NonNullable<NetworkAuth['revoke']>)({ app, tokens: refreshed });
        expect((await failureOf(auth.refresh({ app, tokens: refreshed }))).kind).toBe('reconnect');
        expect((await failureOf(c.use(sim.url, again.tokens, again.as))).kind).toBe('reconnect');
      }
    }
    if (c.revokes && !c.refreshes) {
      await (auth.revoke as NonNullable<NetworkAuth['revoke']>)({ app, tokens });
      expect((await failureOf(c.use(sim.url, first.tokens, first.as))).kind).toBe('reconnect');
    }
  });

  it('a refresh token the network never issued is refused with reconnect; the message carries no token', async () => {
    const { tokens } = await connect(auth, app, { sim_user: `f${randomBytes(3).toString('hex')}` });
    const forged = { ...tokens, accessToken: 'forged-access-token', refreshToken: 'forged-refresh-token' };
    const refused = await failureOf(auth.refresh({ app, tokens: forged }));
    expect(refused.kind).toBe('reconnect');
    expect(refused.message).not.toContain('forged-');
    expect(refused.message).not.toContain(app.clientSecret);
  });

  it('an expired access token is tokenExpired at the client; refresh brings the channel back', async () => {
    const { tokens } = await connect(auth, app, { sim_user: `e${randomBytes(3).toString('hex')}` });
    const before = await postingAs(tokens);
    expect((await post(`${sim.url}/_sim/oauth/expire`, {})).status).toBe(204);
    if (before.tokens.expiresAt === null) {
      // Tokens that do not expire (Vimeo's, a Facebook page token) keep working.
      await c.use(sim.url, before.tokens, before.as);
    } else {
      const expired = await failureOf(c.use(sim.url, before.tokens, before.as));
      expect(expired).toMatchObject({
        kind: 'reconnect',
        details: { status: c.expiredStatus, tokenExpired: true },
      });
    }
    if (c.extendsAccessToken) {
      expect((await failureOf(auth.refresh({ app, tokens }))).kind).toBe('reconnect');
    } else if (c.refreshes) {
      const after = await postingAs(await auth.refresh({ app, tokens }));
      await c.use(sim.url, after.tokens, after.as);
    }
  });
});

describe('Facebook page tokens', () => {
  let sim: { url: string; stop(): Promise<void> };
  const app = SIM_OAUTH_APPS.facebook;
  beforeAll(async () => {
    sim = await startFacebookSimulator();
  });
  afterAll(async () => {
    await sim?.stop();
  });

  it('a page token is kept by refresh (never exchanged into a user token) and refused once the login is revoked', async () => {
    const auth = facebookAuth({ baseUrls: { facebook: sim.url }, timeoutMs: TIMEOUT });
    const { tokens } = await connect(auth, app, { sim_user: 'pages' });
    const [page] = await (auth.targets as NonNullable<NetworkAuth['targets']>)({ app, tokens });
    const target = page as NonNullable<typeof page>;
    const pageTokens = await (auth.targetTokens as NonNullable<NetworkAuth['targetTokens']>)({
      app,
      tokens,
      target,
    });
    expect(pageTokens).toMatchObject({ expiresAt: null, refreshToken: null });
    // A page token publishes as its page only.
    const pages = await (auth.targets as NonNullable<NetworkAuth['targets']>)({ app, tokens });
    const fb = new FacebookClient({ baseUrl: sim.url, timeoutMs: TIMEOUT });
    const as = (remoteAccountId: string) =>
      fb.publish(blockInput({ accessToken: pageTokens.accessToken, remoteAccountId })('as a page'));
    expect((await as(target.targetId)).remoteId.startsWith(`${target.targetId}_`)).toBe(true);
    const other = pages.find((p) => p.targetId !== target.targetId)?.targetId as string;
    expect(await failureOf(as(other))).toMatchObject({ kind: 'reconnect', details: { status: 403 } });
    expect((await auth.identify({ app, tokens: pageTokens })).remoteAccountId).toBe(target.targetId);
    const kept = await auth.refresh({ app, tokens: pageTokens });
    expect(kept.accessToken).toBe(pageTokens.accessToken);
    await (auth.revoke as NonNullable<NetworkAuth['revoke']>)({ app, tokens });
    expect((await failureOf(auth.refresh({ app, tokens: pageTokens }))).kind).toBe('reconnect');
  });
});
