/**
 * API keys as the dashboard manages them (issue 29): create (the secret shown once), list, revoke
 * and roll, always inside one workspace the user's account owns (the pipeline's user mode has
 * checked that before these run: `scope` is that workspace).
 */
import * as z from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { ApiKeyRecord, KeyStore } from '../../ports/api-keys.ts';
import type { Clock } from '../../ports/clock.ts';
import { generateSecret, isExpired } from '../auth/api-keys.ts';

/** What the key use cases need. */
export interface KeyDeps {
  apiKeys: KeyStore;
  clock: Clock;
}

/** The workspace the keys belong to. */
export interface KeyScope {
  accountId: string;
  workspaceId: string;
}

/** The longest grace a rolled key may keep working: 24 hours. */
export const MAX_GRACE_SECONDS = 86_400;

const mode = z.enum(['live', 'test'], { error: () => 'The mode is live or test.' });
const permission = z.enum(['read', 'write'], { error: () => 'The permission is read or write.' });

/** POST /v1/account/workspaces/{workspaceId}/keys. */
export const createKeyBody = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'The name must not be empty.')
    .max(100, 'The name must be at most 100 characters.')
    .optional(),
  mode,
  permission,
});
export type CreateKeyInput = z.output<typeof createKeyBody>;

/** POST /v1/account/workspaces/{workspaceId}/keys/{keyId}/roll. */
export const rollKeyBody = z.strictObject({
  graceSeconds: z
    .int('graceSeconds is a whole number of seconds.')
    .min(0, 'graceSeconds must be 0 or more.')
    .max(MAX_GRACE_SECONDS, `graceSeconds must be at most ${MAX_GRACE_SECONDS} (24 hours).`)
    .optional(),
});
export type RollKeyInput = z.output<typeof rollKeyBody>;

/** A key as the dashboard shows it: never its secret, nor its hash. */
export const apiKeyView = (key: ApiKeyRecord) => ({
  id: key.keyId,
  name: key.name,
  prefix: key.hint,
  mode: key.mode,
  permission: key.permission,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt ?? null,
  expiresAt: key.expiresAt === undefined ? null : new Date(key.expiresAt * 1000).toISOString(),
});
export type ApiKeyView = ReturnType<typeof apiKeyView>;

const KEY_ID = /^key_[0-9A-Za-z]{1,64}$/;

const notFound = () => new ApiError('not_found', 'No API key with this id in this workspace.');

/** A live key of the workspace (an expired one is as good as gone), or 404. */
const findKey = async (deps: KeyDeps, scope: KeyScope, keyId: string): Promise<ApiKeyRecord> => {
  if (!KEY_ID.test(keyId)) throw notFound();
  const key = await deps.apiKeys.findApiKey(scope.workspaceId, keyId);
  if (!key || key.accountId !== scope.accountId || isExpired(key, deps.clock.now())) throw notFound();
  return key;
};

/** The workspace's usable keys, newest first (a rolled key in its grace is listed with its expiry). */
export const listKeys = async (deps: KeyDeps, scope: KeyScope): Promise<ApiKeyView[]> => {
  const now = deps.clock.now();
  return (await deps.apiKeys.listApiKeys(scope.workspaceId))
    .filter((key) => key.accountId === scope.accountId && !isExpired(key, now))
    .map(apiKeyView);
};

const storeNewKey = async (
  deps: KeyDeps,
  scope: KeyScope,
  fields: Pick<ApiKeyRecord, 'name' | 'mode' | 'permission'>,
): Promise<{ key: ApiKeyRecord; secret: string }> => {
  const { secret, secretHash, hint } = generateSecret(fields.mode);
  const key: ApiKeyRecord = {
    keyId: newId('key'),
    secretHash,
    hint,
    accountId: scope.accountId,
    workspaceId: scope.workspaceId,
    ...fields,
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.apiKeys.createApiKey(key);
  return { key, secret };
};

/** Creates a key; its secret is in this answer and nowhere else (only its hash is stored). */
export const createKey = async (
  deps: KeyDeps,
  scope: KeyScope,
  input: CreateKeyInput,
): Promise<ApiKeyView & { secret: string }> => {
  const { key, secret } = await storeNewKey(deps, scope, {
    name: input.name ?? `${input.mode} ${input.permission} key`,
    mode: input.mode,
    permission: input.permission,
  });
  return { ...apiKeyView(key), secret };
};

/**
 * Removes the key: its next request is 401 on every instance (an instance that remembers the
 * key's scope finds no key item, on the folded path as on the usual one).
 */
export const revokeKey = async (deps: KeyDeps, scope: KeyScope, keyId: string): Promise<void> => {
  const key = await findKey(deps, scope, keyId);
  if (!(await deps.apiKeys.deleteApiKey(key))) throw notFound();
};

/**
 * A new key with the old one's name, mode and permission; the old one answers 401 from
 * `now + graceSeconds` on (whole seconds; 0: at once), and the table's TTL removes it later.
 */
export const rollKey = async (
  deps: KeyDeps,
  scope: KeyScope,
  keyId: string,
  input: RollKeyInput,
): Promise<ApiKeyView & { secret: string }> => {
  const old = await findKey(deps, scope, keyId);
  const { key, secret } = await storeNewKey(deps, scope, {
    name: old.name,
    mode: old.mode,
    permission: old.permission,
  });
  const expiresAt = Math.floor(deps.clock.now().getTime() / 1000) + (input.graceSeconds ?? 0);
  if (!(await deps.apiKeys.expireApiKey(old, expiresAt))) {
    // Revoked meanwhile: a roll of a revoked key makes no key.
    await deps.apiKeys.deleteApiKey(key);
    throw notFound();
  }
  return { ...apiKeyView(key), secret };
};
