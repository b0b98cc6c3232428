import { createHash, randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type LocalAwsServices,
  localClientConfig,
  startLocalAwsServices,
} from '../../functions/adapters/local/aws-services.ts';
import {
  LocalEventSourceMapping,
  type PollerErrorInfo,
  type QueuePollerOptions,
  startQueuePoller,
} from '../../functions/adapters/local/queue-poller.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let services: LocalAwsServices;
let sqs: SQSClient;
const running: LocalEventSourceMapping[] = [];

beforeAll(async () => {
  // A zero visibility timeout so failures reappear at once (one poller never holds a message it is
  // not handling, so nothing is received twice by accident); the redrive after 5 receives is the stack's.
  services = await startLocalAwsServices({ visibilityTimeoutSeconds: 0 });
  sqs = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((poller) => poller.stop()));
});

afterAll(async () => {
  sqs?.destroy();
  await services?.stop();
});

async function newQueue(attributes: Record<string, string> = {}): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: `q-${randomUUID()}`,
      Attributes: { VisibilityTimeout: '0', ...attributes },
    }),
  );
  const url = QueueUrl as string;
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes?.QueueArn as string };
}

async function send(
  queueUrl: string,
  body: string,
  attributes?: SendMessageCommand['input']['MessageAttributes'],
) {
  const { MessageId } = await sqs.send(
    new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageAttributes: attributes }),
  );
  return MessageId as string;
}

async function counts(queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function poll(options: Omit<QueuePollerOptions, 'sqs'>): LocalEventSourceMapping {
  const poller = startQueuePoller({ sqs, waitTimeSeconds: 1, ...options });
  running.push(poller);
  return poller;
}

describe('LocalEventSourceMapping', () => {
  it('hands batches to the handler in Lambda’s shape and deletes what succeeded', async () => {
    const queue = await newQueue();
    const ids = [
      await send(queue.url, 'first', {
        kind: { DataType: 'String', StringValue: 'post' },
        blob: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
      }),
      await send(queue.url, 'second'),
      await send(queue.url, 'third'),
    ];
    const events: { event: SQSEvent; context: Context }[] = [];
    poll({
      queueUrl: queue.url,
      queueArn: queue.arn,
      functionName: 'publish-worker',
      handler: async (event, context) => {
        events.push({ event, context });
      },
    });
    await waitFor(() => events.flatMap((e) => e.event.Records).length === 3);

    expect(events).toHaveLength(1);
    const [{ event, context }] = events as [{ event: SQSEvent; context: Context }];
    expect(event.Records.map((r) => r.messageId)).toEqual(ids);
    const first = event.Records[0] as SQSRecord;
    expect(Object.keys(first).sort()).toEqual(
      [
        'messageId',
        'receiptHandle',
        'body',
        'attributes',
        'messageAttributes',
        'md5OfBody',
        'md5OfMessageAttributes',
        'eventSource',
        'eventSourceARN',
        'awsRegion',
      ].sort(),
    );
    expect(first).toMatchObject({
      body: 'first',
      md5OfBody: createHash('md5').update('first').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
      messageAttributes: {
        kind: { stringValue: 'post', stringListValues: [], binaryListValues: [], dataType: 'String' },
        blob: { binaryValue: 'AQID', stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
    });
    expect(first.receiptHandle).not.toBe('');
    expect(first.attributes.ApproximateReceiveCount).toBe('1');
    expect(first.attributes.SenderId).toEqual(expect.any(String));
    expect(Number(first.attributes.SentTimestamp)).toBeGreaterThan(Date.now() - 60_000);
    expect(Number(first.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(
      Number(first.attributes.SentTimestamp),
    );
    expect(event.Records[1]?.messageAttributes).toEqual({});
    expect(context.functionName).toBe('publish-worker');
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(0);

    // Deleted: nothing reappears (the visibility timeout is zero; a message not deleted is visible or
    // in flight, so an empty queue is the sign the deletes were made).
    await waitFor(async () => {
      const now = await counts(queue.url);
      return now.visible === 0 && now.inFlight === 0;
    });
    expect(events).toHaveLength(1);
  });

  it('respects the batch size and runs parallel pollers', async () => {
    // Parallel pollers must not see each other's messages while they are being handled.
    const queue = await newQueue({ VisibilityTimeout: '30' });
    for (let i = 0; i < 6; i++) await send(queue.url, `m${i}`);
    const sizes: number[] = [];
    let inHandler = 0;
    let mostAtOnce = 0;
    poll({
      queueUrl: queue.url,
      queueArn: queue.arn,
      batchSize: 2,
      concurrency: 3,
      handler: async (event) => {
        sizes.push(event.Records.length);
        inHandler++;
        mostAtOnce = Math.max(mostAtOnce, inHandler);
        await sleep(300);
        inHandler--;
      },
    });
    await waitFor(() => sizes.reduce((a, b) => a + b, 0) === 6);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
    expect(mostAtOnce).toBeGreaterThanOrEqual(2);
  });

  it('redelivers only the messages listed in batchItemFailures', async () => {
    const queue = await newQueue();
    for (const body of ['a', 'b', 'c']) await send(queue.url, body);
    const seen: { body: string; count: string }[] = [];
    poll({
      queueUrl: queue.url,
      queueArn: queue.arn,
      handler: async (event): Promise<SQSBatchResponse> => {
        for (const r of event.Records)
          seen.push({ body: r.body, count: r.attributes.ApproximateReceiveCount });
        const failed = event.Records.filter(
          (r) => r.body === 'b' && r.attributes.ApproximateReceiveCount === '1',
        );
        return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
      },
    });
    await waitFor(() => seen.length === 4);
    // Everything deleted: nothing is left to be received again.
    await waitFor(async () => {
      const now = await counts(queue.url);
      return now.visible === 0 && now.inFlight === 0;
    });
    expect(seen).toEqual([
      { body: 'a', count: '1' },
      { body: 'b', count: '1' },
      { body: 'c', count: '1' },
      { body: 'b', count: '2' },
    ]);
    expect(await counts(queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('redelivers the whole batch when the handler names a message that is not in it', async () => {
    const queue = await newQueue();
    for (const body of ['a', 'b']) await send(queue.url, body);
    const seen: string[] = [];
    poll({
      queueUrl: queue.url,
      queueArn: queue.arn,
      handler: async (event) => {
        for (const r of event.Records) seen.push(`${r.body}${r.attributes.ApproximateReceiveCount}`);
        return seen.length <= 2
          ? { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }
          : undefined;
      },
    });
    await waitFor(() => seen.length === 4);
    expect(seen.sort()).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  it('redelivers the whole batch when the handler throws, reports the error and keeps polling', async () => {
    const queue = await newQueue();
    for (const body of ['a', 'b']) await send(queue.url, body);
    const seen: string[] = [];
    const errors: { error: unknown; info: PollerErrorInfo }[] = [];
    const poller = poll({
      queueUrl: queue.url,
      queueArn: queue.arn,
      onError: (error, info) => errors.push({ error, info }),
      handler: async (event) => {
        for (const r of event.Records) seen.push(`${r.body}${r.attributes.ApproximateReceiveCount}`);
        if (seen.length <= 2) throw new Error('network down');
      },
    });
    await waitFor(() => seen.length === 4);
    expect(seen.sort()).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.info.phase).toBe('handler');
    expect(errors[0]?.error).toMatchObject({ message: 'network down' });
    expect(errors[0]?.info.event?.Records).toHaveLength(2);
    expect(poller.running).toBe(true);
    await waitFor(async () => (await counts(queue.url)).inFlight === 0);
    expect(await counts(queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('lets a poison message reach the queue’s DLQ after 5 receives (the server’s redrive)', async () => {
    const queue = services.queues.metrics;
    const id = await send(queue.url, 'poison');
    const receiveCounts: string[] = [];
    poll({
      queueUrl: queue.url,
      queueArn: queue.arn,
      onError: () => undefined,
      handler: async (event) => {
        for (const r of event.Records) receiveCounts.push(r.attributes.ApproximateReceiveCount);
        throw new Error('always fails');
      },
    });
    let dead: { MessageId?: string; Body?: string } | undefined;
    await waitFor(async () => {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, WaitTimeSeconds: 1 }),
      );
      dead = Messages?.[0];
      return dead !== undefined;
    }, 12_000);
    expect(dead).toMatchObject({ MessageId: id, Body: 'poison' });
    expect(receiveCounts).toEqual(['1', '2', '3', '4', '5']);
    expect(await counts(queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('moves poison messages to the DLQ itself when the queue has no redrive policy', async () => {
    const queue = await newQueue();
    const dlq = await newQueue();
    await send(queue.url, 'poison', { kind: { DataType: 'String', StringValue: 'metrics' } });
    const receiveCounts: string[] = [];
    poll({
      queueUrl: queue.url,
      queueArn: queue.arn,
      deadLetter: { queueUrl: dlq.url, maxReceiveCount: 2 },
      onError: () => undefined,
      handler: async (event) => {
        for (const r of event.Records) receiveCounts.push(r.attributes.ApproximateReceiveCount);
        throw new Error('always fails');
      },
    });
    await waitFor(async () => (await counts(dlq.url)).visible === 1, 8000);
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: dlq.url, MessageAttributeNames: ['All'] }),
    );
    expect(Messages?.[0]?.Body).toBe('poison');
    expect(Messages?.[0]?.MessageAttributes?.kind?.StringValue).toBe('metrics');
    expect(receiveCounts).toEqual(['1', '2']);
    await waitFor(async () => (await counts(queue.url)).inFlight === 0);
    expect(await counts(queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('stop() waits for the batch in flight, deletes it, and stops receiving', async () => {
    const queue = await newQueue();
    await send(queue.url, 'slow');
    let started = false;
    let finished = false;
    const received: string[] = [];
    const poller = new LocalEventSourceMapping({
      sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      waitTimeSeconds: 20,
      handler: async (event) => {
        received.push(...event.Records.map((r) => r.body));
        started = true;
        await sleep(500);
        finished = true;
      },
    }).start();
    running.push(poller);
    await waitFor(() => started);
    await poller.stop();
    expect(finished).toBe(true);
    expect(poller.running).toBe(false);
    expect(await counts(queue.url)).toEqual({ visible: 0, inFlight: 0 });

    await send(queue.url, 'after stop');
    // The message is there for another consumer to take: the stopped poller did not receive it.
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 5 }),
    );
    expect(Messages?.map((m) => m.Body)).toEqual(['after stop']);
    expect(received).toEqual(['slow']);
  });

  it('stop() aborts an idle long poll at once', async () => {
    const queue = await newQueue();
    // A client of its own that counts the receives it sends: stop() comes once the long poll is under way.
    const watched = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
    let receives = 0;
    watched.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ReceiveMessageCommand') receives += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    const poller = new LocalEventSourceMapping({
      sqs: watched,
      queueUrl: queue.url,
      queueArn: queue.arn,
      waitTimeSeconds: 20,
      handler: async () => undefined,
    }).start();
    await waitFor(() => receives >= 1);
    const before = Date.now();
    await poller.stop();
    expect(Date.now() - before).toBeLessThan(1000);
    watched.destroy();
  });

  it('rejects batch sizes Lambda would refuse', () => {
    const base = {
      sqs,
      queueUrl: 'http://x/q',
      queueArn: 'arn:aws:sqs:us-east-1:000000000000:q',
      handler: async () => {},
    };
    expect(() => new LocalEventSourceMapping({ ...base, batchSize: 0 })).toThrow(/batchSize/);
    expect(() => new LocalEventSourceMapping({ ...base, batchSize: 11 })).toThrow(/batchSize/);
  });
});
