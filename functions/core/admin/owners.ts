/**
 * The people who sign in to the dashboard: an account's owner, created in the user pool and
 * given the account in the table (`npm run admin -- create-owner`, the local runtime's seed).
 */
import { randomInt } from 'node:crypto';
import * as z from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { randomBase62 } from '../../domain/ids.ts';
import type { AccountStore } from '../../ports/accounts.ts';
import type { Clock } from '../../ports/clock.ts';
import type { UserDirectory } from '../../ports/user-directory.ts';
import type { UserStore } from '../../ports/users.ts';
import type { WorkspaceStore } from '../../ports/workspaces.ts';
import { createAccount, createWorkspace } from './admin.ts';

export interface OwnerDeps {
  accounts: AccountStore;
  workspaces: WorkspaceStore;
  users: UserStore;
  directory: UserDirectory;
  clock: Clock;
}

export const createOwnerInput = z.strictObject({
  email: z.email({ error: () => 'The email must be an email address.' }).max(254),
  accountId: z
    .string()
    .regex(/^acct_[0-9A-Za-z]+$/, 'Expected an id such as acct_….')
    .optional(),
});

const SYMBOLS = '!#%*+-=?@^_~';

/**
 * A password the pool's policy accepts (12 or more characters with an upper-case letter, a
 * lower-case one, a digit and a symbol): 24 random base62 characters (about 140 bits) and one of
 * each class, at random places.
 */
export const strongPassword = (): string => {
  const chars = [...randomBase62(24)];
  const pick = (set: string) => set[randomInt(set.length)] as string;
  for (const set of ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', SYMBOLS]) {
    chars.splice(randomInt(chars.length + 1), 0, pick(set));
  }
  return chars.join('');
};

export interface CreatedOwner {
  userId: string;
  email: string;
  accountId: string;
  /** Shown once: temporary (the first sign-in sets a new one) unless created `permanent`. */
  password: string;
  temporary: boolean;
}

/**
 * An owner of `accountId` (which must exist), or of a new account with one workspace when none is
 * given (the first owner on a fresh stage). The person is created in the user pool first (a taken
 * email changes nothing); should a write to the table fail after it, that person is refused by
 * every route (403, no USER item) rather than given anything.
 */
export const createOwner = async (
  deps: OwnerDeps,
  input: z.output<typeof createOwnerInput>,
  options: { password?: string; permanent?: boolean } = {},
): Promise<CreatedOwner> => {
  if (input.accountId && !(await deps.accounts.getAccount(input.accountId))) {
    throw new ApiError('not_found', `Account ${input.accountId} does not exist.`, 'accountId');
  }
  const password = options.password ?? strongPassword();
  const permanent = options.permanent ?? false;
  // First, so a taken email changes nothing.
  const { userId } = await deps.directory.createPerson({ email: input.email, password, permanent });
  let accountId = input.accountId;
  if (!accountId) {
    const account = await createAccount(deps, { name: input.email, plan: 'starter' });
    await createWorkspace(deps, { accountId: account.accountId, name: 'Default' });
    accountId = account.accountId;
  }
  await deps.users.createUser({
    userId,
    accountId,
    email: input.email,
    role: 'owner',
    createdAt: deps.clock.now().toISOString(),
  });
  return { userId, email: input.email, accountId, password, temporary: !permanent };
};
