/**
 * The writing half of the local runtime's Scheduler port, standing in for EventBridge Scheduler:
 * schedules live in the table (so a restart loses none). Handlers only write schedules; the
 * local runtime's ticker (table-scheduler.ts) sends each due payload to its queue. Kept apart so a
 * function that writes schedules bundles no SQS client.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { Scheduler } from '../../ports/scheduler.ts';
import type { TableRef } from '../aws/dynamo/client.ts';
import { keys } from '../aws/dynamo/keys.ts';
import { assertScheduleDate, assertScheduleName } from '../aws/scheduler.ts';

export interface TableSchedulesOptions {
  /** The single table (a DynamoDBDocumentClient and the table's name). */
  table: TableRef;
  /**
   * ARN of the queue every schedule created by this instance sends to, as EventBridge stores its
   * target. It is resolved to a URL only when a schedule fires: the local queue server's URLs
   * carry a port that changes on every start, the ARN does not.
   */
  targetArn: string;
  clock?: Clock;
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

export class TableSchedules implements Scheduler {
  readonly #options: TableSchedulesOptions;
  readonly #region: string;
  protected readonly clock: Clock;

  constructor(options: TableSchedulesOptions) {
    this.#options = options;
    this.#region = parseQueueArn(options.targetArn).region;
    this.clock = options.clock ?? systemClock;
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
      updatedAt: this.clock.now().toISOString(),
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
    return { name: storedName, fireAt, input, targetArn: this.targetOf(Item), updatedAt };
  }

  /** The queue a stored schedule sends to (its ARN). */
  protected targetOf(item: Record<string, unknown>): string {
    if (typeof item.targetArn === 'string') return item.targetArn;
    const legacy =
      typeof item.targetQueueUrl === 'string'
        ? arnOfLegacyQueueUrl(item.targetQueueUrl, this.#region)
        : undefined;
    return legacy ?? this.#options.targetArn;
  }
}
