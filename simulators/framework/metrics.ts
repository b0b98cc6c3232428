import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import { simulatedMetrics } from '../../functions/platforms/sandbox/metrics.ts';

/**
 * Simulated engagement on the local simulators: every real second a post has existed counts as a
 * simulated hour, so counts visibly grow during a demo or a test that runs the cadence fast.
 */
export const SIMULATED_HOURS_PER_SECOND = 1;

/** The running totals a simulator shows for its post `id`, created at `createdAt`. */
export const simulatorMetrics = (platform: PlatformId, id: string, createdAt: Date, now = new Date()) =>
  simulatedMetrics(
    platform,
    id,
    ((now.getTime() - createdAt.getTime()) / 1000) * 3600 * SIMULATED_HOURS_PER_SECOND,
  );
