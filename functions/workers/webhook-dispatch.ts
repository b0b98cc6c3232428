import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { dispatchEvent, sweep } from '../core/webhooks/dispatch.ts';
import { compose } from '../runtime/compose.ts';
import { outbound } from '../runtime/parts/outbound.ts';
import { queues } from '../runtime/parts/queues.ts';
import { webhooks } from '../runtime/parts/webhooks.ts';
import { logger } from '../shared/powertools.ts';

/** What this worker uses, composed once per instance. */
const deps = compose(webhooks, outbound, queues);

const processor = new BatchProcessor(EventType.SQS);

/**
 * One message of the event queue: `{ eventId }` from the publishing engine, or `{ sweep: true }`
 * from the recurring sweep schedule (the local runtime sends it on a timer).
 */
const recordHandler = async (record: SQSRecord): Promise<void> => {
  let message: { eventId?: unknown; sweep?: unknown };
  try {
    message = JSON.parse(record.body) as typeof message;
  } catch {
    message = {};
  }
  if (message.sweep === true) {
    await sweep(deps);
    return;
  }
  if (typeof message.eventId !== 'string') {
    // A malformed message can never succeed: drop it rather than loop to the dead-letter queue.
    logger.error('Dropped a malformed event message', { messageId: record.messageId });
    return;
  }
  logger.appendKeys({ eventId: message.eventId });
  await dispatchEvent(deps, message.eventId);
};

/** SQS consumer of the event queue: fans each event out to the endpoints subscribed to it. */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context });
