import type { PlatformId } from '../../platforms/types.ts';
import type {
  Account,
  AccountStore,
  ChannelRecord,
  KeyMode,
  KeyPermission,
  Tag,
  Workspace,
} from '../../ports/accounts.ts';
import type { Clock } from '../../ports/clock.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import { newId } from '../../shared/ids.ts';
import { generateSecret } from '../auth/api-keys.ts';
import { createTag } from '../tags/tags.ts';
import { type PlanName, planLimits } from '../usage/plans.ts';

/** What the operator commands need. */
export interface AdminDeps {
  accounts: AccountStore;
  clock: Clock;
  tokenCipher: () => TokenCipher;
}

const notFound = (what: string, id: string) => new Error(`${what} ${id} does not exist`);

export const createAccount = async (
  deps: AdminDeps,
  input: { name: string; plan: PlanName },
): Promise<Account> => {
  const account: Account = {
    accountId: newId('acct'),
    name: input.name,
    plan: input.plan,
    channelCount: 0,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.accounts.createAccount(account);
  return account;
};

export const setPlan = async (
  deps: AdminDeps,
  input: { accountId: string; plan: PlanName },
): Promise<void> => {
  if (!(await deps.accounts.getAccount(input.accountId))) throw notFound('Account', input.accountId);
  await deps.accounts.setPlan(input.accountId, input.plan);
};

export const createWorkspace = async (
  deps: AdminDeps,
  input: { accountId: string; name: string },
): Promise<Workspace> => {
  if (!(await deps.accounts.getAccount(input.accountId))) throw notFound('Account', input.accountId);
  const workspace: Workspace = {
    workspaceId: newId('ws'),
    accountId: input.accountId,
    name: input.name,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.accounts.createWorkspace(workspace);
  return workspace;
};

/** Creates a key and returns its secret: the only time the secret exists outside the caller's hands. */
export const createApiKey = async (
  deps: AdminDeps,
  input: { accountId: string; workspaceId: string; mode: KeyMode; permission: KeyPermission; name: string },
): Promise<{ keyId: string; secret: string }> => {
  if (!(await deps.accounts.getWorkspace(input.accountId, input.workspaceId))) {
    throw notFound('Workspace', input.workspaceId);
  }
  const { secret, secretHash, hint } = generateSecret(input.mode);
  const keyId = newId('key');
  await deps.accounts.createApiKey({
    keyId,
    secretHash,
    hint,
    accountId: input.accountId,
    workspaceId: input.workspaceId,
    mode: input.mode,
    permission: input.permission,
    name: input.name,
    createdAt: deps.clock.now().toISOString(),
  });
  return { keyId, secret };
};

/** Connects a social account; the access token is encrypted before it is stored. */
export const connectChannel = async (
  deps: AdminDeps,
  input: {
    accountId: string;
    workspaceId: string;
    platform: PlatformId;
    name: string;
    accessToken: string;
    remoteAccountId?: string;
    threadsPermitted?: boolean;
  },
): Promise<ChannelRecord> => {
  const account = await deps.accounts.getAccount(input.accountId);
  if (!account) throw notFound('Account', input.accountId);
  if (!(await deps.accounts.getWorkspace(input.accountId, input.workspaceId))) {
    throw notFound('Workspace', input.workspaceId);
  }
  const channelId = newId('ch');
  const channel: ChannelRecord = {
    channelId,
    accountId: input.accountId,
    workspaceId: input.workspaceId,
    platform: input.platform,
    name: input.name,
    remoteAccountId: input.remoteAccountId ?? input.name,
    connection: 'connected',
    threadsPermitted: input.threadsPermitted ?? true,
    tokenCiphertext: await deps.tokenCipher().encrypt(input.accessToken, { channelId }),
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.accounts.connectChannel(channel, planLimits(account.plan).channels);
  return channel;
};

export const addTag = async (
  deps: AdminDeps,
  input: { workspaceId: string; name: string; color?: string | null },
): Promise<Tag> => createTag(deps, input);
