/**
 * Publishing benchmark: 1,000 posts × 3 channels (X, Bluesky, LinkedIn) published through the
 * local runtime's queue and workers against the network simulators, beside the simulators' own
 * capacity measured with the same clients; the engine alone on 1,000 posts made publishing at
 * once; what each block costs (table operations, RCU/WCU, SQS messages, Lambda invocations,
 * counted by middleware on the SDK clients); create → published latency of single posts; and
 * scheduling precision for 200 posts scheduled a few seconds ahead (publication start − scheduledAt).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentFunction } from '../functions/adapters/local/grant-guard.ts';
import { startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import {
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from '../functions/core/admin/admin.ts';
import { mutatePost, startRound } from '../functions/core/publishing/engine.ts';
import { getDeps } from '../functions/runtime/container.ts';
import { machineLine, measure, ms, percentile, ratio, writeSection } from './lib.ts';

const POSTS = Number(process.env.BENCH_PUBLISH_POSTS ?? 1000);
const SCHEDULED = Number(process.env.BENCH_SCHEDULED_POSTS ?? 200);
const LATENCY_POSTS = Number(process.env.BENCH_LATENCY_POSTS ?? 50);
const ENGINE_POSTS = Number(process.env.BENCH_ENGINE_POSTS ?? 300);
const PLATFORMS = ['x', 'bluesky', 'linkedin'] as const;
const PUBLISH_WORKER = 'functions/workers/publish.ts';

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** What the publish worker asked of DynamoDB, and what every function put on the queues. */
interface Counts {
  ops: number;
  refused: number;
  byCommand: Map<string, number>;
  rcu: number;
  wcu: number;
  messages: Map<string, number>;
}

const emptyCounts = (): Counts => ({
  ops: 0,
  refused: 0,
  byCommand: new Map(),
  rcu: 0,
  wcu: 0,
  messages: new Map(),
});

type Middleware = (
  next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>,
  context: { clientName?: string; commandName?: string },
) => (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>;

interface StackOwner {
  middlewareStack: { add(middleware: Middleware, options: { step: 'initialize'; name: string }): void };
}

/**
 * Counts, on the SDK clients the functions share (the local runtime runs every function in this
 * process and tells which one is running): every DynamoDB request the publish worker makes, with
 * the capacity DynamoDB Local reports for it (AWS's rules: 1 WCU per started KB written, 2 in a
 * transaction; 1 RCU per started 4 KB read strongly, half eventually, 2x in a transaction), and
 * every message any function sends to a queue.
 */
const countCalls = (deps: ReturnType<typeof getDeps>) => {
  let counts = emptyCounts();
  const add = (map: Map<string, number>, key: string, n = 1) => map.set(key, (map.get(key) ?? 0) + n);
  const dynamo: Middleware = (next, context) => async (args) => {
    if (currentFunction()?.id !== PUBLISH_WORKER) return next(args);
    const into = counts;
    into.ops++;
    add(into.byCommand, (context.commandName ?? '?').replace(/Command$/, ''));
    args.input.ReturnConsumedCapacity ??= 'TOTAL';
    try {
      const out = await next(args);
      const consumed = out.output.ConsumedCapacity as Capacity | Capacity[] | undefined;
      for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
        into.rcu += c.ReadCapacityUnits ?? 0;
        into.wcu += c.WriteCapacityUnits ?? 0;
        // Some answers carry only the total: a read command's is reads, anything else's writes.
        if (c.ReadCapacityUnits === undefined && c.WriteCapacityUnits === undefined) {
          const reads = /^(Get|Query|Scan|BatchGet|TransactGet)/.test(context.commandName ?? '');
          if (reads) into.rcu += c.CapacityUnits ?? 0;
          else into.wcu += c.CapacityUnits ?? 0;
        }
      }
      return out;
    } catch (error) {
      into.refused++;
      if (process.env.BENCH_DEBUG) {
        const e = error as Error & { CancellationReasons?: { Code?: string }[] };
        const why = `${context.commandName} ${e.name} ${(e.CancellationReasons ?? []).map((r) => r.Code).join('/')}`;
        add(into.byCommand, `refused: ${why}`);
      }
      throw error;
    }
  };
  const sqs: Middleware = (next, context) => async (args) => {
    if (currentFunction()) {
      const queue =
        String(args.input.QueueUrl ?? '')
          .split('/')
          .at(-1) ?? '?';
      const entries =
        context.commandName === 'SendMessageBatchCommand' ? (args.input.Entries as unknown[]) : null;
      if (context.commandName === 'SendMessageCommand') add(counts.messages, queue);
      else if (entries) add(counts.messages, queue, entries.length);
    }
    return next(args);
  };
  (deps.dynamo as unknown as StackOwner).middlewareStack.add(dynamo, {
    step: 'initialize',
    name: 'benchCount',
  });
  (deps.sqs() as unknown as StackOwner).middlewareStack.add(sqs, { step: 'initialize', name: 'benchCount' });
  return {
    /** Starts counting afresh; returns what was counted since the last reset. */
    reset: (): Counts => {
      const done = counts;
      counts = emptyCounts();
      return done;
    },
  };
};

const queueName = (url: string) => url.split('/').at(-1) ?? url;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const runPublishing = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-publish-'));
  const runtime = await startLocalRuntime({ dataDir, port: 0, fresh: true, rateLimitPerMinute: 10_000_000 });
  try {
    const deps = getDeps();
    const account = await createAccount(deps, { name: 'Bench', plan: 'unlimited' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'bench' });
    const { secret } = await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'write',
      name: 'b',
    });
    const channelIds: string[] = [];
    for (const platform of PLATFORMS) {
      channelIds.push(
        (
          await connectChannel(deps, {
            accountId: account.accountId,
            workspaceId: ws.workspaceId,
            platform,
            name: platform,
            remoteAccountId: `bench_${platform}`,
            accessToken: 'bench-token',
          })
        ).channelId,
      );
    }
    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${runtime.baseUrl}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { 'x-api-key': secret, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as {
        id: string;
        status: string;
        nextCursor?: string | null;
        data?: unknown[];
      };
    };

    // 1. The simulators' own capacity: the same clients, called directly, same concurrency.
    const total = POSTS * PLATFORMS.length;
    const clients = PLATFORMS.map((p) => deps.networks(p, 'live'));
    const capacity = await measure(total, 12, async (i) => {
      const client = clients[i % clients.length];
      await client?.publish({
        credentials: { accessToken: 'bench-token', remoteAccountId: `cap_${PLATFORMS[i % 3]}` },
        content: `capacity ${i}`,
        media: [],
        title: null,
        postType: null,
        options: {},
        parent: null,
        idempotencyKey: `cap.${i}`,
        round: 1,
      });
    });

    const counter = countCalls(deps);
    const untilNonePublishing = async () => {
      let remaining = 1;
      while (remaining > 0) {
        await sleep(250);
        let count = 0;
        let cursor: string | null | undefined = null;
        do {
          const page = await api(`/posts?status=publishing&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
          count += page.data?.length ?? 0;
          cursor = page.nextCursor;
        } while (cursor);
        remaining = count;
      }
    };
    const channels = (label: string) =>
      channelIds.map((channelId, c) => ({ channelId, blocks: [{ content: `${label} on ${PLATFORMS[c]}` }] }));

    // 2. The engine: create every post with intent now, then wait until none is publishing.
    counter.reset();
    const started = performance.now();
    const ids: string[] = [];
    await measure(POSTS, 8, async (i) => {
      const post = await api('/posts', { intent: 'now', channels: channels(`bench ${i}`) });
      ids.push(post.id);
    });
    const created = performance.now();
    await untilNonePublishing();
    const finished = performance.now();
    // Late work of these posts (events handed on) has had the polling's time to finish.
    const counted = counter.reset();
    const failed = (await api('/posts?status=failed&status=partially_published&limit=100')).data?.length ?? 0;
    const seconds = (finished - started) / 1000;
    const engineBlocksPerSecond = total / seconds;

    // 2b. The engine alone: drafts made publishing at once (as POST /posts/{id}/publish does, without
    // its HTTP calls), every job queued, until none is publishing (each post read until it is done,
    // oldest first: a light poll that leaves the table to the engine).
    const drafts: string[] = [];
    await measure(ENGINE_POSTS, 8, async (i) => {
      drafts.push((await api('/posts', { intent: 'draft', channels: channels(`engine ${i}`) })).id);
    });
    const jobs: { postId: string; round: number }[] = [];
    await measure(drafts.length, 8, async (i) => {
      const postId = drafts[i] as string;
      const { post } = await mutatePost(deps, postId, (current) => ({
        next: startRound(current, new Date()),
      }));
      jobs.push({ postId, round: post.round ?? 1 });
    });
    const engineStarted = performance.now();
    await measure(jobs.length, 8, async (i) => {
      const job = jobs[i] as { postId: string; round: number };
      await deps.queue().sendPublish({ postId: job.postId, kind: 'run', round: job.round });
    });
    for (const { postId } of jobs) {
      for (;;) {
        const stored = await deps.posts.get(postId);
        if (stored?.status !== 'publishing') break;
        await sleep(50);
      }
    }
    const engineSeconds = (performance.now() - engineStarted) / 1000;
    const engineBlocks = ENGINE_POSTS * PLATFORMS.length;
    const engineOnlyPerSecond = engineBlocks / engineSeconds;

    // 2c. Latency: one post with 3 channels at a time, from the POST's answer to `published` in the table.
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_POSTS; i++) {
      const post = await api('/posts', { intent: 'now', channels: channels(`latency ${i}`) });
      const answered = performance.now();
      const deadline = Date.now() + 60_000;
      for (;;) {
        const stored = await deps.posts.get(post.id);
        if (stored?.status === 'published') break;
        if (stored && stored.status !== 'publishing')
          throw new Error(`post ${post.id} ended ${stored.status}`);
        if (Date.now() > deadline) throw new Error(`post ${post.id} never published`);
        await sleep(5);
      }
      latencies.push(performance.now() - answered);
    }
    latencies.sort((a, b) => a - b);
    counter.reset();

    // 3. Scheduling precision.
    const lead = 8000;
    const at = (i: number) => new Date(Date.now() + lead + (i % 20) * 50).toISOString();
    const scheduledIds: string[] = [];
    await measure(SCHEDULED, 8, async (i) => {
      const post = await api('/posts', {
        intent: 'schedule',
        scheduledAt: at(i),
        channels: [{ channelId: channelIds[1], blocks: [{ content: `scheduled ${i}` }] }],
      });
      scheduledIds.push(post.id);
    });
    const deadline = Date.now() + 60_000;
    const lags: number[] = [];
    for (const id of scheduledIds) {
      for (;;) {
        const post = await deps.posts.get(id);
        if (post?.roundStartedAt && post.scheduledAt) {
          lags.push(Date.parse(post.roundStartedAt) - Date.parse(post.scheduledAt));
          break;
        }
        if (Date.now() > deadline) throw new Error(`post ${id} never started`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    lags.sort((a, b) => a - b);

    const perBlock = (n: number) => (n / total).toFixed(2);
    const perPost = (n: number) => (n / POSTS).toFixed(2);
    const sumOf = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
    const byCommand = (c: Counts) =>
      [...c.byCommand]
        .sort((a, b) => b[1] - a[1])
        .map(([command, n]) => `${command} ${perBlock(n)}`)
        .join(', ');
    const md = `## Publishing engine (issues 4 and 16)

Command: \`npm run bench -- publishing\` (${POSTS} posts × ${PLATFORMS.length} channels; ${SCHEDULED} scheduled posts).
${machineLine()}

| what | blocks | wall time | blocks/s |
|---|---|---|---|
| simulators' own capacity (the same clients called directly, 12 in flight) | ${total} | ${(capacity.count / capacity.perSecond).toFixed(1)} s | ${capacity.perSecond.toFixed(0)} |
| Herald: ${POSTS} posts created with intent \`now\` (8 in flight) until none is publishing | ${total} | ${seconds.toFixed(1)} s | ${engineBlocksPerSecond.toFixed(0)} |
| ratio (Herald / simulators) | | | ${ratio(engineBlocksPerSecond, capacity.perSecond)} |
| the engine alone: ${ENGINE_POSTS} drafts made publishing at once, one job each queued, until none is publishing | ${engineBlocks} | ${engineSeconds.toFixed(1)} s | ${engineOnlyPerSecond.toFixed(0)} |
| ratio (engine alone / simulators) | | | ${ratio(engineOnlyPerSecond, capacity.perSecond)} |

Creating the posts took ${((created - started) / 1000).toFixed(1)} s of the first run; ${failed} posts did not end published.
Everything runs against DynamoDB Local and the SQS stand-in on the same two cores as the simulators.
Per block, in the common case (one block per channel, sent at once), the publish worker reads the
channel (GetItem), claims the block (UpdateItem), and in one transaction records the block, settles
its claim as sent, completes the channel (and the post, for its last channel) and writes the outbox
event; one Query per job reads the post for all its channels, and the writes start from that copy.
Starting the channel's metrics readings is one more transaction (the post's and the platform's
counts with the tracker).

Create → published latency, ${latencies.length} posts with 3 channels one after another (intent \`now\`; from the
POST's answer to \`published\` in the table, polled every 5 ms): p50 **${ms(percentile(latencies, 50))}**,
p99 **${ms(percentile(latencies, 99))}**, max ${ms(latencies.at(-1) ?? Number.NaN)}.

What the first run cost, counted by middleware on the SDK clients (the publish worker's DynamoDB
requests, with the capacity DynamoDB Local reports under AWS's rules; every function's queue messages):

| per | measure | value |
|---|---|---|
| block | table operations of the publish worker | ${perBlock(counted.ops)} (${byCommand(counted)}) |
| block | of which refused (condition or transaction conflict) | ${perBlock(counted.refused)} |
| block | read capacity units | ${perBlock(counted.rcu)} |
| block | write capacity units | ${perBlock(counted.wcu)} |
| post | SQS messages sent | ${perPost(sumOf(counted.messages))} (${[...counted.messages].map(([q, n]) => `${queueName(q)} ${perPost(n)}`).join(', ')}) |
| post | Lambda invocations, one per message (no batching) | ${perPost(POSTS + sumOf(counted.messages))} (POST /v1/posts 1, the queue workers one per message) |

The worker's queue batches hold up to 10 messages, so under load fewer invocations carry the same
messages; the count above is the most there can be. Each SQS message is also received and deleted
(three requests per message when nothing is batched).

Scheduling precision (publication start − scheduledAt, ${lags.length} posts scheduled ~${lead / 1000} s ahead;
the schedule fires 5 s early and the queue delay plus a short sleep close the gap):
p50 **${ms(percentile(lags, 50))}**, p99 **${ms(percentile(lags, 99))}**, max ${ms(lags.at(-1) ?? Number.NaN)}, min ${ms(lags[0] ?? Number.NaN)}.
`;
    writeSection('publishing', md);
    console.log(md);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
