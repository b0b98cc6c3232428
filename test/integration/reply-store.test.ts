import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { dynamoReplyStore } from '../../functions/adapters/aws/dynamo/replies.ts';
import type { OutboxEvent } from '../../functions/ports/publishing.ts';
import { freshTable } from '../support/table.ts';

/**
 * `comment.received` in the table: the mark and the event in one transaction, under the outbox's
 * rule for a workspace without a webhook endpoint (the mark alone, while the count is still 0).
 */

let table: Awaited<ReturnType<typeof freshTable>>;

beforeAll(async () => {
  table = await freshTable();
});
afterAll(async () => {
  await table?.drop();
});

let n = 0;
const eventFor = (workspaceId: string): OutboxEvent => ({
  id: `evt_reply_store_${n++}_${Date.now()}`,
  type: 'comment.received',
  createdAt: new Date().toISOString(),
  accountId: 'acc_1',
  workspaceId,
  mode: 'live',
  data: { channelId: 'ch_1', platform: 'bluesky', postId: 'post_1', error: null },
});

const setEndpointCount = (workspaceId: string, endpoints: number) =>
  table.doc.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...keys.webhookCount(workspaceId), type: 'WebhookCount', endpoints },
    }),
  );

const stored = async (eventId: string) =>
  (await table.doc.send(new GetCommand({ TableName: table.tableName, Key: keys.event(eventId) }))).Item;

describe('announceComment', () => {
  it('marks a comment once, with its event where the workspace may have an endpoint', async () => {
    const store = dynamoReplyStore(table);
    const event = eventFor('ws_open');
    expect(await store.announceComment('post_1', 'ch_1', 'c1', event)).toEqual({
      announced: true,
      kept: true,
    });
    expect(await stored(event.id)).toBeDefined();
    const again = eventFor('ws_open');
    expect(await store.announceComment('post_1', 'ch_1', 'c1', again)).toEqual({
      announced: false,
      kept: false,
    });
    expect(await stored(again.id)).toBeUndefined();
  });

  it('without an endpoint: the mark alone; an endpoint created since the count was read: the event after all', async () => {
    const store = dynamoReplyStore(table);
    await setEndpointCount('ws_quiet', 0);
    const gate = { workspaceId: 'ws_quiet', endpoints: 0 };
    const quiet = eventFor('ws_quiet');
    expect(await store.announceComment('post_2', 'ch_1', 'c1', quiet, gate)).toEqual({
      announced: true,
      kept: false,
    });
    expect(await stored(quiet.id)).toBeUndefined();
    // Marked: never announced again, even once an endpoint exists.
    await setEndpointCount('ws_quiet', 1);
    expect(await store.announceComment('post_2', 'ch_1', 'c1', eventFor('ws_quiet'), gate)).toEqual({
      announced: false,
      kept: false,
    });
    // A new comment, with the gate read before the endpoint was created: the count's check fails,
    // and the event is kept after all.
    const late = eventFor('ws_quiet');
    expect(await store.announceComment('post_2', 'ch_1', 'c2', late, gate)).toEqual({
      announced: true,
      kept: true,
    });
    expect(await stored(late.id)).toBeDefined();
  });
});
