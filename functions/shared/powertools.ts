import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

/** Module singletons, built once per Lambda instance (cold start) and reused. */
export const logger = new Logger({ serviceName: 'herald' });
export const metrics = new Metrics({ namespace: 'Herald', serviceName: 'herald' });
export const tracer = new Tracer({ serviceName: 'herald' });
