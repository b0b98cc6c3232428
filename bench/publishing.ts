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
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../functions/adapters/aws/dynamo/client.ts';
import { currentFunction } from '../functions/adapters/local/grant-guard.ts';
import { startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import {
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from '../functions/core/admin/admin.ts';
import { mutatePost, startRound } from '../functions/core/publishing/engine.ts';
import { type PublishJob, runJob } from '../functions/ports/publishing.ts';
import type { Deps } from '../functions/runtime/container.ts';
import { awsCapacity, batchedSizeOf } from './capacity.ts';
import { ASSUMED_LAMBDA_SECONDS } from './cost.ts';
import { machineLine, measure, ms, PRICES, percentile, ratio, usd, writeSection } from './lib.ts';

const POSTS = Number(process.env.BENCH_PUBLISH_POSTS ?? 1000);
const SCHEDULED = Number(process.env.BENCH_SCHEDULED_POSTS ?? 200);
const LATENCY_POSTS = Number(process.env.BENCH_LATENCY_POSTS ?? 50);
const ENGINE_POSTS = Number(process.env.BENCH_ENGINE_POSTS ?? 300);
const PLATFORMS = ['x', 'bluesky', 'linkedin'] as const;
const PUBLISH_WORKER = 'functions/workers/publish.ts';
const DISPATCH_WORKER = 'functions/workers/webhook-dispatch.ts';
const COST_POSTS = Number(process.env.BENCH_COST_POSTS ?? 100);
/** Memory of every function (lib/constructs/handler-function.ts). */
const LAMBDA_GB = 0.5;
/**
 * Billed time per invocation on AWS, assumed (DynamoDB Local's timings say nothing of AWS's): an
 * HTTP route a few DynamoDB round trips; a publish job one network request per block, about 400 ms
 * with the real networks; an event or a metrics job a few DynamoDB calls. The cost script
 * (`npm run cost`) assumes the same.
 */
const ASSUMED_SECONDS = ASSUMED_LAMBDA_SECONDS;

/** What one function asked of DynamoDB and SQS. */
interface FunctionCounts {
  ops: number;
  /** Refused by a condition or a transaction conflict (AWS charges them as well). */
  refused: number;
  byCommand: Map<string, number>;
  rcu: number;
  wcu: number;
  /** SQS requests (sends). */
  sqsRequests: number;
}

const emptyCounts = (): FunctionCounts => ({
  ops: 0,
  refused: 0,
  byCommand: new Map(),
  rcu: 0,
  wcu: 0,
  sqsRequests: 0,
});

/** What every function asked, by function, and the messages put on each queue. */
interface Counted {
  functions: Map<string, FunctionCounts>;
  messages: Map<string, number>;
}

type Middleware = (
  next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>,
  context: { clientName?: string; commandName?: string },
) => (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>;

interface StackOwner {
  middlewareStack: { add(middleware: Middleware, options: { step: 'initialize'; name: string }): void };
}

/**
 * One counter on the SDK clients the functions share (the local runtime runs every function in
 * this process and tells which one is running): every DynamoDB request of every function, priced
 * by AWS's on-demand rules (\`bench/capacity.ts\`; DynamoDB Local undercounts transactions), and
 * every SQS request and queue message. Requests are kept as they are made and priced when the
 * counts are taken, so the timed runs do no extra reads: item sizes are those of the items then,
 * read in batches with a client of our own, outside any function.
 */
const counter = (deps: Deps, environment: Record<string, string | undefined>) => {
  const lookup = createDocumentClient(
    new DynamoDBClient({ endpoint: environment.AWS_ENDPOINT_URL_DYNAMODB as string }),
  );
  let requests: {
    fn: string;
    command: string;
    input: Record<string, unknown>;
    output: Record<string, unknown>;
  }[] = [];
  let refused = new Map<string, number>();
  let sqs = new Map<string, number>();
  let messages = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, n = 1) => map.set(key, (map.get(key) ?? 0) + n);
  const dynamo: Middleware = (next, context) => async (args) => {
    const fn = currentFunction()?.id;
    if (!fn) return next(args);
    const command = (context.commandName ?? '?').replace(/Command$/, '');
    const into = requests;
    try {
      const out = await next(args);
      into.push({ fn, command, input: args.input, output: out.output });
      return out;
    } catch (error) {
      into.push({ fn, command, input: args.input, output: {} });
      add(refused, fn);
      throw error;
    }
  };
  const sqsCount: Middleware = (next, context) => async (args) => {
    const fn = currentFunction()?.id;
    if (fn) {
      add(sqs, fn);
      const entries =
        context.commandName === 'SendMessageBatchCommand' ? (args.input.Entries as unknown[]).length : 1;
      if (/^SendMessage/.test(context.commandName ?? ''))
        add(messages, queueName(String(args.input.QueueUrl ?? '')), entries);
    }
    return next(args);
  };
  (deps.dynamo as unknown as StackOwner).middlewareStack.add(dynamo, {
    step: 'initialize',
    name: 'benchCount',
  });
  (deps.sqs() as unknown as StackOwner).middlewareStack.add(sqsCount, {
    step: 'initialize',
    name: 'benchCount',
  });
  return {
    /** Starts counting afresh, dropping what was counted. */
    discard: () => {
      requests = [];
      refused = new Map();
      sqs = new Map();
      messages = new Map();
    },
    /** Starts counting afresh and returns what was counted since the last take, priced. */
    take: async (): Promise<Counted> => {
      const taken = { requests, refused, sqs, messages };
      requests = [];
      refused = new Map();
      sqs = new Map();
      messages = new Map();
      const sizeOf = batchedSizeOf(lookup);
      const functions = new Map<string, FunctionCounts>();
      const of = (fn: string) => {
        const c = functions.get(fn) ?? emptyCounts();
        functions.set(fn, c);
        return c;
      };
      await Promise.all(
        taken.requests.map(async ({ fn, command, input, output }) => {
          const capacity = await awsCapacity(command, input, output, sizeOf);
          const c = of(fn);
          c.ops++;
          add(c.byCommand, command);
          c.rcu += capacity.rcu;
          c.wcu += capacity.wcu;
        }),
      );
      for (const [fn, n] of taken.refused) of(fn).refused += n;
      for (const [fn, n] of taken.sqs) of(fn).sqsRequests += n;
      return { functions, messages: taken.messages };
    },
  };
};

const queueName = (url: string) => url.split('/').at(-1) ?? url;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const runPublishing = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-publish-'));
  const runtime = await startLocalRuntime({ dataDir, port: 0, fresh: true, rateLimitPerMinute: 10_000_000 });
  try {
    const deps = runtime.container.deps;
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
            // A Bluesky account is its DID.
            remoteAccountId: platform === 'bluesky' ? 'did:plc:benchbluesky' : `bench_${platform}`,
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
        // A Bluesky account is its DID (the simulator checks the repo's format).
        credentials: {
          accessToken: 'bench-token',
          remoteAccountId:
            PLATFORMS[i % 3] === 'bluesky' ? 'did:plc:benchcapacity' : `cap_${PLATFORMS[i % 3]}`,
        },
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

    const count = counter(deps, runtime.container.environment);
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
    count.discard();
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
    const counted = await count.take();
    const worker = counted.functions.get(PUBLISH_WORKER) ?? emptyCounts();
    const dispatcher = counted.functions.get(DISPATCH_WORKER) ?? emptyCounts();
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
    // Each job's message as POST /posts/{id}/publish sends it (naming the channels left).
    const jobs: PublishJob[] = [];
    await measure(drafts.length, 8, async (i) => {
      const postId = drafts[i] as string;
      const { post } = await mutatePost(deps, postId, (current) => ({
        next: startRound(current, new Date()),
      }));
      jobs.push(runJob(post));
    });
    const engineStarted = performance.now();
    await measure(jobs.length, 8, async (i) => {
      await deps.queue().sendPublish(jobs[i] as PublishJob);
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
    count.discard();

    // 2d. Cost: posts with 3 channels created over HTTP and published, every function's DynamoDB
    // requests priced by AWS's rules and its SQS requests counted.
    count.discard();
    const costIds: string[] = [];
    await measure(COST_POSTS, 4, async (i) => {
      costIds.push((await api('/posts', { intent: 'now', channels: channels(`cost ${i}`) })).id);
    });
    for (const id of costIds) {
      for (;;) {
        const stored = await deps.posts.get(id);
        if (stored?.status !== 'publishing') break;
        await sleep(50);
      }
    }
    // The events the last posts handed on are dispatched by now.
    await sleep(3000);
    const spent = await count.take();

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
    const byCommand = (c: FunctionCounts, per: (n: number) => string = perBlock) =>
      [...c.byCommand]
        .sort((a, b) => b[1] - a[1])
        .map(([command, n]) => `${command} ${per(n)}`)
        .join(', ');
    // One event per channel: the dispatcher's counts per event are per block.
    let costOps = 0;
    let costRcuAll = 0;
    let costWcuAll = 0;
    for (const c of spent.functions.values()) {
      costOps += c.ops;
      costRcuAll += c.rcu;
      costWcuAll += c.wcu;
    }
    const costRcu = costRcuAll / COST_POSTS;
    const costWcu = costWcuAll / COST_POSTS;
    const costSends = [...spent.functions.values()].reduce((a, c) => a + c.sqsRequests, 0);
    const costMessages = [...spent.messages.values()].reduce((a, b) => a + b, 0) / COST_POSTS;
    const publishMessages =
      [...spent.messages].filter(([q]) => q.includes('publish')).reduce((a, [, n]) => a + n, 0) / COST_POSTS;
    const invocations = 1 + costMessages;
    const gbSeconds =
      LAMBDA_GB *
      (ASSUMED_SECONDS.http +
        PLATFORMS.length * ASSUMED_SECONDS.publishPerBlock +
        (costMessages - publishMessages) * ASSUMED_SECONDS.queueJob);
    const sqsTotal = costSends / COST_POSTS + 2 * costMessages;
    const totalUsd =
      costRcu * PRICES.dynamoReadPerMillion +
      costWcu * PRICES.dynamoWritePerMillion +
      invocations * PRICES.lambdaPerMillionRequests +
      gbSeconds * 1e6 * PRICES.lambdaArmPerGbSecond +
      sqsTotal * PRICES.sqsPerMillionRequests +
      PLATFORMS.length * PRICES.kmsPerMillionRequests;
    const lastCost = costIds.at(-1);
    const postBytes = lastCost
      ? Buffer.byteLength(JSON.stringify((await deps.posts.get(lastCost)) ?? {}))
      : 0;

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
Per block, in the common case (one block per channel, sent at once), the publish worker claims the
block (UpdateItem) and, in one transaction, records the block, settles its claim as sent, completes
the channel (and the post, for its last channel), starts the channel's metrics tracking (the post's
and the platform's counts with the tracker) and writes the outbox event, or, as here, where the
workspace has no webhook endpoint, checks that its count of endpoints is still 0 instead (no event
kept, no event message, no dispatcher). The channels of one job whose answers come in at the same
moment (as the simulators' do) are completed in one transaction between them. Per job, one
BatchGetItem reads the post, the channels its message names and the workspace's endpoint count (the
writes start from that copy of the post). In a workspace with
an endpoint, the webhook dispatcher reads the workspace's endpoints (once per queue batch) per event,
takes the event out of the outbox (UpdateItem), and reads the event itself only when there is
something to deliver (\`npm run bench -- webhooks\`).

Create → published latency, ${latencies.length} posts with 3 channels one after another (intent \`now\`; from the
POST's answer to \`published\` in the table, polled every 5 ms): p50 **${ms(percentile(latencies, 50))}**,
p99 **${ms(percentile(latencies, 99))}**, max ${ms(latencies.at(-1) ?? Number.NaN)}.

What the first run cost, counted by middleware on the SDK clients (every DynamoDB request of the
publish worker and of the webhook dispatcher, priced by AWS's on-demand rules as \`bench/capacity.ts\`
reads them, with the sizes of the items at the end of the run; every function's queue messages):

| per | measure | value |
|---|---|---|
| block | table operations of the publish worker | ${perBlock(worker.ops)} (${byCommand(worker)}) |
| block | of which refused (condition or transaction conflict) | ${perBlock(worker.refused)} |
| block | read capacity units (publish worker) | ${perBlock(worker.rcu)} |
| block | write capacity units (publish worker) | ${perBlock(worker.wcu)} |
| block | table operations of the webhook dispatcher (no endpoint: no event kept) | ${perBlock(dispatcher.ops)}${dispatcher.ops > 0 ? ` (${byCommand(dispatcher)})` : ''} |
| block | read / write capacity units (webhook dispatcher) | ${perBlock(dispatcher.rcu)} / ${perBlock(dispatcher.wcu)} |
| post | SQS messages sent | ${perPost(sumOf(counted.messages))} (${[...counted.messages].map(([q, n]) => `${queueName(q)} ${perPost(n)}`).join(', ')}) |
| post | Lambda invocations, one per message (no batching) | ${perPost(POSTS + sumOf(counted.messages))} (POST /v1/posts 1, the queue workers one per message) |

The worker's queue batches hold up to 10 messages, so under load fewer invocations carry the same
messages; the count above is the most there can be. Each SQS message is also received and deleted
(three requests per message when nothing is batched).

### Cost on paper: 1,000,000 posts × 3 channels (issue 16)

Counted on ${COST_POSTS} posts with 3 channels (X, Bluesky, LinkedIn; one block each, intent \`now\`, no webhook
endpoint, so no event is kept) created over HTTP and published: every function's DynamoDB requests priced by AWS's on-demand
rules (\`bench/capacity.ts\`: DynamoDB Local undercounts transactions) and its SQS requests. Per post:

| function | DynamoDB requests | RCU | WCU | SQS sends |
|---|---|---|---|---|
${[...spent.functions]
  .filter(([, c]) => c.ops > 0 || c.sqsRequests > 0)
  .sort((a, b) => b[1].wcu - a[1].wcu)
  .map(
    ([fn, c]) =>
      `| \`${fn}\` | ${(c.ops / COST_POSTS).toFixed(2)} | ${(c.rcu / COST_POSTS).toFixed(2)} | ${(c.wcu / COST_POSTS).toFixed(2)} | ${(c.sqsRequests / COST_POSTS).toFixed(2)} |`,
  )
  .join('\n')}
| **all** | ${(costOps / COST_POSTS).toFixed(2)} | **${costRcu.toFixed(2)}** | **${costWcu.toFixed(2)}** | ${(costSends / COST_POSTS).toFixed(2)} |

Queue messages per post: ${[...spent.messages].map(([q, n]) => `${q} ${(n / COST_POSTS).toFixed(2)}`).join(', ')}.

| per 1,000,000 posts × 3 channels | count per post | how | cost |
|---|---|---|---|
| DynamoDB reads | ${costRcu.toFixed(2)} RCU | on-demand, $${PRICES.dynamoReadPerMillion}/M read units | ${usd(costRcu * PRICES.dynamoReadPerMillion)} |
| DynamoDB writes | ${costWcu.toFixed(2)} WCU | on-demand, $${PRICES.dynamoWritePerMillion}/M write units | ${usd(costWcu * PRICES.dynamoWritePerMillion)} |
| Lambda requests | ${invocations.toFixed(2)} | 1 HTTP + one per queue message (the most: batches carry several) | ${usd(invocations * PRICES.lambdaPerMillionRequests)} |
| Lambda duration | ${gbSeconds.toFixed(3)} GB-s | ${LAMBDA_GB * 1024} MB; assumed ${ASSUMED_SECONDS.http * 1000} ms per HTTP call, ${ASSUMED_SECONDS.publishPerBlock * 1000} ms per block sent, ${ASSUMED_SECONDS.queueJob * 1000} ms per other queue job; arm64 $${PRICES.lambdaArmPerGbSecond}/GB-s | ${usd(gbSeconds * 1e6 * PRICES.lambdaArmPerGbSecond)} |
| SQS requests | ${sqsTotal.toFixed(2)} | sends + one receive and one delete per message (the most: batches carry several), $${PRICES.sqsPerMillionRequests}/M | ${usd(sqsTotal * PRICES.sqsPerMillionRequests)} |
| KMS requests | ${PLATFORMS.length} | one Decrypt per channel's token per job (not counted locally: the local cipher is a file key), $${PRICES.kmsPerMillionRequests}/M | ${usd(PLATFORMS.length * PRICES.kmsPerMillionRequests)} |
| EventBridge Scheduler | 0 (1 for a scheduled post) | one invocation per schedule that fires, $${PRICES.schedulerPerMillionInvocations}/M | $0.00 (${usd(PRICES.schedulerPerMillionInvocations)} if every post is scheduled) |
| **total** | | | **${usd(totalUsd)}** (${usd(totalUsd + PRICES.schedulerPerMillionInvocations)} if every post is scheduled) |

AWS list prices, us-east-1, as of ${PRICES.date}; free tiers left out. Not included: storage
(${postBytes ? `a published post with 3 channels is about ${(postBytes / 1024).toFixed(1)} KB, so 1M posts hold about ${((postBytes * 1e6) / 1024 ** 3).toFixed(1)} GB` : 'the post items'}, $${PRICES.dynamoStoragePerGbMonth}/GB-month), the
metrics readings that follow (see the metrics section), webhook deliveries (none here), media
transfer, API Gateway ($1.00/M requests for HTTP APIs), CloudWatch logs, and the SQS event
source mappings' empty polls. The Cost section at the top (\`npm run cost\`) prices this run's
figures with those items and the stack's fixed monthly cost: its total is the current one.

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
