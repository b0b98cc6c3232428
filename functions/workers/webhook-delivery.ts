import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliver } from '../core/webhooks/deliver.ts';
import type { DeliveryJob } from '../ports/webhooks.ts';
import { getDeps } from '../runtime/container.ts';
import { logger } from '../shared/powertools.ts';

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
  await deliver(getDeps(), job);
};

/** SQS consumer of the delivery queue: signed POSTs to subscribers, with retries. */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context });
