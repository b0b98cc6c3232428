import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliver } from '../core/webhooks/deliver.ts';
import type { DeliveryJob } from '../ports/webhooks.ts';
import { compose } from '../runtime/compose.ts';
import { cipher } from '../runtime/parts/cipher.ts';
import { outbound } from '../runtime/parts/outbound.ts';
import { queues } from '../runtime/parts/queues.ts';
import { webhookSender } from '../runtime/parts/webhook-sender.ts';
import { webhooks } from '../runtime/parts/webhooks.ts';
import { logger } from '../shared/powertools.ts';

/** What this worker uses, composed once per instance. */
const deps = compose(webhooks, webhookSender, outbound, queues, cipher);

const processor = new BatchProcessor(EventType.SQS);

const parseJob = (record: SQSRecord): DeliveryJob | null => {
  try {
    const job = JSON.parse(record.body) as Partial<DeliveryJob>;
    if (typeof job.deliveryId === 'string' && Number.isInteger(job.attempt) && (job.attempt as number) >= 1)
      return job as DeliveryJob;
  } catch {
    // reported below
  }
  return null;
};

/** One attempt of one delivery; a thrown error puts the message back on the queue. */
const recordHandler = async (record: SQSRecord): Promise<void> => {
  const job = parseJob(record);
  if (!job) {
    logger.error('Dropped a malformed delivery message', { messageId: record.messageId });
    return;
  }
  await deliver(deps, job);
};

/** SQS consumer of the delivery queue: signed POSTs to subscribers, with retries. */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context });
