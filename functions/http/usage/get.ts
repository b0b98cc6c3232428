import { getUsage } from '../../core/usage/get-usage.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { usage } from '../../runtime/parts/usage.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/usage: plan, monthly period and usage across the whole account. */
export const handler = httpHandler({ uses: [accounts, usage] }, async ({ deps, auth }) => ({
  status: 200,
  body: await getUsage(deps, auth.accountId),
}));
