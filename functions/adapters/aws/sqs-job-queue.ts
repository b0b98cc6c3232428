import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { EventFacts, JobQueue, PublishJob } from '../../ports/publishing.ts';
import { eventBody, publishBody } from '../../ports/queue-messages.ts';

/** SQS allows at most 15 minutes of delay per message. */
export const MAX_DELAY_SECONDS = 900;

export class SqsJobQueue implements JobQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queues: { publish: string; event: string },
  ) {}

  async sendPublish(job: PublishJob, delaySeconds = 0): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queues.publish,
        MessageBody: publishBody(job),
        DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.floor(delaySeconds))),
      }),
    );
  }

  async sendEvent(eventId: string, about?: EventFacts): Promise<void> {
    const body = eventBody(
      about
        ? { kind: 'event', eventId, workspaceId: about.workspaceId, type: about.type, mode: about.mode }
        : { kind: 'event', eventId },
    );
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queues.event, MessageBody: body }));
  }
}
