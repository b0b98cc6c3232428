import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, TABLE_KEYS } from '../../functions/adapters/aws/dynamo/keys.ts';
import {
  type LocalAwsServices,
  localClientConfig,
  QUEUE_NAMES,
  startLocalAwsServices,
} from '../../functions/adapters/local/aws-services.ts';
import {
  assertJavaAvailable,
  createTable,
  type DynamoDbLocal,
  deleteTable,
  parseJavaMajorVersion,
  startDynamoDbLocal,
} from '../../functions/adapters/local/dynamodb-local.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** True while `pid` runs (a zombie, left for a container's init to reap, counts as gone). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat === undefined ? process.platform !== 'linux' : !/^\d+ \(.*\) Z/.test(stat);
}

async function waitUntilGone(pid: number, timeoutMs = 8000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await isAlive(pid))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const dynamoClient = (endpoint: string) => new DynamoDBClient(localClientConfig.dynamodb(endpoint));

describe('DynamoDB Local', () => {
  let db: DynamoDbLocal;
  let client: DynamoDBClient;
  let signalListenersBefore: number;
  let exitListenersBefore: number;
  let sigintListenersBefore: number;
  const tempDirs: string[] = [];

  beforeAll(async () => {
    signalListenersBefore = process.listenerCount('SIGTERM');
    exitListenersBefore = process.listenerCount('exit');
    sigintListenersBefore = process.listenerCount('SIGINT');
    db = await startDynamoDbLocal();
    client = dynamoClient(db.endpoint);
  });

  afterAll(async () => {
    client?.destroy();
    await db?.stop();
    // Once no engine runs, none of the hooks is left behind.
    expect(process.listenerCount('SIGTERM')).toBe(signalListenersBefore);
    expect(process.listenerCount('SIGINT')).toBe(sigintListenersBefore);
    expect(process.listenerCount('exit')).toBe(exitListenersBefore);
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('creates the single table as keys.ts describes, idempotently, with TTL on expiresAt', async () => {
    await createTable(client, 'layout');
    await createTable(client, 'layout');
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'layout' }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    const indexes = (Table?.GlobalSecondaryIndexes ?? [])
      .map((gsi) => ({
        name: gsi.IndexName,
        keys: gsi.KeySchema,
        projection: gsi.Projection?.ProjectionType,
      }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name)));
    expect(indexes).toEqual(
      [TABLE_KEYS.gsi1, TABLE_KEYS.gsi2].map((gsi) => ({
        name: gsi.name,
        keys: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        projection: 'ALL',
      })),
    );
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: 'layout' }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });

    await deleteTable(client, 'layout');
    await expect(client.send(new DescribeTableCommand({ TableName: 'layout' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await deleteTable(client, 'layout');
  });

  it('keeps data across a restart when given a dataDir, with one set of process hooks for all engines', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'herald-ddb-'));
    tempDirs.push(dataDir);
    const first = await startDynamoDbLocal({ dataDir });
    expect(first.port).not.toBe(db.port);
    expect(process.listenerCount('SIGTERM')).toBe(signalListenersBefore + 1);
    expect(process.listenerCount('exit')).toBe(exitListenersBefore + 1);
    const firstClient = dynamoClient(first.endpoint);
    await createTable(firstClient, 'persisted');
    await firstClient.send(
      new PutItemCommand({
        TableName: 'persisted',
        Item: {
          PK: { S: keys.account('acc_1').PK },
          SK: { S: keys.account('acc_1').SK },
          name: { S: 'kept' },
        },
      }),
    );
    firstClient.destroy();
    await first.stop();
    await first.stop();
    expect(await isAlive(first.pid)).toBe(false);

    const second = await startDynamoDbLocal({ dataDir });
    const secondClient = dynamoClient(second.endpoint);
    try {
      const { Item } = await secondClient.send(
        new GetItemCommand({
          TableName: 'persisted',
          Key: { PK: { S: keys.account('acc_1').PK }, SK: { S: keys.account('acc_1').SK } },
        }),
      );
      expect(Item?.name?.S).toBe('kept');
    } finally {
      secondClient.destroy();
      await second.stop();
    }
  });

  it('explains how to install Java when there is none on PATH', async () => {
    const attempt = assertJavaAvailable({ PATH: '' });
    await expect(attempt).rejects.toThrow(/apt-get install -y openjdk-17-jre-headless/);
    await expect(attempt).rejects.toThrow(/brew install openjdk@17/);
    await expect(startDynamoDbLocal({ env: { PATH: '' } })).rejects.toThrow(/no `java` on PATH/);
  });

  it('refuses a Java older than 17 with the same advice', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'herald-java11-'));
    tempDirs.push(bin);
    await writeFile(join(bin, 'java'), '#!/bin/sh\necho \'openjdk version "11.0.21" 2023-10-17\' >&2\n');
    await chmod(join(bin, 'java'), 0o755);
    await expect(assertJavaAvailable({ PATH: bin })).rejects.toThrow(
      /found Java 11\..*openjdk-17-jre-headless/,
    );
    expect(await assertJavaAvailable()).toBeGreaterThanOrEqual(17);
    expect(parseJavaMajorVersion('java version "1.8.0_392"')).toBe(8);
    expect(parseJavaMajorVersion('openjdk version "21" 2023-09-19')).toBe(21);
  });

  it('reports the engine output when it cannot start, and times out with a clear error', async () => {
    const squatter = createServer();
    const port = await new Promise<number>((resolve) =>
      squatter.listen(0, '0.0.0.0', () => resolve((squatter.address() as { port: number }).port)),
    );
    try {
      await expect(startDynamoDbLocal({ port })).rejects.toThrow(
        /exited .*before answering[\s\S]*Failed to bind/,
      );
    } finally {
      squatter.close();
    }
    await expect(startDynamoDbLocal({ startTimeoutMs: 1 })).rejects.toThrow(
      /did not answer on .* within 0.001 s/,
    );
    expect(process.listenerCount('SIGTERM')).toBe(signalListenersBefore + 1);
  });

  it.concurrent.for(['SIGTERM', 'SIGINT'] as const)(
    'leaves no java process behind when its parent gets %s',
    async (signal, { expect }) => {
      const child = startChild();
      const { pid } = await child.started;
      expect(await isAlive(pid)).toBe(true);
      child.process.kill(signal);
      // Re-raised after cleanup: the parent dies of the same signal, as it would without the hook.
      expect((await child.exited).signal).toBe(signal);
      expect(await waitUntilGone(pid)).toBe(true);
    },
  );

  it.concurrent('leaves shutdown to a program that handles the signal itself', async ({ expect }) => {
    const child = startChild('--graceful');
    const { pid } = await child.started;
    child.process.kill('SIGTERM');
    const exited = await child.exited;
    expect(exited).toMatchObject({ code: 0, signal: null });
    // The engine still answered while the program drained, then its stop() ended it.
    expect(exited.output).toContain('still-up');
    expect(await waitUntilGone(pid)).toBe(true);
  });
});

/** Runs fixtures/dynamodb-local-child.ts in a process of its own. */
function startChild(...args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures/dynamodb-local-child.ts'), ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, output })),
  );
  const started = new Promise<{ pid: number }>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', () => reject(new Error(`child exited early: ${output}`)));
  });
  return { process: child, started, exited };
}

describe('S3 and SQS stand-ins', () => {
  let services: LocalAwsServices;
  let s3: S3Client;
  let sqs: SQSClient;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'herald-aws-'));
    services = await startLocalAwsServices({ dataDir });
    s3 = new S3Client(localClientConfig.s3(services.s3Endpoint));
    sqs = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
  });

  afterAll(async () => {
    s3?.destroy();
    sqs?.destroy();
    await services?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('binds both servers to loopback on free ports', () => {
    expect(services.s3Endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(services.sqsEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(services.bucket).toBe('herald-media');
  });

  it('uploads and downloads through presigned URLs with plain fetch', async () => {
    const body = new Uint8Array(300_000).map((_, i) => i % 251);
    const key = 'media/med_1/original.bin';
    const putUrl = await getSignedUrl(
      s3,
      new PutObjectCommand({ Bucket: services.bucket, Key: key, ContentType: 'video/mp4' }),
      { expiresIn: 300 },
    );
    const put = await fetch(putUrl, { method: 'PUT', body, headers: { 'content-type': 'video/mp4' } });
    expect(put.status).toBe(200);

    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: services.bucket, Key: key }), {
      expiresIn: 300,
    });
    const get = await fetch(getUrl);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('video/mp4');
    expect(new Uint8Array(await get.arrayBuffer())).toEqual(body);

    // What the SDK itself reads back is the same bytes (no aws-chunked framing).
    const object = await s3.send(new GetObjectCommand({ Bucket: services.bucket, Key: key }));
    expect(await object.Body?.transformToByteArray()).toEqual(body);
  });

  it('stores what the SDK streams unframed, and refuses an expired presigned URL', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: services.bucket, Key: 'sdk.txt', Body: 'hello from the sdk' }),
    );
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: services.bucket, Key: 'sdk.txt' }), {
      expiresIn: 300,
    });
    expect(await (await fetch(url)).text()).toBe('hello from the sdk');

    const expired = await getSignedUrl(
      s3,
      new GetObjectCommand({ Bucket: services.bucket, Key: 'sdk.txt' }),
      {
        expiresIn: 1,
        signingDate: new Date(Date.now() - 60_000),
      },
    );
    expect((await fetch(expired)).status).toBe(403);
  });

  it('answers a browser CORS preflight for a presigned PUT', async () => {
    const response = await fetch(`${services.s3Endpoint}/${services.bucket}/media/x.png`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('PUT');
  });

  it('creates the four queues, each with its DLQ after 5 receives and a 60 s visibility timeout', async () => {
    expect(Object.values(services.queues).map((q) => q.name)).toEqual(Object.values(QUEUE_NAMES));
    for (const queue of Object.values(services.queues)) {
      expect(queue.dlqArn).toMatch(new RegExp(`:${queue.name}-dlq$`));
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['All'] }),
      );
      expect(Attributes?.QueueArn).toBe(queue.arn);
      expect(Attributes?.VisibilityTimeout).toBe('60');
      expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
        deadLetterTargetArn: queue.dlqArn,
        maxReceiveCount: 5,
      });
    }
  });

  it('keeps stored objects across a restart when given a dataDir', async () => {
    await s3.send(new PutObjectCommand({ Bucket: services.bucket, Key: 'kept.txt', Body: 'still here' }));
    await services.stop();
    s3.destroy();
    services = await startLocalAwsServices({ dataDir });
    s3 = new S3Client(localClientConfig.s3(services.s3Endpoint));
    const object = await s3.send(new GetObjectCommand({ Bucket: services.bucket, Key: 'kept.txt' }));
    expect(await object.Body?.transformToString()).toBe('still here');
  });
});
