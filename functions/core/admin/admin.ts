/**
 * Operator use cases (`npm run admin`, the seed, test fixtures). What the API also manages goes
 * through the API's own schema and use case (tags: `createTagBody`, `createTag`); every input is
 * checked with zod and every account and workspace is looked up first, so the CLI refuses what the
 * API refuses, with the same error codes and messages, and a refused command changes nothing.
 */
import * as z from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { PLANS, type PlanName, planLimits } from '../../domain/plans.ts';
import { PLATFORM_IDS, type PlatformId } from '../../domain/platforms/types.ts';
import type { Account, AccountStore } from '../../ports/accounts.ts';
import type { KeyMode, KeyPermission, KeyStore } from '../../ports/api-keys.ts';
import type { ChannelRecord, ChannelStore } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Tag, TagStore } from '../../ports/tags.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import type { WebhookStore } from '../../ports/webhooks.ts';
import type { Workspace, WorkspaceStore } from '../../ports/workspaces.ts';
import { zodErrorToApiError } from '../../shared/validation.ts';
import { generateSecret } from '../auth/api-keys.ts';
import { type CreateTagInput, createTag, createTagBody } from '../tags/tags.ts';

/** What the operator commands need. */
export interface AdminDeps {
  accounts: AccountStore;
  workspaces: WorkspaceStore;
  apiKeys: KeyStore;
  channels: ChannelStore;
  tags: TagStore;
  clock: Clock;
  tokenCipher: () => TokenCipher;
}

/** Parses operator input like the API parses a body: the first problem as `validation_failed`. */
export const parseInput = <S extends z.ZodType>(schema: S, raw: unknown): z.output<S> => {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw zodErrorToApiError(parsed.error);
  return parsed.data;
};

const PLAN_NAMES = Object.keys(PLANS) as [PlanName, ...PlanName[]];
const label = (what: string, max = 100) =>
  z
    .string()
    .trim()
    .min(1, `The ${what} must not be empty.`)
    .max(max, `The ${what} must be at most ${max} characters.`);
const plan = z.enum(PLAN_NAMES, { error: () => `Unknown plan; use one of ${PLAN_NAMES.join(', ')}.` });
const id = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`), `Expected an id such as ${prefix}_….`);

export const createAccountInput = z.strictObject({ name: label('name'), plan });
export const setPlanInput = z.strictObject({ accountId: id('acct'), plan });
export const createWorkspaceInput = z.strictObject({ accountId: id('acct'), name: label('name') });
export const listWorkspacesInput = z.strictObject({ accountId: id('acct') });
export const recountWebhookEndpointsInput = z.strictObject({ workspaceId: id('ws').optional() });
export const createApiKeyInput = z.strictObject({
  accountId: id('acct'),
  workspaceId: id('ws'),
  mode: z.enum(['live', 'test'], { error: () => 'The mode is live or test.' }),
  permission: z.enum(['read', 'write'], { error: () => 'The permission is read or write.' }),
  name: label('name'),
});
export const connectChannelInput = z.strictObject({
  accountId: id('acct'),
  workspaceId: id('ws'),
  platform: z.enum(PLATFORM_IDS, { error: () => `Unknown platform; use one of ${PLATFORM_IDS.join(', ')}.` }),
  name: label('name'),
  accessToken: z.string().trim().min(1, 'An access token is required.').max(8192),
  remoteAccountId: label('remote account id', 200).optional(),
  threadsPermitted: z.boolean().optional(),
});
/** The API's own tag body plus the account and workspace the operator names. */
export const addTagInput = z.strictObject({
  accountId: id('acct'),
  workspaceId: id('ws'),
  ...createTagBody.shape,
});

const existingAccount = async (deps: Pick<AdminDeps, 'accounts'>, accountId: string): Promise<Account> => {
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new ApiError('not_found', `Account ${accountId} does not exist.`, 'accountId');
  return account;
};

const existingWorkspace = async (
  deps: Pick<AdminDeps, 'accounts' | 'workspaces'>,
  accountId: string,
  workspaceId: string,
) => {
  const account = await existingAccount(deps, accountId);
  if (!(await deps.workspaces.getWorkspace(accountId, workspaceId))) {
    throw new ApiError(
      'not_found',
      `Workspace ${workspaceId} does not exist in account ${accountId}.`,
      'workspaceId',
    );
  }
  return account;
};

export const createAccount = async (
  deps: Pick<AdminDeps, 'accounts' | 'clock'>,
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
  deps: Pick<AdminDeps, 'accounts'>,
  input: { accountId: string; plan: PlanName },
): Promise<void> => {
  await existingAccount(deps, input.accountId);
  await deps.accounts.setPlan(input.accountId, input.plan);
};

export const createWorkspace = async (
  deps: Pick<AdminDeps, 'accounts' | 'workspaces' | 'clock'>,
  input: { accountId: string; name: string },
): Promise<Workspace> => {
  await existingAccount(deps, input.accountId);
  const workspace: Workspace = {
    workspaceId: newId('ws'),
    accountId: input.accountId,
    name: input.name,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.workspaces.createWorkspace(workspace);
  return workspace;
};

export const listWorkspaces = async (
  deps: Pick<AdminDeps, 'accounts' | 'workspaces'>,
  input: { accountId: string },
): Promise<Workspace[]> => {
  await existingAccount(deps, input.accountId);
  return deps.workspaces.listWorkspaces(input.accountId);
};

/** Creates a key and returns its secret: the only time the secret exists outside the caller's hands. */
export const createApiKey = async (
  deps: Pick<AdminDeps, 'accounts' | 'workspaces' | 'apiKeys' | 'clock'>,
  input: { accountId: string; workspaceId: string; mode: KeyMode; permission: KeyPermission; name: string },
): Promise<{ keyId: string; secret: string }> => {
  await existingWorkspace(deps, input.accountId, input.workspaceId);
  const { secret, secretHash, hint } = generateSecret(input.mode);
  const keyId = newId('key');
  await deps.apiKeys.createApiKey({
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
  deps: Pick<AdminDeps, 'accounts' | 'workspaces' | 'channels' | 'clock' | 'tokenCipher'>,
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
  const remoteAccountId = input.remoteAccountId ?? input.name;
  // A Bluesky account is its DID: every write names it as the repo, and the PDS refuses anything
  // else (the lexicon's `at-identifier`), so a channel with another id could never publish.
  if (input.platform === 'bluesky' && !/^did:[a-z]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._-]$/.test(remoteAccountId)) {
    throw new ApiError(
      'validation_failed',
      `A Bluesky channel's remote id is the account's DID (did:plc:… or did:web:…), not "${remoteAccountId.slice(0, 60)}".`,
      'remoteAccountId',
    );
  }
  const account = await existingWorkspace(deps, input.accountId, input.workspaceId);
  const channelId = newId('ch');
  const channel: ChannelRecord = {
    channelId,
    accountId: input.accountId,
    workspaceId: input.workspaceId,
    platform: input.platform,
    name: input.name,
    remoteAccountId,
    connection: 'connected',
    threadsPermitted: input.threadsPermitted ?? true,
    tokenCiphertext: await deps.tokenCipher().encrypt(input.accessToken, { channelId }),
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.channels.connectChannel(channel, planLimits(account.plan).channels);
  return channel;
};

/** POST /v1/tags for an operator: the workspace must exist in the account, then the API's use case. */
export const addTag = async (
  deps: Pick<AdminDeps, 'accounts' | 'workspaces' | 'tags' | 'clock'>,
  input: { accountId: string; workspaceId: string } & CreateTagInput,
): Promise<Tag> => {
  await existingWorkspace(deps, input.accountId, input.workspaceId);
  return createTag(deps, { workspaceId: input.workspaceId, name: input.name, color: input.color ?? null });
};

/**
 * Sets each workspace's count of webhook endpoints to the endpoints it has: one workspace, or
 * every workspace with an endpoint (a Scan). The repair after deploying the count over a version
 * without it, once no instance of that version serves requests: an endpoint that version created
 * was never counted. Safe while the API serves (see `WebhookStore.recountEndpoints`).
 */
export const recountWebhookEndpoints = async (
  deps: { webhooks: WebhookStore },
  input: { workspaceId?: string },
): Promise<{ workspaceId: string; before: number | null; after: number }[]> => {
  const workspaces = input.workspaceId ? [input.workspaceId] : await deps.webhooks.workspacesWithEndpoints();
  const results: { workspaceId: string; before: number | null; after: number }[] = [];
  for (const workspaceId of workspaces) {
    results.push({ workspaceId, ...(await deps.webhooks.recountEndpoints(workspaceId)) });
  }
  return results;
};

/**
 * Puts the keys made before the dashboard listed keys per workspace into their workspace's list
 * (a Scan), so the dashboard shows them. Safe while the API serves; a second run adds nothing.
 */
export const indexApiKeys = async (deps: Pick<AdminDeps, 'apiKeys'>): Promise<{ added: number }> => ({
  added: await deps.apiKeys.listUnlistedKeys(),
});
