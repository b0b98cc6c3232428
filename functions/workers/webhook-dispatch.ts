import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { dispatchEvent, type EndpointLookup, endpointsOnce, sweep } from '../core/webhooks/dispatch.ts';
import type { EventFacts } from '../ports/publishing.ts';
import { type EventMessage, parseEventMessage } from '../ports/queue-messages.ts';
import { EVENT_TYPES } from '../ports/webhooks.ts';
import { compose } from '../runtime/compose.ts';
import { outbound } from '../runtime/parts/outbound.ts';
import { queues } from '../runtime/parts/queues.ts';
import { webhooks } from '../runtime/parts/webhooks.ts';
import { logger } from '../shared/powertools.ts';

/** What this worker uses, composed once per instance. */
const deps = compose(webhooks, outbound, queues);

/** The event's facts a message carries (`workspaceId`, `type`, `mode`), when all are there. */
const factsOf = (message: EventMessage & { kind: 'event' }): EventFacts | undefined => {
  const { workspaceId, type, mode } = message;
  if (workspaceId === undefined || mode === undefined) return undefined;
  const known = EVENT_TYPES.find((eventType) => eventType === type);
  return known ? { workspaceId, type: known, mode } : undefined;
};

/**
 * One message of the event queue: `event` from the publishing engine (with the event's facts; with
 * its id alone from older senders: the event is then read first), or `sweep` from the recurring
 * sweep schedule (the local runtime sends it on a timer). `endpoints` reads each workspace's
 * endpoints once per batch.
 */
const recordHandler = async (record: SQSRecord, endpoints: EndpointLookup): Promise<void> => {
  const parsed = parseEventMessage(record.body);
  if (!parsed.ok) {
    // A malformed message can never succeed: drop it rather than loop to the dead-letter queue.
    logger.error('Dropped a malformed event message', {
      messageId: record.messageId,
      problem: parsed.problem,
    });
    return;
  }
  const message = parsed.message;
  if (message.kind === 'sweep') {
    await sweep(deps);
    return;
  }
  logger.appendKeys({ eventId: message.eventId });
  const about = factsOf(message);
  await dispatchEvent(deps, message.eventId, { endpoints, ...(about ? { about } : {}) });
};

/** SQS consumer of the event queue: fans each event out to the endpoints subscribed to it. */
export const handler = async (event: SQSEvent, context: Context) => {
  const endpoints = endpointsOnce(deps);
  return processPartialResponse(
    event,
    (record: SQSRecord) => recordHandler(record, endpoints),
    new BatchProcessor(EventType.SQS),
    { context },
  );
};
