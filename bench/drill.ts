/**
 * `npm run drill`: the local runtime under a bounded load while it is killed with SIGKILL at
 * random moments and restarted, then checked: posts not terminal, blocks posted twice or missing,
 * webhook events lost or sent under two ids, 5xx answers. Figures go to RELIABILITY.md.
 *
 * What outlives the kills runs in this process: DynamoDB Local (its java child), the network
 * simulators (their inspection logs are the evidence of what reached a network) and the HTTPS
 * webhook receiver. The runtime (HTTP server, pollers, scheduler, S3 and SQS stand-ins) runs in a
 * child process (test/support/runtime-child.ts) restarted on the same DATA_DIR and table.
 *
 *   npm run drill [-- --quick] [--posts 300] [--kills 5] [--seed N] [--no-write] [--keep]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { claimFromItem } from '../functions/adapters/aws/dynamo/claims.ts';
import { createDocumentClient, queryByPrefix } from '../functions/adapters/aws/dynamo/client.ts';
import { keys } from '../functions/adapters/aws/dynamo/keys.ts';
import { startDynamoDbLocal } from '../functions/adapters/local/dynamodb-local.ts';
import { RUNTIME_INFO_FILE, type RuntimeInfo, type SeedFile } from '../functions/adapters/local/runtime.ts';
import { type NetworkSimulators, startNetworkSimulators } from '../functions/adapters/local/simulators.ts';
import { makeCertificates, type ReceivedDelivery, startReceiver } from '../test/support/https-receiver.ts';
import {
  checkDrill,
  type DrillFigures,
  type DrillInfo,
  type DrillObservations,
  type DrillPlan,
  defectCount,
  FIGURE_LABELS,
  type HttpAnswer,
  type NetworkRefusal,
  type ObservedPost,
  observeDelivery,
  type PlannedChannel,
  type PlannedPost,
  planDrill,
  type RoundOneSnapshot,
} from './drill-checks.ts';
import { describeOpenPost, publishJobsByPost, type QueuedJob, type ViewedChannel } from './drill-stuck.ts';
import { percentile } from './lib.ts';

const ROOT = resolve(import.meta.dirname, '..');
const REPORT_FILE = join(ROOT, 'RELIABILITY.md');

export interface DrillOptions {
  mode: 'full' | 'quick';
  posts: number;
  kills: number;
  seed: number;
  channelsPerPost: number;
  submitSeconds: number;
  /** How long the settling after the load waits without progress before it stops (at most 3× in all). */
  settleSeconds: number;
  /** How long after that the expected webhook events have to arrive. */
  eventsSeconds: number;
  rateLimits: number;
  /** No post is submitted after this many seconds of load (a slow or busy machine): the run stays bounded. */
  maxLoadSeconds: number;
  /** Write RELIABILITY.md. */
  write: boolean;
  keep: boolean;
  /** Use this DynamoDB Local instead of starting one (a test passes the suite's). */
  dynamoEndpoint?: string;
  log?: (line: string) => void;
}

export const drillOptions = (
  mode: 'full' | 'quick',
  overrides: Partial<DrillOptions> = {},
): DrillOptions => ({
  mode,
  posts: mode === 'quick' ? 40 : 300,
  kills: mode === 'quick' ? 2 : 5,
  seed: Math.floor(Math.random() * 2 ** 31),
  channelsPerPost: 3,
  submitSeconds: mode === 'quick' ? 15 : 75,
  settleSeconds: mode === 'quick' ? 45 : 90,
  eventsSeconds: mode === 'quick' ? 45 : 90,
  rateLimits: mode === 'quick' ? 1 : 3,
  maxLoadSeconds: mode === 'quick' ? 90 : 420,
  write: true,
  keep: false,
  ...overrides,
});

export interface DrillResult {
  plan: DrillPlan;
  figures: DrillFigures;
  info: DrillInfo;
  defects: number;
  durationSeconds: number;
  killsDone: {
    at: number;
    /** When the killed child had exited, ms since the epoch (what the checks compare refusals with). */
    killedAt: number;
    upSeconds: number;
    restartSeconds: number;
    submitted: number;
  }[];
  markdown: string;
  workDir: string | null;
}

// Timings the drill shortens so that a lost claim, a lost answer or a lost event is retried within
// the run (the defaults are minutes); every one is a documented setting of the runtime.
// The network timeout stays well above what a starved machine needs to answer (a timeout on
// LinkedIn is an unconfirmed outcome that fails the channel); the lease must be over twice it.
const RUNTIME_ENV = {
  NETWORK_TIMEOUT_MS: '5000',
  PUBLISH_LEASE_SECONDS: '12',
  PUBLISH_RETRY_BASE_SECONDS: '0.5',
  // The growing wait after a rate limit without an announced reset: 1, 2, 4, 8, 15 s instead of minutes.
  PUBLISH_RATE_LIMIT_PROBE_SECONDS: '1',
  WEBHOOK_TIMEOUT_SECONDS: '5',
  WEBHOOK_RETRY_BASE_SECONDS: '0.5',
  WEBHOOK_SWEEP_AFTER_SECONDS: '2',
  WEBHOOK_SWEEP_INTERVAL_SECONDS: '1',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The runtime in a child process that the drill kills and restarts on the same data. */
class ChildRuntime {
  private child: ChildProcess | null = null;
  private baseUrl: string | null = null;
  private upSince = 0;
  private waiters: (() => void)[] = [];
  starts = 0;

  constructor(
    private readonly config: {
      dataDir: string;
      tableName: string;
      dynamoEndpoint: string;
      env: Record<string, string>;
    },
    private readonly childEnv: NodeJS.ProcessEnv,
    private readonly logDir: string,
  ) {}

  get url() {
    return this.baseUrl;
  }

  get upForMs() {
    return this.baseUrl ? Date.now() - this.upSince : 0;
  }

  async whenUp(timeoutMs: number): Promise<string | null> {
    const deadline = Date.now() + timeoutMs;
    while (!this.baseUrl) {
      if (Date.now() > deadline) return null;
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 250);
      });
    }
    return this.baseUrl;
  }

  /** Starts the child and waits for its `READY <baseUrl>` line; the output goes to a log file per start. */
  async start(): Promise<number> {
    const started = Date.now();
    const log = createWriteStream(join(this.logDir, `runtime-${++this.starts}.log`));
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/runtime-child.ts'], {
      cwd: ROOT,
      env: { ...this.childEnv, HERALD_CHILD_RUNTIME: JSON.stringify(this.config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let output = '';
    const ready = new Promise<string>((resolveReady, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (output.length < 100_000) output += chunk.toString();
        const match = /READY (\S+)/.exec(output);
        if (match) resolveReady(match[1] as string);
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (output.length < 100_000) output += chunk.toString();
      });
      child.once('exit', (code, signal) => {
        log.end();
        reject(
          new Error(`The runtime exited (${code ?? signal}) before it was ready:\n${output.slice(-3000)}`),
        );
      });
    });
    const timeout = sleep(90_000).then(() => {
      throw new Error(`The runtime did not start within 90 s:\n${output.slice(-3000)}`);
    });
    const url = await Promise.race([ready, timeout]);
    this.baseUrl = url;
    this.upSince = Date.now();
    for (const wake of this.waiters.splice(0)) wake();
    return (Date.now() - started) / 1000;
  }

  /** SIGKILL: no handler runs, nothing is flushed, in-flight requests and sends are cut. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.baseUrl = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  killNow() {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null)
      this.child.kill('SIGKILL');
  }
}

interface Answer {
  status: number;
  body: any;
  text: string;
}

/** The drill's API client: a careful user's, retrying through outages with the same Idempotency-Key. */
class DrillClient {
  readonly serverErrors: HttpAnswer[] = [];
  readonly abandoned: HttpAnswer[] = [];
  connectionErrors = 0;
  retries = 0;
  /** Milliseconds per answered request (retries included), for the report. */
  readonly latencies: number[] = [];

  constructor(
    private readonly runtime: ChildRuntime,
    private readonly key: string,
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    options: { idempotencyKey?: string; budgetMs?: number } = {},
  ): Promise<Answer | null> {
    const began = Date.now();
    const deadline = began + (options.budgetMs ?? 120_000);
    let last: HttpAnswer = { method, path, status: 0, body: 'never answered' };
    while (Date.now() < deadline) {
      const base = await this.runtime.whenUp(deadline - Date.now());
      if (!base) break;
      try {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: {
            'x-api-key': this.key,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        let parsed: any = null;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // kept as text
        }
        last = { method, path, status: res.status, body: text.slice(0, 300) };
        if (res.status >= 500) {
          this.serverErrors.push(last);
          this.retries++;
          await sleep(500);
          continue;
        }
        if (res.status === 409 && parsed?.error?.code === 'idempotency_in_progress') {
          // The first attempt was cut by a kill: its in-progress record expires with its (30 s) context.
          this.retries++;
          await sleep(1000);
          continue;
        }
        this.latencies.push(Date.now() - began);
        return { status: res.status, body: parsed, text };
      } catch (error) {
        // The runtime died under the request (or before it): try again once it is back.
        this.connectionErrors++;
        this.retries++;
        last = { method, path, status: 0, body: (error as Error).message };
        await sleep(200);
      }
    }
    this.abandoned.push(last);
    return null;
  }

  /** Every page of a GET /posts query. */
  async listPosts(query: string): Promise<any[] | null> {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.request(
        'GET',
        `/posts?${query}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (page?.status !== 200) return null;
      all.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    return all;
  }
}

const live = (channel: { blocks: { remoteUrl: string | null }[] }) =>
  channel.blocks.filter((b) => b.remoteUrl !== null).length;

/** One webhook answer in twenty is a 503 on the first attempt, so retries run too (decided by the event id). */
const receiverAnswer = (request: ReceivedDelivery) => {
  const attempt = Number(request.headers['x-herald-attempt'] ?? 1);
  const id = String(request.headers['x-herald-event-id'] ?? '');
  const roll = createHash('sha256').update(id).digest()[0] as number;
  return attempt === 1 && roll < 13 ? { status: 503 } : { status: 200 };
};

export const runDrill = async (options: DrillOptions): Promise<DrillResult> => {
  const log = options.log ?? ((line: string) => console.log(line));
  const plan = planDrill({
    seed: options.seed,
    posts: options.posts,
    channelsPerPost: options.channelsPerPost,
    kills: options.kills,
    submitSeconds: options.submitSeconds,
    rateLimits: options.rateLimits,
  });
  const started = Date.now();
  log(
    `Drill (${options.mode}): seed ${options.seed}, ${plan.posts.length} posts × ${options.channelsPerPost} channels, ` +
      `${plan.kills.length} kills (after ${plan.kills.map((k) => `${k.afterPosts} posts + ${k.delaySeconds.toFixed(1)} s`).join(', ') || '-'}).`,
  );
  const workDir = mkdtempSync(join(tmpdir(), 'herald-drill-'));
  const dataDir = join(workDir, 'data');
  const childEnv = { ...process.env };
  const cleanups: (() => Promise<void> | void)[] = [];
  let runtime: ChildRuntime | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    runtime?.killNow();
    void Promise.all(cleanups.map((c) => Promise.resolve(c()).catch(() => undefined))).finally(() =>
      process.exit(signal === 'SIGINT' ? 130 : 143),
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let keepWorkDir = options.keep;
  try {
    const certs = makeCertificates();
    cleanups.push(() => certs.remove());
    const receiver = await startReceiver(certs, receiverAnswer);
    cleanups.push(() => receiver.close());
    let dynamoEndpoint = options.dynamoEndpoint;
    if (!dynamoEndpoint) {
      const dynamo = await startDynamoDbLocal({});
      cleanups.push(() => dynamo.stop());
      dynamoEndpoint = dynamo.endpoint;
    }
    // The drill connects no channel through OAuth: no callback is registered with the preset apps.
    const simulators: NetworkSimulators = await startNetworkSimulators({ redirectUris: [] });
    cleanups.push(() => simulators.stop());
    const tableName = `herald-drill-${options.seed}-${Date.now()}`;
    runtime = new ChildRuntime(
      {
        dataDir,
        tableName,
        dynamoEndpoint,
        env: {
          ...RUNTIME_ENV,
          NETWORK_BASE_URLS: JSON.stringify(simulators.baseUrls),
          WEBHOOK_EXTRA_CA_CERTS: certs.caFile,
        },
      },
      childEnv,
      workDir,
    );
    cleanups.push(() => runtime?.kill('SIGTERM'));
    const firstStart = await runtime.start();
    log(`Runtime up in ${firstStart.toFixed(1)} s.`);
    const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as SeedFile;

    // Admin work goes straight to the table, as `npm run admin` does against a running runtime.
    Object.assign(process.env, {
      HERALD_RUNTIME: 'local',
      TABLE_NAME: tableName,
      LOCAL_TOKEN_KEY_FILE: join(dataDir, 'token.key'),
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    });
    const { createContainer } = await import('../functions/runtime/container.ts');
    const { connectChannel, setPlan } = await import('../functions/core/admin/admin.ts');
    const { deps } = createContainer();
    await setPlan(deps, { accountId: seed.accountId, plan: 'unlimited' });
    const channelOf = new Map(seed.channels.map((c) => [c.platform, c.id]));
    const dedicated = new Map<string, string>();
    for (const post of plan.posts) {
      for (const channel of post.channels.filter((c) => c.dedicated)) {
        const made = await connectChannel(deps, {
          accountId: seed.accountId,
          workspaceId: seed.workspaces.main,
          platform: channel.platform,
          name: `Drill reconnect ${post.index}`,
          remoteAccountId:
            channel.platform === 'bluesky'
              ? `did:plc:drill${post.index}x${channel.slot}`
              : `drill_${post.index}_${channel.slot}`,
          accessToken: `drill-token-${plan.tag}-${post.index}-${channel.slot}`,
        });
        dedicated.set(`${post.index}/${channel.slot}`, made.channelId);
      }
    }
    const channelIdOf = (post: PlannedPost, channel: PlannedChannel) =>
      channel.dedicated
        ? (dedicated.get(`${post.index}/${channel.slot}`) as string)
        : (channelOf.get(channel.platform) as string);

    const client = new DrillClient(runtime, seed.keys.live);
    const hook = await client.request(
      'POST',
      '/webhooks',
      {
        url: receiver.url('/drill'),
        events: ['post.published', 'post.failed', 'post.partially_failed', 'channel.needs_reconnect'],
      },
      { idempotencyKey: `${plan.tag}-webhook` },
    );
    if (hook?.status !== 201) throw new Error(`Could not subscribe the webhook: ${hook?.text}`);
    const secret = hook.body.secret as string;

    const created = new Map<number, string>();
    const notCreated = new Map<number, string>();
    const roundOne: RoundOneSnapshot[] = [];
    const republishAsked = new Set<string>();
    const failOnce = new Set(
      plan.posts.filter((p) => p.channels.some((c) => c.token?.kind === 'sim:fail-once')).map((p) => p.index),
    );
    const loadStart = Date.now();
    const elapsed = () => (Date.now() - loadStart) / 1000;
    const loads: number[] = [];
    const ticker = setInterval(() => {
      loads.push(loadavg()[0] ?? 0);
      const sorted = [...client.latencies].sort((a, b) => a - b);
      log(
        `  ${elapsed().toFixed(0)} s: ${created.size}/${plan.posts.length} posts created, ${receiver.received.length} deliveries, ` +
          `client p50 ${percentile(sorted, 50)} ms, runtime ${runtime?.url ? 'up' : 'down'}, load ${loadavg()[0]?.toFixed(1)}`,
      );
    }, 10_000);
    cleanups.push(() => clearInterval(ticker));

    // 1. Submissions, four at a time, each at its planned moment (later if the runtime is down or
    // slow), until every post is submitted or the time cap passes (the load stays bounded).
    let next = 0;
    let submissionDone = false;
    const submit = async () => {
      while (next < plan.posts.length) {
        if (elapsed() > options.maxLoadSeconds) return;
        const post = plan.posts[next++] as PlannedPost;
        const wait = loadStart + post.submitAt * 1000 - Date.now();
        if (wait > 0) await sleep(wait);
        const body = {
          intent: post.intent,
          ...(post.scheduleAhead !== null
            ? { scheduledAt: new Date(Date.now() + post.scheduleAhead * 1000).toISOString() }
            : {}),
          channels: post.channels.map((channel) => ({
            channelId: channelIdOf(post, channel),
            blocks: channel.blocks.map((content) => ({ content })),
          })),
        };
        const answer = await client.request('POST', '/posts', body, {
          idempotencyKey: `${plan.tag}-create-${post.index}`,
        });
        if (answer?.status === 201) created.set(post.index, answer.body.id);
        else if (answer?.body?.error?.code === 'schedule_in_past') {
          // The planned time passed before the create got through: the post is not made (expected).
          notCreated.set(post.index, 'scheduledAt passed before the create got through');
        } else {
          notCreated.set(post.index, answer ? `${answer.status} ${answer.text.slice(0, 200)}` : 'no answer');
          if (answer)
            client.abandoned.push({
              method: 'POST',
              path: '/posts',
              status: answer.status,
              body: answer.text,
            });
        }
      }
    };
    const submissions = Promise.all(Array.from({ length: 4 }, submit)).then(() => {
      submissionDone = true;
      for (const post of plan.posts.slice(next)) notCreated.set(post.index, 'not submitted: time cap');
    });

    // 2. Kills at the planned points of the load, each once the runtime has served for a second.
    const killsDone: DrillResult['killsDone'] = [];
    const killer = (async () => {
      for (const [i, kill] of plan.kills.entries()) {
        while (!submissionDone && next < kill.afterPosts) await sleep(100);
        await sleep(kill.delaySeconds * 1000);
        await runtime.whenUp(120_000);
        if (runtime.upForMs < 1000) await sleep(1000 - runtime.upForMs);
        const upSeconds = runtime.upForMs / 1000;
        const at = elapsed();
        const submitted = next;
        await runtime.kill();
        const killedAt = Date.now();
        await sleep(kill.downSeconds * 1000);
        const restartSeconds = await runtime.start();
        killsDone.push({ at, killedAt, upSeconds, restartSeconds, submitted });
        log(
          `  kill ${i + 1}/${plan.kills.length} at ${at.toFixed(1)} s (up ${upSeconds.toFixed(1)} s, ${submitted} posts submitted); ` +
            `back in ${(kill.downSeconds + restartSeconds).toFixed(1)} s`,
        );
      }
    })();

    // 3. Short rate-limit windows on the simulators (429 with the network's retry-after).
    const limiter = (async () => {
      for (const window of plan.rateLimits) {
        while (!submissionDone && next < window.afterPosts) await sleep(100);
        simulators.byPlatform.get(window.platform)?.setRateLimited(window.seconds, window.kind);
        log(
          `  rate limit on ${window.platform} (${window.kind}, ${window.seconds} s) from ${elapsed().toFixed(1)} s`,
        );
      }
    })();

    // 4. A watcher publishes `sim:fail-once` posts again once their first round has ended.
    const republish = async (): Promise<void> => {
      const waiting = [...failOnce].filter(
        (i) => created.has(i) && !republishAsked.has(created.get(i) as string),
      );
      if (waiting.length === 0) return;
      const ended = await client.listPosts('status=failed&status=partially_published');
      for (const view of ended ?? []) {
        const index = waiting.find((i) => created.get(i) === view.id);
        if (index === undefined) continue;
        const snapshot: RoundOneSnapshot = {
          postId: view.id,
          channels: view.channels.map((c: any) => ({
            channelId: c.channelId,
            status: c.status,
            live: live(c),
          })),
        };
        const answer = await client.request('POST', `/posts/${view.id}/publish`, undefined, {
          idempotencyKey: `${plan.tag}-republish-${view.id}`,
        });
        const stored = await deps.posts.get(view.id);
        if (answer?.status === 200 || (stored?.round ?? 1) >= 2) {
          republishAsked.add(view.id);
          roundOne.push(snapshot);
        } else if (answer) {
          republishAsked.add(view.id);
          client.abandoned.push({
            method: 'POST',
            path: `/posts/${view.id}/publish`,
            status: answer.status,
            body: answer.text.slice(0, 300),
          });
        }
      }
    };
    let loadDone = false;
    const watcher = (async () => {
      while (!loadDone) {
        await republish();
        await sleep(1500);
      }
    })();

    await Promise.all([submissions, killer, limiter]);
    loadDone = true;
    await watcher;
    log(`Load done at ${elapsed().toFixed(1)} s: ${created.size} posts created, ${killsDone.length} kills.`);

    // What the drill says of a post still open when settling stops: its channels' waits and
    // `waiting`, its blocks' claims, and its publish jobs on the running child's queue.
    const table = { doc: createDocumentClient(), tableName };
    const describeOpen = async (postIds: string[]): Promise<string[]> => {
      let jobs: Map<string, QueuedJob[]> | string;
      try {
        const info = JSON.parse(readFileSync(join(dataDir, RUNTIME_INFO_FILE), 'utf8')) as RuntimeInfo;
        jobs = await publishJobsByPost(info.sqsEndpoint);
      } catch (error) {
        jobs = (error as Error).message;
      }
      const lines: string[] = [];
      for (const postId of postIds) {
        const now = Date.now();
        const [answer, stored, items] = await Promise.all([
          client.request('GET', `/posts/${postId}`, undefined, { budgetMs: 10_000 }),
          deps.posts.get(postId),
          queryByPrefix(table, keys.blockClaim(postId, '', 0).PK, 'CLAIM#'),
        ]);
        lines.push(
          ...describeOpenPost({
            postId,
            now,
            view: answer?.status === 200 ? (answer.body.channels as ViewedChannel[]) : null,
            stored,
            claims: items.map(claimFromItem),
            jobs: typeof jobs === 'string' ? jobs : (jobs.get(postId) ?? []),
          }),
        );
      }
      return lines;
    };

    // 5. Settle: every post terminal (fail-once posts after their second round). Bounded: it stops
    // when nothing has moved for settleSeconds, and after three times that in any case.
    const settleStart = Date.now();
    let lastProgress = Date.now();
    let lastOpen = Number.POSITIVE_INFINITY;
    let lastDeliveries = receiver.received.length;
    for (;;) {
      await republish();
      const open = await client.listPosts('status=publishing&status=scheduled&status=draft');
      const pendingRepublish = [...failOnce].filter(
        (i) => created.has(i) && !republishAsked.has(created.get(i) as string),
      );
      if (open && open.length === 0 && pendingRepublish.length === 0) break;
      if ((open && open.length < lastOpen) || receiver.received.length > lastDeliveries)
        lastProgress = Date.now();
      lastOpen = open?.length ?? lastOpen;
      lastDeliveries = receiver.received.length;
      const now = Date.now();
      if (
        now - lastProgress > options.settleSeconds * 1000 ||
        now - settleStart > options.settleSeconds * 3000
      ) {
        log(
          `Settling stopped with ${open?.length ?? '?'} posts open (${open
            ?.slice(0, 10)
            .map((p: any) => `${p.id} ${p.status}`)
            .join(', ')}${(open?.length ?? 0) > 10 ? ', …' : ''}).`,
        );
        for (const line of await describeOpen((open ?? []).slice(0, 10).map((p: any) => p.id as string)))
          log(line);
        break;
      }
      await sleep(2000);
    }
    log(`Settled at ${elapsed().toFixed(1)} s.`);

    // 6. What Herald says now: every post of the workspace, with remote ids and rounds from the table.
    // The rate-limit waits the channels met, per network: how many channels, and the longest wait.
    const rateLimitWaits = new Map<string, { channels: Set<string>; longestSeconds: number }>();
    const gather = async (): Promise<ObservedPost[]> => {
      const listed = (await client.listPosts('')) ?? [];
      const posts: ObservedPost[] = [];
      for (const view of listed) {
        const stored = await deps.posts.get(view.id);
        for (const event of stored?.timeline ?? []) {
          if (event.kind !== 'rate_limit_wait' || !event.until) continue;
          const platform = stored?.channels.find((c) => c.channelId === event.channelId)?.platform ?? '?';
          const waits = rateLimitWaits.get(platform) ?? { channels: new Set(), longestSeconds: 0 };
          waits.channels.add(`${view.id}/${event.channelId}`);
          waits.longestSeconds = Math.max(
            waits.longestSeconds,
            (Date.parse(event.until) - Date.parse(event.at)) / 1000,
          );
          rateLimitWaits.set(platform, waits);
        }
        posts.push({
          postId: view.id,
          status: view.status,
          round: stored?.round ?? 1,
          channels: view.channels.map((c: any) => {
            const storedChannel = stored?.channels.find((s) => s.channelId === c.channelId);
            return {
              channelId: c.channelId,
              platform: c.platform,
              status: c.status,
              error: c.error,
              publishedAt: storedChannel?.publishedAt ?? null,
              blocks: c.blocks.map((b: any, i: number) => ({
                content: b.content,
                remoteId: storedChannel?.blocks[i]?.remoteId ?? null,
              })),
            };
          }),
        });
      }
      return posts;
    };
    const posts = await gather();
    log(
      `Rate-limit waits met: ${
        [...rateLimitWaits]
          .map(
            ([platform, w]) =>
              `${platform} ${w.channels.size} channels (longest ${w.longestSeconds.toFixed(0)} s)`,
          )
          .join(', ') || 'none'
      }.`,
    );
    const channels = await client.request('GET', '/channels');
    const needsReconnect = ((channels?.body?.data ?? []) as any[])
      .filter((c) => c.status === 'needs_reconnect')
      .map((c) => c.id as string);
    // The simulators' sim-token refusals with their times, through their inspection API.
    const refusals: Record<string, NetworkRefusal[]> = {};
    for (const platform of new Set(plan.posts.flatMap((p) => p.channels.map((c) => c.platform)))) {
      const res = await fetch(`${simulators.baseUrls[platform]}/_sim/refusals`);
      if (!res.ok) throw new Error(`${platform} simulator: GET /_sim/refusals answered ${res.status}`);
      refusals[platform] = ((await res.json()) as { data: NetworkRefusal[] }).data;
    }

    const observe = (): DrillObservations => ({
      plan,
      posts,
      created,
      notCreated,
      roundOne,
      network: Object.fromEntries(
        [...simulators.byPlatform].map(([platform, sim]) => [platform, sim.records()]),
      ),
      refusals,
      kills: killsDone.map((k) => k.killedAt),
      deliveries: receiver.received.map((r) => observeDelivery(r, secret)),
      needsReconnect,
      serverErrors: client.serverErrors,
      abandoned: client.abandoned,
    });

    // 7. The events: wait (bounded) for every expected one, then a moment for late duplicates.
    const eventsDeadline = Date.now() + options.eventsSeconds * 1000;
    let result = checkDrill(observe());
    while (result.figures.eventsLost.length > 0 && Date.now() < eventsDeadline) {
      await sleep(1000);
      result = checkDrill(observe());
    }
    await sleep(3000);
    result = checkDrill(observe());
    const { figures, info } = result;
    const defects = defectCount(figures);
    const durationSeconds = (Date.now() - started) / 1000;

    const sorted = [...client.latencies].sort((a, b) => a - b);
    const markdown = report(options, plan, figures, info, killsDone, client, {
      durationSeconds,
      load: loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : (loadavg()[0] ?? 0),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    });
    log(`\n${markdown}`);
    for (const [name, findings] of Object.entries(figures) as [
      keyof DrillFigures,
      { postId?: string; detail: string }[],
    ][]) {
      for (const finding of findings.slice(0, 20))
        log(`  ${FIGURE_LABELS[name]}: ${finding.postId ? `${finding.postId}: ` : ''}${finding.detail}`);
      if (findings.length > 20) log(`  ${FIGURE_LABELS[name]}: … and ${findings.length - 20} more`);
    }
    for (const finding of info.publishedAfterKill)
      log(
        `  published after a kill between refusal and record (expected): ${finding.postId}: ${finding.detail}`,
      );
    writeFileSync(
      join(workDir, 'drill-report.json'),
      JSON.stringify({ options, plan, figures, info, killsDone, observations: observe() }, (_k, v) =>
        v instanceof Map ? Object.fromEntries(v) : v,
      ),
    );
    if (options.write) writeReport(options.mode, markdown);
    if (defects > 0) keepWorkDir = true;
    return {
      plan,
      figures,
      info,
      defects,
      durationSeconds,
      killsDone,
      markdown,
      workDir: keepWorkDir ? workDir : null,
    };
  } catch (error) {
    keepWorkDir = true;
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
    if (keepWorkDir) log(`Work directory kept (runtime logs, drill-report.json): ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
};

const machineNote = (load: number) =>
  `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), Node ${process.version}, shared with other work (mean load average during the run ${load.toFixed(1)})`;

const report = (
  options: DrillOptions,
  plan: DrillPlan,
  figures: DrillFigures,
  info: DrillInfo,
  kills: DrillResult['killsDone'],
  client: DrillClient,
  stats: { durationSeconds: number; load: number; p50: number; p99: number },
) => {
  const command = [
    'npm run drill --',
    options.mode === 'quick' ? '--quick' : '',
    `--posts ${options.posts}`,
    `--kills ${options.kills}`,
    `--seed ${options.seed}`,
  ]
    .filter(Boolean)
    .join(' ');
  const tokens = plan.posts.flatMap((p) =>
    p.channels.filter((c) => c.token).map((c) => c.token?.kind as string),
  );
  const tokenCounts = Object.entries(
    tokens.reduce<Record<string, number>>((acc, t) => {
      acc[t] = (acc[t] ?? 0) + 1;
      return acc;
    }, {}),
  )
    .map(([t, n]) => `${n} \`${t}\``)
    .join(', ');
  const threads = plan.posts.flatMap((p) => p.channels).filter((c) => c.blocks.length > 1).length;
  const scheduled = plan.posts.filter((p) => p.intent === 'schedule').length;
  const rows = (Object.keys(FIGURE_LABELS) as (keyof DrillFigures)[])
    .map((name) => `| ${FIGURE_LABELS[name]} | **${figures[name].length}** |`)
    .join('\n');
  const expected = Object.entries(info.expectedFailures)
    .map(([t, n]) => `${n} \`${t}\``)
    .join(', ');
  return `## ${options.mode === 'quick' ? 'Quick run' : 'Full run'}

Command: \`${command}\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${stats.durationSeconds.toFixed(0)} s).
Machine: ${machineNote(stats.load)}.

Load: ${plan.posts.length} posts × ${options.channelsPerPost} channels (of x, bluesky, linkedin, threads, facebook),
${threads} of the channels with threads of 2-3 blocks, ${scheduled} scheduled 6-25 s ahead, sim tokens on ${tokens.length} channels
(${tokenCounts || 'none'}), ${plan.rateLimits.length} rate-limit windows of 1-3 s on a simulator, webhooks
subscribed to every event (one first attempt in twenty answered 503). The runtime was killed with SIGKILL
${kills.length} times (at ${kills.map((k) => `${k.at.toFixed(0)} s after ${k.submitted} posts`).join(', ') || '-'}) and restarted on the same data;
the client met ${client.connectionErrors} connection errors and retried ${client.retries} requests (answer
time with retries: p50 ${stats.p50} ms, p99 ${stats.p99} ms).

| defect figure (expected 0) | count |
|---|---|
${rows}

Expected by design (not defects): ${info.posts} posts, ${info.channels} channels, ${info.blocks} blocks; ${info.blocksOnNetworks} blocks reached the simulators;
failed channels as their sim token asks: ${expected || 'none'}; ${info.republished} \`sim:fail-once\`
posts published again; ${info.deliveries} deliveries of ${info.distinctEvents} events. Posts of the plan not made: ${
    Object.entries(info.notCreated)
      .map(([reason, n]) => `${n} (${reason})`)
      .join(', ') || 'none'
  }.
\`sim:fail-once\` channels published because a kill fell between the network's refusal and Herald's record of it (expected, every block live once): ${info.publishedAfterKill.length}.
`;
};

const HEADER = `# Reliability drill

Produced by \`npm run drill\` (full) or \`npm run drill -- --quick\`; each mode rewrites its own section.
The drill runs the local runtime in a child process under load, kills it with SIGKILL at random moments
(seeded: \`--seed\` replays the same plan, not the same interleaving) and restarts it on the same data,
then checks what reached the network simulators and the webhook receiver against what Herald reports.
Every figure in the first table is a defect and is expected to be 0; the drill exits 1 otherwise.
`;

const writeReport = (mode: string, markdown: string) => {
  const start = `<!-- drill:${mode}:start -->`;
  const end = `<!-- drill:${mode}:end -->`;
  let current = HEADER;
  try {
    current = readFileSync(REPORT_FILE, 'utf8');
  } catch {
    // first run
  }
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  writeFileSync(
    REPORT_FILE,
    from >= 0 && to > from
      ? `${current.slice(0, from)}${block}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${block}\n`,
  );
};

const main = async () => {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      posts: { type: 'string' },
      kills: { type: 'string' },
      seed: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(
      'Usage: npm run drill [-- --quick] [--posts N] [--kills K] [--seed S] [--no-write] [--keep]\n' +
        '  full: 300 posts, 5 kills (a few minutes); --quick: 40 posts, 2 kills (about a minute)',
    );
    return 0;
  }
  const int = (name: string, raw: string | undefined) => {
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number ≥ 0`);
    return value;
  };
  const posts = int('posts', values.posts);
  const kills = int('kills', values.kills);
  const seed = int('seed', values.seed);
  const options = drillOptions(values.quick ? 'quick' : 'full', {
    ...(posts !== undefined ? { posts: Math.max(1, posts) } : {}),
    ...(kills !== undefined ? { kills } : {}),
    ...(seed !== undefined ? { seed } : {}),
    write: !values['no-write'],
    keep: values.keep,
  });
  const result = await runDrill(options);
  console.log(
    result.defects === 0
      ? `Drill passed: every figure is 0 (seed ${options.seed}, ${result.durationSeconds.toFixed(0)} s).`
      : `Drill found ${result.defects} defects (seed ${options.seed}); replay with --seed ${options.seed}.`,
  );
  return result.defects === 0 ? 0 : 1;
};

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`drill: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(2);
    },
  );
}
