import { deliveryIdFor } from '../../domain/delivery-id.ts';
import type { Clock } from '../../ports/clock.ts';
import type { EventFacts } from '../../ports/publishing.ts';
import type {
  Delivery,
  DeliveryJob,
  DeliveryQueue,
  EventOutbox,
  WebhookEndpoint,
  WebhookSettings,
  WebhookStore,
} from '../../ports/webhooks.ts';
import { logger } from '../../shared/powertools.ts';

/** What the dispatcher and the sweeper depend on. */
export interface DispatchDeps {
  clock: Clock;
  webhooks: WebhookStore;
  outbox: EventOutbox;
  deliveryQueue: () => DeliveryQueue;
  webhookSettings: () => WebhookSettings;
}

/** Endpoints of a workspace, read once for the events of one queue batch. */
export type EndpointLookup = (workspaceId: string) => Promise<WebhookEndpoint[]>;

/**
 * A workspace found with no endpoint (a consistent read) is counted: its count of endpoints
 * becomes 0 unless it exists already, so that its later events are not kept at all. A counted
 * workspace rarely sends events here with no endpoint (its last endpoint deleted after a job read
 * the count): the write is then refused, harmlessly. A failure is logged, never the event's (the
 * next batch with an event of the workspace tries again).
 */
const countIfNone = async (deps: Pick<DispatchDeps, 'webhooks'>, workspaceId: string) => {
  try {
    if (await deps.webhooks.countNoEndpoints(workspaceId)) {
      logger.info('Counted a workspace with no webhook endpoint: its events are no longer kept', {
        workspaceId,
      });
    }
  } catch (error) {
    logger.warn('Could not count the webhook endpoints of a workspace', {
      workspaceId,
      error: error as Error,
    });
  }
};

/**
 * A lookup that reads each workspace's endpoints once (the events of one batch share it); a
 * workspace with none gets its count of endpoints (0) if it has no count yet.
 */
export const endpointsOnce = (deps: Pick<DispatchDeps, 'webhooks'>): EndpointLookup => {
  const read = new Map<string, Promise<WebhookEndpoint[]>>();
  return (workspaceId) => {
    let endpoints = read.get(workspaceId);
    if (!endpoints) {
      endpoints = deps.webhooks.listEndpoints(workspaceId).then(async (found) => {
        if (found.length === 0) await countIfNone(deps, workspaceId);
        return found;
      });
      // A failed read is not kept: the next event of the batch reads again.
      endpoints.catch(() => read.delete(workspaceId));
      read.set(workspaceId, endpoints);
    }
    return endpoints;
  };
};

const subscribed = (endpoints: WebhookEndpoint[], type: EventFacts['type']) =>
  endpoints.filter((endpoint) => endpoint.enabled && endpoint.events.includes(type));

/**
 * One event of the outbox: a delivery for each enabled endpoint of its workspace subscribed to its
 * type (created once, whatever the queue redelivers), queued, then the event leaves the outbox.
 * Test-key (sandbox) events are never delivered.
 *
 * `about` (the event's fixed facts, from its queue message) lets an event nobody is subscribed to
 * leave the outbox without being read; the event is read whenever there is something to deliver.
 */
export const dispatchEvent = async (
  deps: DispatchDeps,
  eventId: string,
  {
    about,
    endpoints = (workspaceId) => deps.webhooks.listEndpoints(workspaceId),
  }: {
    about?: EventFacts;
    endpoints?: EndpointLookup;
  } = {},
): Promise<void> => {
  if (about) {
    if (about.mode !== 'live') return;
    if (subscribed(await endpoints(about.workspaceId), about.type).length === 0) {
      if (!(await deps.outbox.markDispatched(eventId))) {
        logger.warn('Dropped an event message whose event does not exist', { eventId });
      }
      return;
    }
  }
  const record = await deps.outbox.get(eventId);
  if (!record) {
    logger.warn('Dropped an event message whose event does not exist', { eventId });
    return;
  }
  const { event, dispatched } = record;
  if (dispatched || event.mode !== 'live') return;
  const targets = subscribed(await endpoints(event.workspaceId), event.type);
  const now = deps.clock.now().toISOString();
  const jobs: DeliveryJob[] = [];
  await Promise.all(
    targets.map(async (endpoint) => {
      const delivery: Delivery = {
        deliveryId: deliveryIdFor(event.id, endpoint.webhookId),
        webhookId: endpoint.webhookId,
        workspaceId: event.workspaceId,
        eventId: event.id,
        eventType: event.type,
        state: 'pending',
        attempt: 0,
        firstAttemptAt: null,
        nextAttemptAt: now,
        inFlightUntil: null,
        createdAt: now,
      };
      // `exists`: an earlier try created it and may have died before queueing it; a second
      // message for attempt 1 is harmless (the delivery worker ignores stale attempts).
      if ((await deps.webhooks.createDelivery(delivery)) !== 'endpoint_unavailable') {
        jobs.push({ deliveryId: delivery.deliveryId, attempt: 1 });
      }
    }),
  );
  if (jobs.length > 0) await deps.deliveryQueue().send(jobs);
  await deps.outbox.markDispatched(event.id);
};

const inBatches = async <T>(items: T[], size: number, run: (item: T) => Promise<void>) => {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
};

/**
 * Finds work a lost message left behind: outbox events still pending, and deliveries whose next
 * attempt (or whose running attempt's lease) is overdue, both by `sweepAfterSeconds`; dispatches
 * the events and queues the deliveries again. Run every minute (a recurring schedule on AWS).
 */
export const sweep = async (deps: DispatchDeps): Promise<{ events: number; deliveries: number }> => {
  const { sweepAfterSeconds } = deps.webhookSettings();
  const before = new Date(deps.clock.now().getTime() - sweepAfterSeconds * 1000).toISOString();
  const eventIds = await deps.outbox.pendingBefore(before, 200);
  const endpoints = endpointsOnce(deps);
  await inBatches(eventIds, 10, async (eventId) => {
    try {
      await dispatchEvent(deps, eventId, { endpoints });
    } catch (error) {
      logger.warn('Sweep could not dispatch an event; the next sweep tries again', {
        eventId,
        error: error as Error,
      });
    }
  });
  const overdue = await deps.webhooks.overdueDeliveries(before, 500);
  // A dead attempt is taken over under its own number; otherwise the next attempt is due.
  const jobs = overdue.map((d) => ({
    deliveryId: d.deliveryId,
    attempt: d.inFlightUntil ? d.attempt : d.attempt + 1,
  }));
  if (jobs.length > 0) await deps.deliveryQueue().send(jobs);
  if (eventIds.length > 0 || jobs.length > 0) {
    logger.info('Webhook sweep re-sent overdue work', { events: eventIds.length, deliveries: jobs.length });
  }
  return { events: eventIds.length, deliveries: jobs.length };
};
