import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { deliveryBody } from '../../ports/queue-messages.ts';
import type { DeliveryJob, DeliveryQueue } from '../../ports/webhooks.ts';
import { MAX_DELAY_SECONDS } from './sqs-job-queue.ts';

/** The webhook delivery queue (SQS on AWS, the SQS stand-in locally), ten messages per call. */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(jobs: DeliveryJob[], delaySeconds = 0): Promise<void> {
    const delay = Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.floor(delaySeconds)));
    for (let i = 0; i < jobs.length; i += 10) {
      const chunk = jobs.slice(i, i + 10);
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map((job, index) => ({
            Id: String(index),
            MessageBody: deliveryBody({ kind: 'delivery', deliveryId: job.deliveryId, attempt: job.attempt }),
            DelaySeconds: delay,
          })),
        }),
      );
      if (out.Failed && out.Failed.length > 0) {
        throw new Error(`Could not queue ${out.Failed.length} webhook deliveries: ${out.Failed[0]?.Message}`);
      }
    }
  }
}
