import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliver } from '../core/webhooks/deliver.ts';
import { parseDeliveryMessage } from '../ports/queue-messages.ts';
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

/** One attempt of one delivery; a thrown error puts the message back on the queue. */
const recordHandler = async (record: SQSRecord): Promise<void> => {
  const parsed = parseDeliveryMessage(record.body);
  if (!parsed.ok) {
    // A malformed message can never succeed: drop it rather than loop to the dead-letter queue.
    logger.error('Dropped a malformed delivery message', {
      messageId: record.messageId,
      problem: parsed.problem,
    });
    return;
  }
  await deliver(deps, parsed.message);
};

/** SQS consumer of the delivery queue: signed POSTs to subscribers, with retries. */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context });
