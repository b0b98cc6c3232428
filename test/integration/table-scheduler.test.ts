import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TableRef } from '../../functions/adapters/aws/dynamo/client.ts';
import { keys, TABLE_KEYS } from '../../functions/adapters/aws/dynamo/keys.ts';
import {
  type LocalAwsServices,
  localClientConfig,
  startLocalAwsServices,
} from '../../functions/adapters/local/aws-services.ts';
import {
  createTable,
  type DynamoDbLocal,
  startDynamoDbLocal,
} from '../../functions/adapters/local/dynamodb-local.ts';
import {
  TableScheduler,
  type TableSchedulerOptions,
} from '../../functions/adapters/local/table-scheduler.ts';
import type { Clock } from '../../functions/ports/clock.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let db: DynamoDbLocal;
let services: LocalAwsServices;
let dynamo: DynamoDBClient;
let table: TableRef;
let sqs: SQSClient;
const started: TableScheduler[] = [];

beforeAll(async () => {
  [db, services] = await Promise.all([startDynamoDbLocal(), startLocalAwsServices()]);
  dynamo = new DynamoDBClient(localClientConfig.dynamodb(db.endpoint));
  table = { doc: DynamoDBDocumentClient.from(dynamo), tableName: 'herald' };
  await createTable(dynamo, table.tableName);
  sqs = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((scheduler) => scheduler.stop()));
});

afterAll(async () => {
  sqs?.destroy();
  dynamo?.destroy();
  await Promise.all([db?.stop(), services?.stop()]);
});

class ManualClock implements Clock {
  constructor(public at: Date) {}
  now(): Date {
    return new Date(this.at);
  }
  set(at: Date): void {
    this.at = at;
  }
}

const T = new Date('2030-06-01T12:00:00.000Z');
const plus = (ms: number, from = T) => new Date(from.getTime() + ms);

async function newQueue(): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `sched-${randomUUID()}` }));
  return QueueUrl as string;
}

async function receive(queueUrl: string, waitTimeSeconds = 0): Promise<Message[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      WaitTimeSeconds: waitTimeSeconds,
      MaxNumberOfMessages: 10,
      AttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

const uniqueName = () => `post_${randomUUID().slice(0, 8)}`;

function scheduler(targetQueueUrl: string, extra: Partial<TableSchedulerOptions> = {}): TableScheduler {
  return new TableScheduler({
    table,
    sqs,
    targetQueueUrl,
    onError: (error) => console.error(error),
    ...extra,
  });
}

async function dueIndexEntries(name: string): Promise<string[]> {
  const { Items } = await table.doc.send(
    new QueryCommand({
      TableName: table.tableName,
      IndexName: TABLE_KEYS.gsi1.name,
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.scheduleDueIndex('', name).GSI1PK },
    }),
  );
  return (Items ?? []).filter((item) => item.name === name).map((item) => String(item.GSI1SK));
}

describe('TableScheduler', () => {
  it('stores a schedule in the table under keys.schedule with its due-index entry', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    await scheduler(queueUrl, { clock: new ManualClock(T) }).scheduleOnce(name, plus(60_000), {
      postId: 'post_1',
    });
    const { Item } = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: keys.schedule(name), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({
      ...keys.schedule(name),
      ...keys.scheduleDueIndex('2030-06-01T12:01:00.000Z', name),
      name,
      fireAt: '2030-06-01T12:01:00.000Z',
      input: JSON.stringify({ postId: 'post_1' }),
      targetQueueUrl: queueUrl,
    });
  });

  it('sends the payload to the target queue on time and forgets the schedule', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    const s = scheduler(queueUrl);
    started.push(s);
    s.start();
    const at = new Date(Date.now() + 700);
    await s.scheduleOnce(name, at, { postId: 'post_on_time', attempt: 1 });

    const messages: Message[] = [];
    const deadline = Date.now() + 5000;
    while (messages.length === 0 && Date.now() < deadline) messages.push(...(await receive(queueUrl, 1)));
    expect(messages).toHaveLength(1);
    expect(JSON.parse(messages[0]?.Body ?? '')).toEqual({ postId: 'post_on_time', attempt: 1 });
    // SentTimestamp is when the scheduler sent it: not before `at`, and within ~300 ms after.
    const lateness = Number(messages[0]?.Attributes?.SentTimestamp) - at.getTime();
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThanOrEqual(300);
    // The item is deleted after the send; stop() waits for that firing to finish.
    await s.stop();
    expect(await s.get(name)).toBeUndefined();
    expect(await dueIndexEntries(name)).toEqual([]);
  });

  it('survives a restart: a new instance fires what fell due while nothing ran', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    await scheduler(queueUrl, { clock: new ManualClock(T) }).scheduleOnce(name, plus(1000), {
      postId: 'post_2',
    });

    // "Restart": a new instance, started after the time passed, fires at once.
    const afterRestart = scheduler(queueUrl, { clock: new ManualClock(plus(30_000)), intervalMs: 10_000 });
    started.push(afterRestart);
    afterRestart.start();
    const messages = await receive(queueUrl, 2);
    expect(messages.map((m) => m.Body)).toEqual([JSON.stringify({ postId: 'post_2' })]);
    await afterRestart.stop();
    expect(await afterRestart.get(name)).toBeUndefined();
  });

  it('moves a schedule: it fires at the new time with the new payload, not at the old one', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const s = scheduler(queueUrl, { clock });
    await s.scheduleOnce(name, plus(10_000), { version: 1 });
    await s.scheduleOnce(name, plus(20_000), { version: 2 });
    expect(await dueIndexEntries(name)).toEqual([`2030-06-01T12:00:20.000Z#${name}`]);

    clock.set(plus(15_000));
    expect(await s.tick()).toBe(0);
    expect(await receive(queueUrl)).toEqual([]);

    clock.set(plus(20_000));
    expect(await s.tick()).toBe(1);
    expect((await receive(queueUrl)).map((m) => m.Body)).toEqual([JSON.stringify({ version: 2 })]);
    expect(await s.tick()).toBe(0);
  });

  it('moves a schedule earlier', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const s = scheduler(queueUrl, { clock });
    await s.scheduleOnce(name, plus(60_000), { version: 1 });
    await s.scheduleOnce(name, plus(5_000), { version: 2 });
    clock.set(plus(5_000));
    expect(await s.tick()).toBe(1);
    expect((await receive(queueUrl)).map((m) => m.Body)).toEqual([JSON.stringify({ version: 2 })]);
  });

  it('cancels: a cancelled schedule never fires, and cancelling twice is fine', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const s = scheduler(queueUrl, { clock });
    await s.scheduleOnce(name, plus(1000), { postId: 'post_3' });
    await s.cancel(name);
    await s.cancel(name);
    await s.cancel('never-existed');
    clock.set(plus(5000));
    expect(await s.tick()).toBe(0);
    expect(await receive(queueUrl)).toEqual([]);
    expect(await s.get(name)).toBeUndefined();
  });

  it('fires every due schedule and leaves the future ones', async () => {
    const queueUrl = await newQueue();
    const clock = new ManualClock(T);
    const s = scheduler(queueUrl, { clock });
    const names = [uniqueName(), uniqueName(), uniqueName(), uniqueName()];
    await s.scheduleOnce(names[0] as string, plus(-5000), { n: 0 });
    await s.scheduleOnce(names[1] as string, plus(0), { n: 1 });
    await s.scheduleOnce(names[2] as string, plus(1), { n: 2 });
    await s.scheduleOnce(names[3] as string, plus(60_000), { n: 3 });
    const fired = await s.tick();
    const bodies = (await receive(queueUrl)).map((m) => JSON.parse(m.Body ?? '').n).sort();
    // Other tests' schedules may also be due at T; count only this test's.
    expect(bodies).toEqual([0, 1]);
    expect(fired).toBeGreaterThanOrEqual(2);
    expect(await s.get(names[2] as string)).toBeDefined();
    expect(await s.get(names[3] as string)).toBeDefined();
  });

  it('keeps a schedule that was moved while it was being sent', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const racingSqs = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
    const s = scheduler(queueUrl, { clock, sqs: racingSqs });
    let moved = false;
    racingSqs.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'SendMessageCommand' && !moved) {
          moved = true;
          await s.scheduleOnce(name, plus(60_000), { version: 2 });
        }
        return result;
      },
      { step: 'initialize' },
    );
    await s.scheduleOnce(name, plus(-1000), { version: 1 });
    expect(await s.tick()).toBe(1);
    racingSqs.destroy();
    expect(moved).toBe(true);
    expect((await receive(queueUrl)).map((m) => m.Body)).toEqual([JSON.stringify({ version: 1 })]);
    expect(await s.get(name)).toMatchObject({ fireAt: '2030-06-01T12:01:00.000Z', input: '{"version":2}' });
  });

  it('keeps a schedule whose send failed, and fires it on a later tick', async () => {
    const queueUrl = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const errors: unknown[] = [];
    const failingOnce = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
    let failures = 0;
    failingOnce.middlewareStack.add(
      (next) => async (args) => {
        if (failures++ === 0) throw new Error('queue unavailable');
        return next(args);
      },
      { step: 'initialize' },
    );
    const s = scheduler(queueUrl, { clock, sqs: failingOnce, onError: (error) => errors.push(error) });
    await s.scheduleOnce(name, plus(-1000), { postId: 'post_4' });
    await s.tick();
    expect(errors).toHaveLength(1);
    expect(await s.get(name)).toBeDefined();
    expect(await s.tick()).toBe(1);
    failingOnce.destroy();
    expect((await receive(queueUrl)).map((m) => m.Body)).toEqual([JSON.stringify({ postId: 'post_4' })]);
  });

  it('refuses names EventBridge would refuse', async () => {
    const s = scheduler(await newQueue());
    await expect(s.scheduleOnce('post#1', T, {})).rejects.toThrow(/Invalid schedule name/);
    await expect(s.scheduleOnce('x'.repeat(65), T, {})).rejects.toThrow(/Invalid schedule name/);
    await expect(s.scheduleOnce('ok', new Date(Number.NaN), {})).rejects.toThrow(/Invalid schedule time/);
    await expect(s.cancel('')).rejects.toThrow(/Invalid schedule name/);
  });
});
