/** createOwner on in-memory fakes: what it writes, in which order, and what a refusal leaves. */
import { describe, expect, it } from 'vitest';
import { createOwner, strongPassword } from '../../functions/core/admin/owners.ts';
import { ApiError } from '../../functions/domain/errors.ts';
import type { Account } from '../../functions/ports/accounts.ts';
import type { User } from '../../functions/ports/users.ts';
import type { Workspace } from '../../functions/ports/workspaces.ts';

const POLICY = /^(?=.*[A-Z])(?=.*[a-z])(?=.*\d)(?=.*[^A-Za-z0-9]).{12,}$/;

const fakes = (taken: string[] = []) => {
  const accounts = new Map<string, Account>();
  const workspaces: Workspace[] = [];
  const users: User[] = [];
  const people: { email: string; password: string; permanent: boolean }[] = [];
  const deps = {
    clock: { now: () => new Date('2026-11-29T12:00:00Z') },
    accounts: {
      createAccount: async (a: Account) => void accounts.set(a.accountId, a),
      getAccount: async (id: string) => accounts.get(id) ?? null,
      setPlan: async () => undefined,
    },
    workspaces: {
      createWorkspace: async (w: Workspace) => void workspaces.push(w),
      getWorkspace: async () => null,
      listWorkspaces: async (accountId: string) => workspaces.filter((w) => w.accountId === accountId),
      renameWorkspace: async () => null,
    },
    users: { createUser: async (u: User) => void users.push(u), getUser: async () => null },
    directory: {
      createPerson: async (person: { email: string; password: string; permanent: boolean }) => {
        if (taken.includes(person.email)) throw new ApiError('already_exists', 'taken', 'email');
        people.push(person);
        return { userId: `sub-${people.length}` };
      },
    },
  };
  return { deps, accounts, workspaces, users, people };
};

describe('createOwner', () => {
  it('makes strong passwords the pool accepts, never the same twice', () => {
    const made = Array.from({ length: 200 }, strongPassword);
    for (const password of made) expect(password).toMatch(POLICY);
    expect(new Set(made).size).toBe(made.length);
  });

  it('without an account, creates one with a workspace and its owner, with a temporary password', async () => {
    const t = fakes();
    const owner = await createOwner(t.deps, { email: 'first@example.com' });
    expect(owner).toMatchObject({ userId: 'sub-1', email: 'first@example.com', temporary: true });
    expect(t.people).toEqual([{ email: 'first@example.com', password: owner.password, permanent: false }]);
    expect(t.accounts.get(owner.accountId)?.plan).toBe('starter');
    expect(t.workspaces.map((w) => w.accountId)).toEqual([owner.accountId]);
    expect(t.users).toEqual([
      {
        userId: 'sub-1',
        accountId: owner.accountId,
        email: 'first@example.com',
        role: 'owner',
        createdAt: '2026-11-29T12:00:00.000Z',
      },
    ]);
  });

  it('gives an existing account an owner with the password asked for, permanent', async () => {
    const t = fakes();
    const first = await createOwner(t.deps, { email: 'a@example.com' });
    const second = await createOwner(
      t.deps,
      { email: 'b@example.com', accountId: first.accountId },
      { password: 'Given-Passw0rd!', permanent: true },
    );
    expect(second).toMatchObject({
      accountId: first.accountId,
      password: 'Given-Passw0rd!',
      temporary: false,
    });
    expect(t.accounts.size).toBe(1);
    expect(t.users.map((u) => u.accountId)).toEqual([first.accountId, first.accountId]);
  });

  it('changes nothing for an unknown account or an email the pool already has', async () => {
    const t = fakes(['taken@example.com']);
    await expect(
      createOwner(t.deps, { email: 'x@example.com', accountId: 'acct_missing' }),
    ).rejects.toMatchObject({
      code: 'not_found',
      field: 'accountId',
    });
    await expect(createOwner(t.deps, { email: 'taken@example.com' })).rejects.toMatchObject({
      code: 'already_exists',
    });
    expect([t.accounts.size, t.workspaces.length, t.users.length, t.people.length]).toEqual([0, 0, 0, 0]);
  });
});
