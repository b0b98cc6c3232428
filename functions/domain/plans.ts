/**
 * Plans and their limits: configuration, not code paths. `null` means unlimited (spec 2.8).
 * Monthly limits reset at the start of each UTC calendar month.
 */
export interface PlanLimits {
  /** Posts created per monthly period. */
  postsPerMonth: number | null;
  /** Connected channels across the account (does not reset). */
  channels: number | null;
  /** Stored media bytes across the account (does not reset). */
  storageBytes: number | null;
}

const GiB = 1024 ** 3;

export const PLANS = {
  free: { postsPerMonth: 30, channels: 13, storageBytes: 1 * GiB },
  starter: { postsPerMonth: 500, channels: 25, storageBytes: 10 * GiB },
  growth: { postsPerMonth: 5000, channels: 100, storageBytes: 100 * GiB },
  unlimited: { postsPerMonth: null, channels: null, storageBytes: null },
} as const satisfies Record<string, PlanLimits>;

export type PlanName = keyof typeof PLANS;

export const isPlanName = (name: string): name is PlanName => Object.hasOwn(PLANS, name);

export const planLimits = (name: PlanName): PlanLimits => PLANS[name];
