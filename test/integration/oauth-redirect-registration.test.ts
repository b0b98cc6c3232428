import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import { facebookAuth } from '../../functions/platforms/facebook/oauth.ts';
import { instagramAuth } from '../../functions/platforms/instagram/oauth.ts';
import { linkedInMemberAuth } from '../../functions/platforms/linkedin/oauth.ts';
import { pinterestAuth } from '../../functions/platforms/pinterest/oauth.ts';
import { redditAuth } from '../../functions/platforms/reddit/oauth.ts';
import { threadsAuth } from '../../functions/platforms/threads/oauth.ts';
import { tiktokAuth } from '../../functions/platforms/tiktok/oauth.ts';
import { vimeoAuth } from '../../functions/platforms/vimeo/oauth.ts';
import { xAuth } from '../../functions/platforms/x/oauth.ts';
import { youtubeAuth } from '../../functions/platforms/youtube/oauth.ts';
import type { NetworkAuth } from '../../functions/ports/network-auth.ts';
import { startFacebookSimulator } from '../../simulators/facebook/simulator.ts';
import { pkceChallenge, type SimOAuthApp, simOAuthApp } from '../../simulators/framework/oauth.ts';
import { startInstagramSimulator } from '../../simulators/instagram/simulator.ts';
import { startLinkedInSimulator } from '../../simulators/linkedin/simulator.ts';
import { startPinterestSimulator } from '../../simulators/pinterest/simulator.ts';
import { startRedditSimulator } from '../../simulators/reddit/simulator.ts';
import { startThreadsSimulator } from '../../simulators/threads/simulator.ts';
import { startTikTokSimulator } from '../../simulators/tiktok/simulator.ts';
import { startVimeoSimulator } from '../../simulators/vimeo/simulator.ts';
import { startXSimulator } from '../../simulators/x/simulator.ts';
import { startYouTubeSimulator } from '../../simulators/youtube/simulator.ts';

/**
 * Every OAuth network's simulator knows its app's registered redirect URIs, as the network's
 * developer console does: an authorize request naming another is refused with the network's own
 * page or answer and sends nothing back to it, and a code exchanged with another redirect_uri is
 * refused with the network's own error, while Herald's flow with the registered callback works.
 */

const REGISTERED = 'https://herald.test/v1/channels/callback';
/** What an attacker would send instead: the same path on a host of theirs. */
const UNREGISTERED = 'https://attacker.example/v1/channels/callback';
const TIMEOUT = 5_000;

interface Case {
  platform: PlatformId;
  factory: (config: { baseUrls: Record<string, string>; timeoutMs: number }) => NetworkAuth;
  start(app: SimOAuthApp): Promise<{ url: string; stop(): Promise<void> }>;
  /** The network's answer to an authorize request with an unregistered redirect_uri. */
  authorize: { status: number; type: RegExp; says: RegExp };
  /** What the network's refusal of the exchange says (its code and description, in the error's message). */
  exchange: RegExp;
}

const cases: Case[] = [
  {
    platform: 'x',
    factory: xAuth,
    start: (app) => startXSimulator({ oauth: { app }, timelineLagMs: 0 }),
    authorize: { status: 400, type: /text\/html/, says: /weren’t able to give access to the App/ },
    exchange: /invalid_request: Value passed for the redirect uri was invalid/,
  },
  {
    platform: 'linkedin',
    factory: linkedInMemberAuth,
    start: (app) => startLinkedInSimulator({ oauth: { app } }),
    authorize: { status: 400, type: /text\/html/, says: /redirect_uri does not match the registered value/ },
    exchange: /invalid_redirect_uri: Unable to retrieve access token: appid\/redirect uri/,
  },
  {
    platform: 'facebook',
    factory: facebookAuth,
    start: (app) => startFacebookSimulator({ oauth: { app } }),
    authorize: { status: 400, type: /text\/html/, says: /redirect URI is not whitelisted/ },
    exchange:
      /OAuthException: Error validating verification code\. Please make sure your redirect_uri is identical/,
  },
  {
    platform: 'instagram',
    factory: instagramAuth,
    start: (app) => startInstagramSimulator({ oauth: { app } }),
    authorize: {
      status: 400,
      type: /application\/json/,
      says: /"error_type":"OAuthException".*Redirect URI does not match registered redirect URI/,
    },
    exchange:
      /OAuthException: Error validating verification code\. Please make sure your redirect_uri is identical/,
  },
  {
    platform: 'threads',
    factory: threadsAuth,
    start: (app) => startThreadsSimulator({ oauth: { app } }),
    authorize: { status: 400, type: /text\/html/, says: /Invalid redirect_uri/ },
    exchange:
      /OAuthException: Error validating verification code\. Please make sure your redirect_uri is identical/,
  },
  {
    platform: 'pinterest',
    factory: pinterestAuth,
    start: (app) => startPinterestSimulator({ oauth: { app } }),
    authorize: {
      status: 400,
      type: /application\/json/,
      says: /"code":7.*does not match any of the registered redirect URIs/,
    },
    exchange: /does not match any of the registered redirect URIs/,
  },
  {
    platform: 'reddit',
    factory: redditAuth,
    start: (app) => startRedditSimulator({ oauth: { app } }),
    authorize: { status: 400, type: /text\/html/, says: /invalid redirect_uri parameter/ },
    // Reddit refuses every bad exchange the same way, in an HTTP 200.
    exchange: /invalid_grant/,
  },
  {
    platform: 'tiktok',
    factory: tiktokAuth,
    start: (app) => startTikTokSimulator({ oauth: { app } }),
    authorize: { status: 400, type: /text\/html/, says: /correct the following and try again: redirect_uri/ },
    exchange: /invalid_request: The redirect_uri does not match/,
  },
  {
    platform: 'youtube',
    factory: youtubeAuth,
    start: (app) => startYouTubeSimulator({ oauth: { app } }),
    authorize: { status: 400, type: /text\/html/, says: /Error 400: redirect_uri_mismatch/ },
    exchange: /redirect_uri_mismatch: Bad Request/,
  },
  {
    platform: 'vimeo',
    factory: vimeoAuth,
    start: (app) => startVimeoSimulator({ oauth: { app } }),
    authorize: { status: 400, type: /text\/html/, says: /not one of the app’s callback URLs/ },
    exchange: /The provided redirect_uri does not match/,
  },
];

describe.each(cases)('$platform simulator: the app’s registered redirect URI', (c) => {
  const app = simOAuthApp(c.platform, [REGISTERED]);
  let sim: { url: string; stop(): Promise<void> };
  let auth: NetworkAuth;
  beforeAll(async () => {
    sim = await c.start(app);
    auth = c.factory({ baseUrls: { [c.platform]: sim.url }, timeoutMs: TIMEOUT });
  });
  afterAll(async () => {
    await sim?.stop();
  });

  const authorizeUrl = (redirectUri: string, verifier: string) =>
    (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app,
      redirectUri,
      state: 'st',
      codeChallenge: auth.usesPkce ? pkceChallenge(verifier) : null,
    });
  /** A code issued for the registered callback (the simulator consents at once). */
  const codeFor = async (verifier: string) => {
    const back = await fetch(authorizeUrl(REGISTERED, verifier), { redirect: 'manual' });
    expect(back.status).toBe(302);
    const location = new URL(back.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(REGISTERED);
    return location.searchParams.get('code') as string;
  };
  const exchange = (code: string, redirectUri: string, verifier: string) =>
    (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
      app,
      code,
      redirectUri,
      codeVerifier: auth.usesPkce ? verifier : null,
    });

  it('connects Herald through the registered callback', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const tokens = await exchange(await codeFor(verifier), REGISTERED, verifier);
    expect(tokens.accessToken).toBeTruthy();
  });

  it('refuses an unregistered redirect_uri at authorize with the network’s own answer, sending nothing to it', async () => {
    const answer = await fetch(authorizeUrl(UNREGISTERED, randomBytes(32).toString('base64url')), {
      redirect: 'manual',
    });
    expect(answer.headers.get('location')).toBeNull();
    expect(answer.status).toBe(c.authorize.status);
    expect(answer.headers.get('content-type')).toMatch(c.authorize.type);
    expect(await answer.text()).toMatch(c.authorize.says);
  });

  it('refuses a code exchanged with an unregistered redirect_uri with the network’s own error', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const refused = await exchange(await codeFor(verifier), UNREGISTERED, verifier).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(c.exchange);
  });
});
