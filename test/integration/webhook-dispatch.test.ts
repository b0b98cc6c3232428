import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventFromItem,
  eventToItem,
  getEventRecord,
  markEventDispatched,
  pendingEventIdsBefore,
} from '../../functions/adapters/aws/dynamo/events.ts';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { DynamoWebhookStore } from '../../functions/adapters/aws/dynamo/webhooks.ts';
import {
  type DispatchDeps,
  dispatchEvent,
  endpointsOnce,
  sweep,
} from '../../functions/core/webhooks/dispatch.ts';
import { deliveryIdFor } from '../../functions/domain/delivery-id.ts';
import type { EventType, OutboxEvent } from '../../functions/ports/publishing.ts';
import type { DeliveryJob, WebhookEndpoint } from '../../functions/ports/webhooks.ts';
import { freshTable } from '../support/table.ts';

/**
 * The dispatcher against the table: an event message that carries the event's workspace, type and
 * mode lets an event nobody is subscribed to leave the outbox without being read; whenever there is
 * something to deliver the event is read (and skipped once dispatched), as for a message that
 * carries only the id. Sandbox events are never delivered; a lost message is still found by the sweep.
 */

let table: Awaited<ReturnType<typeof freshTable>>;
let ws = 0;
let ids = 0;
beforeAll(async () => {
  table = await freshTable();
});
afterAll(async () => {
  await table?.drop();
});

const FAR_FUTURE = '2999-01-01T00:00:00.000Z';

const harness = () => {
  const reads: string[] = [];
  const lists: string[] = [];
  const queued: DeliveryJob[] = [];
  const webhooks = new (class extends DynamoWebhookStore {
    override listEndpoints(workspaceId: string) {
      lists.push(workspaceId);
      return super.listEndpoints(workspaceId);
    }
  })(table);
  const deps: DispatchDeps = {
    clock: { now: () => new Date() },
    webhooks,
    outbox: {
      get: (eventId) => {
        reads.push(eventId);
        return getEventRecord(table, eventId);
      },
      markDispatched: (eventId) => markEventDispatched(table, eventId),
      pendingBefore: (before, limit) => pendingEventIdsBefore(table, before, limit),
    },
    deliveryQueue: () => ({ send: async (jobs) => void queued.push(...jobs) }),
    webhookSettings: () => ({
      retryBaseSeconds: 1,
      timeoutMs: 1000,
      allowLoopback: true,
      sweepAfterSeconds: 0,
      disableAfterFailedEvents: 5,
      maxEndpointsPerWorkspace: 10,
    }),
  };
  return { deps, reads, lists, queued };
};

const storeEvent = async (
  workspaceId: string,
  mode: 'live' | 'test' = 'live',
  type: EventType = 'post.published',
) => {
  const event: OutboxEvent = {
    id: `evt_dispatch${++ids}`,
    type,
    createdAt: new Date(Date.now() - 1000).toISOString(),
    accountId: 'acc_dispatch',
    workspaceId,
    mode,
    data: { channelId: 'ch_1', platform: 'bluesky', blocksPublished: 1, blocksTotal: 1, error: null },
  };
  await table.doc.send(new PutCommand({ TableName: table.tableName, Item: eventToItem(event) }));
  return event;
};

const addEndpoint = async (workspaceId: string, events: EventType[]) => {
  const now = new Date().toISOString();
  const endpoint: WebhookEndpoint = {
    webhookId: `wh_dispatch${++ids}`,
    workspaceId,
    accountId: 'acc_dispatch',
    url: 'https://receiver.example/hook',
    description: null,
    events,
    enabled: true,
    consecutiveFailures: 0,
    disabledReason: null,
    disabledAt: null,
    secretCiphertext: 'sealed',
    createdAt: now,
    updatedAt: now,
  };
  await new DynamoWebhookStore(table).createEndpoint(endpoint, 0);
  return endpoint;
};

const facts = (event: OutboxEvent) => ({
  workspaceId: event.workspaceId,
  type: event.type,
  mode: event.mode,
});
const pending = async () => pendingEventIdsBefore(table, FAR_FUTURE, 1000);
const workspace = () => `ws_dispatch${++ws}`;

describe('webhook dispatch', () => {
  it('takes an event nobody is subscribed to out of the outbox without reading it', async () => {
    const w = workspace();
    await addEndpoint(w, ['post.failed']);
    const event = await storeEvent(w);
    expect(await pending()).toContain(event.id);
    const { deps, reads, queued } = harness();
    await dispatchEvent(deps, event.id, { about: facts(event) });
    expect(reads).toEqual([]);
    expect(queued).toEqual([]);
    expect(await pending()).not.toContain(event.id);
    expect((await getEventRecord(table, event.id))?.dispatched).toBe(true);
  });

  it('reads the event and queues one delivery per subscribed endpoint, once, whatever the queue redelivers', async () => {
    const w = workspace();
    const endpoint = await addEndpoint(w, ['post.published']);
    const event = await storeEvent(w);
    const { deps, reads, queued } = harness();
    await dispatchEvent(deps, event.id, { about: facts(event) });
    expect(reads).toEqual([event.id]);
    expect(queued).toHaveLength(1);
    expect(queued[0]?.attempt).toBe(1);
    const delivery = await new DynamoWebhookStore(table).getDelivery(queued[0]?.deliveryId as string);
    expect(delivery).toMatchObject({ webhookId: endpoint.webhookId, eventId: event.id, state: 'pending' });
    expect(await pending()).not.toContain(event.id);
    // A redelivered message finds the event dispatched: nothing is queued again.
    await dispatchEvent(deps, event.id, { about: facts(event) });
    expect(queued).toHaveLength(1);
  });

  it('never delivers a sandbox event and writes nothing for it', async () => {
    const w = workspace();
    await addEndpoint(w, ['post.published']);
    const event = await storeEvent(w, 'test');
    const { deps, reads, queued, lists } = harness();
    await dispatchEvent(deps, event.id, { about: facts(event) });
    // Even a message that claims the event is live: the stored event decides before anything is delivered.
    await dispatchEvent(deps, event.id, { about: { ...facts(event), mode: 'live' } });
    await dispatchEvent(deps, event.id);
    expect(queued).toEqual([]);
    expect(lists).toEqual([w]);
    expect(reads).toEqual([event.id, event.id]);
    const stored = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: keys.event(event.id), ConsistentRead: true }),
    );
    expect(stored.Item?.dispatchedAt).toBeUndefined();
  });

  it('drops a message whose event does not exist, with or without the facts', async () => {
    const w = workspace();
    const { deps, queued } = harness();
    await expect(
      dispatchEvent(deps, 'evt_missing', { about: { workspaceId: w, type: 'post.published', mode: 'live' } }),
    ).resolves.toBeUndefined();
    await addEndpoint(w, ['post.published']);
    await expect(
      dispatchEvent(deps, 'evt_missing', { about: { workspaceId: w, type: 'post.published', mode: 'live' } }),
    ).resolves.toBeUndefined();
    await expect(dispatchEvent(deps, 'evt_missing')).resolves.toBeUndefined();
    expect(queued).toEqual([]);
  });

  it('handles a message that carries only the id (older senders) by reading the event', async () => {
    const w = workspace();
    await addEndpoint(w, ['post.published']);
    const event = await storeEvent(w);
    const { deps, reads, queued } = harness();
    await dispatchEvent(deps, event.id);
    expect(reads).toEqual([event.id]);
    expect(queued).toHaveLength(1);
    expect(await pending()).not.toContain(event.id);
  });

  it('reads a workspace endpoints once for the events of one batch', async () => {
    const w = workspace();
    const events = [await storeEvent(w), await storeEvent(w), await storeEvent(w)];
    const { deps, lists, reads } = harness();
    const endpoints = endpointsOnce(deps);
    await Promise.all(events.map((e) => dispatchEvent(deps, e.id, { about: facts(e), endpoints })));
    expect(lists).toEqual([w]);
    expect(reads).toEqual([]);
    const left = await pending();
    for (const e of events) expect(left).not.toContain(e.id);
  });

  it('finds an event whose message was lost in the sweep, and delivers it', async () => {
    const w = workspace();
    const endpoint = await addEndpoint(w, ['post.published']);
    const event = await storeEvent(w);
    const { deps, queued } = harness();
    const swept = await sweep(deps);
    expect(swept.events).toBeGreaterThanOrEqual(1);
    expect(queued).toContainEqual({ deliveryId: deliveryIdFor(event.id, endpoint.webhookId), attempt: 1 });
    expect(await pending()).not.toContain(event.id);
  });

  it('stores the event deflated and still reads items written before as a plain map', async () => {
    const w = workspace();
    const event = await storeEvent(w);
    const stored = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: keys.event(event.id), ConsistentRead: true }),
    );
    expect(stored.Item?.eventZ).toBeInstanceOf(Uint8Array);
    expect(stored.Item?.event).toBeUndefined();
    expect(eventFromItem(stored.Item)).toEqual(event);
    const { eventZ: _z, ...plain } = eventToItem(event);
    expect(eventFromItem({ ...plain, event })).toEqual(event);
    const older = await storeEvent(w);
    const { eventZ: _older, ...olderPlain } = eventToItem(older);
    await table.doc.send(
      new PutCommand({ TableName: table.tableName, Item: { ...olderPlain, event: older } }),
    );
    expect((await getEventRecord(table, older.id))?.event).toEqual(older);
    expect(await pending()).toContain(older.id);
  });
});
