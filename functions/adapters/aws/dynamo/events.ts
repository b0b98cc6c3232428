import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxEvent } from '../../../ports/publishing.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { keys, TABLE_KEYS } from './keys.ts';

/**
 * The outbox item of an event; sandbox (test-key) events are kept but never pending delivery. The
 * event is stored deflated (`eventZ`, binary): it carries the post's snapshot, and a write costs
 * one unit per started KB (two in the transaction that commits it), its index entry as much again.
 */
export const eventToItem = (event: OutboxEvent) => ({
  ...keys.event(event.id),
  ...(event.mode === 'live' ? keys.eventPendingIndex(event.createdAt, event.id) : {}),
  type: 'Event',
  eventZ: deflateRawSync(JSON.stringify(event)),
});

/** The event an outbox item holds (deflated, or as a plain map in items written before). */
export const eventFromItem = (item: Record<string, unknown> | undefined): OutboxEvent | null => {
  if (!item) return null;
  if (item.eventZ instanceof Uint8Array)
    return JSON.parse(inflateRawSync(item.eventZ).toString('utf8')) as OutboxEvent;
  return (item.event as OutboxEvent | undefined) ?? null;
};

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
