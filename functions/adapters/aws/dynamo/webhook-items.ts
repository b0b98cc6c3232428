/**
 * The checks webhook items pass when read: endpoints (`Webhook`), deliveries (`WebhookDelivery`)
 * and the attempt log (`WebhookAttempt`). Unset delivery times are stored absent (the claim sets
 * `firstAttemptAt` with if_not_exists), and read as null. The TTL attribute is left out.
 */
import { z } from 'zod';
import type { Delivery, DeliveryAttempt, WebhookEndpoint } from '../../../ports/webhooks.ts';
import { EVENT_TYPES } from '../../../ports/webhooks.ts';
import { parseItem } from './item.ts';

const nullableString = z.string().nullable();

const endpointSchema: z.ZodType<WebhookEndpoint> = z.object({
  webhookId: z.string(),
  workspaceId: z.string(),
  accountId: z.string(),
  url: z.string(),
  description: nullableString,
  events: z.array(z.enum(EVENT_TYPES)),
  enabled: z.boolean(),
  consecutiveFailures: z.number().int(),
  disabledReason: z.enum(['consecutive_failures', 'request']).nullable(),
  disabledAt: nullableString,
  secretCiphertext: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const deliverySchema: z.ZodType<Delivery> = z.object({
  deliveryId: z.string(),
  webhookId: z.string(),
  workspaceId: z.string(),
  eventId: z.string(),
  eventType: z.enum(EVENT_TYPES),
  state: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
  attempt: z.number().int(),
  firstAttemptAt: nullableString,
  nextAttemptAt: z.string(),
  inFlightUntil: nullableString,
  createdAt: z.string(),
});

const attemptSchema: z.ZodType<DeliveryAttempt> = z.object({
  deliveryId: z.string(),
  webhookId: z.string(),
  eventId: z.string(),
  eventType: z.enum(EVENT_TYPES),
  attempt: z.number().int(),
  attemptedAt: z.string(),
  durationMs: z.number(),
  outcome: z.enum(['succeeded', 'retrying', 'failed']),
  responseStatus: z.number().int().nullable(),
  errorCode: z
    .enum([
      'http_status',
      'redirect',
      'timeout',
      'connection_failed',
      'tls_failed',
      'dns_failed',
      'url_not_allowed',
    ])
    .nullable(),
  error: nullableString,
  nextAttemptAt: nullableString,
});

/** A webhook endpoint item as its record; `MalformedItemError` if it is not one. */
export const endpointFromItem = (item: Record<string, unknown>): WebhookEndpoint =>
  parseItem('Webhook', endpointSchema, item);

/** Times a delivery has not reached yet are stored absent: read as null. */
const unsetTimesAsNull = (fields: Record<string, unknown>) => ({
  ...fields,
  inFlightUntil: fields.inFlightUntil ?? null,
  firstAttemptAt: fields.firstAttemptAt ?? null,
});

/** A webhook delivery item as its record; `MalformedItemError` if it is not one. */
export const deliveryFromItem = (item: Record<string, unknown>): Delivery =>
  parseItem('WebhookDelivery', deliverySchema, item, unsetTimesAsNull);

/** An attempt log item as its record; `MalformedItemError` if it is not one. */
export const attemptFromItem = (item: Record<string, unknown>): DeliveryAttempt =>
  parseItem('WebhookAttempt', attemptSchema, item);
