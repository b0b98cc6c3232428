/**
 * The Scheduler port of the local runtime, standing in for EventBridge Scheduler: schedules live in
 * the table (so a restart loses none, see table-schedules.ts) and this ticker sends each due
 * payload to its SQS queue.
 */
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys, TABLE_KEYS } from '../aws/dynamo/keys.ts';
import { parseQueueArn, TableSchedules, type TableSchedulesOptions } from './table-schedules.ts';

export { parseQueueArn, type StoredSchedule } from './table-schedules.ts';

export interface TableSchedulerOptions extends TableSchedulesOptions {
  sqs: SQSClient;
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

/** A source of failures (the table, or one target queue) and when to try it again. */
interface Failing {
  failures: number;
  retryAt: number;
}

export class TableScheduler extends TableSchedules {
  readonly #options: TableSchedulerOptions;
  readonly #log: (line: string) => void;
  /** Queue URL per target ARN, found when first needed and forgotten when a send fails. */
  readonly #queueUrls = new Map<string, string>();
  /** Failing sources by key (`table` or a target ARN): skipped until `retryAt`. */
  readonly #failing = new Map<string, Failing>();
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #currentTick: Promise<void> | undefined;

  constructor(options: TableSchedulerOptions) {
    super(options);
    this.#options = options;
    this.#log = options.log ?? ((line) => console.warn(line));
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
    const now = this.clock.now();
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
        if (this.#waiting(this.targetOf(item), now)) continue;
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
