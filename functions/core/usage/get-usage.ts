import { ApiError } from '../../domain/errors.ts';
import { planLimits } from '../../domain/plans.ts';
import type { AccountStore } from '../../ports/accounts.ts';
import type { Clock } from '../../ports/clock.ts';
import type { UsageStore } from '../../ports/usage.ts';
import { usagePeriod } from '../posts/post-context.ts';

/** GET /usage (spec 2.8): the whole account's usage, across its workspaces. */
export const getUsage = async (
  deps: { accounts: AccountStore; usage: UsageStore; clock: Clock },
  accountId: string,
) => {
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new ApiError('unauthorized');
  const period = usagePeriod(deps.clock.now());
  const counters = await deps.usage.counters(accountId, period.id);
  const limits = planLimits(account.plan);
  return {
    plan: account.plan,
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
    posts: {
      created: { used: counters.postsCreated, limit: limits.postsPerMonth },
      published: counters.postsPublished,
    },
    channels: { used: account.channelCount, limit: limits.channels },
    storage: { bytesUsed: account.storageBytes ?? 0, bytesLimit: limits.storageBytes },
  };
};
