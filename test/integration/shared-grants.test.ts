import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveChannels } from '../../functions/adapters/aws/dynamo/channels.ts';
import { DynamoWebhookStore } from '../../functions/adapters/aws/dynamo/webhooks.ts';
import { FileTokenCipher, loadOrCreateKey } from '../../functions/adapters/local/file-token-cipher.ts';
import { createAccount, createWorkspace } from '../../functions/core/admin/admin.ts';
import { grantIdFor, sharedGrantSealId } from '../../functions/core/channels/grants.ts';
import { sweepTokens } from '../../functions/core/channels/sweep-tokens.ts';
import { TokenService } from '../../functions/core/channels/token-service.ts';
import { openTokens, sealTokens, tokenFields } from '../../functions/core/channels/tokens.ts';
import type { ChannelRecord } from '../../functions/ports/channels.ts';
import type { GrantRecord } from '../../functions/ports/grants.ts';
import type { NetworkAuth, TokenSet } from '../../functions/ports/network-auth.ts';
import { NetworkError } from '../../functions/ports/network-client.ts';
import type { JobQueue } from '../../functions/ports/publishing.ts';
import { type StoreDeps, tableStores } from '../support/stores.ts';
import { freshTable } from '../support/table.ts';

/**
 * Shared grants on DynamoDB Local: the board channels of one Pinterest account name one grant
 * item, whose rotating refresh token is refreshed once however many siblings (in however many
 * processes) need it, whose refusal marks every sibling, which the sweep refreshes once, and which
 * goes with its last channel.
 */

let now = new Date('2026-03-01T00:00:00.000Z');
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

/** Pinterest as the token service sees it: each refresh token works once (rotation), slowly. */
const rotatingPinterest = (first = 'refresh-0') => {
  let counter = 0;
  const prefix = first.replace(/-0$/, '');
  const valid = new Set<string>([first]);
  const state = { refreshCalls: 0, refuseAll: false, used: [] as string[] };
  const auth: NetworkAuth = {
    platform: 'pinterest',
    kind: 'oauth2',
    usesPkce: false,
    scopes: ['pins:write'],
    policy: { marginSeconds: 86400, proactiveAfterSeconds: 7 * 86400, rotatesRefreshToken: true },
    hasTargets: true,
    identify: async () => ({ remoteAccountId: 'owner', name: 'Owner' }),
    refresh: async ({ tokens }) => {
      state.refreshCalls++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (state.refuseAll || !tokens.refreshToken || !valid.has(tokens.refreshToken)) {
        throw new NetworkError('reconnect', 'Invalid refresh token');
      }
      valid.delete(tokens.refreshToken);
      state.used.push(tokens.refreshToken);
      counter++;
      valid.add(`${prefix}-${counter}`);
      return {
        accessToken: `access-${counter}`,
        refreshToken: `${prefix}-${counter}`,
        expiresAt: new Date(now.getTime() + 30 * 86400_000).toISOString(),
        refreshExpiresAt: new Date(now.getTime() + 60 * 86400_000).toISOString(),
        scopes: ['pins:write'],
        issuedAt: now.toISOString(),
      };
    },
    capabilities: () => ({ publish: true, manage: true, threads: false, metrics: true }),
  };
  return { auth, state };
};

const service = (auth: NetworkAuth) =>
  new TokenService(
    {
      clock,
      channels: stores.channels,
      grants: stores.grants,
      tokenCipher: () => cipher,
      auths: (platform) => (platform === 'pinterest' ? auth : null),
      appCredentials: { get: async () => ({ clientId: 'c', clientSecret: 's' }) },
      queue: () => queue,
    },
    { holdSeconds: 5, pollMs: 20 },
  );

/** Two board channels connected from one grant whose access token expires in `expiresInSeconds`. */
const siblings = async (expiresInSeconds: number, refreshToken = 'refresh-0') => {
  const deps = { ...stores, clock, tokenCipher: () => cipher };
  const account = await createAccount(deps, { name: 'A', plan: 'starter' });
  const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
  // A webhook endpoint (turned off): the workspace keeps its events.
  await new DynamoWebhookStore(table).createEndpoint(
    {
      webhookId: `wh_sg${Math.random().toString(36).slice(2, 10)}`,
      workspaceId: ws.workspaceId,
      accountId: account.accountId,
      url: 'https://receiver.invalid/hook',
      description: null,
      events: ['channel.needs_reconnect'],
      enabled: false,
      consecutiveFailures: 0,
      disabledReason: 'request',
      disabledAt: now.toISOString(),
      secretCiphertext: 'sealed',
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    },
    0,
  );
  const tokens: TokenSet = {
    accessToken: 'access-0',
    refreshToken,
    expiresAt: new Date(now.getTime() + expiresInSeconds * 1000).toISOString(),
    refreshExpiresAt: null,
    scopes: ['pins:write'],
    issuedAt: now.toISOString(),
  };
  const policy = { marginSeconds: 86400, proactiveAfterSeconds: 7 * 86400, rotatesRefreshToken: true };
  const owner = `owner-${Math.random()}`;
  const grantId = grantIdFor(ws.workspaceId, 'pinterest', owner);
  const at = now.toISOString();
  const board = (n: number) => ({
    base: {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'pinterest' as const,
      name: `Board ${n}`,
      remoteAccountId: `${owner}-board-${n}`,
      connection: 'connected' as const,
      threadsPermitted: false,
      tokenExpiresAt: null,
      tokenIssuedAt: at,
      refreshDueAt: null,
      grantId,
      authKind: 'oauth2' as const,
      createdAt: at,
    },
    seal: async () => '',
  });
  const saved = await saveChannels(table, [board(1), board(2)], 25, undefined, {
    base: {
      grantId,
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'pinterest',
      remoteAccountId: owner,
      connection: 'connected',
      ...tokenFields(policy, tokens, now),
      updatedAt: at,
      createdAt: at,
    },
    seal: () => sealTokens(cipher, sharedGrantSealId(grantId), tokens),
  });
  return {
    accountId: account.accountId,
    workspaceId: ws.workspaceId,
    grantId,
    channels: saved.map((s) => s.channel) as [ChannelRecord, ChannelRecord],
  };
};

const grantOf = async (workspaceId: string, grantId: string) =>
  (await stores.grants.getGrant(workspaceId, grantId)) as GrantRecord;

describe('a grant shared by two board channels', () => {
  it('is stored once: the channels name it and hold no tokens of their own', async () => {
    const { workspaceId, grantId, channels } = await siblings(10 * 86400);
    for (const channel of channels) {
      const stored = (await stores.channels.getChannel(workspaceId, channel.channelId)) as ChannelRecord;
      expect(stored.grantId).toBe(grantId);
      expect(stored.tokenCiphertext).toBe('');
      expect(stored.refreshDueAt).toBeNull();
    }
    const grant = await grantOf(workspaceId, grantId);
    expect(grant.channelIds).toEqual(channels.map((c) => c.channelId).sort());
    expect(grant.tokenVersion).toBe(1);
    expect((await openTokens(cipher, sharedGrantSealId(grantId), grant.tokenCiphertext)).refreshToken).toBe(
      'refresh-0',
    );
    // Sealed for the grant: the context of a channel does not open it.
    await expect(
      openTokens(cipher, (channels[0] as ChannelRecord).channelId, grant.tokenCiphertext),
    ).rejects.toThrow();
  });

  it('20 concurrent callers on both siblings in two processes refresh once (rotating), and all get the new token', async () => {
    const { auth, state } = rotatingPinterest();
    const { workspaceId, grantId, channels } = await siblings(3600); // inside the one-day margin
    const services = [service(auth), service(auth)];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (services[i % 2] as TokenService).credentials(channels[Math.floor(i / 2) % 2] as ChannelRecord),
      ),
    );
    expect(state.refreshCalls).toBe(1);
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set(['access-1']));
    expect(results.map((r) => r.remoteAccountId).sort()).toEqual(
      [...Array(10).fill(channels[0].remoteAccountId), ...Array(10).fill(channels[1].remoteAccountId)].sort(),
    );
    const grant = await grantOf(workspaceId, grantId);
    expect(grant.tokenVersion).toBe(2);
    expect((await openTokens(cipher, sharedGrantSealId(grantId), grant.tokenCiphertext)).refreshToken).toBe(
      'refresh-1',
    );
  });

  it('"token expired" on one sibling after the other refreshed uses the new tokens, without a second refresh', async () => {
    const { auth, state } = rotatingPinterest();
    const { channels } = await siblings(10 * 86400);
    const [a, b] = channels;
    const tokens = service(auth);
    const expiredOnce = async (credentials: { accessToken: string }) => {
      if (credentials.accessToken === 'access-0') {
        throw new NetworkError('reconnect', 'token expired', { status: 401, tokenExpired: true });
      }
      return credentials.accessToken;
    };
    expect(await tokens.withCredentials(a, expiredOnce)).toBe('access-1');
    // Another process, holding b as it was read before the refresh.
    expect(await service(auth).withCredentials(b, expiredOnce)).toBe('access-1');
    expect(state.refreshCalls).toBe(1);
  });

  it('a refused refresh marks the grant and every sibling needs_reconnect, one event each, and asks the network once', async () => {
    const { auth, state } = rotatingPinterest();
    state.refuseAll = true;
    const { workspaceId, grantId, channels } = await siblings(3600);
    sentEvents.length = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        service(auth).credentials(channels[i % 2] as ChannelRecord, { postId: 'post_x' }),
      ),
    );
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(state.refreshCalls).toBe(1);
    expect((await grantOf(workspaceId, grantId)).connection).toBe('needs_reconnect');
    for (const channel of channels) {
      expect((await stores.channels.getChannel(workspaceId, channel.channelId))?.connection).toBe(
        'needs_reconnect',
      );
    }
    expect(sentEvents).toHaveLength(2);
    // Later callers are refused without asking the network again.
    await expect(service(auth).credentials(channels[0])).rejects.toMatchObject({ kind: 'reconnect' });
    expect(state.refreshCalls).toBe(1);
  });

  it('the sweep refreshes the grant once when it is due, not each channel', async () => {
    // Other tests' grants are due too: this network knows only this grant's refresh token.
    const { auth, state } = rotatingPinterest('sweep-0');
    const { workspaceId, grantId } = await siblings(30 * 86400, 'sweep-0');
    const tokenService = service(auth);
    const mine = async () =>
      (await stores.channels.channelsDueForRefresh(clock.now().toISOString(), 1000)).filter(
        (due) => due.workspaceId === workspaceId,
      );
    now = new Date(now.getTime() + 6 * 86400_000);
    expect(await mine()).toEqual([]);
    now = new Date(now.getTime() + 2 * 86400_000);
    expect(await mine()).toEqual([{ workspaceId, grantId }]);
    await sweepTokens({
      clock,
      channels: stores.channels,
      grants: stores.grants,
      tokens: () => tokenService,
    });
    expect(state.used).toEqual(['sweep-0']);
    expect((await grantOf(workspaceId, grantId)).tokenVersion).toBe(2);
    expect(await mine()).toEqual([]);
  });

  it('disconnecting both siblings at once removes the grant with the last one, and uncounts both', async () => {
    const { accountId, workspaceId, grantId, channels } = await siblings(10 * 86400);
    expect((await stores.accounts.getAccount(accountId))?.channelCount).toBe(2);
    const results = await Promise.all(channels.map((channel) => stores.channels.disconnectChannel(channel)));
    expect(results).toEqual([true, true]);
    expect(await stores.grants.getGrant(workspaceId, grantId)).toBeNull();
    expect(await stores.channels.listChannels(workspaceId)).toEqual([]);
    expect((await stores.accounts.getAccount(accountId))?.channelCount).toBe(0);
    const left = ((await table.doc.send(new ScanCommand({ TableName: table.tableName }))).Items ?? []).filter(
      (item) => item.grantId === grantId,
    );
    expect(left).toEqual([]);
  });
});
