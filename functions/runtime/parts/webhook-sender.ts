import { HttpsWebhookSender } from '../../adapters/http/webhook-sender.ts';
import type { WebhookSender } from '../../ports/webhooks.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

/** The signed POSTs to subscribers' endpoints (the delivery worker's). */
export const webhookSender = part({
  name: 'webhookSender',
  keys: ['webhookSender'],
  build: (_deps, { lazy }): { webhookSender: () => WebhookSender } => ({
    webhookSender: lazy(
      () =>
        new HttpsWebhookSender({
          allowLoopback: () => env.webhookAllowLoopback,
          extraCaFile: () => env.webhookExtraCaCerts,
        }),
    ),
  }),
});
