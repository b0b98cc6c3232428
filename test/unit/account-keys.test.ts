/** The dashboard's key use cases (core/account/keys.ts) on in-memory stores. */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createKey,
  createKeyBody,
  listKeys,
  revokeKey,
  rollKey,
  rollKeyBody,
} from '../../functions/core/account/keys.ts';
import { hashSecret } from '../../functions/core/auth/api-keys.ts';
import { FakeKeyStore } from '../support/fakes/account.ts';
import { FakeClock } from '../support/fakes/clock.ts';

const scope = { accountId: 'acct_A', workspaceId: 'ws_A' };
const otherScope = { accountId: 'acct_B', workspaceId: 'ws_B' };

let apiKeys: FakeKeyStore;
let clock: FakeClock;
let deps: { apiKeys: FakeKeyStore; clock: FakeClock };

beforeEach(() => {
  apiKeys = new FakeKeyStore();
  clock = new FakeClock('2026-11-29T12:00:00.000Z');
  deps = { apiKeys, clock };
});

describe('creating a key', () => {
  it('shows the secret once and stores only its hash, with the view the dashboard lists', async () => {
    const created = await createKey(deps, scope, { name: 'CI', mode: 'test', permission: 'read' });
    expect(created.secret).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(created).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'CI',
      prefix: created.secret.slice(0, 12),
      mode: 'test',
      permission: 'read',
      createdAt: '2026-11-29T12:00:00.000Z',
      lastUsedAt: null,
      expiresAt: null,
      secret: created.secret,
    });
    const [stored] = [...apiKeys.byHash.values()];
    expect(stored?.secretHash).toBe(hashSecret(created.secret));
    expect(JSON.stringify(stored)).not.toContain(created.secret);
    expect(await listKeys(deps, scope)).toEqual([
      {
        id: created.id,
        name: 'CI',
        prefix: created.prefix,
        mode: 'test',
        permission: 'read',
        createdAt: created.createdAt,
        lastUsedAt: null,
        expiresAt: null,
      },
    ]);
  });

  it('names an unnamed key after its mode and permission', async () => {
    expect((await createKey(deps, scope, { mode: 'live', permission: 'write' })).name).toBe('live write key');
  });

  it('refuses bad bodies with the field at fault', () => {
    expect(createKeyBody.safeParse({ mode: 'live', permission: 'write' }).success).toBe(true);
    for (const body of [
      {},
      { mode: 'prod', permission: 'write' },
      { mode: 'live', permission: 'admin' },
      { mode: 'live', permission: 'write', name: '' },
      { mode: 'live', permission: 'write', name: '   ' },
      { mode: 'live', permission: 'write', name: 'x'.repeat(101) },
      { mode: 'live', permission: 'write', workspaceId: 'ws_B' },
    ]) {
      expect(createKeyBody.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });
});

describe('listing keys', () => {
  it('lists newest first, only the workspace and account asked for', async () => {
    const first = await createKey(deps, scope, { name: 'one', mode: 'live', permission: 'read' });
    clock.advance(1);
    const second = await createKey(deps, scope, { name: 'two', mode: 'live', permission: 'write' });
    await createKey(deps, otherScope, { name: 'theirs', mode: 'live', permission: 'write' });
    expect((await listKeys(deps, scope)).map((k) => k.id)).toEqual([second.id, first.id]);
    // A workspace id of another account is never enough to see its keys.
    expect(await listKeys(deps, { accountId: 'acct_A', workspaceId: 'ws_B' })).toEqual([]);
  });
});

describe('revoking a key', () => {
  it('removes it; a second revoke, another workspace or an unknown id answer 404', async () => {
    const key = await createKey(deps, scope, { mode: 'live', permission: 'write' });
    await expect(revokeKey(deps, otherScope, key.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(revokeKey(deps, scope, 'key_nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(revokeKey(deps, scope, 'not a key id')).rejects.toMatchObject({ code: 'not_found' });
    expect(apiKeys.byHash.size).toBe(1);
    await revokeKey(deps, scope, key.id);
    expect(apiKeys.byHash.size).toBe(0);
    expect(await listKeys(deps, scope)).toEqual([]);
    await expect(revokeKey(deps, scope, key.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('rolling a key', () => {
  it('makes a new key like the old one; the old one expires after the grace and leaves the list', async () => {
    const old = await createKey(deps, scope, { name: 'deploy', mode: 'test', permission: 'write' });
    clock.advance(10);
    const rolled = await rollKey(deps, scope, old.id, { graceSeconds: 60 });
    expect(rolled).toMatchObject({ name: 'deploy', mode: 'test', permission: 'write', expiresAt: null });
    expect(rolled.id).not.toBe(old.id);
    expect(rolled.secret).not.toBe(old.secret);
    const listed = await listKeys(deps, scope);
    expect(listed.map((k) => [k.id, k.expiresAt])).toEqual([
      [rolled.id, null],
      [old.id, '2026-11-29T12:01:10.000Z'],
    ]);
    expect(apiKeys.byHash.get(hashSecret(old.secret))?.expiresAt).toBe(
      Date.parse('2026-11-29T12:01:10.000Z') / 1000,
    );
    clock.advance(60);
    expect((await listKeys(deps, scope)).map((k) => k.id)).toEqual([rolled.id]);
    // An expired key is as good as gone: no roll, no revoke.
    await expect(rollKey(deps, scope, old.id, {})).rejects.toMatchObject({ code: 'not_found' });
    await expect(revokeKey(deps, scope, old.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('expires the old key at once without a grace, and never lengthens an earlier grace', async () => {
    const old = await createKey(deps, scope, { mode: 'live', permission: 'read' });
    await rollKey(deps, scope, old.id, { graceSeconds: 30 });
    await rollKey(deps, scope, old.id, { graceSeconds: 3600 });
    const now = Date.parse('2026-11-29T12:00:00.000Z') / 1000;
    expect(apiKeys.byHash.get(hashSecret(old.secret))?.expiresAt).toBe(now + 30);
    const other = await createKey(deps, scope, { mode: 'live', permission: 'read' });
    await rollKey(deps, scope, other.id, {});
    expect(apiKeys.byHash.get(hashSecret(other.secret))?.expiresAt).toBe(now);
    expect((await listKeys(deps, scope)).map((k) => k.id)).not.toContain(other.id);
  });

  it('of a key revoked meanwhile leaves no new key behind', async () => {
    const old = await createKey(deps, scope, { mode: 'live', permission: 'write' });
    apiKeys.expireApiKey = async () => false;
    await expect(rollKey(deps, scope, old.id, {})).rejects.toMatchObject({ code: 'not_found' });
    expect([...apiKeys.byHash.values()].map((k) => k.keyId)).toEqual([old.id]);
  });

  it('of another account or workspace is 404 and changes nothing', async () => {
    const old = await createKey(deps, scope, { mode: 'live', permission: 'write' });
    await expect(rollKey(deps, otherScope, old.id, {})).rejects.toMatchObject({ code: 'not_found' });
    expect(apiKeys.byHash.size).toBe(1);
    expect(apiKeys.byHash.get(hashSecret(old.secret))?.expiresAt).toBeUndefined();
  });

  it('takes a grace of 0 to 86400 whole seconds', () => {
    for (const ok of [{}, { graceSeconds: 0 }, { graceSeconds: 86_400 }]) {
      expect(rollKeyBody.safeParse(ok).success, JSON.stringify(ok)).toBe(true);
    }
    for (const bad of [
      { graceSeconds: -1 },
      { graceSeconds: 86_401 },
      { graceSeconds: 1.5 },
      { graceSeconds: '60' },
      { graceSeconds: null },
      { grace: 60 },
    ]) {
      expect(rollKeyBody.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
