import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxEvent } from '../../../ports/publishing.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { keys, TABLE_KEYS } from './keys.ts';

/** The outbox item of an event; sandbox (test-key) events are kept but never pending delivery. */
export const eventToItem = (event: OutboxEvent) => ({
  ...keys.event(event.id),
  ...(event.mode === 'live' ? keys.eventPendingIndex(event.createdAt, event.id) : {}),
  type: 'Event',
  event,
});

export const getEvent = async (
  { doc, tableName }: TableRef,
  eventId: string,
): Promise<OutboxEvent | null> => {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.event(eventId) }));
  return (out.Item?.event as OutboxEvent | undefined) ?? null;
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
  const event = out.Item?.event as OutboxEvent | undefined;
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
  return (out.Items ?? []).map((item) => (item.event as OutboxEvent).id);
};
