import { getUsage } from '../../core/usage/get-usage.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/usage: plan, monthly period and usage across the whole account. */
export const handler = httpHandler({}, async ({ deps, auth }) => ({
  status: 200,
  body: await getUsage(deps, auth.accountId),
}));
