import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { eventFromItem } from '../../functions/adapters/aws/dynamo/events.ts';
import type { OutboxEvent } from '../../functions/ports/publishing.ts';
import type { WebhookEndpoint } from '../../functions/ports/webhooks.ts';
import type { TestRuntime } from './runtime.ts';

/** An endpoint record as the create route stores it, turned off (as by a request): it receives nothing. */
export const offEndpoint = (accountId: string, workspaceId: string): WebhookEndpoint => {
  const now = new Date().toISOString();
  return {
    webhookId: `wh_off${Math.random().toString(36).slice(2, 14)}`,
    workspaceId,
    accountId,
    url: 'https://receiver.invalid/off',
    description: 'turned off: keeps the events of a test workspace',
    events: ['post.published', 'post.failed', 'post.partially_failed', 'channel.needs_reconnect'],
    enabled: false,
    consecutiveFailures: 0,
    disabledReason: 'request',
    disabledAt: now,
    secretCiphertext: 'sealed',
    createdAt: now,
    updatedAt: now,
  };
};

/**
 * Gives the workspace a webhook endpoint that receives nothing (`offEndpoint`), so that its events
 * are kept in the outbox as for any workspace with an endpoint: a workspace with none keeps no
 * event. Created as the route does (counted in the workspace's count).
 */
export const keepEvents = async (
  rt: TestRuntime,
  accountId: string,
  workspaceId: string,
): Promise<WebhookEndpoint> => {
  const endpoint = offEndpoint(accountId, workspaceId);
  const { webhooks } = rt.container.deps;
  await webhooks.createEndpoint(endpoint, (await webhooks.listEndpoints(workspaceId)).length);
  return endpoint;
};

/** Every outbox event about a post (a test-only scan of the test's own table). */
export const eventsOfPost = async (
  rt: TestRuntime,
  postId: string,
): Promise<(OutboxEvent & { pending: boolean })[]> => {
  const { table } = rt.container.deps;
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
export const pendingEventIds = async (rt: TestRuntime): Promise<string[]> => {
  const { table } = rt.container.deps;
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

/** The `channel.needs_reconnect` events kept about a post. */
export const needsReconnectEvents = async (rt: TestRuntime, postId: string) =>
  (await eventsOfPost(rt, postId)).filter((event) => event.type === 'channel.needs_reconnect');
