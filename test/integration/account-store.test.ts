/** Accounts and workspaces in the table (AccountStore, WorkspaceStore). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { newId } from '../../functions/domain/ids.ts';
import type { Account } from '../../functions/ports/accounts.ts';
import { type StoreDeps, tableStores } from '../support/stores.ts';
import { freshTable } from '../support/table.ts';

let table: Awaited<ReturnType<typeof freshTable>>;
let deps: StoreDeps;

beforeAll(async () => {
  table = await freshTable();
  deps = tableStores(table);
});
afterAll(async () => {
  await table?.drop();
});

const newAccount = (plan: Account['plan'] = 'starter'): Account => ({
  accountId: newId('acct'),
  name: 'A',
  plan,
  channelCount: 0,
  storageBytes: 0,
  createdAt: new Date().toISOString(),
});

describe('accounts', () => {
  it('reads an account as created, changes its plan, and never creates one twice', async () => {
    const account = newAccount('free');
    await deps.accounts.createAccount(account);
    expect(await deps.accounts.getAccount(account.accountId)).toEqual(account);
    await deps.accounts.setPlan(account.accountId, 'unlimited');
    expect((await deps.accounts.getAccount(account.accountId))?.plan).toBe('unlimited');
    await expect(deps.accounts.createAccount({ ...account, plan: 'free' })).rejects.toThrow();
    expect((await deps.accounts.getAccount(account.accountId))?.plan).toBe('unlimited');
  });

  it('refuses the plan of an account that does not exist, and creates none', async () => {
    const accountId = newId('acct');
    await expect(deps.accounts.setPlan(accountId, 'free')).rejects.toThrow();
    expect(await deps.accounts.getAccount(accountId)).toBeNull();
  });
});

describe('workspaces', () => {
  it("lists an account's workspaces and finds one only under its own account", async () => {
    const [one, two] = [newAccount(), newAccount()] as [Account, Account];
    await deps.accounts.createAccount(one);
    await deps.accounts.createAccount(two);
    const make = (accountId: string, name: string) => ({
      workspaceId: newId('ws'),
      accountId,
      name,
      createdAt: new Date().toISOString(),
    });
    const a = make(one.accountId, 'A');
    const b = make(one.accountId, 'B');
    const elsewhere = make(two.accountId, 'C');
    for (const workspace of [a, b, elsewhere]) await deps.workspaces.createWorkspace(workspace);
    expect(await deps.workspaces.getWorkspace(one.accountId, a.workspaceId)).toEqual(a);
    expect(await deps.workspaces.getWorkspace(two.accountId, a.workspaceId)).toBeNull();
    const listed = await deps.workspaces.listWorkspaces(one.accountId);
    expect(listed.map((w) => w.workspaceId).sort()).toEqual([a.workspaceId, b.workspaceId].sort());
    await expect(deps.workspaces.createWorkspace({ ...a, name: 'again' })).rejects.toThrow();
  });

  it('starts a workspace with a count of 0 webhook endpoints (its events are not kept until one exists)', async () => {
    const account = newAccount();
    await deps.accounts.createAccount(account);
    const workspace = {
      workspaceId: newId('ws'),
      accountId: account.accountId,
      name: 'W',
      createdAt: new Date().toISOString(),
    };
    await deps.workspaces.createWorkspace(workspace);
    const count = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: keys.webhookCount(workspace.workspaceId) }),
    );
    expect(count.Item).toMatchObject({ endpoints: 0 });
  });
});
