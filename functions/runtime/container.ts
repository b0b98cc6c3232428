import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { dynamoAccountStore } from '../adapters/aws/dynamo/account-store.ts';
import { DynamoClaimStore } from '../adapters/aws/dynamo/claims.ts';
import { createDocumentClient, type TableRef } from '../adapters/aws/dynamo/client.ts';
import { DynamoConnectStateStore } from '../adapters/aws/dynamo/connect-states.ts';
import { getEventRecord, markEventDispatched, pendingEventIdsBefore } from '../adapters/aws/dynamo/events.ts';
import { DynamoMediaStore } from '../adapters/aws/dynamo/media.ts';
import { DynamoMetricsStore } from '../adapters/aws/dynamo/metrics.ts';
import { DynamoPostStore } from '../adapters/aws/dynamo/posts.ts';
import { DynamoRateLimiter } from '../adapters/aws/dynamo/rate-limits.ts';
import { DynamoWebhookStore } from '../adapters/aws/dynamo/webhooks.ts';
import { KmsTokenCipher } from '../adapters/aws/kms-token-cipher.ts';
import { S3BlobStore } from '../adapters/aws/s3-blob-store.ts';
import { EventBridgeScheduler } from '../adapters/aws/scheduler.ts';
import { SecretsManagerAppCredentials } from '../adapters/aws/secrets-app-credentials.ts';
import { SqsDeliveryQueue } from '../adapters/aws/sqs-delivery-queue.ts';
import { SqsJobQueue } from '../adapters/aws/sqs-job-queue.ts';
import { SqsMetricsQueue } from '../adapters/aws/sqs-metrics-queue.ts';
import { HttpsWebhookSender, systemResolver } from '../adapters/http/webhook-sender.ts';
import { configuredAppCredentials } from '../adapters/local/configured-app-credentials.ts';
import { FileTokenCipher, loadOrCreateKey } from '../adapters/local/file-token-cipher.ts';
import { TableScheduler } from '../adapters/local/table-scheduler.ts';
import { TokenService } from '../core/channels/token-service.ts';
import type { CadenceSettings } from '../core/metrics/cadence.ts';
import { startTracking } from '../core/metrics/collect.ts';
import { type PublishingDeps, PublishingEngine } from '../core/publishing/engine.ts';
import { networkAuths } from '../platforms/auth-registry.ts';
import { networkClients } from '../platforms/registry.ts';
import type { PlatformId } from '../platforms/types.ts';
import type { AccountStore } from '../ports/accounts.ts';
import type { AppCredentials } from '../ports/app-credentials.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import { type Clock, systemClock } from '../ports/clock.ts';
import type { ConnectStateStore } from '../ports/connect-states.ts';
import type { MediaStore } from '../ports/media.ts';
import type { MetricsQueue, MetricsStore } from '../ports/metrics.ts';
import type { NetworkAuth } from '../ports/network-auth.ts';
import type { OverduePosts } from '../ports/overdue-posts.ts';
import type { PostStore } from '../ports/posts.ts';
import type { ClaimStore, JobQueue } from '../ports/publishing.ts';
import type { RateLimiter } from '../ports/rate-limiter.ts';
import type { Scheduler } from '../ports/scheduler.ts';
import type { TokenCipher } from '../ports/token-cipher.ts';
import type {
  DeliveryQueue,
  EventOutbox,
  HostResolver,
  WebhookSender,
  WebhookSettings,
  WebhookStore,
} from '../ports/webhooks.ts';
import { ENV, env } from '../shared/env.ts';

/** Everything the use cases depend on. The only place where adapters are chosen. */
export interface Deps {
  clock: Clock;
  table: TableRef;
  /** The client under `table.doc`, for libraries that take a plain DynamoDB client (Powertools Idempotency). */
  dynamo: DynamoDBClient;
  accounts: AccountStore;
  rateLimiter: RateLimiter;
  posts: PostStore;
  /** The due index of posts, for the post sweep. */
  overduePosts: OverduePosts;
  media: MediaStore;
  /** Media bytes (the media bucket). */
  blobs: () => BlobStore;
  scheduler: () => Scheduler;
  sqs: () => SQSClient;
  s3: () => S3Client;
  tokenCipher: () => TokenCipher;
  claims: ClaimStore;
  queue: () => JobQueue;
  networks: PublishingDeps['networks'];
  mediaUrl: PublishingDeps['mediaUrl'];
  settings: PublishingDeps['settings'] & { scheduleLeadSeconds: number; postSweepAfterSeconds: number };
  publishing: () => PublishingEngine;
  onChannelLive: NonNullable<PublishingDeps['onChannelLive']>;
  webhooks: WebhookStore;
  /** Metrics trackers, readings and stats aggregates. */
  metrics: MetricsStore;
  metricsQueue: () => MetricsQueue;
  /** The metrics cadence's time scale (read from the environment on each call). */
  cadence: CadenceSettings;
  outbox: EventOutbox;
  deliveryQueue: () => DeliveryQueue;
  webhookSender: () => WebhookSender;
  resolveHost: HostResolver;
  /** Read from the environment on each call. */
  webhookSettings: () => WebhookSettings;
  /** Each network's OAuth (or app password) flow; null: the network cannot be connected through the API. */
  auths: (platform: PlatformId) => NetworkAuth | null;
  /** Each network's app credentials (Secrets Manager on AWS, the simulators' preset apps locally). */
  appCredentials: AppCredentials;
  connectStates: ConnectStateStore;
  /** Live channels' valid access tokens. */
  tokens: () => TokenService;
}

/** The webhook settings of the environment (see env.ts); the rest are product rules. */
export const webhookSettingsFromEnv = (): WebhookSettings => ({
  retryBaseSeconds: env.webhookRetryBaseSeconds,
  timeoutMs: Math.round(env.webhookTimeoutSeconds * 1000),
  allowLoopback: env.webhookAllowLoopback,
  sweepAfterSeconds: env.webhookSweepAfterSeconds,
  disableAfterFailedEvents: 5,
  maxEndpointsPerWorkspace: 20,
});

/** An AWS SDK client built here. */
export type AwsSdkClient = DynamoDBClient | SQSClient | S3Client | SchedulerClient | KMSClient;

/**
 * What a composition root may put around the adapters chosen here; the local runtime checks each
 * function's grants with it (adapters/local/grant-guard.ts). AWS needs none: IAM does the checking.
 */
export interface AdapterDecorators {
  /** Called once with every AWS SDK client built here, before its first call. */
  awsClient?: (client: AwsSdkClient) => void;
  tokenCipher?: (cipher: TokenCipher) => TokenCipher;
  scheduler?: (scheduler: Scheduler) => Scheduler;
  appCredentials?: (credentials: AppCredentials) => AppCredentials;
}

let decorators: AdapterDecorators = {};

/** Sets the decorators of every dependency built from now on (the built ones are forgotten). */
export const decorateAdapters = (next: AdapterDecorators): void => {
  decorators = next;
  current = undefined;
};

const decorated = <T extends AwsSdkClient>(client: T): T => {
  decorators.awsClient?.(client);
  return client;
};

const lazy = <T>(make: () => T): (() => T) => {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
};

/** Builds the dependencies for the runtime named by HERALD_RUNTIME (`aws` or `local`). */
export const buildDeps = (): Deps => {
  // The document client shares the plain client's middleware, so decorating one covers both.
  const dynamo = decorated(new DynamoDBClient({}));
  const table: TableRef = { doc: createDocumentClient(dynamo), tableName: env.tableName };
  const runtime = env.runtime;
  // Locally the queue URLs name a host that only the SQS stand-in's endpoint reaches.
  const sqs = lazy(() =>
    decorated(new SQSClient(runtime === 'local' ? { useQueueUrlAsEndpoint: false } : {})),
  );
  // The local S3 stand-in serves buckets by path, not by host name, and knows only its own key
  // pair (LOCAL_CREDENTIALS of adapters/local/aws-services.ts). Checksums only where S3 requires
  // them: otherwise the SDK signs a CRC32 of the empty body into presigned PUTs and S3 refuses the upload.
  const s3 = lazy(() =>
    decorated(
      new S3Client({
        ...(runtime === 'local'
          ? { forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
          : {}),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    ),
  );
  const queue = lazy(
    () => new SqsJobQueue(sqs(), { publish: env.publishQueueUrl, event: env.eventQueueUrl }),
  );
  // A claim must outlast any request made under it, or a live send could look abandoned.
  if (env.publishLeaseSeconds * 1000 <= env.networkTimeoutMs * 2) {
    throw new Error(`${ENV.publishLeaseSeconds} must be more than twice ${ENV.networkTimeoutMs}`);
  }
  const posts = new DynamoPostStore(table);
  const appCredentials: AppCredentials =
    runtime === 'aws'
      ? new SecretsManagerAppCredentials(env.appSecretPrefix)
      : configuredAppCredentials(() => env.networkAppCredentials);
  const deps: Deps = {
    auths: networkAuths({ baseUrls: env.networkBaseUrls, timeoutMs: env.networkTimeoutMs }),
    appCredentials: decorators.appCredentials?.(appCredentials) ?? appCredentials,
    connectStates: new DynamoConnectStateStore(table),
    tokens: lazy(() => new TokenService(current ?? deps)),
    s3,
    queue,
    claims: new DynamoClaimStore(table),
    networks: networkClients({
      baseUrls: env.networkBaseUrls,
      timeoutMs: env.networkTimeoutMs,
      xConsistencyWindowSeconds: env.xConsistencyWindowSeconds,
      redditConsistencyWindowSeconds: env.redditConsistencyWindowSeconds,
    }),
    mediaUrl: (record) =>
      getSignedUrl(s3(), new GetObjectCommand({ Bucket: env.mediaBucket, Key: record.objectKey }), {
        expiresIn: 3600,
      }),
    settings: {
      maxTransientAttempts: 5,
      leaseSeconds: env.publishLeaseSeconds,
      retryBaseSeconds: env.publishRetryBaseSeconds,
      scheduleLeadSeconds: env.scheduleLeadSeconds,
      postSweepAfterSeconds: env.postSweepAfterSeconds,
    },
    publishing: lazy(() => new PublishingEngine(current ?? deps)),
    onChannelLive: (post, channelId) => startTracking(current ?? deps, post, channelId),
    posts,
    overduePosts: posts,
    media: new DynamoMediaStore(table),
    blobs: lazy(() => new S3BlobStore(s3(), env.mediaBucket)),
    sqs,
    scheduler: lazy(() => {
      const scheduler =
        runtime === 'aws'
          ? new EventBridgeScheduler({
              client: decorated(new SchedulerClient({})),
              groupName: env.schedulerGroup,
              roleArn: env.schedulerRoleArn,
              targetArn: env.schedulerTargetArn,
            })
          : // The local runtime's own instance runs the ticker; handlers' instances only write schedules.
            new TableScheduler({ table, sqs: sqs(), targetArn: env.schedulerTargetArn });
      return decorators.scheduler?.(scheduler) ?? scheduler;
    }),
    clock: systemClock,
    table,
    dynamo,
    accounts: dynamoAccountStore(table),
    rateLimiter: new DynamoRateLimiter(table, env.rateLimitPerMinute),
    webhooks: new DynamoWebhookStore(table),
    metrics: new DynamoMetricsStore(table),
    metricsQueue: lazy(() => new SqsMetricsQueue(sqs(), env.metricsQueueUrl)),
    cadence: {
      get timeScale() {
        return env.metricsTimeScale;
      },
    },
    outbox: {
      get: (eventId) => getEventRecord(table, eventId),
      markDispatched: (eventId) => markEventDispatched(table, eventId),
      pendingBefore: (before, limit) => pendingEventIdsBefore(table, before, limit),
    },
    deliveryQueue: lazy(() => new SqsDeliveryQueue(sqs(), env.deliveryQueueUrl)),
    webhookSender: lazy(
      () =>
        new HttpsWebhookSender({
          allowLoopback: () => env.webhookAllowLoopback,
          extraCaFile: () => env.webhookExtraCaCerts,
        }),
    ),
    resolveHost: systemResolver,
    webhookSettings: webhookSettingsFromEnv,
    tokenCipher: lazy(() => {
      const cipher =
        runtime === 'aws'
          ? new KmsTokenCipher(decorated(new KMSClient({})), env.tokenKmsKeyId)
          : new FileTokenCipher(loadOrCreateKey(env.localTokenKeyFile));
      return decorators.tokenCipher?.(cipher) ?? cipher;
    }),
  };
  return deps;
};

let current: Deps | undefined;

/** The process-wide dependencies, built once (a Lambda cold start) and reused. */
export const getDeps = (): Deps => {
  current ??= buildDeps();
  return current;
};

/** Replaces some dependencies (tests, or the local runtime's clock); returns a function that restores them. */
export const overrideDeps = (partial: Partial<Deps>): (() => void) => {
  const previous = getDeps();
  current = { ...previous, ...partial };
  return () => {
    current = previous;
  };
};

/** Forgets the built dependencies so the next call reads the environment again. */
export const resetDeps = (): void => {
  current = undefined;
};
