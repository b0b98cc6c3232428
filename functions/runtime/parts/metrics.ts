import { DynamoMetricsStore } from '../../adapters/aws/dynamo/metrics.ts';
import type { CadenceSettings } from '../../core/metrics/cadence.ts';
import type { MetricsStore } from '../../ports/metrics.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

export interface MetricsPartDeps {
  /** Metrics trackers, readings and stats aggregates. */
  metrics: MetricsStore;
  /** The metrics cadence's time scale (read from the environment on each call). */
  cadence: CadenceSettings;
}

/** Posts' metrics: trackers, readings and aggregates in the table. */
export const metrics = part({
  name: 'metrics',
  keys: ['metrics', 'cadence'],
  build: ({ table }): MetricsPartDeps => ({
    metrics: new DynamoMetricsStore(table),
    cadence: {
      get timeScale() {
        return env.metricsTimeScale;
      },
    },
  }),
});
