/** An account's counters for one monthly period (none counted yet: zeros). */
export interface UsageCounters {
  postsCreated: number;
  postsPublished: number;
}

/** The monthly usage counters, as the writes that create and publish posts keep them. */
export interface UsageStore {
  counters(accountId: string, period: string): Promise<UsageCounters>;
}
