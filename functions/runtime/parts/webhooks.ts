import {
  getEventRecord,
  markEventDispatched,
  pendingEventIdsBefore,
} from '../../adapters/aws/dynamo/events.ts';
import { DynamoWebhookStore } from '../../adapters/aws/dynamo/webhooks.ts';
import type { EventOutbox, WebhookStore } from '../../ports/webhooks.ts';
import { part } from '../compose.ts';

export interface WebhookDeps {
  webhooks: WebhookStore;
  outbox: EventOutbox;
}

/** Webhook endpoints and their deliveries, and the event outbox, in the table. */
export const webhooks = part({
  name: 'webhooks',
  keys: ['webhooks', 'outbox'],
  build: ({ table }): WebhookDeps => ({
    webhooks: new DynamoWebhookStore(table),
    outbox: {
      get: (eventId) => getEventRecord(table, eventId),
      markDispatched: (eventId) => markEventDispatched(table, eventId),
      pendingBefore: (before, limit) => pendingEventIdsBefore(table, before, limit),
    },
  }),
});
