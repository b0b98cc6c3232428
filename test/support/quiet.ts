import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { localClientConfig } from '../../functions/adapters/local/aws-services.ts';
import { ENV } from '../../functions/shared/env.ts';
import type { TestRuntime } from './runtime.ts';
import { waitFor } from './wait.ts';

const QUEUE_VARIABLES = {
  publish: ENV.publishQueueUrl,
  event: ENV.eventQueueUrl,
  delivery: ENV.deliveryQueueUrl,
  metrics: ENV.metricsQueueUrl,
} as const;

export type QueueName = keyof typeof QUEUE_VARIABLES;

const COUNTS = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;

/** Every message of `queue` in this runtime: waiting, delayed, or being handled (not yet deleted). */
export const messagesIn = async (rt: TestRuntime, queue: QueueName): Promise<number> => {
  const vars = rt.container.environment;
  const url = vars[QUEUE_VARIABLES[queue]];
  const endpoint = vars.AWS_ENDPOINT_URL_SQS ?? vars.AWS_ENDPOINT_URL;
  if (!url || !endpoint) throw new Error(`this runtime names no ${queue} queue`);
  const sqs = new SQSClient(localClientConfig.sqs(endpoint));
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...COUNTS] }),
    );
    return COUNTS.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
  } finally {
    sqs.destroy();
  }
};

/**
 * Waits until `queues` hold no message at all (none waiting, delayed or being handled), twice in a
 * row a poll apart: the positive signal that the work they carried is done, before a test asserts
 * that something did not happen.
 */
export const waitForQueuesIdle = async (
  rt: TestRuntime,
  queues: readonly QueueName[],
  timeoutMs = 30_000,
): Promise<void> => {
  let idleBefore = false;
  await waitFor(
    async () => {
      const counts = await Promise.all(queues.map((queue) => messagesIn(rt, queue)));
      const idle = counts.every((count) => count === 0);
      const twice = idle && idleBefore;
      idleBefore = idle;
      return twice;
    },
    { timeoutMs, intervalMs: 100, what: `the ${queues.join(', ')} queues to be empty` },
  );
};
