import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeliveryQueue } from '../../adapters/aws/sqs-delivery-queue.ts';
import { SqsJobQueue } from '../../adapters/aws/sqs-job-queue.ts';
import { SqsMetricsQueue } from '../../adapters/aws/sqs-metrics-queue.ts';
import type { MetricsQueue } from '../../ports/metrics.ts';
import type { JobQueue } from '../../ports/publishing.ts';
import type { DeliveryQueue } from '../../ports/webhooks.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

export interface QueueDeps {
  sqs: () => SQSClient;
  /** The publish and event queues. */
  queue: () => JobQueue;
  metricsQueue: () => MetricsQueue;
  deliveryQueue: () => DeliveryQueue;
}

/** SQS: the publish, event, metrics and delivery queues. */
export const queues = part({
  name: 'queues',
  keys: ['sqs', 'queue', 'metricsQueue', 'deliveryQueue'],
  build: (_deps, { decorated, lazy }): QueueDeps => {
    // Locally the queue URLs name a host that only the SQS stand-in's endpoint reaches.
    const sqs = lazy(() =>
      decorated(
        new SQSClient({
          ...env.awsEndpoint('SQS'),
          ...(env.runtime === 'local' ? { useQueueUrlAsEndpoint: false } : {}),
        }),
      ),
    );
    return {
      sqs,
      queue: lazy(() => new SqsJobQueue(sqs(), { publish: env.publishQueueUrl, event: env.eventQueueUrl })),
      metricsQueue: lazy(() => new SqsMetricsQueue(sqs(), env.metricsQueueUrl)),
      deliveryQueue: lazy(() => new SqsDeliveryQueue(sqs(), env.deliveryQueueUrl)),
    };
  },
});
