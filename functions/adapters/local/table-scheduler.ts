/**
 * The Scheduler port of the local runtime, standing in for EventBridge Scheduler: schedules live in
 * the table (so a restart loses none) and a ticker sends each due payload to its SQS queue.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { Scheduler } from '../../ports/scheduler.ts';
import type { TableRef } from '../aws/dynamo/client.ts';
import { keys, TABLE_KEYS } from '../aws/dynamo/keys.ts';
import { assertScheduleDate, assertScheduleName } from '../aws/scheduler.ts';

export interface TableSchedulerOptions {
  /** The single table (a DynamoDBDocumentClient and the table's name). */
  table: TableRef;
  sqs: SQSClient;
  /** Queue every schedule created by this instance sends to (EventBridge's target). */
  targetQueueUrl: string;
  clock?: Clock;
  /** Pause between two looks for due schedules (default 200 ms). */
  intervalMs?: number;
  /** Called for every error; the ticker carries on. Defaults to console.error. */
  onError?: (error: unknown, scheduleName?: string) => void;
}

/** A stored schedule (the table item without its keys). */
export interface StoredSchedule {
  name: string;
  /** ISO-8601 UTC, millisecond precision. */
  fireAt: string;
  /** The message body sent when it fires: the payload as JSON, like EventBridge's target Input. */
  input: string;
  targetQueueUrl: string;
  updatedAt: string;
}

const isAwsError = (error: unknown, name: string): boolean =>
  (error as { name?: unknown } | null)?.name === name;

export class TableScheduler implements Scheduler {
  readonly #options: TableSchedulerOptions;
  readonly #clock: Clock;
  readonly #onError: (error: unknown, scheduleName?: string) => void;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #currentTick: Promise<void> | undefined;

  constructor(options: TableSchedulerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#onError =
      options.onError ??
      ((error, name) =>
        console.error(`[table-scheduler] ${name ? `schedule ${name}` : 'tick'} failed`, error));
  }

  async scheduleOnce(name: string, at: Date, payload: Record<string, unknown>): Promise<void> {
    assertScheduleName(name);
    assertScheduleDate(at);
    const fireAt = at.toISOString();
    const schedule: StoredSchedule = {
      name,
      fireAt,
      input: JSON.stringify(payload),
      targetQueueUrl: this.#options.targetQueueUrl,
      updatedAt: this.#clock.now().toISOString(),
    };
    // A full put: moving a schedule rewrites its due-index entry too.
    await this.#options.table.doc.send(
      new PutCommand({
        TableName: this.#options.table.tableName,
        Item: {
          ...keys.schedule(name),
          ...keys.scheduleDueIndex(fireAt, name),
          type: 'Schedule',
          ...schedule,
        },
      }),
    );
  }

  async cancel(name: string): Promise<void> {
    assertScheduleName(name);
    await this.#options.table.doc.send(
      new DeleteCommand({ TableName: this.#options.table.tableName, Key: keys.schedule(name) }),
    );
  }

  /** The stored schedule, or undefined. */
  async get(name: string): Promise<StoredSchedule | undefined> {
    const { Item } = await this.#options.table.doc.send(
      new GetCommand({
        TableName: this.#options.table.tableName,
        Key: keys.schedule(name),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const { name: storedName, fireAt, input, targetQueueUrl, updatedAt } = Item as StoredSchedule;
    return { name: storedName, fireAt, input, targetQueueUrl, updatedAt };
  }

  /** Starts the ticker; the first look (which fires what fell due while stopped) happens at once. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    const loop = async () => {
      if (!this.#running) return;
      this.#currentTick = this.tick()
        .then(() => undefined)
        .catch((error: unknown) => this.#onError(error));
      await this.#currentTick;
      if (!this.#running) return;
      this.#timer = setTimeout(loop, this.#options.intervalMs ?? 200);
      this.#timer.unref();
    };
    void loop();
  }

  /** Stops the ticker and waits for a firing in progress to finish. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#currentTick;
  }

  /** Fires every schedule due at the clock's now; resolves with how many were sent. */
  async tick(): Promise<number> {
    const { doc, tableName } = this.#options.table;
    const now = this.#clock.now().toISOString();
    // Every index entry up to and including `now`, whatever the name.
    const upper = keys.scheduleDueIndex(now, '\uffff');
    let fired = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: TABLE_KEYS.gsi1.name,
          KeyConditionExpression: '#pk = :pk AND #sk <= :upper',
          ExpressionAttributeNames: { '#pk': TABLE_KEYS.gsi1.partitionKey, '#sk': TABLE_KEYS.gsi1.sortKey },
          ExpressionAttributeValues: { ':pk': upper.GSI1PK, ':upper': upper.GSI1SK },
          ExclusiveStartKey: startKey,
          Limit: 100,
        }),
      );
      for (const item of page.Items ?? []) {
        const name = String(item.name);
        try {
          if (await this.#fire(name, String(item.fireAt), now)) fired++;
        } catch (error) {
          this.#onError(error, name);
        }
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return fired;
  }

  /** Send, then delete if still unchanged: at least once, like EventBridge. */
  async #fire(name: string, indexedFireAt: string, now: string): Promise<boolean> {
    // The index is eventually consistent: trust only the item itself.
    const schedule = await this.get(name);
    if (!schedule || schedule.fireAt !== indexedFireAt || schedule.fireAt > now) return false;
    await this.#options.sqs.send(
      new SendMessageCommand({ QueueUrl: schedule.targetQueueUrl, MessageBody: schedule.input }),
    );
    try {
      await this.#options.table.doc.send(
        new DeleteCommand({
          TableName: this.#options.table.tableName,
          Key: keys.schedule(name),
          ConditionExpression: 'fireAt = :fireAt',
          ExpressionAttributeValues: { ':fireAt': schedule.fireAt },
        }),
      );
    } catch (error) {
      // Moved (or cancelled) while being sent: the new time stands.
      if (!isAwsError(error, 'ConditionalCheckFailedException')) throw error;
    }
    return true;
  }
}
