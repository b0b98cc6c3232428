import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { type OutboxEvent, type OutboxGate, skipsEvents } from '../../../ports/publishing.ts';
import { EVENT_TYPES } from '../../../ports/webhooks.ts';
import { isConditionFailure, type TableRef, transactionCancellation } from './client.ts';
import { parseItem } from './item.ts';
import { keys, TABLE_KEYS } from './keys.ts';
import type { TransactItem } from './usage.ts';

/**
 * The outbox item of an event (live events only: see `outboxItems`); pending delivery until the
 * webhooks capability takes it (sandbox events written before were kept, never pending). The
 * event is stored deflated (`eventZ`, binary): it carries the post's snapshot, and a write costs
 * one unit per started KB (two in the transaction that commits it), its index entry as much again.
 */
export const eventToItem = (event: OutboxEvent) => ({
  ...keys.event(event.id),
  ...(event.mode === 'live' ? keys.eventPendingIndex(event.createdAt, event.id) : {}),
  type: 'Event',
  eventZ: deflateRawSync(JSON.stringify(event)),
});

/**
 * The one rule for every write that commits outbox events: the items it adds to its transaction.
 * - Sandbox (test-key) events are not kept: never delivered, and nothing reads them.
 * - When `gate` says the workspace has no webhook endpoint, no event is kept either (nobody could
 *   receive it, and an endpoint created later is not sent what happened before it existed); the
 *   transaction holds a check that the count is still 0 instead (`checks`: `items` is that check
 *   alone), so an endpoint created before the commit refuses it; the writer throws
 *   `EndpointsAppearedError` on that refusal and the caller writes again without the gate.
 * - Otherwise (endpoints, or a workspace never counted) each live event is put as before.
 * `kept`: the events written, the ones to hand to the event queue.
 */
export const outboxItems = (
  tableName: string,
  events: OutboxEvent[],
  gate?: OutboxGate,
): { items: TransactItem[]; kept: OutboxEvent[]; checks: boolean } => {
  const live = events.filter((event) => event.mode === 'live');
  if (live.length === 0) return { items: [], kept: [], checks: false };
  if (gate && skipsEvents(gate)) {
    return {
      items: [
        {
          ConditionCheck: {
            TableName: tableName,
            Key: keys.webhookCount(gate.workspaceId),
            ConditionExpression: 'endpoints = :zero',
            ExpressionAttributeValues: { ':zero': 0 },
          },
        },
      ],
      kept: [],
      checks: true,
    };
  }
  return {
    items: live.map((event) => ({
      Put: {
        TableName: tableName,
        Item: eventToItem(event),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    })),
    kept: live,
    checks: false,
  };
};

/** The workspace's count of webhook endpoints; null when it was never counted. */
/**
 * Commits a write with its outbox items under `gate` (`write` places them in its transaction right
 * after `checkAt` items of its own). When the count's check refuses it (an endpoint was created
 * since the count was read), writes again without the gate: the events are kept after all. Any
 * other refusal is `write`'s to answer.
 */
export const commitWithOutbox = async <T>(
  tableName: string,
  events: OutboxEvent[],
  gate: OutboxGate | undefined,
  checkAt: number,
  write: (outbox: ReturnType<typeof outboxItems>) => Promise<T>,
): Promise<T> => {
  let current = gate;
  for (;;) {
    const outbox = outboxItems(tableName, events, current);
    try {
      return await write(outbox);
    } catch (error) {
      const reasons = transactionCancellation(error)?.reasons;
      if (outbox.checks && current && reasons?.[checkAt] === 'ConditionalCheckFailed') {
        current = { workspaceId: current.workspaceId, endpoints: null };
        continue;
      }
      throw error;
    }
  }
};

export const readEndpointCount = async (
  { doc, tableName }: TableRef,
  workspaceId: string,
): Promise<number | null> => {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.webhookCount(workspaceId) }));
  return endpointCountOf(out.Item);
};

/** The count a count item holds; null when there is none (a workspace never counted). */
export const endpointCountOf = (item: Record<string, unknown> | undefined): number | null =>
  typeof item?.endpoints === 'number' ? item.endpoints : null;

const eventSchema: z.ZodType<OutboxEvent> = z.looseObject({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  createdAt: z.string(),
  accountId: z.string(),
  workspaceId: z.string(),
  mode: z.enum(['live', 'test']),
  // The rest of the data (the post's snapshot, counts) passes through as stored.
  data: z.looseObject({ channelId: z.string(), platform: z.string(), error: z.string().nullable() }),
});

/** Items written before events were deflated hold the event as a plain map (`event`). */
const inflated = (fields: Record<string, unknown>): Record<string, unknown> => {
  if (fields.eventZ instanceof Uint8Array) return JSON.parse(inflateRawSync(fields.eventZ).toString('utf8'));
  return isPlainMap(fields.event) ? fields.event : {};
};
const isPlainMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The event an outbox item holds (deflated, or as a plain map in items written before); null when
 * there is no item, `MalformedItemError` when the item holds no event.
 */
export const eventFromItem = (item: Record<string, unknown> | undefined): OutboxEvent | null =>
  item ? parseItem('OutboxEvent', eventSchema, item, inflated) : null;

const eventIdOf = (item: Record<string, unknown>): string => String(item.PK).slice(keys.event('').PK.length);

export const getEvent = async (
  { doc, tableName }: TableRef,
  eventId: string,
): Promise<OutboxEvent | null> => {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.event(eventId) }));
  return eventFromItem(out.Item);
};

/** Takes the event out of the pending index once the webhooks capability has it. */
export const markEventDispatched = async (
  { doc, tableName }: TableRef,
  eventId: string,
): Promise<boolean> => {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.event(eventId),
        UpdateExpression: 'REMOVE GSI1PK, GSI1SK SET dispatchedAt = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** The event and whether the webhooks capability already took it out of the outbox. */
export const getEventRecord = async (
  { doc, tableName }: TableRef,
  eventId: string,
): Promise<{ event: OutboxEvent; dispatched: boolean } | null> => {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.event(eventId), ConsistentRead: true }),
  );
  const event = eventFromItem(out.Item);
  return event ? { event, dispatched: typeof out.Item?.dispatchedAt === 'string' } : null;
};

/** Ids of events still pending in the outbox that were created before `before`, oldest first. */
export const pendingEventIdsBefore = async (
  { doc, tableName }: TableRef,
  before: string,
  limit: number,
): Promise<string[]> => {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: TABLE_KEYS.gsi1.name,
      KeyConditionExpression: 'GSI1PK = :outbox AND GSI1SK < :before',
      ExpressionAttributeValues: { ':outbox': keys.eventPendingIndex(before, '').GSI1PK, ':before': before },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map(eventIdOf);
};
