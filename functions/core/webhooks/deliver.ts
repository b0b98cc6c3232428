import type { Clock } from '../../ports/clock.ts';
import type { OutboxEvent } from '../../ports/publishing.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import type {
  AttemptResult,
  DeliveryAttempt,
  DeliveryJob,
  DeliveryQueue,
  EventOutbox,
  WebhookEndpoint,
  WebhookSender,
  WebhookSettings,
  WebhookStore,
} from '../../ports/webhooks.ts';
import { logger } from '../../shared/powertools.ts';
import { signWebhook } from '../../shared/verify-webhook.ts';
import { retryDelaySeconds } from './retry-schedule.ts';

/** What the delivery worker depends on. */
export interface DeliverDeps {
  clock: Clock;
  webhooks: WebhookStore;
  outbox: EventOutbox;
  deliveryQueue: () => DeliveryQueue;
  webhookSender: () => WebhookSender;
  tokenCipher: () => TokenCipher;
  webhookSettings: () => WebhookSettings;
}

/** SQS delays a message by at most 15 minutes; longer waits are chained hops. */
const MAX_QUEUE_DELAY_SECONDS = 900;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request body of spec 6: exactly `id`, `type`, `createdAt` and `data`, the same on every attempt. */
export const eventBody = (event: OutboxEvent): string =>
  JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });

/** Decrypted secrets by ciphertext: a rolled secret has a new ciphertext, so it is used at once. */
const secrets = new Map<string, { secret: string; at: number }>();
const SECRET_CACHE_MS = 5 * 60_000;

const secretOf = async (
  deps: Pick<DeliverDeps, 'tokenCipher'>,
  endpoint: WebhookEndpoint,
): Promise<string> => {
  const cached = secrets.get(endpoint.secretCiphertext);
  if (cached && Date.now() - cached.at < SECRET_CACHE_MS) return cached.secret;
  const secret = await deps
    .tokenCipher()
    .decrypt(endpoint.secretCiphertext, { channelId: endpoint.webhookId });
  if (secrets.size > 1000) secrets.clear();
  secrets.set(endpoint.secretCiphertext, { secret, at: Date.now() });
  return secret;
};

/**
 * One message of the delivery queue: attempt `job.attempt` of one delivery. Reloads everything and
 * does nothing when the work is no longer pending (delivered, given up, endpoint deleted or off,
 * or a message for an attempt already made); waits until the attempt is due; makes one signed
 * POST; records it; then queues the next attempt or gives up. Throws only to be retried.
 */
export const deliver = async (deps: DeliverDeps, job: DeliveryJob): Promise<void> => {
  const settings = deps.webhookSettings();
  const delivery = await deps.webhooks.getDelivery(job.deliveryId);
  if (delivery?.state !== 'pending') return;
  const nowMs = () => deps.clock.now().getTime();

  let takeOver = false;
  if (delivery.attempt >= job.attempt) {
    // This attempt started already. Its worker holds it until the lease ends; past that it died.
    if (delivery.attempt !== job.attempt || !delivery.inFlightUntil) return;
    if (Date.parse(delivery.inFlightUntil) > nowMs()) return;
    takeOver = true;
  } else if (delivery.attempt !== job.attempt - 1 || delivery.inFlightUntil) {
    return;
  } else {
    const wait = Date.parse(delivery.nextAttemptAt) - nowMs();
    if (wait >= 1000) {
      // Not due yet: the queue's delay (whole seconds, 15 minutes at most) covers most of the wait.
      await deps.deliveryQueue().send([job], Math.min(MAX_QUEUE_DELAY_SECONDS, Math.floor(wait / 1000)));
      return;
    }
    if (wait > 0) await sleep(wait);
  }

  const endpoint = await deps.webhooks.getEndpoint(delivery.workspaceId, delivery.webhookId);
  if (!endpoint) return; // deleted: its deliveries went with it
  if (!endpoint.enabled) {
    await deps.webhooks.cancelDelivery(delivery);
    return;
  }
  const record = await deps.outbox.get(delivery.eventId);
  if (!record) {
    logger.warn('A delivery lost its event; cancelled', { deliveryId: delivery.deliveryId });
    await deps.webhooks.cancelDelivery(delivery);
    return;
  }

  const startedAt = nowMs();
  // Long enough for the request and the bookkeeping around it; past it a takeover may resend.
  const lease = new Date(startedAt + 2 * settings.timeoutMs + 2000).toISOString();
  if (!(await deps.webhooks.claimAttempt(delivery, job.attempt, lease, new Date(startedAt).toISOString())))
    return;
  const claimed = {
    ...delivery,
    attempt: job.attempt,
    inFlightUntil: lease,
    firstAttemptAt: delivery.firstAttemptAt ?? new Date(startedAt).toISOString(),
  };
  if (takeOver) logger.info('Took over an attempt whose worker stopped', { deliveryId: delivery.deliveryId });

  const { event } = record;
  const body = eventBody(event);
  const secret = await secretOf(deps, endpoint);
  const response = await deps.webhookSender().post({
    url: endpoint.url,
    body,
    timeoutMs: settings.timeoutMs,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'Herald-Webhooks/1.0',
      'x-herald-signature': signWebhook(body, secret, Math.floor(startedAt / 1000)),
      'x-herald-event-id': event.id,
      'x-herald-event-type': event.type,
      'x-herald-attempt': String(job.attempt),
    },
  });

  const finishedAt = nowMs();
  let result: AttemptResult;
  let waitSeconds = 0;
  if (response.ok) {
    result = { kind: 'succeeded' };
  } else {
    const elapsed = (finishedAt - Date.parse(claimed.firstAttemptAt)) / 1000;
    const wait = retryDelaySeconds(job.attempt, elapsed, settings.retryBaseSeconds);
    if (wait === null) result = { kind: 'failed' };
    else {
      waitSeconds = wait;
      result = { kind: 'retry', nextAttemptAt: new Date(finishedAt + wait * 1000).toISOString() };
    }
  }
  const log: DeliveryAttempt = {
    deliveryId: delivery.deliveryId,
    webhookId: delivery.webhookId,
    eventId: event.id,
    eventType: event.type,
    attempt: job.attempt,
    attemptedAt: new Date(startedAt).toISOString(),
    durationMs: response.durationMs,
    outcome: result.kind === 'succeeded' ? 'succeeded' : result.kind === 'retry' ? 'retrying' : 'failed',
    responseStatus: response.status,
    errorCode: response.ok ? null : response.errorCode,
    error: response.ok ? null : response.error,
    nextAttemptAt: result.kind === 'retry' ? result.nextAttemptAt : null,
  };
  // False when the endpoint was deleted meanwhile, or our lease ran out and another worker took over.
  if (!(await deps.webhooks.finishAttempt(claimed, log, result, delivery.workspaceId))) return;
  if (result.kind === 'retry') {
    await deps
      .deliveryQueue()
      .send(
        [{ deliveryId: delivery.deliveryId, attempt: job.attempt + 1 }],
        Math.min(MAX_QUEUE_DELAY_SECONDS, Math.floor(waitSeconds)),
      );
  } else if (result.kind === 'failed') {
    const disabled = await deps.webhooks.disableIfFailing(
      delivery.workspaceId,
      delivery.webhookId,
      settings.disableAfterFailedEvents,
      new Date(finishedAt).toISOString(),
    );
    if (disabled) {
      logger.warn('Webhook endpoint disabled after failed events in a row', {
        webhookId: delivery.webhookId,
        failedEvents: settings.disableAfterFailedEvents,
      });
    }
  }
};
