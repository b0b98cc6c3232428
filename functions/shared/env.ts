/**
 * Every environment variable the functions read, read in this one module.
 * On AWS the stack sets them; locally each runtime instance gives its own (`withEnvironment`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { parseCorsOrigins } from './cors.ts';

type Variables = Readonly<Record<string, string | undefined>>;

const scoped = new AsyncLocalStorage<Variables>();

/**
 * Runs `fn` with `variables` as its environment: every read below made inside it, however deep,
 * reads them instead of the process's. The local runtime runs its invocations so (through its
 * container), so two runtimes in one process (tests) each read their own table, queues and endpoints.
 */
export const withEnvironment = <T>(variables: Variables, fn: () => T): T => scoped.run(variables, fn);

/** The environment of the code running here: its runtime's, else the process's. */
const vars = (): Variables => scoped.getStore() ?? process.env;

/** One variable as it is set here, unparsed (for a cache keyed on the variables it reads). */
export const variable = (name: string): string | undefined => vars()[name];

const read = (name: string, fallback?: string): string => {
  const value = vars()[name];
  if (value !== undefined && value !== '') return value;
  if (fallback !== undefined) return fallback;
  throw new Error(`Missing environment variable ${name}`);
};

const readNumber = (name: string, fallback: number): number => {
  const raw = vars()[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`Environment variable ${name} must be a positive number`);
  return value;
};

/** Names of the variables, shared with the CDK stack and the local runtime so they never drift. */
export const ENV = {
  runtime: 'HERALD_RUNTIME',
  tableName: 'TABLE_NAME',
  mediaBucket: 'MEDIA_BUCKET',
  publishQueueUrl: 'PUBLISH_QUEUE_URL',
  eventQueueUrl: 'EVENT_QUEUE_URL',
  deliveryQueueUrl: 'DELIVERY_QUEUE_URL',
  metricsQueueUrl: 'METRICS_QUEUE_URL',
  schedulerGroup: 'SCHEDULER_GROUP',
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
  schedulerTargetArn: 'SCHEDULER_TARGET_ARN',
  tokenKmsKeyId: 'TOKEN_KMS_KEY_ID',
  localTokenKeyFile: 'LOCAL_TOKEN_KEY_FILE',
  rateLimitPerMinute: 'RATE_LIMIT_PER_MINUTE',
  maxJsonBodyBytes: 'MAX_JSON_BODY_BYTES',
  networkBaseUrls: 'NETWORK_BASE_URLS',
  networkTimeoutMs: 'NETWORK_TIMEOUT_MS',
  xConsistencyWindowSeconds: 'X_CONSISTENCY_WINDOW_SECONDS',
  redditConsistencyWindowSeconds: 'REDDIT_CONSISTENCY_WINDOW_SECONDS',
  scheduleLeadSeconds: 'SCHEDULE_LEAD_SECONDS',
  publishLeaseSeconds: 'PUBLISH_LEASE_SECONDS',
  publishRetryBaseSeconds: 'PUBLISH_RETRY_BASE_SECONDS',
  publishRateLimitProbeSeconds: 'PUBLISH_RATE_LIMIT_PROBE_SECONDS',
  webhookRetryBaseSeconds: 'WEBHOOK_RETRY_BASE_SECONDS',
  webhookTimeoutSeconds: 'WEBHOOK_TIMEOUT_SECONDS',
  webhookAllowLoopback: 'WEBHOOK_ALLOW_LOOPBACK',
  webhookExtraCaCerts: 'WEBHOOK_EXTRA_CA_CERTS',
  webhookSweepAfterSeconds: 'WEBHOOK_SWEEP_AFTER_SECONDS',
  webhookSweepIntervalSeconds: 'WEBHOOK_SWEEP_INTERVAL_SECONDS',
  postSweepAfterSeconds: 'POST_SWEEP_AFTER_SECONDS',
  postSweepIntervalSeconds: 'POST_SWEEP_INTERVAL_SECONDS',
  grantUsageDir: 'HERALD_GRANT_USAGE_DIR',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  apiUrl: 'API_URL',
  corsOrigins: 'CORS_ORIGINS',
  tokenSweepIntervalSeconds: 'TOKEN_SWEEP_INTERVAL_SECONDS',
  appSecretPrefix: 'APP_SECRET_PREFIX',
  networkAppCredentials: 'NETWORK_APP_CREDENTIALS',
  metricsTimeScale: 'METRICS_TIME_SCALE',
  metricsSweepIntervalSeconds: 'METRICS_SWEEP_INTERVAL_SECONDS',
} as const;

export type RuntimeKind = 'aws' | 'local';

export const env = {
  get runtime(): RuntimeKind {
    const value = read(ENV.runtime, 'aws');
    if (value !== 'aws' && value !== 'local') throw new Error(`${ENV.runtime} must be "aws" or "local"`);
    return value;
  },
  get tableName(): string {
    return read(ENV.tableName, 'herald');
  },
  get mediaBucket(): string {
    return read(ENV.mediaBucket, 'herald-media');
  },
  get publishQueueUrl(): string {
    return read(ENV.publishQueueUrl);
  },
  get eventQueueUrl(): string {
    return read(ENV.eventQueueUrl);
  },
  get deliveryQueueUrl(): string {
    return read(ENV.deliveryQueueUrl);
  },
  get metricsQueueUrl(): string {
    return read(ENV.metricsQueueUrl);
  },
  get schedulerGroup(): string {
    return read(ENV.schedulerGroup, 'herald');
  },
  get schedulerRoleArn(): string {
    return read(ENV.schedulerRoleArn);
  },
  get schedulerTargetArn(): string {
    return read(ENV.schedulerTargetArn);
  },
  get tokenKmsKeyId(): string {
    return read(ENV.tokenKmsKeyId);
  },
  get localTokenKeyFile(): string {
    return read(ENV.localTokenKeyFile);
  },
  /** Requests allowed per API key per minute (default 300). */
  get rateLimitPerMinute(): number {
    return Math.floor(readNumber(ENV.rateLimitPerMinute, 300));
  },
  /** Base URL per network id, as JSON (`{"x":"http://127.0.0.1:4001"}`): the local runtime's simulators. Default: none (the networks' own). */
  get networkBaseUrls(): Record<string, string> {
    const raw = vars()[ENV.networkBaseUrls];
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null)
      throw new Error(`${ENV.networkBaseUrls} must be a JSON object`);
    return parsed as Record<string, string>;
  },
  /** Time allowed for one network request (default 10 s). */
  get networkTimeoutMs(): number {
    return readNumber(ENV.networkTimeoutMs, 10_000);
  },
  /** How long X's timeline may lag behind a stored tweet: a lookup finding nothing proves nothing before (default: the X client's, 30 s). */
  get xConsistencyWindowSeconds(): number | undefined {
    const raw = vars()[ENV.xConsistencyWindowSeconds];
    return raw === undefined || raw === '' ? undefined : readNumber(ENV.xConsistencyWindowSeconds, 0);
  },
  /** How long Reddit's listings may miss a post after a send (media processing): as X's (default: the Reddit client's, 300 s). */
  get redditConsistencyWindowSeconds(): number | undefined {
    const raw = vars()[ENV.redditConsistencyWindowSeconds];
    return raw === undefined || raw === '' ? undefined : readNumber(ENV.redditConsistencyWindowSeconds, 0);
  },
  /** How long before scheduledAt a schedule fires; the queue's delay covers the rest (default 60 s). */
  get scheduleLeadSeconds(): number {
    return readNumber(ENV.scheduleLeadSeconds, 60);
  },
  /** How long a worker holds a block claim (default 60 s). */
  get publishLeaseSeconds(): number {
    return readNumber(ENV.publishLeaseSeconds, 60);
  },
  /** First retry delay after a transient network error, doubling (default 2 s). */
  get publishRetryBaseSeconds(): number {
    return readNumber(ENV.publishRetryBaseSeconds, 2);
  },
  /**
   * First step of the growing wait after a rate limit that announced no reset: 1×, 2×, 4×, 8×,
   * then 15× this (default 60 s: 1, 2, 4, 8, 15 minutes).
   */
  get publishRateLimitProbeSeconds(): number {
    return readNumber(ENV.publishRateLimitProbeSeconds, 60);
  },
  /** Webhook retry schedule unit: waits of 1x, 2x, 4x ... this, at most 360x, giving up after 1800x (default 10 s). */
  get webhookRetryBaseSeconds(): number {
    return readNumber(ENV.webhookRetryBaseSeconds, 10);
  },
  /** How long a webhook receiver has to answer (default 10 s). */
  get webhookTimeoutSeconds(): number {
    return readNumber(ENV.webhookTimeoutSeconds, 10);
  },
  /** Whether webhooks may target loopback addresses: only the local runtime sets it (default false). */
  get webhookAllowLoopback(): boolean {
    return vars()[ENV.webhookAllowLoopback] === 'true';
  },
  /**
   * A PEM file of extra CAs webhook deliveries trust besides the public ones (default: the file in
   * NODE_EXTRA_CA_CERTS, which Node reads only at start; this one is read when first needed).
   */
  get webhookExtraCaCerts(): string | undefined {
    return vars()[ENV.webhookExtraCaCerts] || vars().NODE_EXTRA_CA_CERTS || undefined;
  },
  /** Outbox events and deliveries overdue by this long are sent again by the sweeper (default 60 s). */
  get webhookSweepAfterSeconds(): number {
    return readNumber(ENV.webhookSweepAfterSeconds, 60);
  },
  /** How often the local runtime runs the sweeper (default 60 s; on AWS a recurring schedule does). */
  get webhookSweepIntervalSeconds(): number {
    return readNumber(ENV.webhookSweepIntervalSeconds, 60);
  },
  /**
   * A post publishing with no write for this long, or still scheduled this long after its time, is
   * queued again by the post sweep (default 20 min: longer than any delay the engine plans, SQS's
   * 15-minute maximum included).
   */
  get postSweepAfterSeconds(): number {
    return readNumber(ENV.postSweepAfterSeconds, 1200);
  },
  /** How often the local runtime runs the post sweep (default 60 s; on AWS a recurring schedule does). */
  get postSweepIntervalSeconds(): number {
    return readNumber(ENV.postSweepIntervalSeconds, 60);
  },
  /**
   * Divides every interval of the metrics cadence (readings, retries, leases): 1 in production
   * (default); 3600 turns an hour into a second for tests and demos.
   */
  get metricsTimeScale(): number {
    return readNumber(ENV.metricsTimeScale, 1);
  },
  /**
   * How often the local runtime runs the metrics sweep (on AWS a recurring schedule does, every
   * minute). Default: a minute of the cadence (60 s at the real pace, 1 s at 60x or faster), so a
   * faster cadence's readings are not held back by the sweep.
   */
  get metricsSweepIntervalSeconds(): number {
    const scale = readNumber(ENV.metricsTimeScale, 1);
    return readNumber(ENV.metricsSweepIntervalSeconds, Math.min(60, Math.max(1, 60 / scale)));
  },
  /** Local runtime only: a directory where each process writes which grants its functions used (tests set it). */
  get grantUsageDir(): string | undefined {
    return vars()[ENV.grantUsageDir] || undefined;
  },
  /**
   * The service's public base URL when it is served on a custom domain (`https://api.example.com`,
   * no /v1): the OAuth callback `<base>/v1/channels/callback` registered with each network app.
   */
  get publicBaseUrl(): string | undefined {
    return vars()[ENV.publicBaseUrl]?.replace(/\/+$/, '') || undefined;
  },
  /**
   * The API's own URL, without PUBLIC_BASE_URL the base of the OAuth callback: the HTTP API's
   * endpoint on AWS (set by the stack), the runtime's `http://localhost:<port>` locally.
   */
  get apiUrl(): string | undefined {
    return vars()[ENV.apiUrl]?.replace(/\/+$/, '') || undefined;
  },
  /**
   * Locally: the browser origins the HTTP server answers with CORS headers (comma-separated; none
   * by default). On AWS, API Gateway does it, from the stack's `corsOrigins` context.
   */
  get corsOrigins(): string[] {
    return parseCorsOrigins(vars()[ENV.corsOrigins], ENV.corsOrigins);
  },
  /** Locally: how often the token refresh sweep runs (default 900 s, the AWS schedule's rate). */
  get tokenSweepIntervalSeconds(): number {
    return readNumber(ENV.tokenSweepIntervalSeconds, 900);
  },
  /** Name prefix of the networks' app-credential secrets (`<prefix><network>`, one per network) on AWS. */
  get appSecretPrefix(): string {
    return read(ENV.appSecretPrefix, 'herald/network-app/');
  },
  /** Locally: each network's app credentials as JSON (`{"x":{"clientId":"…","clientSecret":"…"}}`), the simulators' preset apps. */
  get networkAppCredentials(): Record<string, { clientId: string; clientSecret: string }> {
    const raw = vars()[ENV.networkAppCredentials];
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null)
      throw new Error(`${ENV.networkAppCredentials} must be a JSON object`);
    return parsed as Record<string, { clientId: string; clientSecret: string }>;
  },
  /** The AWS region (the SDK's own AWS_REGION; set on AWS and by the local runtime). */
  get awsRegion(): string | undefined {
    return vars().AWS_REGION || undefined;
  },
  /**
   * A service's endpoint from the SDK's own variables (AWS_ENDPOINT_URL_<SERVICE>, else
   * AWS_ENDPOINT_URL): the local runtime's engines; none on AWS. Read here and handed to the
   * clients, because the SDK would read the process's and a local runtime has its own.
   */
  awsEndpoint(service: 'DYNAMODB' | 'S3' | 'SQS'): { endpoint?: string } {
    const endpoint = vars()[`AWS_ENDPOINT_URL_${service}`] || vars().AWS_ENDPOINT_URL;
    return endpoint ? { endpoint } : {};
  },
  /** Largest JSON request body accepted, in bytes (default 1 MiB). */
  get maxJsonBodyBytes(): number {
    return Math.floor(readNumber(ENV.maxJsonBodyBytes, 1024 * 1024));
  },
};
