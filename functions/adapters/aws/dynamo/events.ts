import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxEvent } from '../../../ports/publishing.ts';
import type { TableRef } from './client.ts';
import { keys } from './keys.ts';

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
export const markEventDispatched = async ({ doc, tableName }: TableRef, eventId: string): Promise<void> => {
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.event(eventId),
      UpdateExpression: 'REMOVE GSI1PK, GSI1SK SET dispatchedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
    }),
  );
};
