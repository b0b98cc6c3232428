/**
 * Plays AWS Lambda's SQS event source mapping (with ReportBatchItemFailures) for one queue, so the
 * local runtime calls the same worker handlers with the same events as AWS does.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

// biome-ignore lint/suspicious/noConfusingVoidType: the shape of aws-lambda's SQSHandler result, so worker handlers fit as they are.
export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export type PollerPhase = 'receive' | 'handler' | 'delete' | 'dead-letter';

export interface PollerErrorInfo {
  phase: PollerPhase;
  queueUrl: string;
  /** The batch being handled, for handler, delete and dead-letter errors. */
  event?: SQSEvent;
}

export interface QueuePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsBatchHandler;
  /** Defaults to the region in `queueArn`. */
  region?: string;
  /** Messages per batch, 1-10 (default 10). */
  batchSize?: number;
  /** Long-poll wait, 0-20 s (default 20, as Lambda). */
  waitTimeSeconds?: number;
  /** Parallel pollers, each handling one batch at a time (default 1). */
  concurrency?: number;
  /** Shown in the Lambda context (default `<queue name>-consumer`). */
  functionName?: string;
  /** The function timeout the context's getRemainingTimeInMillis counts down from (default 30 s). */
  timeoutSeconds?: number;
  /**
   * Redrive done by the poller, for SQS servers that lack RedrivePolicy support: a message received
   * more than `maxReceiveCount` times is moved to `queueUrl` instead of being handled. fauxqs
   * redrives by itself, so the local runtime does not need this.
   */
  deadLetter?: { queueUrl: string; maxReceiveCount: number };
  /** Called for every error; the poller carries on. Defaults to console.error. */
  onError?: (error: unknown, info: PollerErrorInfo) => void;
}

const queueNameOf = (queueUrl: string): string => queueUrl.split('/').at(-1) ?? 'queue';

const toBase64 = (bytes: Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString('base64');

function toRecordAttributes(
  attributes: Record<string, MessageAttributeValue> | undefined,
): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    out[name] = {
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { binaryValue: toBase64(value.BinaryValue) } : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((bytes) => toBase64(bytes) as string),
      dataType: value.DataType ?? 'String',
    };
  }
  return out;
}

/** One SQS message as Lambda hands it to a function. */
export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ...attributes,
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: toRecordAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/** A Lambda context good enough for Powertools and for handlers that read the remaining time. */
export function lambdaContext(functionName: string, region: string, timeoutSeconds = 30): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Which records failed, with Lambda's rules: nothing returned or an empty list means all succeeded;
 * an identifier that is empty or not in the batch fails the whole batch.
 */
export function failedMessageIds(event: SQSEvent, response: unknown): Set<string> {
  const all = new Set(event.Records.map((record) => record.messageId));
  const failures = (response as Partial<SQSBatchResponse> | null | undefined)?.batchItemFailures ?? [];
  if (!Array.isArray(failures)) return all;
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = failure?.itemIdentifier;
    if (typeof id !== 'string' || id === '' || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });

/** The local event source mapping of one queue: receive, invoke, delete what succeeded. */
export class LocalEventSourceMapping {
  readonly #options: QueuePollerOptions;
  readonly #region: string;
  readonly #onError: (error: unknown, info: PollerErrorInfo) => void;
  #abort = new AbortController();
  #loops: Promise<void>[] = [];
  #stopping: Promise<void> | undefined;

  constructor(options: QueuePollerOptions) {
    const batchSize = options.batchSize ?? 10;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
      throw new Error(`batchSize must be 1-10, got ${batchSize}`);
    }
    const wait = options.waitTimeSeconds ?? 20;
    if (!Number.isInteger(wait) || wait < 0 || wait > 20)
      throw new Error(`waitTimeSeconds must be 0-20, got ${wait}`);
    this.#options = options;
    this.#region = options.region ?? options.queueArn.split(':')[3] ?? 'us-east-1';
    this.#onError =
      options.onError ??
      ((error, info) =>
        console.error(`[queue-poller ${queueNameOf(info.queueUrl)}] ${info.phase} failed`, error));
  }

  get running(): boolean {
    return this.#loops.length > 0 && this.#stopping === undefined;
  }

  /** Starts the pollers; calling it again while running does nothing. */
  start(): this {
    if (this.#loops.length > 0) return this;
    this.#abort = new AbortController();
    this.#stopping = undefined;
    const concurrency = this.#options.concurrency ?? 1;
    for (let i = 0; i < concurrency; i++) this.#loops.push(this.#poll(this.#abort.signal));
    return this;
  }

  /** Stops receiving (the long polls are aborted) and resolves once the batches in flight are finished. */
  stop(): Promise<void> {
    if (this.#loops.length === 0) return Promise.resolve();
    this.#stopping ??= (async () => {
      this.#abort.abort();
      await Promise.all(this.#loops);
      this.#loops = [];
    })();
    return this.#stopping;
  }

  async #poll(signal: AbortSignal): Promise<void> {
    const { sqs, queueUrl } = this.#options;
    while (!signal.aborted) {
      let messages: Message[];
      try {
        const response = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: this.#options.batchSize ?? 10,
            WaitTimeSeconds: this.#options.waitTimeSeconds ?? 20,
            AttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: signal },
        );
        messages = response.Messages ?? [];
      } catch (error) {
        if (signal.aborted) break;
        this.#onError(error, { phase: 'receive', queueUrl });
        await sleep(1000, signal);
        continue;
      }
      if (messages.length > 0) await this.#process(messages);
    }
  }

  async #process(received: Message[]): Promise<void> {
    const { queueUrl, queueArn, deadLetter } = this.#options;
    let messages = received;
    if (deadLetter) {
      const poison = received.filter(
        (m) => Number(m.Attributes?.ApproximateReceiveCount ?? '1') > deadLetter.maxReceiveCount,
      );
      if (poison.length > 0) {
        await this.#moveToDeadLetter(poison, deadLetter.queueUrl);
        messages = received.filter((m) => !poison.includes(m));
      }
      if (messages.length === 0) return;
    }
    const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, queueArn, this.#region)) };
    const functionName = this.#options.functionName ?? `${queueNameOf(queueUrl)}-consumer`;
    let failed: Set<string>;
    try {
      const response = await this.#options.handler(
        event,
        lambdaContext(functionName, this.#region, this.#options.timeoutSeconds),
      );
      failed = failedMessageIds(event, response);
    } catch (error) {
      // As on AWS: a function error leaves the whole batch to reappear after the visibility timeout.
      this.#onError(error, { phase: 'handler', queueUrl, event });
      return;
    }
    const done = event.Records.filter((record) => !failed.has(record.messageId));
    await this.#delete(done, event);
  }

  async #delete(records: Pick<SQSRecord, 'messageId' | 'receiptHandle'>[], event: SQSEvent): Promise<void> {
    const { sqs, queueUrl } = this.#options;
    for (let i = 0; i < records.length; i += 10) {
      const chunk = records.slice(i, i + 10);
      try {
        const result = await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((record, index) => ({
              Id: String(index),
              ReceiptHandle: record.receiptHandle,
            })),
          }),
        );
        if (result.Failed && result.Failed.length > 0) {
          this.#onError(new Error(`DeleteMessageBatch failed for ${JSON.stringify(result.Failed)}`), {
            phase: 'delete',
            queueUrl,
            event,
          });
        }
      } catch (error) {
        this.#onError(error, { phase: 'delete', queueUrl, event });
      }
    }
  }

  async #moveToDeadLetter(messages: Message[], dlqUrl: string): Promise<void> {
    const { sqs, queueUrl, queueArn } = this.#options;
    const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, queueArn, this.#region)) };
    const moved: SQSRecord[] = [];
    for (const [index, message] of messages.entries()) {
      try {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: dlqUrl,
            MessageBody: message.Body ?? '',
            ...(message.MessageAttributes && Object.keys(message.MessageAttributes).length > 0
              ? { MessageAttributes: message.MessageAttributes }
              : {}),
          }),
        );
        moved.push(event.Records[index] as SQSRecord);
      } catch (error) {
        this.#onError(error, { phase: 'dead-letter', queueUrl, event });
      }
    }
    await this.#delete(moved, event);
  }
}

/** Creates and starts a LocalEventSourceMapping. */
export function startQueuePoller(options: QueuePollerOptions): LocalEventSourceMapping {
  return new LocalEventSourceMapping(options).start();
}
