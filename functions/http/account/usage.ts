import { getUsage } from '../../core/usage/get-usage.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { usage } from '../../runtime/parts/usage.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/account/usage: the account's plan and usage, as GET /v1/usage answers a key. */
export const handler = httpHandler({ auth: 'user', uses: [accounts, usage] }, async ({ deps, user }) => ({
  status: 200,
  body: await getUsage(deps, user.accountId),
}));
