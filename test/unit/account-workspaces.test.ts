/** The dashboard's workspace use cases (core/account/workspaces.ts) on in-memory stores. */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  accountOverview,
  createAccountWorkspace,
  listAccountWorkspaces,
  renameAccountWorkspace,
  workspaceBody,
} from '../../functions/core/account/workspaces.ts';
import type { Account, AccountStore } from '../../functions/ports/accounts.ts';
import { FakeWorkspaceStore } from '../support/fakes/account.ts';
import { FakeClock } from '../support/fakes/clock.ts';

const account: Account = {
  accountId: 'acct_A',
  name: 'A',
  plan: 'starter',
  channelCount: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
};
const accounts: AccountStore = {
  createAccount: async () => undefined,
  getAccount: async (id) => (id === account.accountId ? account : null),
  setPlan: async () => undefined,
};

let workspaces: FakeWorkspaceStore;
let clock: FakeClock;

beforeEach(() => {
  workspaces = new FakeWorkspaceStore();
  clock = new FakeClock('2026-11-29T12:00:00.000Z');
});

describe('workspaces of an account', () => {
  it('creates (name trimmed), lists oldest first and renames', async () => {
    const body = workspaceBody.parse({ name: '  Marketing  ' });
    const first = await createAccountWorkspace({ workspaces, clock }, 'acct_A', body);
    expect(first).toEqual({
      id: expect.stringMatching(/^ws_/),
      name: 'Marketing',
      createdAt: clock.now().toISOString(),
    });
    clock.advance(1);
    const second = await createAccountWorkspace({ workspaces, clock }, 'acct_A', { name: 'Support' });
    await createAccountWorkspace({ workspaces, clock }, 'acct_B', { name: 'Theirs' });
    expect((await listAccountWorkspaces({ workspaces }, 'acct_A')).map((w) => w.id)).toEqual([
      first.id,
      second.id,
    ]);
    const renamed = await renameAccountWorkspace(
      { workspaces },
      { accountId: 'acct_A', workspaceId: first.id },
      { name: 'Brand' },
    );
    expect(renamed).toEqual({ ...first, name: 'Brand' });
  });

  it("answers 404 for another account's workspace and renames nothing", async () => {
    const theirs = await createAccountWorkspace({ workspaces, clock }, 'acct_B', { name: 'Theirs' });
    await expect(
      renameAccountWorkspace(
        { workspaces },
        { accountId: 'acct_A', workspaceId: theirs.id },
        { name: 'Mine' },
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(workspaces.items[0]?.name).toBe('Theirs');
  });

  it('takes a name of 1 to 100 characters after trimming, and nothing else', () => {
    expect(workspaceBody.parse({ name: 'x'.repeat(100) }).name).toHaveLength(100);
    for (const bad of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 3 },
      { name: 'a', plan: 'x' },
    ]) {
      expect(workspaceBody.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('gives the overview: the user, the plan and the workspaces', async () => {
    const ws = await createAccountWorkspace({ workspaces, clock }, 'acct_A', { name: 'Main' });
    expect(
      await accountOverview(
        { accounts, workspaces },
        { userId: 'u1', accountId: 'acct_A', email: 'a@example.com' },
      ),
    ).toEqual({
      user: { id: 'u1', email: 'a@example.com' },
      account: { id: 'acct_A', plan: 'starter' },
      workspaces: [ws],
    });
    await expect(
      accountOverview(
        { accounts, workspaces },
        { userId: 'u2', accountId: 'acct_gone', email: 'b@example.com' },
      ),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });
});
