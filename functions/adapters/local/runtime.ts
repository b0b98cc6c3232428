import './local-env.ts';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { indexApiKeys } from '../../core/admin/admin.ts';
import { createOwner } from '../../core/admin/owners.ts';
import { type SeedResult, seedDemoAccount } from '../../core/admin/seed.ts';
import { CONNECT_CODE_PATTERN } from '../../core/channels/schema.ts';
import {
  METRICS_SWEEP_MESSAGE,
  POST_SWEEP_MESSAGE,
  TOKEN_SWEEP_MESSAGE,
  WEBHOOK_SWEEP_MESSAGE,
} from '../../ports/queue-messages.ts';
import { createContainer, type RuntimeContainer } from '../../runtime/container.ts';
import { ENV, env } from '../../shared/env.ts';
import type { Grant } from '../../shared/grants.ts';
import { workers } from '../../workers/manifest.ts';
import { createDocumentClient } from '../aws/dynamo/client.ts';
import { type AssemblySource, type StartedAssembly, startAssembly } from './assembly-runtime.ts';
import { startLocalAwsServices } from './aws-services.ts';
import { connectedPage } from './connected-page.ts';
import { formatRequestLine, type LocalLog, silentLog } from './console-log.ts';
import { dashboardFiles, ensureDashboardBuild } from './dashboard-files.ts';
import { acquireDataDirLock, LOCK_FILE } from './data-dir-lock.ts';
import { createTable, startDynamoDbLocal, stopOrphanedDynamoDbLocal } from './dynamodb-local.ts';
import {
  guardAppCredentials,
  guardMediaUrl,
  guardScheduler,
  guardTokenCipher,
  installGrantGuard,
  runAsFunction,
} from './grant-guard.ts';
import { bindHttpPort, type HttpPort } from './http-port.ts';
import { loadHttpHandlers } from './http-server.ts';
import { type CognitoSettings, type LocalIdentity, startLocalIdentity } from './local-identity.ts';
import { LocalEventSourceMapping } from './queue-poller.ts';
import { receiverTrustFile } from './receiver-tls.ts';
import { requeueLostJobs } from './recovery.ts';
import { SIM_OAUTH_APPS } from './sim-oauth-apps.ts';
import { type NetworkSimulators, startNetworkSimulators } from './simulators.ts';
import { TableScheduler } from './table-scheduler.ts';

export interface LocalRuntimeOptions {
  /** Where everything persists (DynamoDB files, S3 objects, the token key, seed.json). */
  dataDir: string;
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** Wipe dataDir first. */
  fresh?: boolean;
  /** Use a DynamoDB Local already running (tests share one) instead of starting one. */
  dynamoEndpoint?: string;
  tableName?: string;
  rateLimitPerMinute?: number;
  /** Repository root, where handler modules are found. */
  root?: string;
  /** Extra environment for the functions (tests shorten timeouts and leases with it). */
  env?: Record<string, string>;
  /** Start-up progress, one line per request, scheduler notices (default: nothing). */
  log?: LocalLog;
  /**
   * Grants that replace a function's manifest grants, keyed by route key (`POST /v1/posts`),
   * `$default`, `GET /health` or worker entry (`functions/workers/publish.ts`). Tests use it to
   * show what a missing grant does.
   */
  grantOverrides?: Record<string, Grant[]>;
  /** The Cognito emulator's port, or a free one when it is taken (default: a free one). */
  cognitoPort?: number;
  /**
   * Run the functions of a synthesized cloud assembly instead of the source (the deploy
   * rehearsal, assembly-runtime.ts): its bundles, environment, IAM policies and queue settings.
   */
  assembly?: AssemblySource;
}

/** What `<DATA_DIR>/seed.json` holds. */
export interface SeedFile {
  baseUrl: string;
  keys: SeedResult['keys'];
  channels: SeedResult['channels'];
  tags: SeedResult['tags'];
  otherWorkspace: { channels: SeedResult['otherWorkspaceChannels'] };
  accountId: string;
  workspaces: SeedResult['workspaces'];
  /** The demo account's owner, who signs in to the dashboard (seeded with the user pool). */
  owner?: SeedOwner;
}

export interface SeedOwner {
  email: string;
  password: string;
  userId: string;
}

/** The dashboard's sign-in on this runtime: the emulator's settings and the demo account's owner. */
export interface LocalSignIn extends CognitoSettings {
  issuer: string;
  owner: SeedOwner;
}

/** Written to `<DATA_DIR>/runtime.json` while the runtime runs. */
export interface RuntimeInfo {
  pid: number;
  tableName: string;
  dynamoEndpoint: string;
  baseUrl: string;
  port: number;
  /**
   * The SQS stand-in (fauxqs): its `/_fauxqs/queues/<name>` inspection shows the messages ready,
   * delayed and in flight (the drill reads it to say whether a stuck post has a job queued).
   */
  sqsEndpoint: string;
  /** The DynamoDB Local (java) process, when this runtime started one. */
  dynamoPid?: number;
  /** The Cognito emulator, once started (`LocalRuntime.cognito`). */
  cognito?: CognitoSettings;
}
export const RUNTIME_INFO_FILE = 'runtime.json';

export interface LocalRuntime {
  /**
   * This runtime's parts, decorators and environment: every invocation it runs (requests, queue
   * batches, schedules, sweeps) reads them, and no other runtime's. Tests read and override them here.
   */
  container: RuntimeContainer;
  simulators: NetworkSimulators;
  url: string;
  baseUrl: string;
  port: number;
  seed: SeedFile;
  seededNow: boolean;
  /** The cloud assembly's functions, when the runtime runs them (`assembly` option). */
  assembly?: StartedAssembly;
  /**
   * The Cognito emulator's settings and the demo owner's sign-in. The emulator starts on the first
   * call (or the first request to a user route), with the user pool, app client and owner made on
   * the data directory's first start; a runtime that never needs it never pays for it.
   */
  cognito(): Promise<LocalSignIn>;
  stop(): Promise<void>;
}

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
/** The demo account's owner: signs in to the dashboard with the password in seed.json. */
export const DEMO_OWNER_EMAIL = 'owner@herald.local';

/** The HTTP port is taken: said before Java starts, with a free port to use instead. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly suggestion: number | undefined,
  ) {
    super(
      `port ${port} is in use; run with PORT=${suggestion ?? port + 1} npm start ` +
        `(or stop what listens on ${port})`,
    );
    this.name = 'PortInUseError';
  }
}

const portTaken = async (port: number): Promise<boolean> => {
  const bound = await bindHttpPort(port);
  if (bound === 'taken') return true;
  await bound.close();
  return false;
};

/**
 * Binds `port` for the runtime (answering 503 until it is up), or throws PortInUseError with a
 * free port to suggest.
 */
const bindRuntimePort = async (port: number): Promise<HttpPort> => {
  const bound = await bindHttpPort(port);
  if (bound !== 'taken') return bound;
  let suggestion: number | undefined;
  for (let candidate = port + 1; candidate <= Math.min(port + 20, 65_535); candidate++) {
    if (!(await portTaken(candidate))) {
      suggestion = candidate;
      break;
    }
  }
  throw new PortInUseError(port, suggestion);
};

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Starts the whole service on this machine: real AWS-compatible engines, the same handlers. */
export const startLocalRuntime = async (options: LocalRuntimeOptions): Promise<LocalRuntime> => {
  const log = options.log ?? silentLog;
  const started = performance.now();
  const dataDir = resolve(options.dataDir);
  // The first directory this start made (undefined when DATA_DIR existed): a start that fails
  // removes it, so a refused start leaves no empty data folder behind.
  const created = mkdirSync(dataDir, { recursive: true });
  const shown = options.dataDir;
  log.info(`Starting Herald (DATA_DIR ${shown}, port ${options.port || 'any free one'})...`);
  // First of all: a second runtime on the same directory must change nothing, not even with --fresh.
  const lock = await acquireDataDirLock(dataDir, { port: options.port }).catch((error: unknown) => {
    if (created) rmSync(created, { recursive: true, force: true });
    throw error;
  });
  const stops: (() => Promise<void>)[] = [async () => lock.release()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error('Stop failed:', error));
    stops.length = 0;
  };
  try {
    // Bound before anything in DATA_DIR changes (--fresh included), so a taken port refuses the
    // start with the data as it was; from here nothing started meanwhile can take it, and every
    // request answers 503 until the runtime is up.
    const httpPort = await bindRuntimePort(options.port);
    stops.push(() => httpPort.close());
    const dbPath = join(dataDir, 'dynamodb');
    if (lock.tookOverFrom) {
      log.info(`  took over the lock of process ${lock.tookOverFrom.pid}, which is no longer running`);
      const orphan = lock.tookOverFrom.javaPid;
      if (orphan && (await stopOrphanedDynamoDbLocal(orphan, dbPath))) {
        log.info(`  stopped the DynamoDB Local (pid ${orphan}) it left running`);
      }
    }
    if (options.fresh) {
      for (const entry of readdirSync(dataDir)) {
        if (entry !== LOCK_FILE) rmSync(join(dataDir, entry), { recursive: true, force: true });
      }
      log.info(`  --fresh: emptied ${shown}`);
    }
    let dynamoEndpoint = options.dynamoEndpoint;
    let dynamoPid: number | undefined;
    if (!dynamoEndpoint) {
      log.info('  starting DynamoDB Local (Java), a few seconds...');
      const since = performance.now();
      const dynamo = await startDynamoDbLocal({ dataDir: dbPath });
      stops.push(dynamo.stop);
      dynamoEndpoint = dynamo.endpoint;
      dynamoPid = dynamo.pid;
      lock.update({ javaPid: dynamo.pid });
      log.info(`  DynamoDB Local ready on port ${dynamo.port} (${seconds(since)})`);
    }
    const services = await startLocalAwsServices({ dataDir });
    stops.push(services.stop);
    // The preset apps register the callback Herald will send them (callback-uri.ts): the runtime's
    // own, and PUBLIC_BASE_URL's when one is configured (a tunnel to this machine, say).
    const publicBaseUrl = (options.env?.[ENV.publicBaseUrl] ?? env.publicBaseUrl)?.replace(/\/+$/, '');
    const simulators = await startNetworkSimulators({
      redirectUris: [httpPort.url, ...(publicBaseUrl ? [publicBaseUrl] : [])].map(
        (base) => `${base}/v1/channels/callback`,
      ),
    });
    stops.push(simulators.stop);
    log.info(`  S3 (s3rver), SQS (fauxqs) and ${simulators.byPlatform.size} network simulators ready`);

    const tableName = options.tableName ?? 'herald';
    const receiverCa = receiverTrustFile(dataDir);
    const appCredentials = process.env[ENV.networkAppCredentials] ?? JSON.stringify(SIM_OAUTH_APPS);
    let assembly: StartedAssembly | undefined;
    if (options.assembly) {
      assembly = await startAssembly(options.assembly, {
        dynamoEndpoint,
        services,
        apiUrl: httpPort.url,
        tableName,
        // What the rehearsal adds to the template's environment: networks are the simulators, and
        // webhook subscribers may be on this machine.
        extraEnvironment: {
          [ENV.networkBaseUrls]: JSON.stringify(simulators.baseUrls),
          [ENV.webhookAllowLoopback]: process.env[ENV.webhookAllowLoopback] ?? 'true',
          ...(receiverCa ? { [ENV.webhookExtraCaCerts]: receiverCa } : {}),
          ...options.env,
        },
        appSecrets: Object.fromEntries(
          Object.entries(JSON.parse(appCredentials) as Record<string, unknown>).map(([network, app]) => [
            network,
            JSON.stringify(app),
          ]),
        ),
      });
      stops.push(assembly.stop);
      Object.assign(process.env, assembly.sdkEnvironment);
      const sdkVariables = Object.keys(assembly.sdkEnvironment);
      stops.push(async () => {
        for (const name of sdkVariables) delete process.env[name];
      });
      log.info(`  cloud assembly ${options.assembly.directory} loaded`);
    }
    // The same for every runtime in the process, and read by the SDK itself: the process's.
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    // This runtime's own: its functions read them through `env` (its container's environment),
    // never from the process's, so another runtime in the process changes nothing here.
    const environment: Record<string, string | undefined> = Object.freeze({
      ...process.env,
      [ENV.runtime]: 'local',
      [ENV.tableName]: tableName,
      [ENV.mediaBucket]: services.bucket,
      [ENV.publishQueueUrl]: services.queues.publish.url,
      [ENV.eventQueueUrl]: services.queues.event.url,
      [ENV.deliveryQueueUrl]: services.queues.delivery.url,
      [ENV.metricsQueueUrl]: services.queues.metrics.url,
      [ENV.schedulerTargetArn]: services.queues.publish.arn,
      [ENV.localTokenKeyFile]: join(dataDir, 'token.key'),
      // The runtime's own base URL: the OAuth callback the networks are given (never a request's Host).
      [ENV.apiUrl]: httpPort.url,
      [ENV.rateLimitPerMinute]: String(
        options.rateLimitPerMinute ?? process.env[ENV.rateLimitPerMinute] ?? 300,
      ),
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_ENDPOINT_URL_S3: services.s3Endpoint,
      AWS_ENDPOINT_URL_SQS: services.sqsEndpoint,
      // Live keys' channels publish to the local network simulators.
      [ENV.networkBaseUrls]: JSON.stringify(simulators.baseUrls),
      // Each simulator's preset OAuth app (the client id and secret its token endpoint accepts).
      [ENV.networkAppCredentials]: appCredentials,
      // The local scheduler fires on time to the millisecond; a short lead still exercises the queue delay.
      [ENV.scheduleLeadSeconds]: process.env[ENV.scheduleLeadSeconds] ?? '5',
      // Webhook subscribers on this machine are reachable (AWS refuses loopback targets).
      [ENV.webhookAllowLoopback]: process.env[ENV.webhookAllowLoopback] ?? 'true',
      // Deliveries to `npm run receiver` verify its certificate (receiver-tls.ts).
      ...(receiverCa ? { [ENV.webhookExtraCaCerts]: receiverCa } : {}),
      ...assembly?.environment,
      ...options.env,
    });
    const container = createContainer({
      environment,
      // Every function gets only its manifest grants, as its own IAM role would give it on AWS.
      decorators: {
        awsClient: installGrantGuard,
        tokenCipher: guardTokenCipher,
        scheduler: guardScheduler,
        appCredentials: guardAppCredentials,
        mediaUrl: guardMediaUrl,
      },
    });
    // Everything from here runs as this runtime's: the timers, pollers and ticker started inside
    // keep its container (AsyncLocalStorage follows them), and each request is run in it below.
    return await container.run(async () => {
      const dynamoClient = new DynamoDBClient({ endpoint: dynamoEndpoint });
      await createTable(dynamoClient, tableName);

      const since = performance.now();
      const requestLog = log.level === 'debug' || log.level === 'info';
      const root = options.root ?? REPO_ROOT;
      const dashboard = await ensureDashboardBuild(root);
      if (dashboard.built) log.info(`  dashboard built (${seconds(since)})`);
      // Read per request: the runtime object (with the emulator's settings) exists once serving starts.
      let runtime: LocalRuntime | undefined;
      const handlers = await loadHttpHandlers({
        root,
        dashboard: dashboardFiles({ dir: dashboard.dir, cognito: async () => runtime?.cognito() }),
        connected: connectedPage({ apiUrl: `${httpPort.url}/v1`, connectCodePattern: CONNECT_CODE_PATTERN }),
        ...(requestLog ? { onRequest: (line) => log.info(formatRequestLine(line)) } : {}),
        ...(options.grantOverrides ? { grantOverrides: options.grantOverrides } : {}),
        ...(assembly ? { handlerFor: assembly.httpHandler } : {}),
        userAuthorizer: () => identity().then(({ local }) => local.authorize),
      });
      // On stop, the port closes before the engines behind the handlers do (closing twice is harmless).
      stops.push(() => httpPort.close());
      const baseUrl = `${httpPort.url}/v1`;
      log.info(`  table ${tableName} ready, handlers loaded (${seconds(since)})`);

      const seedPath = join(dataDir, 'seed.json');
      let seededNow = false;
      let seed: SeedFile;
      if (existsSync(seedPath)) {
        seed = { ...(JSON.parse(readFileSync(seedPath, 'utf8')) as SeedFile), baseUrl };
        // A data directory made before the dashboard listed keys per workspace: list its keys
        // (the demo keys among them), as `npm run admin -- index-keys` does; nothing once done.
        const { added } = await indexApiKeys(container.deps);
        if (added > 0) log.info(`  listed ${added} earlier API key(s) in their workspaces' key lists`);
      } else {
        log.info('  seeding a demo account...');
        const result = await seedDemoAccount(container.deps);
        seededNow = true;
        seed = {
          baseUrl,
          keys: result.keys,
          channels: result.channels,
          tags: result.tags,
          otherWorkspace: { channels: result.otherWorkspaceChannels },
          accountId: result.accountId,
          workspaces: result.workspaces,
        };
      }
      writeFileSync(seedPath, `${JSON.stringify(seed, null, 2)}\n`, { mode: 0o600 });
      // Lets `npm run admin` find the running engines; removed on stop.
      const runtimeInfo: RuntimeInfo = {
        pid: process.pid,
        tableName,
        dynamoEndpoint,
        baseUrl,
        port: httpPort.port,
        sqsEndpoint: services.sqsEndpoint,
        ...(dynamoPid ? { dynamoPid } : {}),
      };
      writeFileSync(join(dataDir, RUNTIME_INFO_FILE), `${JSON.stringify(runtimeInfo, null, 2)}\n`);
      stops.push(async () => rmSync(join(dataDir, RUNTIME_INFO_FILE), { force: true }));

      // The Cognito emulator, on first need; the demo owner with the pool (or on the first start
      // of a data directory seeded before there was one).
      let signingIn: Promise<{ local: LocalIdentity; owner: SeedOwner }> | undefined;
      const startIdentity = async () => {
        const local = await startLocalIdentity({
          dir: join(dataDir, 'cognito'),
          port: options.cognitoPort ?? 0,
        });
        try {
          let owner = local.createdPool ? undefined : seed.owner;
          if (!owner) {
            const { accounts, workspaces, users, clock } = container.deps;
            const created = await createOwner(
              { accounts, workspaces, users, clock, directory: local.directory },
              { email: DEMO_OWNER_EMAIL, accountId: seed.accountId },
              { permanent: true },
            );
            owner = { email: created.email, password: created.password, userId: created.userId };
            seed.owner = owner;
            writeFileSync(seedPath, `${JSON.stringify(seed, null, 2)}\n`, { mode: 0o600 });
          }
          const { endpoint, region, userPoolId, clientId } = local;
          runtimeInfo.cognito = { endpoint, region, userPoolId, clientId };
          writeFileSync(join(dataDir, RUNTIME_INFO_FILE), `${JSON.stringify(runtimeInfo, null, 2)}\n`);
          return { local, owner };
        } catch (error) {
          await local.stop();
          throw error;
        }
      };
      const identity = () => {
        signingIn ??= startIdentity().catch((error: unknown) => {
          signingIn = undefined;
          throw error;
        });
        return signingIn;
      };
      stops.push(async () => (await signingIn?.catch(() => undefined))?.local.stop());

      const sqs = new SQSClient({ endpoint: services.sqsEndpoint });

      const scheduler = new TableScheduler({
        table: { doc: createDocumentClient(dynamoClient), tableName },
        sqs,
        targetArn: services.queues.publish.arn,
        log: (line) => log.warn(line),
      });
      // The in-memory queue lost whatever was in flight when the runtime last stopped. Done before
      // the scheduler starts: a schedule it fires meanwhile would look "already fired" and go twice.
      const deps = container.deps;
      const requeued = await requeueLostJobs({
        posts: deps.overduePosts,
        schedules: scheduler,
        queue: deps.queue(),
        now: new Date(),
      });
      scheduler.start();
      stops.push(async () => scheduler.stop());

      for (const consumer of assembly?.consumers ?? []) {
        const queue = services.queues[consumer.queue];
        const poller = new LocalEventSourceMapping({
          sqs,
          queueUrl: queue.url,
          queueArn: queue.arn,
          batchSize: consumer.batchSize,
          timeoutSeconds: consumer.timeoutSeconds,
          concurrency: consumer.concurrency,
          functionName: consumer.id,
          handler: consumer.handler,
        });
        poller.start();
        stops.push(() => poller.stop());
      }
      for (const worker of assembly ? [] : workers) {
        const module = (await import(
          pathToFileURL(resolve(options.root ?? REPO_ROOT, worker.entry)).href
        )) as {
          handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;
        };
        const queue = services.queues[worker.queue];
        // Receiving and deleting are the event source mapping's part; only the handler runs as the worker.
        const fn = {
          id: worker.entry,
          name: worker.entry
            .replace(/^functions\//, '')
            .replace(/\.ts$/, '')
            .replaceAll('/', '-'),
          grants: options.grantOverrides?.[worker.entry] ?? worker.grants,
        };
        const poller = new LocalEventSourceMapping({
          sqs,
          queueUrl: queue.url,
          queueArn: queue.arn,
          batchSize: worker.batchSize,
          // The context's remaining time counts down from the function's own timeout, as on AWS.
          timeoutSeconds: worker.timeoutSeconds,
          // Several batches in flight, as Lambda runs several instances of a consumer.
          concurrency: 8,
          handler: (event, context) =>
            container.run(() => runAsFunction(fn, () => module.handler(event, context))),
        });
        poller.start();
        stops.push(() => poller.stop());
      }

      // Plays the recurring schedule that sweeps stuck posts on AWS (the publish worker runs the sweep).
      const sweepPosts = () =>
        sqs
          .send(
            new SendMessageCommand({
              QueueUrl: services.queues.publish.url,
              MessageBody: POST_SWEEP_MESSAGE,
            }),
          )
          .catch((error: unknown) => log.error(`Post sweep could not be queued: ${String(error)}`));
      const postSweepTimer = setInterval(sweepPosts, env.postSweepIntervalSeconds * 1000);
      stops.push(async () => clearInterval(postSweepTimer));
      // Plays the recurring schedule that extends channels' long-lived tokens on AWS (the publish worker runs it).
      const sweepTokens = () =>
        sqs
          .send(
            new SendMessageCommand({
              QueueUrl: services.queues.publish.url,
              MessageBody: TOKEN_SWEEP_MESSAGE,
            }),
          )
          .catch((error: unknown) => log.error(`Token refresh sweep could not be queued: ${String(error)}`));
      const tokenSweepTimer = setInterval(sweepTokens, env.tokenSweepIntervalSeconds * 1000);
      stops.push(async () => clearInterval(tokenSweepTimer));

      // Plays the recurring schedule that sweeps lost webhook work on AWS; the first sweep also
      // finds what the in-memory queue lost when the runtime last stopped.
      const sweepWebhooks = () =>
        sqs
          .send(
            new SendMessageCommand({
              QueueUrl: services.queues.event.url,
              MessageBody: WEBHOOK_SWEEP_MESSAGE,
            }),
          )
          .catch((error: unknown) =>
            log.error(
              `Webhook sweep could not be queued: ${error instanceof Error ? error.message : String(error)}`,
            ),
          );
      await sweepWebhooks();
      const sweepTimer = setInterval(sweepWebhooks, env.webhookSweepIntervalSeconds * 1000);
      stops.push(async () => clearInterval(sweepTimer));

      // Plays the recurring schedule that hands out due metrics readings on AWS (the metrics worker runs it).
      const sweepMetrics = () =>
        sqs
          .send(
            new SendMessageCommand({
              QueueUrl: services.queues.metrics.url,
              MessageBody: METRICS_SWEEP_MESSAGE,
            }),
          )
          .catch((error: unknown) =>
            log.error(
              `Metrics sweep could not be queued: ${error instanceof Error ? error.message : String(error)}`,
            ),
          );
      // The first sweep at once: readings that fell due while the runtime was stopped are taken now.
      await sweepMetrics();
      const metricsSweepTimer = setInterval(sweepMetrics, env.metricsSweepIntervalSeconds * 1000);
      stops.push(async () => clearInterval(metricsSweepTimer));

      log.info(
        `  scheduler and ${assembly?.consumers.length ?? workers.length} queue consumers running` +
          `${requeued ? `, ${requeued} job${requeued === 1 ? '' : 's'} lost at the last stop requeued` : ''}` +
          ` (started in ${seconds(started)})`,
      );
      runtime = {
        container,
        simulators,
        url: httpPort.url,
        baseUrl,
        port: httpPort.port,
        seed,
        seededNow,
        ...(assembly ? { assembly } : {}),
        cognito: async () => {
          const { local, owner } = await identity();
          const { endpoint, region, userPoolId, clientId, issuer } = local;
          return { endpoint, region, userPoolId, clientId, issuer, owner };
        },
        stop: stopAll,
      };
      httpPort.serve((req, res) => container.run(() => handlers(req, res)));
      return runtime;
    });
  } catch (error) {
    await stopAll();
    if (created) rmSync(created, { recursive: true, force: true });
    throw error;
  }
};
