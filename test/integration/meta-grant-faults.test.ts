import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTokenCipher, loadOrCreateKey } from '../../functions/adapters/local/file-token-cipher.ts';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { createAccount, createWorkspace } from '../../functions/core/admin/admin.ts';
import { TokenService } from '../../functions/core/channels/token-service.ts';
import { sealTokens, tokenFields } from '../../functions/core/channels/tokens.ts';
import { facebookAuth } from '../../functions/platforms/facebook/oauth.ts';
import { instagramAuth } from '../../functions/platforms/instagram/oauth.ts';
import { threadsAuth } from '../../functions/platforms/threads/oauth.ts';
import type { ChannelRecord } from '../../functions/ports/channels.ts';
import type { NetworkAuth, NetworkAuthConfig, TokenSet } from '../../functions/ports/network-auth.ts';
import { startFacebookSimulator } from '../../simulators/facebook/simulator.ts';
import { pkceChallenge } from '../../simulators/framework/oauth.ts';
import { startInstagramSimulator } from '../../simulators/instagram/simulator.ts';
import { startThreadsSimulator } from '../../simulators/threads/simulator.ts';
import { failureOf } from '../support/network.ts';
import { type StoreDeps, tableStores } from '../support/stores.ts';
import { freshTable } from '../support/table.ts';

/**
 * Graph answers throttling (codes 4, 17, 32, 613, 80000s) and transient failures (codes 1, 2,
 * `is_transient`) with HTTP 400, as it answers a dead grant. A refresh that meets one must leave
 * the channel connected (retried later); only a refused grant (code 190) disconnects it. Each Meta
 * network's real `NetworkAuth` refreshes a channel connected through its OAuth simulator, whose
 * grant endpoints are switched to answer such an error (`POST /_sim/oauth/grant-fault`).
 */

const REDIRECT = 'https://herald.example/v1/channels/callback';
const TIMEOUT = 5_000;
const clock = { now: () => new Date() };

let table: Awaited<ReturnType<typeof freshTable>>;
let stores: StoreDeps;
let cipher: FileTokenCipher;

beforeAll(async () => {
  table = await freshTable();
  cipher = new FileTokenCipher(loadOrCreateKey(join(mkdtempSync(join(tmpdir(), 'herald-')), 'k')));
  stores = tableStores(table);
});
afterAll(async () => {
  await table?.drop();
});

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** authorize → the simulator's consent → code → the network's own exchange. */
const connectTokens = async (auth: NetworkAuth, app: { clientId: string; clientSecret: string }) => {
  const url = new URL(
    (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app,
      redirectUri: REDIRECT,
      state: 'st',
      codeChallenge: auth.usesPkce ? pkceChallenge('v'.repeat(43)) : null,
    }),
  );
  url.searchParams.set('sim_user', `g${randomBytes(3).toString('hex')}`);
  const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') as string);
  const code = back.searchParams.get('code') as string;
  expect(code).toBeTruthy();
  return (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
    app,
    code,
    redirectUri: REDIRECT,
    codeVerifier: auth.usesPkce ? 'v'.repeat(43) : null,
  });
};

/** A connected channel holding `tokens`, stored as the connect flow stores it. */
const storeChannel = async (auth: NetworkAuth, tokens: TokenSet, remoteAccountId: string) => {
  const deps = { ...stores, clock, tokenCipher: () => cipher };
  const account = await createAccount(deps, { name: 'A', plan: 'starter' });
  const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
  const now = clock.now();
  const { channel } = await stores.channels.upsertChannel(
    {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: auth.platform,
      name: 'Simulated',
      remoteAccountId,
      connection: 'connected',
      threadsPermitted: true,
      ...tokenFields(auth.policy, tokens, now),
      scopes: tokens.scopes,
      authKind: 'oauth2',
      createdAt: now.toISOString(),
    },
    (channelId) => sealTokens(cipher, channelId, tokens),
    25,
  );
  return channel;
};

interface MetaCase {
  platform: 'facebook' | 'instagram' | 'threads';
  factory: (config: NetworkAuthConfig) => NetworkAuth;
  start: () => Promise<{ url: string; stop(): Promise<void> }>;
  /** A connected channel's tokens: Facebook's is a page token, checked by `GET /me`. */
  tokens(
    auth: NetworkAuth,
    app: { clientId: string; clientSecret: string },
  ): Promise<{
    tokens: TokenSet;
    remoteAccountId: string;
    /** Kills the grant behind the channel's tokens, as the network would. */
    kill(url: string): Promise<void>;
  }>;
}

const cases: MetaCase[] = [
  {
    platform: 'facebook',
    factory: facebookAuth,
    start: () => startFacebookSimulator(),
    tokens: async (auth, app) => {
      const user = await connectTokens(auth, app);
      const [page] = await (auth.targets as NonNullable<NetworkAuth['targets']>)({ app, tokens: user });
      const target = page as NonNullable<typeof page>;
      const tokens = await (auth.targetTokens as NonNullable<NetworkAuth['targetTokens']>)({
        app,
        tokens: user,
        target,
      });
      return {
        tokens,
        remoteAccountId: target.targetId,
        kill: async () => (auth.revoke as NonNullable<NetworkAuth['revoke']>)({ app, tokens: user }),
      };
    },
  },
  ...(
    [
      ['instagram', instagramAuth, () => startInstagramSimulator()],
      ['threads', threadsAuth, () => startThreadsSimulator()],
    ] as const
  ).map(
    ([platform, factory, start]): MetaCase => ({
      platform,
      factory,
      start,
      tokens: async (auth, app) => {
        const tokens = await connectTokens(auth, app);
        const { remoteAccountId } = await auth.identify({ app, tokens });
        return {
          tokens,
          remoteAccountId,
          // The long-lived token lapsed: Graph refuses to extend it (code 190, subcode 463).
          kill: async (url) => {
            expect((await post(`${url}/_sim/oauth/expire`, {})).status).toBe(204);
          },
        };
      },
    }),
  ),
];

describe.each(cases)('$platform: a throttled or transient Graph answer to a token refresh', (c) => {
  let sim: { url: string; stop(): Promise<void> };
  let auth: NetworkAuth;
  let service: TokenService;
  const app = SIM_OAUTH_APPS[c.platform];
  beforeAll(async () => {
    sim = await c.start();
    auth = c.factory({ baseUrls: { [c.platform]: sim.url }, timeoutMs: TIMEOUT });
    service = new TokenService(
      {
        clock,
        channels: stores.channels,
        grants: stores.grants,
        tokenCipher: () => cipher,
        auths: (platform) => (platform === c.platform ? auth : null),
        appCredentials: { get: async () => app },
        queue: () => ({ sendPublish: async () => {}, sendEvent: async () => {} }),
      },
      { holdSeconds: 5, pollMs: 20 },
    );
  });
  afterAll(async () => {
    await sim?.stop();
  });

  const latest = async (channel: ChannelRecord) =>
    (await stores.channels.getChannel(channel.workspaceId, channel.channelId)) as ChannelRecord;

  it('keeps the channel connected (rate-limited or transient, retried later); a dead grant still disconnects it', async () => {
    const connected = await c.tokens(auth, app);
    const channel = await storeChannel(auth, connected.tokens, connected.remoteAccountId);

    for (const fault of [
      { answer: 'rate-limited', code: 4 },
      { answer: 'rate-limited', code: 17 },
      { answer: 'rate-limited', code: 613 },
      { answer: 'rate-limited', code: 80002 },
    ]) {
      expect((await post(`${sim.url}/_sim/oauth/grant-fault`, { ...fault, times: 1 })).status).toBe(204);
      const throttled = await failureOf(service.refreshNow(await latest(channel)));
      expect(throttled, JSON.stringify(fault)).toMatchObject({
        kind: 'transient',
        details: { rateLimited: true, retryAfterSeconds: 300 },
      });
      expect((await latest(channel)).connection).toBe('connected');
    }
    for (const fault of [
      { answer: 'transient', code: 2 },
      { answer: 'transient', code: 1 },
    ]) {
      expect((await post(`${sim.url}/_sim/oauth/grant-fault`, { ...fault, times: 1 })).status).toBe(204);
      const failed = await failureOf(service.refreshNow(await latest(channel)));
      expect(failed.kind, JSON.stringify(fault)).toBe('transient');
      expect(failed.details.rateLimited).toBeUndefined();
      expect((await latest(channel)).connection).toBe('connected');
    }

    // The fault is over: the next refresh goes through.
    const before = await latest(channel);
    const after = await service.refreshNow(before);
    expect(after.connection).toBe('connected');
    expect(after.tokenVersion).toBe((before.tokenVersion ?? 0) + 1);

    // A refused grant (Graph code 190) still makes the channel needs_reconnect.
    await connected.kill(sim.url);
    expect((await failureOf(service.refreshNow(await latest(channel)))).kind).toBe('reconnect');
    expect((await latest(channel)).connection).toBe('needs_reconnect');
  });

  it('the code exchange of a new connection meeting a throttle is a transient failure, not a refused grant', async () => {
    expect(
      (await post(`${sim.url}/_sim/oauth/grant-fault`, { answer: 'rate-limited', code: 4, times: 1 })).status,
    ).toBe(204);
    expect((await failureOf(connectTokens(auth, app))).kind).toBe('transient');
  });
});
