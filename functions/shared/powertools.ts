import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** Module singletons, built once per Lambda instance (cold start) and reused. */
export const logger = new Logger({ serviceName: 'herald' });
export const metrics = new Metrics({ namespace: 'Herald', serviceName: 'herald' });

/**
 * One channel's end on a network (`ChannelsPublished` or `ChannelsFailed`, dimension `network`):
 * the dashboard's publish outcomes. Written at once (a single metric) because the queue workers have
 * no middleware that flushes stored metrics at the end of an invocation.
 */
export const countChannelOutcome = (network: string, status: 'published' | 'failed'): void => {
  const single = metrics.singleMetric();
  single.addDimension('network', network);
  single.addMetric(status === 'published' ? 'ChannelsPublished' : 'ChannelsFailed', MetricUnit.Count, 1);
};
