import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFromItem } from '../../functions/adapters/aws/dynamo/events.ts';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { DynamoWebhookStore } from '../../functions/adapters/aws/dynamo/webhooks.ts';
import { FileTokenCipher, loadOrCreateKey } from '../../functions/adapters/local/file-token-cipher.ts';
import { connectChannel, createAccount, createWorkspace } from '../../functions/core/admin/admin.ts';
import { sweepTokens } from '../../functions/core/channels/sweep-tokens.ts';
import { TokenService } from '../../functions/core/channels/token-service.ts';
import { openTokens, sealTokens, tokenFields } from '../../functions/core/channels/tokens.ts';
import type { ChannelRecord } from '../../functions/ports/channels.ts';
import type { NetworkAuth, TokenSet } from '../../functions/ports/network-auth.ts';
import { NetworkError } from '../../functions/ports/network-client.ts';
import type { JobQueue, OutboxEvent } from '../../functions/ports/publishing.ts';
import { type StoreDeps, tableStores } from '../support/stores.ts';
import { freshTable } from '../support/table.ts';

/**
 * A network whose refresh tokens rotate: each refresh token works once, and a used one is refused
 * (as X and TikTok do). It answers slowly, so concurrent callers really overlap.
 */
const rotatingNetwork = () => {
  let counter = 0;
  const valid = new Set<string>(['refresh-0']);
  const state = { refreshCalls: 0, refuseAll: false, delayMs: 50 };
  const issue = (now: Date, lifetimeSeconds: number): TokenSet => {
    counter++;
    valid.add(`refresh-${counter}`);
    return {
      accessToken: `access-${counter}`,
      refreshToken: `refresh-${counter}`,
      expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000).toISOString(),
      refreshExpiresAt: null,
      scopes: ['post'],
      issuedAt: now.toISOString(),
    };
  };
  const auth: NetworkAuth = {
    platform: 'x',
    kind: 'oauth2',
    usesPkce: true,
    scopes: ['post'],
    policy: { marginSeconds: 60, proactiveAfterSeconds: null, rotatesRefreshToken: true },
    hasTargets: false,
    identify: async () => ({ remoteAccountId: 'u1', name: 'User' }),
    refresh: async ({ tokens }) => {
      state.refreshCalls++;
      await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      if (state.refuseAll || !tokens.refreshToken || !valid.has(tokens.refreshToken)) {
        throw new NetworkError('reconnect', 'invalid_grant: refresh token invalid');
      }
      valid.delete(tokens.refreshToken);
      return issue(clock.now(), 7200);
    },
    capabilities: () => ({ publish: true, manage: true, threads: true, metrics: true }),
  };
  return { auth, state };
};

let now = new Date('2026-01-01T00:00:00.000Z');
const clock = { now: () => now };
let table: Awaited<ReturnType<typeof freshTable>>;
let stores: StoreDeps;
let cipher: FileTokenCipher;
const sentEvents: string[] = [];
const queue: JobQueue = {
  sendPublish: async () => {},
  sendEvent: async (id) => {
    sentEvents.push(id);
  },
};

beforeAll(async () => {
  table = await freshTable();
  cipher = new FileTokenCipher(loadOrCreateKey(join(mkdtempSync(join(tmpdir(), 'herald-')), 'k')));
  stores = tableStores(table);
});
afterAll(async () => {
  await table?.drop();
});

/** A webhook endpoint in the workspace (turned off): its events are kept (a workspace with none keeps none). */
const addEndpoint = async (accountId: string, workspaceId: string) => {
  const at = now.toISOString();
  await new DynamoWebhookStore(table).createEndpoint(
    {
      webhookId: `wh_ts${Math.random().toString(36).slice(2, 10)}`,
      workspaceId,
      accountId,
      url: 'https://receiver.invalid/hook',
      description: null,
      events: ['channel.needs_reconnect'],
      enabled: false,
      consecutiveFailures: 0,
      disabledReason: 'request',
      disabledAt: at,
      secretCiphertext: 'sealed',
      createdAt: at,
      updatedAt: at,
    },
    0,
  );
};

const connected = async (
  expiresInSeconds: number,
  proactiveAfterSeconds: number | null = null,
  { endpoint = true }: { endpoint?: boolean } = {},
): Promise<ChannelRecord> => {
  const deps = { ...stores, clock, tokenCipher: () => cipher };
  const account = await createAccount(deps, { name: 'A', plan: 'starter' });
  const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
  if (endpoint) await addEndpoint(account.accountId, ws.workspaceId);
  const tokens: TokenSet = {
    accessToken: 'access-0',
    refreshToken: 'refresh-0',
    expiresAt: new Date(now.getTime() + expiresInSeconds * 1000).toISOString(),
    refreshExpiresAt: null,
    scopes: ['post'],
    issuedAt: now.toISOString(),
  };
  const policy = { marginSeconds: 60, proactiveAfterSeconds, rotatesRefreshToken: true };
  const { channel } = await stores.channels.upsertChannel(
    {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'x',
      name: 'User',
      remoteAccountId: `u-${Math.random()}`,
      connection: 'connected',
      threadsPermitted: true,
      ...tokenFields(policy, tokens, now),
      scopes: ['post'],
      authKind: 'oauth2',
      createdAt: now.toISOString(),
    },
    (channelId) => sealTokens(cipher, channelId, tokens),
    25,
  );
  return channel;
};

const service = (auth: NetworkAuth) =>
  new TokenService(
    {
      clock,
      channels: stores.channels,
      grants: stores.grants,
      tokenCipher: () => cipher,
      auths: (platform) => (platform === 'x' ? auth : null),
      appCredentials: { get: async () => ({ clientId: 'c', clientSecret: 's' }) },
      queue: () => queue,
    },
    { holdSeconds: 5, pollMs: 20 },
  );

const eventItem = async (eventId: string) =>
  (await table.doc.send(new GetCommand({ TableName: table.tableName, Key: keys.event(eventId) }))).Item;

/** Every event in the outbox of this test's table. */
const eventsOfTable = async () =>
  ((await table.doc.send(new ScanCommand({ TableName: table.tableName }))).Items ?? [])
    .filter((item) => item.type === 'Event')
    .map((item) => eventFromItem(item) as OutboxEvent);

describe('token service', () => {
  it('uses a token that is not near expiry as it is', async () => {
    const { auth, state } = rotatingNetwork();
    const channel = await connected(3600);
    const credentials = await service(auth).credentials(channel);
    expect(credentials.accessToken).toBe('access-0');
    expect(state.refreshCalls).toBe(0);
  });

  it('20 concurrent callers during an expiry refresh once, and all get the new token', async () => {
    const { auth, state } = rotatingNetwork();
    const channel = await connected(30); // inside the 60 s margin
    // Two services stand for two Lambda instances: only the table's hold keeps them apart.
    const services = [service(auth), service(auth)];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (services[i % 2] as TokenService).credentials(channel)),
    );
    expect(state.refreshCalls).toBe(1);
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set(['access-1']));
    const stored = await stores.channels.getChannel(channel.workspaceId, channel.channelId);
    expect(stored?.tokenVersion).toBe((channel.tokenVersion ?? 0) + 1);
    expect(stored?.connection).toBe('connected');
    const tokens = await openTokens(cipher, channel.channelId, stored?.tokenCiphertext as string);
    expect(tokens.refreshToken).toBe('refresh-1');
  });

  it('20 concurrent calls answered "token expired" refresh once (rotating refresh token) and are retried', async () => {
    const { auth, state } = rotatingNetwork();
    const channel = await connected(3600);
    const services = [service(auth), service(auth)];
    const seen: string[] = [];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (services[i % 2] as TokenService).withCredentials(channel, async (credentials) => {
          seen.push(credentials.accessToken);
          if (credentials.accessToken === 'access-0') {
            throw new NetworkError('reconnect', 'token expired', { status: 401, tokenExpired: true });
          }
          return credentials.accessToken;
        }),
      ),
    );
    expect(state.refreshCalls).toBe(1);
    expect(results.every((token) => token === 'access-1')).toBe(true);
    expect(seen.filter((token) => token === 'access-0')).toHaveLength(20);
  });

  it('keeps rotating: each refresh uses the refresh token the previous one issued', async () => {
    const { auth, state } = rotatingNetwork();
    const channel = await connected(30);
    const tokenService = service(auth);
    for (let round = 1; round <= 3; round++) {
      const current = (await stores.channels.getChannel(
        channel.workspaceId,
        channel.channelId,
      )) as ChannelRecord;
      now = new Date(Date.parse(current.tokenExpiresAt as string) - 10_000);
      const credentials = await tokenService.credentials(current);
      expect(credentials.accessToken).toBe(`access-${round}`);
    }
    expect(state.refreshCalls).toBe(3);
    const stored = await stores.channels.getChannel(channel.workspaceId, channel.channelId);
    expect(stored?.connection).toBe('connected');
  });

  it('a refused refresh makes the channel needs_reconnect with exactly one event, however many callers', async () => {
    const { auth, state } = rotatingNetwork();
    state.refuseAll = true;
    const channel = await connected(30);
    sentEvents.length = 0;
    const services = [service(auth), service(auth)];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => (services[i % 2] as TokenService).credentials(channel)),
    );
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ kind: 'reconnect' });
    }
    expect(state.refreshCalls).toBe(1);
    const stored = await stores.channels.getChannel(channel.workspaceId, channel.channelId);
    expect(stored?.connection).toBe('needs_reconnect');
    expect(sentEvents).toHaveLength(1);
    const item = await eventItem(sentEvents[0] as string);
    expect(eventFromItem(item)).toMatchObject({
      type: 'channel.needs_reconnect',
      workspaceId: channel.workspaceId,
      data: { channelId: channel.channelId, platform: 'x' },
    });
    // Later callers are refused without asking the network again.
    await expect(service(auth).credentials(stored as ChannelRecord)).rejects.toMatchObject({
      kind: 'reconnect',
    });
    expect(sentEvents).toHaveLength(1);
  });

  it('a refused refresh in a workspace with no webhook endpoint marks the channel and keeps no event', async () => {
    const { auth, state } = rotatingNetwork();
    state.refuseAll = true;
    const channel = await connected(30, null, { endpoint: false });
    sentEvents.length = 0;
    await expect(service(auth).credentials(channel)).rejects.toMatchObject({ kind: 'reconnect' });
    expect((await stores.channels.getChannel(channel.workspaceId, channel.channelId))?.connection).toBe(
      'needs_reconnect',
    );
    expect(sentEvents).toEqual([]);
    expect((await eventsOfTable()).map((e) => e.data.channelId)).not.toContain(channel.channelId);
  });

  it('a workspace never counted (made before the count) keeps the event as before', async () => {
    const { auth, state } = rotatingNetwork();
    state.refuseAll = true;
    const channel = await connected(30, null, { endpoint: false });
    await table.doc.send(
      new DeleteCommand({ TableName: table.tableName, Key: keys.webhookCount(channel.workspaceId) }),
    );
    sentEvents.length = 0;
    await expect(service(auth).credentials(channel)).rejects.toMatchObject({ kind: 'reconnect' });
    expect(sentEvents).toHaveLength(1);
    expect(eventFromItem(await eventItem(sentEvents[0] as string))).toMatchObject({
      type: 'channel.needs_reconnect',
      data: { channelId: channel.channelId },
    });
  });

  it('a transient refresh failure leaves the channel connected and lets the next caller refresh', async () => {
    const { auth, state } = rotatingNetwork();
    const channel = await connected(30);
    const failing: NetworkAuth = {
      ...auth,
      refresh: async () => {
        state.refreshCalls++;
        throw new NetworkError('transient', 'HTTP 503');
      },
    };
    await expect(service(failing).credentials(channel)).rejects.toMatchObject({ kind: 'transient' });
    expect((await stores.channels.getChannel(channel.workspaceId, channel.channelId))?.connection).toBe(
      'connected',
    );
    const credentials = await service(auth).credentials(channel);
    expect(credentials.accessToken).toMatch(/^access-\d+$/);
    expect(credentials.accessToken).not.toBe('access-0');
  });
});

describe('channels pasted in by the admin CLI (a bare access token, no token version)', () => {
  it('use their token as it is, and an expired answer makes them needs_reconnect with one event', async () => {
    const { auth, state } = rotatingNetwork();
    const deps = { ...stores, clock, tokenCipher: () => cipher };
    const account = await createAccount(deps, { name: 'A', plan: 'starter' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const pasted = await connectChannel(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'x',
      name: 'Pasted',
      accessToken: 'pasted-token',
    });
    await addEndpoint(account.accountId, ws.workspaceId);
    const channel = (await stores.channels.getChannel(ws.workspaceId, pasted.channelId)) as ChannelRecord;
    expect(channel.tokenVersion).toBe(0);
    const tokenService = service(auth);
    expect((await tokenService.credentials(channel)).accessToken).toBe('pasted-token');
    sentEvents.length = 0;
    await expect(
      tokenService.withCredentials(channel, async () => {
        throw new NetworkError('reconnect', 'expired', { status: 401, tokenExpired: true });
      }),
    ).rejects.toMatchObject({ kind: 'reconnect' });
    // The fake refuses a refresh without a refresh token, as the networks do.
    expect(state.refreshCalls).toBe(1);
    expect((await stores.channels.getChannel(ws.workspaceId, pasted.channelId))?.connection).toBe(
      'needs_reconnect',
    );
    expect(sentEvents).toHaveLength(1);
  });
});

describe('connecting through the API', () => {
  it('adopts the channel the admin CLI pasted in for the same remote account, and reconnects update it', async () => {
    const deps = { ...stores, clock, tokenCipher: () => cipher };
    const account = await createAccount(deps, { name: 'A', plan: 'starter' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const pasted = await connectChannel(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'x',
      name: 'Pasted',
      remoteAccountId: '12345',
      accessToken: 'pasted-token',
    });
    const tokens: TokenSet = {
      accessToken: 'oauth-token',
      refreshToken: 'r',
      expiresAt: null,
      refreshExpiresAt: null,
      scopes: ['tweet.write'],
      issuedAt: now.toISOString(),
    };
    const connect = () =>
      stores.channels.upsertChannel(
        {
          accountId: account.accountId,
          workspaceId: ws.workspaceId,
          platform: 'x',
          name: 'Connected',
          remoteAccountId: '12345',
          connection: 'connected',
          threadsPermitted: true,
          authKind: 'oauth2',
          createdAt: now.toISOString(),
        },
        (channelId) => sealTokens(cipher, channelId, tokens),
        25,
      );
    const first = await connect();
    expect(first).toMatchObject({
      created: false,
      channel: { channelId: pasted.channelId, tokenVersion: 1 },
    });
    const second = await connect();
    expect(second).toMatchObject({
      created: false,
      channel: { channelId: pasted.channelId, tokenVersion: 2 },
    });
    expect(await stores.channels.listChannels(ws.workspaceId)).toHaveLength(1);
    expect((await stores.accounts.getAccount(account.accountId))?.channelCount).toBe(1);
    const stored = (await stores.channels.getChannel(ws.workspaceId, pasted.channelId)) as ChannelRecord;
    expect((await openTokens(cipher, stored.channelId, stored.tokenCiphertext)).accessToken).toBe(
      'oauth-token',
    );
  });

  it('two concurrent connections of a new remote account make one channel', async () => {
    const deps = { ...stores, clock, tokenCipher: () => cipher };
    const account = await createAccount(deps, { name: 'A', plan: 'starter' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const tokens: TokenSet = {
      accessToken: 'a',
      refreshToken: null,
      expiresAt: null,
      refreshExpiresAt: null,
      scopes: [],
      issuedAt: now.toISOString(),
    };
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        stores.channels.upsertChannel(
          {
            accountId: account.accountId,
            workspaceId: ws.workspaceId,
            platform: 'bluesky',
            name: 'B',
            remoteAccountId: 'did:plc:same',
            connection: 'connected',
            threadsPermitted: true,
            authKind: 'app_password',
            createdAt: now.toISOString(),
          },
          (channelId) => sealTokens(cipher, channelId, tokens),
          25,
        ),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.channel.channelId)).size).toBe(1);
    expect(await stores.channels.listChannels(ws.workspaceId)).toHaveLength(1);
    expect((await stores.accounts.getAccount(account.accountId))?.channelCount).toBe(1);
  });
});

describe('proactive refresh sweep', () => {
  it("refreshes long-lived tokens once they reach the network's age, and not before", async () => {
    const { auth, state } = rotatingNetwork();
    const proactive: NetworkAuth = { ...auth, policy: { ...auth.policy, proactiveAfterSeconds: 24 * 3600 } };
    const channel = await connected(60 * 24 * 3600, 24 * 3600);
    const tokenService = service(proactive);
    const deps = { clock, channels: stores.channels, grants: stores.grants, tokens: () => tokenService };
    const mine = async () =>
      (await stores.channels.channelsDueForRefresh(clock.now().toISOString(), 1000)).filter(
        (c) => c.channelId === channel.channelId,
      );

    now = new Date(Date.parse(channel.tokenIssuedAt as string) + 23 * 3600 * 1000);
    expect(await mine()).toEqual([]);
    await sweepTokens(deps);
    expect(state.refreshCalls).toBe(0);

    now = new Date(Date.parse(channel.tokenIssuedAt as string) + 25 * 3600 * 1000);
    expect(await mine()).toHaveLength(1);
    const result = await sweepTokens(deps);
    expect(result.refreshed).toBeGreaterThanOrEqual(1);
    expect(state.refreshCalls).toBe(1);
    const stored = (await stores.channels.getChannel(
      channel.workspaceId,
      channel.channelId,
    )) as ChannelRecord;
    expect(stored.tokenVersion).toBe((channel.tokenVersion ?? 0) + 1);
    expect(Date.parse(stored.refreshDueAt as string)).toBe(now.getTime() + 24 * 3600 * 1000);
    // Not due again until the new tokens are a day old.
    expect(await mine()).toEqual([]);
  });
});
