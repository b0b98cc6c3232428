/**
 * The S3 and SQS stand-ins of the local runtime (s3rver for S3, fauxqs for SQS), with the bucket
 * and the queues of the AWS stack, and the SDK client settings that talk to them.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';

export const LOCAL_REGION = 'us-east-1';

/** s3rver accepts only this pair; DynamoDB Local (-sharedDb) and fauxqs accept any, so one pair serves all. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** SDK client settings for the local engines, so every part of the local runtime builds identical clients. */
export const localClientConfig = {
  dynamodb: (endpoint: string, region = LOCAL_REGION): DynamoDBClientConfig => ({
    endpoint,
    region,
    credentials: LOCAL_CREDENTIALS,
  }),
  /** s3rver needs path-style URLs, and checksums only where S3 requires them (else uploads are stored aws-chunked). */
  s3: (endpoint: string, region = LOCAL_REGION): S3ClientConfig => ({
    endpoint,
    region,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  }),
  sqs: (endpoint: string, region = LOCAL_REGION): SQSClientConfig => ({
    endpoint,
    region,
    credentials: LOCAL_CREDENTIALS,
  }),
};

export const QUEUE_NAMES = {
  publish: 'herald-publish',
  event: 'herald-event',
  delivery: 'herald-delivery',
  metrics: 'herald-metrics',
} as const;

export type QueueKey = keyof typeof QUEUE_NAMES;

export interface LocalQueue {
  name: string;
  url: string;
  arn: string;
  dlqUrl: string;
  dlqArn: string;
}

export const MEDIA_BUCKET = 'herald-media';

export interface LocalAwsServicesOptions {
  /** Objects persist under `<dataDir>/s3`; a temporary directory (removed on stop) when absent. */
  dataDir?: string;
  region?: string;
  /** Of every main queue (default 60, as the stack); tests use a short one. */
  visibilityTimeoutSeconds?: number;
  /** Receives before a message moves to its queue's DLQ (default 5, as the stack). */
  maxReceiveCount?: number;
}

export interface LocalAwsServices {
  s3Endpoint: string;
  sqsEndpoint: string;
  region: string;
  bucket: string;
  queues: Record<QueueKey, LocalQueue>;
  stop(): Promise<void>;
}

/** The bits of s3rver's (untyped) API used here. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

// Browsers upload large media straight to S3 with presigned PUTs and read it back with GETs.
const CORS_XML = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
    <AllowedMethod>PUT</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

async function startS3(dataDir: string | undefined): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const directory = dataDir ? join(dataDir, 's3') : await mkdtemp(join(tmpdir(), 'herald-s3-'));
  await mkdir(directory, { recursive: true });
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: MEDIA_BUCKET, configs: [CORS_XML] }],
  });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      await server.close();
      if (!dataDir) await rm(directory, { recursive: true, force: true });
    },
  };
}

async function startSqs(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  // buildApp instead of startFauxqs: startFauxqs always binds 0.0.0.0; this binds loopback only.
  const app = buildApp({ logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { endpoint: address, stop: () => app.close() };
}

async function createQueueWithDlq(
  sqs: SQSClient,
  name: string,
  options: { visibilityTimeoutSeconds: number; maxReceiveCount: number },
): Promise<LocalQueue> {
  const arnOf = async (url: string) => {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    if (!Attributes?.QueueArn) throw new Error(`No ARN for queue ${url}`);
    return Attributes.QueueArn;
  };
  const dlq = await sqs.send(
    new CreateQueueCommand({ QueueName: `${name}-dlq`, Attributes: { MessageRetentionPeriod: '1209600' } }),
  );
  if (!dlq.QueueUrl) throw new Error(`Could not create ${name}-dlq`);
  const dlqArn = await arnOf(dlq.QueueUrl);
  const main = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: options.maxReceiveCount,
        }),
      },
    }),
  );
  if (!main.QueueUrl) throw new Error(`Could not create ${name}`);
  return { name, url: main.QueueUrl, arn: await arnOf(main.QueueUrl), dlqUrl: dlq.QueueUrl, dlqArn };
}

/** Starts s3rver and fauxqs on free loopback ports and creates the media bucket and the four queues with their DLQs. */
export async function startLocalAwsServices(
  options: LocalAwsServicesOptions = {},
): Promise<LocalAwsServices> {
  const region = options.region ?? LOCAL_REGION;
  const s3 = await startS3(options.dataDir);
  let sqsServer: Awaited<ReturnType<typeof startSqs>> | undefined;
  try {
    sqsServer = await startSqs();
    const sqs = new SQSClient(localClientConfig.sqs(sqsServer.endpoint, region));
    const queueOptions = {
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 60,
      maxReceiveCount: options.maxReceiveCount ?? 5,
    };
    const entries = await Promise.all(
      (Object.entries(QUEUE_NAMES) as [QueueKey, string][]).map(
        async ([key, name]) => [key, await createQueueWithDlq(sqs, name, queueOptions)] as const,
      ),
    );
    sqs.destroy();
    const sqsStop = sqsServer.stop;
    let stopping: Promise<void> | undefined;
    return {
      s3Endpoint: s3.endpoint,
      sqsEndpoint: sqsServer.endpoint,
      region,
      bucket: MEDIA_BUCKET,
      queues: Object.fromEntries(entries) as Record<QueueKey, LocalQueue>,
      stop: () => {
        stopping ??= Promise.all([sqsStop(), s3.stop()]).then(() => undefined);
        return stopping;
      },
    };
  } catch (error) {
    await Promise.allSettled([s3.stop(), sqsServer?.stop()]);
    throw error;
  }
}
