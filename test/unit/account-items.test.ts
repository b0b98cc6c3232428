import { describe, expect, it } from 'vitest';
import { accountFromItem } from '../../functions/adapters/aws/dynamo/accounts.ts';
import { keyWindowFromItem } from '../../functions/adapters/aws/dynamo/api-keys.ts';
import { tagFromItem } from '../../functions/adapters/aws/dynamo/tags.ts';
import { usageFromItem } from '../../functions/adapters/aws/dynamo/usage.ts';
import { workspaceFromItem } from '../../functions/adapters/aws/dynamo/workspaces.ts';
import { thrownMalformed as thrown } from '../support/items.ts';

const account = {
  accountId: 'acct_1',
  name: 'Acme',
  plan: 'growth',
  channelCount: 3,
  storageBytes: 2048,
  createdAt: '2026-11-29T10:00:00.000Z',
};
const accountKeys = { PK: 'ACCOUNT#acct_1', SK: 'ACCOUNT', type: 'Account' };

describe('account items', () => {
  it('read back as the record, without the table keys', () => {
    expect(accountFromItem({ ...accountKeys, ...account })).toEqual(account);
  });

  it('read an account with no upload yet, or no channel count, with those counters at 0', () => {
    const { storageBytes: _s, channelCount: _c, ...uncounted } = account;
    expect(accountFromItem({ ...accountKeys, ...uncounted })).toEqual({
      ...uncounted,
      channelCount: 0,
      storageBytes: 0,
    });
  });

  it('refuse an account on no known plan or with a counter that is not a number, naming its key', () => {
    const error = thrown(() =>
      accountFromItem({ ...accountKeys, ...account, plan: 'gold', channelCount: '3' }),
    );
    expect(error.kind).toBe('Account');
    expect(error.key).toBe('ACCOUNT#acct_1 ACCOUNT');
    expect(error.problem).toContain('plan');
    expect(error.problem).toContain('channelCount');
    expect(error.message).not.toContain('gold');
    expect(
      thrown(() => accountFromItem({ ...accountKeys, ...account, accountId: undefined })).problem,
    ).toContain('accountId');
  });
});

const workspace = {
  workspaceId: 'ws_1',
  accountId: 'acct_1',
  name: 'Main',
  createdAt: '2026-11-29T10:00:00.000Z',
};
const workspaceKeys = { PK: 'ACCOUNT#acct_1', SK: 'WORKSPACE#ws_1', type: 'Workspace' };

describe('workspace items', () => {
  it('read back as the record, without the table keys', () => {
    expect(workspaceFromItem({ ...workspaceKeys, ...workspace })).toEqual(workspace);
  });

  it('refuse a workspace without its name, naming its key', () => {
    const { name: _name, ...unnamed } = workspace;
    const error = thrown(() => workspaceFromItem({ ...workspaceKeys, ...unnamed }));
    expect(error.message).toContain('Workspace item ACCOUNT#acct_1 WORKSPACE#ws_1');
    expect(error.problem).toContain('name');
  });
});

const tag = {
  tagId: 'tag_1',
  workspaceId: 'ws_1',
  name: 'Launch',
  color: '#1d9bf0',
  createdAt: '2026-11-29T10:00:00.000Z',
};
const tagKeys = { PK: 'WORKSPACE#ws_1', SK: 'TAG#tag_1', type: 'Tag' };

describe('tag items', () => {
  it('read back as the record, a tag without a colour (NULL or no attribute) with a null colour', () => {
    expect(tagFromItem({ ...tagKeys, ...tag })).toEqual(tag);
    expect(tagFromItem({ ...tagKeys, ...tag, color: null })).toEqual({ ...tag, color: null });
    const { color: _color, ...colourless } = tag;
    expect(tagFromItem({ ...tagKeys, ...colourless })).toEqual({ ...tag, color: null });
  });

  it('refuse a tag whose colour is not text, naming its key', () => {
    const error = thrown(() => tagFromItem({ ...tagKeys, ...tag, color: 0x1d9bf0 }));
    expect(error.kind).toBe('Tag');
    expect(error.key).toBe('WORKSPACE#ws_1 TAG#tag_1');
    expect(error.problem).toContain('color');
  });
});

describe('usage items', () => {
  const usageKeys = { PK: 'ACCOUNT#acct_1', SK: 'USAGE#2026-11', accountId: 'acct_1', period: '2026-11' };

  it('read the counters, one not counted yet as 0', () => {
    expect(usageFromItem({ ...usageKeys, postsCreated: 12, postsPublished: 9 })).toEqual({
      postsCreated: 12,
      postsPublished: 9,
    });
    expect(usageFromItem({ ...usageKeys, postsCreated: 4 })).toEqual({ postsCreated: 4, postsPublished: 0 });
    expect(usageFromItem({ ...usageKeys, postsPublished: 1 })).toEqual({
      postsCreated: 0,
      postsPublished: 1,
    });
  });

  it('refuse a counter that is not a whole number', () => {
    const error = thrown(() => usageFromItem({ ...usageKeys, postsCreated: '12', postsPublished: 1.5 }));
    expect(error.kind).toBe('Usage');
    expect(error.key).toBe('ACCOUNT#acct_1 USAGE#2026-11');
    expect(error.problem).toContain('postsCreated');
    expect(error.problem).toContain('postsPublished');
  });
});

const secretHash = 'a3f1c9d2e4b5a6978812aa0b1c2d3e4f5061728394a5b6c7d8e9f00112233445';
const apiKey = {
  keyId: 'key_1',
  secretHash,
  hint: 'sk_live_AbCd',
  accountId: 'acct_1',
  workspaceId: 'ws_1',
  mode: 'live',
  permission: 'write',
  name: 'CI',
  createdAt: '2026-11-29T10:00:00.000Z',
};
const apiKeyKeys = { PK: `APIKEY#${secretHash}`, SK: 'APIKEY', type: 'ApiKey' };

describe('API key items', () => {
  it('read the key and its rate-limit window, the window left out of the record', () => {
    expect(keyWindowFromItem({ ...apiKeyKeys, ...apiKey, rateWindow: 1_764_410_400, rateCount: 7 })).toEqual({
      key: apiKey,
      window: 1_764_410_400,
      count: 7,
    });
  });

  it('read a key never counted (new, or made before its window lived on its item) with no window', () => {
    expect(keyWindowFromItem({ ...apiKeyKeys, ...apiKey })).toEqual({ key: apiKey, window: null, count: 0 });
  });

  it('refuse a malformed key naming it by its id, never by its hash', () => {
    const { hint: _hint, ...noHint } = apiKey;
    const error = thrown(() => keyWindowFromItem({ ...apiKeyKeys, ...noHint, mode: 'prod', rateCount: 'x' }));
    expect(error.kind).toBe('ApiKey');
    expect(error.key).toContain('key_1');
    expect(error.problem).toContain('hint');
    expect(error.problem).toContain('mode');
    expect(error.problem).toContain('rateCount');
    expect(error.message).not.toContain(secretHash);
    expect(error.message).not.toContain(secretHash.slice(0, 12));
    expect(error.key).not.toContain(secretHash.slice(0, 12));
  });

  it('keep the hash out of the error when the hash itself is at fault, or the key has no id', () => {
    const wrongHash = thrown(() => keyWindowFromItem({ ...apiKeyKeys, ...apiKey, secretHash: [secretHash] }));
    expect(wrongHash.problem).toContain('secretHash');
    expect(wrongHash.message).not.toContain(secretHash.slice(0, 12));
    const noId = thrown(() => keyWindowFromItem({ ...apiKeyKeys, ...apiKey, keyId: undefined }));
    expect(noId.problem).toContain('keyId');
    expect(noId.message).not.toContain(secretHash.slice(0, 12));
  });
});
