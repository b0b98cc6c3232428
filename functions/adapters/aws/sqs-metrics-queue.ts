import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MetricsJob, MetricsQueue } from '../../ports/metrics.ts';
import { metricsBody } from '../../ports/queue-messages.ts';
import { MAX_DELAY_SECONDS } from './sqs-job-queue.ts';

/** The metrics queue on SQS: jobs go in batches of ten (SQS's batch limit). */
export class SqsMetricsQueue implements MetricsQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(jobs: MetricsJob[], delaySeconds = 0): Promise<void> {
    const delay = Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds)));
    for (let i = 0; i < jobs.length; i += 10) {
      const batch = jobs.slice(i, i + 10);
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((job, n) => ({
            Id: String(n),
            MessageBody: metricsBody({
              kind: 'reading',
              postId: job.postId,
              channelId: job.channelId,
              step: job.step,
              attempt: job.attempt,
            }),
            DelaySeconds: delay,
          })),
        }),
      );
      if (out.Failed?.length) {
        throw new Error(`The metrics queue refused ${out.Failed.length} of ${batch.length} messages`);
      }
    }
  }
}
