import {
  getEventRecord,
  markEventDispatched,
  pendingEventIdsBefore,
} from '../../adapters/aws/dynamo/events.ts';
import { DynamoWebhookStore } from '../../adapters/aws/dynamo/webhooks.ts';
import { HttpsWebhookSender, systemResolver } from '../../adapters/http/webhook-sender.ts';
import type {
  EventOutbox,
  HostResolver,
  WebhookSender,
  WebhookSettings,
  WebhookStore,
} from '../../ports/webhooks.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

/** The webhook settings of the environment (see env.ts); the rest are product rules. */
export const webhookSettingsFromEnv = (): WebhookSettings => ({
  retryBaseSeconds: env.webhookRetryBaseSeconds,
  timeoutMs: Math.round(env.webhookTimeoutSeconds * 1000),
  allowLoopback: env.webhookAllowLoopback,
  sweepAfterSeconds: env.webhookSweepAfterSeconds,
  disableAfterFailedEvents: 5,
  maxEndpointsPerWorkspace: 20,
});

export interface WebhookDeps {
  webhooks: WebhookStore;
  outbox: EventOutbox;
  webhookSender: () => WebhookSender;
  resolveHost: HostResolver;
  /** Read from the environment on each call. */
  webhookSettings: () => WebhookSettings;
}

/** Webhook endpoints, the event outbox, and the signed POSTs to subscribers. */
export const webhooks = part({
  name: 'webhooks',
  keys: ['webhooks', 'outbox', 'webhookSender', 'resolveHost', 'webhookSettings'],
  build: ({ table }, { lazy }): WebhookDeps => ({
    webhooks: new DynamoWebhookStore(table),
    outbox: {
      get: (eventId) => getEventRecord(table, eventId),
      markDispatched: (eventId) => markEventDispatched(table, eventId),
      pendingBefore: (before, limit) => pendingEventIdsBefore(table, before, limit),
    },
    webhookSender: lazy(
      () =>
        new HttpsWebhookSender({
          allowLoopback: () => env.webhookAllowLoopback,
          extraCaFile: () => env.webhookExtraCaCerts,
        }),
    ),
    resolveHost: systemResolver,
    webhookSettings: webhookSettingsFromEnv,
  }),
});
