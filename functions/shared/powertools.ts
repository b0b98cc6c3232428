import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** Module singletons, built once per Lambda instance (cold start) and reused. */
export const logger = new Logger({ serviceName: 'herald' });
export const metrics = new Metrics({ namespace: 'Herald', serviceName: 'herald' });
