import { describe, expect, it } from 'vitest';
import {
  channelFromItem,
  jobChannelsOf,
  remoteGuardFromItem,
} from '../../functions/adapters/aws/dynamo/channels.ts';
import { grantFromItem } from '../../functions/adapters/aws/dynamo/grants.ts';
import { thrownMalformed as thrown } from '../support/items.ts';

const ciphertext = 'v1.sealed.ZXhhbXBsZS10b2tlbi1jaXBoZXJ0ZXh0LXRoYXQtbXVzdC1uZXZlci1iZS1sb2dnZWQ';

/** A channel connected through the API, as saved today. */
const channel = {
  channelId: 'ch_1',
  accountId: 'acct_1',
  workspaceId: 'ws_1',
  platform: 'pinterest',
  name: 'Recipes',
  remoteAccountId: 'board-42',
  connection: 'connected',
  threadsPermitted: false,
  tokenCiphertext: ciphertext,
  tokenVersion: 3,
  tokenExpiresAt: '2026-12-29T10:00:00.000Z',
  tokenIssuedAt: '2026-11-29T10:00:00.000Z',
  refreshDueAt: '2026-12-22T10:00:00.000Z',
  scopes: ['boards:read', 'pins:write'],
  capabilities: { publish: true, manage: true, threads: false, metrics: true },
  serviceUrl: null,
  grantId: 'grt_1',
  authKind: 'oauth2',
  updatedAt: '2026-11-29T10:00:00.000Z',
  createdAt: '2026-11-20T10:00:00.000Z',
};
const channelKeys = { PK: 'WORKSPACE#ws_1', SK: 'CHANNEL#ch_1', type: 'Channel' };

describe('channel items', () => {
  it('read back as the record, without the table keys, the refresh index or a refresh hold', () => {
    const stored = {
      ...channelKeys,
      GSI2PK: 'TOKEN_REFRESH',
      GSI2SK: '2026-12-22T10:00:00.000Z#ws_1#ch_1',
      refreshHeldBy: 'sweep-1',
      refreshHeldUntil: '2026-11-29T10:01:00.000Z',
      ...channel,
    };
    expect(channelFromItem(stored)).toEqual(channel);
  });

  it('read a channel pasted in by the admin CLI (every channel before issue 11) with version 0 and no token times', () => {
    const pasted = {
      channelId: 'ch_2',
      accountId: 'acct_1',
      workspaceId: 'ws_1',
      platform: 'x',
      name: 'news',
      remoteAccountId: 'news',
      connection: 'connected',
      threadsPermitted: true,
      tokenCiphertext: ciphertext,
      createdAt: '2026-11-22T10:00:00.000Z',
    };
    const read = channelFromItem({ ...channelKeys, SK: 'CHANNEL#ch_2', ...pasted });
    expect(read).toEqual({
      ...pasted,
      tokenVersion: 0,
      tokenExpiresAt: null,
      tokenIssuedAt: null,
      refreshDueAt: null,
      serviceUrl: null,
    });
    // Absent, not defaulted: no scopes or capabilities means everything the network has.
    for (const field of ['scopes', 'capabilities', 'grantId', 'authKind', 'updatedAt']) {
      expect(read).not.toHaveProperty(field);
    }
  });

  it('read a channel connected before shared grants as holding its own tokens', () => {
    const { grantId: _grant, ...own } = channel;
    const read = channelFromItem({ ...channelKeys, ...own });
    expect(read).toEqual(own);
    expect(read).not.toHaveProperty('grantId');
  });

  it('refuse a malformed channel, naming its kind, key and fields, never its tokens', () => {
    const error = thrown(() =>
      channelFromItem({
        ...channelKeys,
        ...channel,
        platform: 'myspace',
        tokenVersion: '3',
        connection: 'lost',
      }),
    );
    expect(error.kind).toBe('Channel');
    expect(error.key).toBe('WORKSPACE#ws_1 CHANNEL#ch_1');
    for (const field of ['platform', 'tokenVersion', 'connection']) expect(error.problem).toContain(field);
    expect(error.message).not.toContain(ciphertext.slice(0, 16));
    expect(error.message).not.toContain('myspace');
  });

  it('refuse a channel whose tokens are not sealed text without showing them', () => {
    const error = thrown(() =>
      channelFromItem({ ...channelKeys, ...channel, tokenCiphertext: { accessToken: ciphertext } }),
    );
    expect(error.problem).toContain('tokenCiphertext');
    expect(error.message).not.toContain(ciphertext.slice(0, 16));
    const missing = thrown(() => channelFromItem({ ...channelKeys, ...channel, tokenCiphertext: undefined }));
    expect(missing.problem).toContain('tokenCiphertext');
  });

  it('refuse capabilities that miss one', () => {
    const error = thrown(() =>
      channelFromItem({ ...channelKeys, ...channel, capabilities: { publish: true, manage: true } }),
    );
    expect(error.problem).toContain('capabilities.threads');
  });
});

describe("a publish job's read of its channels", () => {
  const count = { PK: 'WORKSPACE#ws_1', SK: 'WEBHOOKCOUNT', type: 'WebhookCount', endpoints: 2 };

  it('finds its channels by id and the endpoint count', () => {
    const read = jobChannelsOf('ws_1', [count, { ...channelKeys, ...channel }]);
    expect(read.endpoints).toBe(2);
    expect([...read.channels.entries()]).toEqual([['ch_1', channel]]);
  });

  it('refuses a malformed channel instead of keeping it under an undefined id', () => {
    const { channelId: _id, ...noId } = channel;
    expect(thrown(() => jobChannelsOf('ws_1', [count, { ...channelKeys, ...noId }])).problem).toContain(
      'channelId',
    );
  });
});

describe('remote-account guard items', () => {
  const guardKeys = { PK: 'WORKSPACE#ws_1', SK: 'CHANNELREMOTE#pinterest#board-42', type: 'ChannelRemote' };

  it('name their channel', () => {
    expect(remoteGuardFromItem({ ...guardKeys, channelId: 'ch_1' })).toBe('ch_1');
  });

  it('refuse a guard that names none', () => {
    const error = thrown(() => remoteGuardFromItem({ ...guardKeys }));
    expect(error.kind).toBe('ChannelRemote');
    expect(error.key).toBe('WORKSPACE#ws_1 CHANNELREMOTE#pinterest#board-42');
    expect(error.problem).toContain('channelId');
  });
});

const grant = {
  grantId: 'grt_1',
  accountId: 'acct_1',
  workspaceId: 'ws_1',
  platform: 'pinterest',
  remoteAccountId: 'user-7',
  connection: 'connected',
  tokenCiphertext: ciphertext,
  tokenVersion: 2,
  tokenExpiresAt: '2026-12-29T10:00:00.000Z',
  tokenIssuedAt: '2026-11-29T10:00:00.000Z',
  refreshDueAt: null,
  serviceUrl: null,
  updatedAt: '2026-11-29T10:00:00.000Z',
  createdAt: '2026-11-29T09:00:00.000Z',
};
const grantKeys = { PK: 'WORKSPACE#ws_1', SK: 'GRANT#grt_1', type: 'Grant' };

describe('shared grant items', () => {
  it('read back with its channel set as a sorted list, without the index keys or a refresh hold', () => {
    const stored = {
      ...grantKeys,
      GSI2PK: 'TOKEN_REFRESH',
      GSI2SK: 'x',
      refreshHeldBy: 'sweep-1',
      refreshHeldUntil: '2026-11-29T10:01:00.000Z',
      ...grant,
      channelIds: new Set(['ch_9', 'ch_1', 'ch_5']),
    };
    expect(grantFromItem(stored)).toEqual({ ...grant, channelIds: ['ch_1', 'ch_5', 'ch_9'] });
  });

  it('read token times and a service host left out of the item as null', () => {
    const { tokenExpiresAt: _e, tokenIssuedAt: _i, refreshDueAt: _r, serviceUrl: _s, ...unset } = grant;
    expect(grantFromItem({ ...grantKeys, ...unset, channelIds: new Set(['ch_1']) })).toEqual({
      ...unset,
      tokenExpiresAt: null,
      tokenIssuedAt: null,
      refreshDueAt: null,
      serviceUrl: null,
      channelIds: ['ch_1'],
    });
  });

  it('refuse a grant without its channel set or token version, never showing its tokens', () => {
    const error = thrown(() =>
      grantFromItem({ ...grantKeys, ...grant, tokenVersion: undefined, channelIds: ['ch_1'] }),
    );
    expect(error.kind).toBe('Grant');
    expect(error.key).toBe('WORKSPACE#ws_1 GRANT#grt_1');
    expect(error.problem).toContain('tokenVersion');
    expect(error.problem).toContain('channelIds');
    expect(error.message).not.toContain(ciphertext.slice(0, 16));
    const noTokens = thrown(() =>
      grantFromItem({ ...grantKeys, ...grant, tokenCiphertext: 42, channelIds: new Set(['ch_1']) }),
    );
    expect(noTokens.problem).toContain('tokenCiphertext');
  });
});
