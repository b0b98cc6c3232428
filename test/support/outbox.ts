import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { eventFromItem } from '../../functions/adapters/aws/dynamo/events.ts';
import type { OutboxEvent } from '../../functions/ports/publishing.ts';
import { getDeps } from '../../functions/runtime/container.ts';

/** Every outbox event about a post (a test-only scan of the test's own table). */
export const eventsOfPost = async (postId: string): Promise<(OutboxEvent & { pending: boolean })[]> => {
  const { table } = getDeps();
  const events: (OutboxEvent & { pending: boolean })[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await table.doc.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: '#type = :event',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':event': 'Event' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      const event = eventFromItem(item) as OutboxEvent;
      if (event.data.post?.id === postId || event.data.postId === postId) {
        events.push({ ...event, pending: item.GSI1PK === 'OUTBOX' });
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return events.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
};

/** Events still waiting in the outbox for the webhooks capability (GSI1 `OUTBOX`). */
export const pendingEventIds = async (): Promise<string[]> => {
  const { table } = getDeps();
  const out = await table.doc.send(
    new QueryCommand({
      TableName: table.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :outbox',
      ExpressionAttributeValues: { ':outbox': 'OUTBOX' },
    }),
  );
  return (out.Items ?? []).map((item) => (eventFromItem(item) as OutboxEvent).id);
};
