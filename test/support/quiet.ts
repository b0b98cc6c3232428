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

/** This runtime's SQS endpoint (the local stand-in), as its functions reach it. */
const sqsOf = (rt: TestRuntime): SQSClient => {
  const vars = rt.container.environment;
  const endpoint = vars.AWS_ENDPOINT_URL_SQS ?? vars.AWS_ENDPOINT_URL;
  if (!endpoint) throw new Error('this runtime names no SQS endpoint');
  return new SQSClient(localClientConfig.sqs(endpoint));
};

/** Every message of `queue` in this runtime: waiting, delayed, or being handled (not yet deleted). */
const messagesIn = async (sqs: SQSClient, rt: TestRuntime, queue: QueueName): Promise<number> => {
  const url = rt.container.environment[QUEUE_VARIABLES[queue]];
  if (!url) throw new Error(`this runtime names no ${queue} queue`);
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...COUNTS] }),
  );
  return COUNTS.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
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
  const sqs = sqsOf(rt);
  let idleBefore = false;
  try {
    await waitFor(
      async () => {
        const counts = await Promise.all(queues.map((queue) => messagesIn(sqs, rt, queue)));
        const idle = counts.every((count) => count === 0);
        const twice = idle && idleBefore;
        idleBefore = idle;
        return twice;
      },
      { timeoutMs, intervalMs: 100, what: `the ${queues.join(', ')} queues to be empty` },
    );
  } finally {
    sqs.destroy();
  }
};
