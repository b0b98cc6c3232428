/**
 * The Scheduler port of the local runtime, standing in for EventBridge Scheduler: schedules live in
 * the table (so a restart loses none) and a ticker sends each due payload to its SQS queue.
 */
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
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
  /**
   * ARN of the queue every schedule created by this instance sends to, as EventBridge stores its
   * target. It is resolved to a URL only when a schedule fires: the local queue server's URLs
   * carry a port that changes on every start, the ARN does not.
   */
  targetArn: string;
  clock?: Clock;
  /** Pause between two looks for due schedules (default 200 ms). */
  intervalMs?: number;
  /** Wait after a first failure before trying again (default 1 s); it doubles on each failure. */
  retryDelayMs?: number;
  /** Longest wait between two tries (default 60 s). */
  maxRetryDelayMs?: number;
  /**
   * Where the scheduler's notices go: one line when a target (or the table) starts failing, one
   * when it works again; the retries in between are silent. Defaults to console.warn.
   */
  log?: (line: string) => void;
}

/** A stored schedule (the table item without its keys). */
export interface StoredSchedule {
  name: string;
  /** ISO-8601 UTC, millisecond precision. */
  fireAt: string;
  /** The message body sent when it fires: the payload as JSON, like EventBridge's target Input. */
  input: string;
  /** The target queue's ARN. */
  targetArn: string;
  updatedAt: string;
}

const isAwsError = (error: unknown, name: string): boolean =>
  (error as { name?: unknown } | null)?.name === name;

/** `Name (message)` on one line: a failing poll must never print a stack trace per tick. */
const describeError = (error: unknown): string => {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  const text = typeof message === 'string' && message ? message : String(error);
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return typeof name === 'string' && name && name !== 'Error' && !oneLine.startsWith(name)
    ? `${name} (${oneLine})`
    : oneLine;
};

const SQS_ARN = /^arn:[\w-]+:sqs:([\w-]+):(\d{12}):([\w-]{1,80}(?:\.fifo)?)$/;

/** The queue's name and owner in an SQS queue ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
export const parseQueueArn = (arn: string): { region: string; accountId: string; name: string } => {
  const match = SQS_ARN.exec(arn);
  if (!match) throw new Error(`Not an SQS queue ARN: ${JSON.stringify(arn)}`);
  return { region: match[1] as string, accountId: match[2] as string, name: match[3] as string };
};

/**
 * Schedules written before targets were stored as ARNs hold the queue URL of the server that ran
 * then (`http://host:port/<account>/<name>`): the account and name still identify the queue.
 */
const arnOfLegacyQueueUrl = (url: string, region: string): string | undefined => {
  try {
    const [accountId, name] = new URL(url).pathname.split('/').filter(Boolean);
    return accountId && name ? `arn:aws:sqs:${region}:${accountId}:${name}` : undefined;
  } catch {
    return undefined;
  }
};

/** A source of failures (the table, or one target queue) and when to try it again. */
interface Failing {
  failures: number;
  retryAt: number;
}

export class TableScheduler implements Scheduler {
  readonly #options: TableSchedulerOptions;
  readonly #clock: Clock;
  readonly #log: (line: string) => void;
  readonly #region: string;
  /** Queue URL per target ARN, found when first needed and forgotten when a send fails. */
  readonly #queueUrls = new Map<string, string>();
  /** Failing sources by key (`table` or a target ARN): skipped until `retryAt`. */
  readonly #failing = new Map<string, Failing>();
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #currentTick: Promise<void> | undefined;

  constructor(options: TableSchedulerOptions) {
    this.#options = options;
    this.#region = parseQueueArn(options.targetArn).region;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? ((line) => console.warn(line));
  }

  async scheduleOnce(name: string, at: Date, payload: Record<string, unknown>): Promise<void> {
    assertScheduleName(name);
    assertScheduleDate(at);
    const fireAt = at.toISOString();
    const schedule: StoredSchedule = {
      name,
      fireAt,
      input: JSON.stringify(payload),
      targetArn: this.#options.targetArn,
      updatedAt: this.#clock.now().toISOString(),
    };
    // A full put: moving a schedule rewrites its due-index entry too (and drops a legacy URL target).
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
    const { name: storedName, fireAt, input, updatedAt } = Item as StoredSchedule;
    return { name: storedName, fireAt, input, targetArn: this.#targetOf(Item), updatedAt };
  }

  /** Starts the ticker; the first look (which fires what fell due while stopped) happens at once. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    const loop = async () => {
      if (!this.#running) return;
      this.#currentTick = this.tick().then(() => undefined);
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

  /**
   * Fires every schedule due at the clock's now; resolves with how many were sent. Never rejects:
   * a failing table or target is reported once and tried again later, with a doubling wait.
   */
  async tick(): Promise<number> {
    const now = this.#clock.now();
    if (this.#waiting('table', now)) return 0;
    try {
      const fired = await this.#fireDue(now);
      this.#succeeded('table', 'the table answers again');
      return fired;
    } catch (error) {
      this.#failed('table', `cannot read schedules from table ${this.#options.table.tableName}`, error, now);
      return 0;
    }
  }

  async #fireDue(now: Date): Promise<number> {
    const { doc, tableName } = this.#options.table;
    const nowIso = now.toISOString();
    // Every index entry up to and including `now`, whatever the name.
    const upper = keys.scheduleDueIndex(nowIso, '\uffff');
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
        // A target that failed a moment ago is left alone until its retry time.
        if (this.#waiting(this.#targetOf(item), now)) continue;
        if (await this.#fire(String(item.name), String(item.fireAt), nowIso, now)) fired++;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return fired;
  }

  /** Send, then delete if still unchanged: at least once, like EventBridge. */
  async #fire(name: string, indexedFireAt: string, nowIso: string, now: Date): Promise<boolean> {
    // The index is eventually consistent: trust only the item itself.
    const schedule = await this.get(name);
    if (!schedule || schedule.fireAt !== indexedFireAt || schedule.fireAt > nowIso) return false;
    const target = schedule.targetArn;
    try {
      await this.#options.sqs.send(
        new SendMessageCommand({ QueueUrl: await this.#queueUrl(target), MessageBody: schedule.input }),
      );
    } catch (error) {
      // The queue may have moved (another server, another port): look it up again next time.
      this.#queueUrls.delete(target);
      this.#failed(target, `cannot send schedule ${name} to ${target}`, error, now);
      return false;
    }
    this.#succeeded(target, `${target} is reachable again (sent schedule ${name})`);
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

  #targetOf(item: Record<string, unknown>): string {
    if (typeof item.targetArn === 'string') return item.targetArn;
    const legacy =
      typeof item.targetQueueUrl === 'string'
        ? arnOfLegacyQueueUrl(item.targetQueueUrl, this.#region)
        : undefined;
    return legacy ?? this.#options.targetArn;
  }

  async #queueUrl(arn: string): Promise<string> {
    const known = this.#queueUrls.get(arn);
    if (known) return known;
    const { name, accountId } = parseQueueArn(arn);
    const { QueueUrl } = await this.#options.sqs.send(
      new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: accountId }),
    );
    if (!QueueUrl) throw new Error(`No URL for queue ${arn}`);
    this.#queueUrls.set(arn, QueueUrl);
    return QueueUrl;
  }

  #waiting(key: string, now: Date): boolean {
    const failing = this.#failing.get(key);
    return failing !== undefined && now.getTime() < failing.retryAt;
  }

  #failed(key: string, what: string, error: unknown, now: Date): void {
    const failures = (this.#failing.get(key)?.failures ?? 0) + 1;
    const delay = Math.min(
      (this.#options.retryDelayMs ?? 1000) * 2 ** (failures - 1),
      this.#options.maxRetryDelayMs ?? 60_000,
    );
    this.#failing.set(key, { failures, retryAt: now.getTime() + delay });
    if (failures === 1) {
      const cap = Math.round((this.#options.maxRetryDelayMs ?? 60_000) / 1000);
      this.#log(`[scheduler] ${what}: ${describeError(error)}; retrying with backoff (up to every ${cap} s)`);
    }
  }

  #succeeded(key: string, notice: string): void {
    const failing = this.#failing.get(key);
    if (!failing) return;
    this.#failing.delete(key);
    this.#log(
      `[scheduler] ${notice} after ${failing.failures} failed attempt${failing.failures === 1 ? '' : 's'}`,
    );
  }
}
