import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
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

interface Queue {
  url: string;
  arn: string;
}

const ACCOUNT = '000000000000';
const arnOf = (name: string) => `arn:aws:sqs:us-east-1:${ACCOUNT}:${name}`;

async function newQueue(name = `sched-${randomUUID()}`, client = sqs): Promise<Queue> {
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name }));
  return { url: QueueUrl as string, arn: arnOf(name) };
}

async function receive(queue: Queue, waitTimeSeconds = 0, client = sqs): Promise<Message[]> {
  const { Messages } = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queue.url,
      WaitTimeSeconds: waitTimeSeconds,
      MaxNumberOfMessages: 10,
      AttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

const uniqueName = () => `post_${randomUUID().slice(0, 8)}`;

function scheduler(queue: Queue, extra: Partial<TableSchedulerOptions> = {}): TableScheduler {
  return new TableScheduler({
    table,
    sqs,
    targetArn: queue.arn,
    log: (line) => console.error(line),
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
    const queue = await newQueue();
    const name = uniqueName();
    await scheduler(queue, { clock: new ManualClock(T) }).scheduleOnce(name, plus(60_000), {
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
      targetArn: queue.arn,
    });
    expect(Item).not.toHaveProperty('targetQueueUrl');
  });

  it('sends the payload to the target queue on time and forgets the schedule', async () => {
    const queue = await newQueue();
    const name = uniqueName();
    const s = scheduler(queue);
    started.push(s);
    s.start();
    const at = new Date(Date.now() + 700);
    await s.scheduleOnce(name, at, { postId: 'post_on_time', attempt: 1 });

    const messages: Message[] = [];
    const deadline = Date.now() + 5000;
    while (messages.length === 0 && Date.now() < deadline) messages.push(...(await receive(queue, 1)));
    expect(messages).toHaveLength(1);
    expect(JSON.parse(messages[0]?.Body ?? '')).toEqual({ postId: 'post_on_time', attempt: 1 });
    // SentTimestamp is when the scheduler sent it: never before `at` (how soon after is benchmarked).
    const lateness = Number(messages[0]?.Attributes?.SentTimestamp) - at.getTime();
    expect(lateness).toBeGreaterThanOrEqual(0);
    // The item is deleted after the send; stop() waits for that firing to finish.
    await s.stop();
    expect(await s.get(name)).toBeUndefined();
    expect(await dueIndexEntries(name)).toEqual([]);
  });

  it('survives a restart: a new instance fires what fell due while nothing ran', async () => {
    const queue = await newQueue();
    const name = uniqueName();
    await scheduler(queue, { clock: new ManualClock(T) }).scheduleOnce(name, plus(1000), {
      postId: 'post_2',
    });

    // "Restart": a new instance, started after the time passed, fires at once.
    const afterRestart = scheduler(queue, { clock: new ManualClock(plus(30_000)), intervalMs: 10_000 });
    started.push(afterRestart);
    afterRestart.start();
    const messages = await receive(queue, 2);
    expect(messages.map((m) => m.Body)).toEqual([JSON.stringify({ postId: 'post_2' })]);
    await afterRestart.stop();
    expect(await afterRestart.get(name)).toBeUndefined();
  });

  it('moves a schedule: it fires at the new time with the new payload, not at the old one', async () => {
    const queue = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const s = scheduler(queue, { clock });
    await s.scheduleOnce(name, plus(10_000), { version: 1 });
    await s.scheduleOnce(name, plus(20_000), { version: 2 });
    expect(await dueIndexEntries(name)).toEqual([`2030-06-01T12:00:20.000Z#${name}`]);

    clock.set(plus(15_000));
    expect(await s.tick()).toBe(0);
    expect(await receive(queue)).toEqual([]);

    clock.set(plus(20_000));
    expect(await s.tick()).toBe(1);
    expect((await receive(queue)).map((m) => m.Body)).toEqual([JSON.stringify({ version: 2 })]);
    expect(await s.tick()).toBe(0);
  });

  it('moves a schedule earlier', async () => {
    const queue = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const s = scheduler(queue, { clock });
    await s.scheduleOnce(name, plus(60_000), { version: 1 });
    await s.scheduleOnce(name, plus(5_000), { version: 2 });
    clock.set(plus(5_000));
    expect(await s.tick()).toBe(1);
    expect((await receive(queue)).map((m) => m.Body)).toEqual([JSON.stringify({ version: 2 })]);
  });

  it('cancels: a cancelled schedule never fires, and cancelling twice is fine', async () => {
    const queue = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const s = scheduler(queue, { clock });
    await s.scheduleOnce(name, plus(1000), { postId: 'post_3' });
    await s.cancel(name);
    await s.cancel(name);
    await s.cancel('never-existed');
    clock.set(plus(5000));
    expect(await s.tick()).toBe(0);
    expect(await receive(queue)).toEqual([]);
    expect(await s.get(name)).toBeUndefined();
  });

  it('fires every due schedule and leaves the future ones', async () => {
    const queue = await newQueue();
    const clock = new ManualClock(T);
    const s = scheduler(queue, { clock });
    const names = [uniqueName(), uniqueName(), uniqueName(), uniqueName()];
    await s.scheduleOnce(names[0] as string, plus(-5000), { n: 0 });
    await s.scheduleOnce(names[1] as string, plus(0), { n: 1 });
    await s.scheduleOnce(names[2] as string, plus(1), { n: 2 });
    await s.scheduleOnce(names[3] as string, plus(60_000), { n: 3 });
    const fired = await s.tick();
    const bodies = (await receive(queue)).map((m) => JSON.parse(m.Body ?? '').n).sort();
    // Other tests' schedules may also be due at T; count only this test's.
    expect(bodies).toEqual([0, 1]);
    expect(fired).toBeGreaterThanOrEqual(2);
    expect(await s.get(names[2] as string)).toBeDefined();
    expect(await s.get(names[3] as string)).toBeDefined();
  });

  it('keeps a schedule that was moved while it was being sent', async () => {
    const queue = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const racingSqs = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
    const s = scheduler(queue, { clock, sqs: racingSqs });
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
    expect((await receive(queue)).map((m) => m.Body)).toEqual([JSON.stringify({ version: 1 })]);
    expect(await s.get(name)).toMatchObject({ fireAt: '2030-06-01T12:01:00.000Z', input: '{"version":2}' });
  });

  it('keeps a schedule whose send failed, and fires it once the retry wait has passed', async () => {
    const queue = await newQueue();
    const name = uniqueName();
    const clock = new ManualClock(T);
    const lines: string[] = [];
    const failingOnce = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
    let failures = 0;
    failingOnce.middlewareStack.add(
      (next) => async (args) => {
        if (failures++ === 0) throw new Error('queue unavailable');
        return next(args);
      },
      { step: 'initialize' },
    );
    const s = scheduler(queue, { clock, sqs: failingOnce, log: (line) => lines.push(line) });
    await s.scheduleOnce(name, plus(-1000), { postId: 'post_4' });
    expect(await s.tick()).toBe(0);
    expect(lines).toEqual([expect.stringContaining('queue unavailable')]);
    expect(await s.get(name)).toBeDefined();
    // The first retry waits a second.
    expect(await s.tick()).toBe(0);
    expect(await s.get(name)).toBeDefined();
    clock.set(plus(1000));
    expect(await s.tick()).toBeGreaterThanOrEqual(1);
    failingOnce.destroy();
    expect((await receive(queue)).map((m) => m.Body)).toEqual([JSON.stringify({ postId: 'post_4' })]);
    expect(await s.get(name)).toBeUndefined();
    expect(lines[1]).toMatch(/reachable again .*after 1 failed attempt$/);
  });

  it('refuses names EventBridge would refuse', async () => {
    const s = scheduler(await newQueue());
    await expect(s.scheduleOnce('post#1', T, {})).rejects.toThrow(/Invalid schedule name/);
    await expect(s.scheduleOnce('x'.repeat(65), T, {})).rejects.toThrow(/Invalid schedule name/);
    await expect(s.scheduleOnce('ok', new Date(Number.NaN), {})).rejects.toThrow(/Invalid schedule time/);
    await expect(s.cancel('')).rejects.toThrow(/Invalid schedule name/);
  });

  describe('targets named by ARN (on a table of their own, so no other schedule is due)', () => {
    const isolatedTable = async (): Promise<TableRef> => {
      const tableName = `herald-sched-${randomUUID().slice(0, 8)}`;
      await createTable(dynamo, tableName);
      return { doc: table.doc, tableName };
    };

    it('fires, after a restart, what was scheduled on a queue server that has since moved to another port', async () => {
      const own = await isolatedTable();
      const queueName = `restart-${randomUUID()}`;
      const before = await startLocalAwsServices();
      const sqsBefore = new SQSClient(localClientConfig.sqs(before.sqsEndpoint));
      const oldQueue = await newQueue(queueName, sqsBefore);
      const name = uniqueName();
      await scheduler(oldQueue, { table: own, sqs: sqsBefore, clock: new ManualClock(T) }).scheduleOnce(
        name,
        plus(1000),
        { postId: 'post_restart' },
      );
      // A schedule stored by an older version, with the queue URL (and port) of that run.
      const legacyName = uniqueName();
      await own.doc.send(
        new PutCommand({
          TableName: own.tableName,
          Item: {
            ...keys.schedule(legacyName),
            ...keys.scheduleDueIndex(plus(2000).toISOString(), legacyName),
            type: 'Schedule',
            name: legacyName,
            fireAt: plus(2000).toISOString(),
            input: JSON.stringify({ postId: 'post_legacy' }),
            targetQueueUrl: oldQueue.url,
            updatedAt: T.toISOString(),
          },
        }),
      );
      sqsBefore.destroy();
      await before.stop();

      const after = await startLocalAwsServices();
      const sqsAfter = new SQSClient(localClientConfig.sqs(after.sqsEndpoint));
      try {
        const queue = await newQueue(queueName, sqsAfter);
        expect(queue.url).not.toBe(oldQueue.url);
        const lines: string[] = [];
        const s = scheduler(queue, {
          table: own,
          sqs: sqsAfter,
          clock: new ManualClock(plus(30_000)),
          log: (line) => lines.push(line),
        });
        expect(await s.tick()).toBe(2);
        const bodies = (await receive(queue, 0, sqsAfter)).map((m) => m.Body).sort();
        expect(bodies).toEqual([
          JSON.stringify({ postId: 'post_legacy' }),
          JSON.stringify({ postId: 'post_restart' }),
        ]);
        expect(await s.get(name)).toBeUndefined();
        expect(await s.get(legacyName)).toBeUndefined();
        expect(await s.tick()).toBe(0);
        expect(lines).toEqual([]);
      } finally {
        sqsAfter.destroy();
        await after.stop();
      }
    });

    it('retries a target that cannot be reached with a doubling wait, reporting it in one line', async () => {
      const own = await isolatedTable();
      const queueName = `late-${randomUUID()}`;
      const counting = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
      let calls = 0;
      counting.middlewareStack.add(
        (next) => async (args) => {
          calls++;
          return next(args);
        },
        { step: 'initialize' },
      );
      const clock = new ManualClock(T);
      const lines: string[] = [];
      const s = new TableScheduler({
        table: own,
        sqs: counting,
        targetArn: arnOf(queueName),
        clock,
        log: (line) => lines.push(line),
      });
      const name = uniqueName();
      await s.scheduleOnce(name, plus(-1000), { postId: 'post_late' });

      // Many polls at the same moment: one attempt, one line, no stack trace.
      for (let i = 0; i < 50; i++) expect(await s.tick()).toBe(0);
      expect(calls).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(arnOf(queueName));
      expect(lines[0]).toContain('QueueDoesNotExist');
      expect(lines[0]).not.toContain('\n');

      // Tries again after 1 s, then 2 s, then 4 s, silently.
      const attemptsAt: number[] = [];
      for (let ms = 0; ms <= 10_000; ms += 250) {
        clock.set(plus(ms));
        const before = calls;
        await s.tick();
        if (calls > before) attemptsAt.push(ms);
      }
      expect(attemptsAt).toEqual([1000, 3000, 7000]);
      expect(lines).toHaveLength(1);
      expect(await s.get(name)).toBeDefined();

      // The queue appears: the next try (8 s after the last) delivers, and says so once.
      const queue = await newQueue(queueName);
      clock.set(plus(15_000));
      expect(await s.tick()).toBe(1);
      counting.destroy();
      expect((await receive(queue)).map((m) => m.Body)).toEqual([JSON.stringify({ postId: 'post_late' })]);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/reachable again .*after 4 failed attempts$/);
    });
  });
});
