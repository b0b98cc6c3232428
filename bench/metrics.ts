/**
 * Metrics benchmark: what the readings of one post cost over its 30 days. The collection runs
 * in-process against DynamoDB Local with a simulated clock (every reading of the cadence, through
 * the sweep, the queue and the worker's use case, on sandbox posts), measuring the DynamoDB capacity
 * each step consumes (priced by AWS's rules, bench/capacity.ts) and the queue messages and worker batches it needs.
 * Those figures, priced at AWS list prices, give the cost per 1,000 posts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoMetricsStore } from '../functions/adapters/aws/dynamo/metrics.ts';
import { localClientConfig } from '../functions/adapters/local/aws-services.ts';
import { createTable, startDynamoDbLocal } from '../functions/adapters/local/dynamodb-local.ts';
import type { AuthContext } from '../functions/core/auth/api-keys.ts';
import { READING_OFFSETS_SECONDS, READINGS_PER_CHANNEL } from '../functions/core/metrics/cadence.ts';
import {
  type MetricsDeps,
  startTracking,
  statsDeltas,
  sweepDueReadings,
  takeReading,
} from '../functions/core/metrics/collect.ts';
import { getStats } from '../functions/core/metrics/stats.ts';
import type { PostRecord } from '../functions/domain/post.ts';
import { SandboxNetworkClient } from '../functions/platforms/sandbox/client.ts';
import type { ChannelRecord, ChannelStore } from '../functions/ports/channels.ts';
import type { MetricsJob, MetricsStore, MetricsTracker } from '../functions/ports/metrics.ts';
import type { PostStore } from '../functions/ports/posts.ts';
import { createMeter } from './capacity.ts';
import { machineLine, PRICES, usd, writeSection } from './lib.ts';

const POSTS = Number(process.env.BENCH_METRICS_POSTS ?? 40);
const DAY = 86_400_000;

/** The worker's memory (lib/constructs/handler-function.ts default) and a Lambda's billed time per batch (assumed: network call ~300 ms + ~40 ms of DynamoDB). */
const LAMBDA_GB = 0.5;
const BATCH_SECONDS = 0.4;
/** Reads the worker makes outside the metrics store per reading: the post and the channel (GetItem, strongly consistent, < 4 KB: 1 RRU each). */
const OTHER_READ_UNITS_PER_READING = 2;

const STATS_POSTS = Number(process.env.BENCH_STATS_POSTS ?? 1000);

/**
 * What GET /stats reads (items and read units) for ranges over a day on which STATS_POSTS posts
 * went live (one X channel each, one reading), against what it read before hour aggregates: the
 * whole days' aggregates plus every post of the days the range cut.
 */
const statsReads = async (
  metered: MetricsStore,
  seeding: MetricsStore,
  consumed: () => { read: number; items: number },
): Promise<string> => {
  const workspaceId = 'ws_stats';
  const day = Date.parse('2026-04-10T00:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  const at = (hours: number) => day + hours * 3_600_000;
  for (let i = 0; i < STATS_POSTS; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, STATS_POSTS - i) }, async (_, j) => {
        const liveAt = iso(day + Math.floor(((i + j) * 86_400_000) / STATS_POSTS));
        const tracker: MetricsTracker = {
          postId: `post_stats${String(i + j).padStart(16, '0')}`,
          channelId: 'ch_stats',
          workspaceId,
          mode: 'live',
          platform: 'x',
          liveAt,
          postLiveAt: liveAt,
          step: 0,
          nextAt: liveAt,
          known: {},
          latest: null,
          readings: 0,
          missed: 0,
          skipped: 0,
        };
        await seeding.track(tracker);
        const metrics = { likes: 12, comments: 3, reposts: 2, quotes: 1, bookmarks: 4, views: 480 };
        await seeding.record(
          tracker,
          {
            postId: tracker.postId,
            channelId: 'ch_stats',
            step: 0,
            at: liveAt,
            dueAt: liveAt,
            outcome: 'ok',
            metrics,
          },
          { ...tracker, step: 1, known: metrics },
          statsDeltas('x', {}, metrics),
        );
      }),
    );
  }
  const auth: AuthContext = {
    keyId: 'key_stats',
    accountId: 'acc_stats',
    workspaceId,
    mode: 'live',
    permission: 'read',
  };
  const measure = async (read: () => Promise<unknown>) => {
    const start = consumed();
    await read();
    const end = consumed();
    return { items: end.items - start.items, read: end.read - start.read };
  };
  const cases: { name: string; from: number; to: number; before: () => Promise<unknown> }[] = [
    {
      name: 'noon on the busy day to the end of the next (cuts a day)',
      from: at(12),
      to: at(48) - 1,
      before: () =>
        Promise.all([
          metered.statsDays(workspaceId, 'live', '2026-04-11', '2026-04-11'),
          metered.statsPosts(workspaceId, 'live', iso(at(12)), iso(at(24) - 1)),
        ]),
    },
    {
      name: '09:30 to 15:45 on the busy day (cuts a day and two hours)',
      from: at(9.5),
      to: at(15.75),
      before: () => metered.statsPosts(workspaceId, 'live', iso(at(9.5)), iso(at(15.75))),
    },
    {
      name: '30 whole days (dates)',
      from: at(-24 * 29),
      to: at(24) - 1,
      before: () => metered.statsDays(workspaceId, 'live', '2026-03-12', '2026-04-10'),
    },
  ];
  const items = (n: number) => `${n} ${n === 1 ? 'item' : 'items'}`;
  const rows: string[] = [];
  for (const c of cases) {
    const before = await measure(c.before);
    const after = await measure(() =>
      getStats({ metrics: metered, clock: { now: () => new Date(c.to) } }, auth, {
        from: iso(c.from),
        to: iso(c.to),
      }),
    );
    rows.push(
      `| ${c.name} | ${items(before.items)}, ${before.read.toFixed(1)} RRU | ${items(after.items)}, ${after.read.toFixed(1)} RRU |`,
    );
  }
  return `GET /stats over a day on which ${STATS_POSTS.toLocaleString('en-US')} posts went live (issue 25; items read and read units, eventually consistent Queries):

| range | before hour aggregates | with hour aggregates |
|---|---|---|
${rows.join('\n')}

With hour aggregates a call reads at most 367 day, 48 hour and 402 post items whatever the number of posts (docs/metrics.md); before, a range that cut a day read every post of the cut part of it.`;
};

export const runMetrics = async () => {
  const db = await startDynamoDbLocal();
  const client = new DynamoDBClient(localClientConfig.dynamodb(db.endpoint));
  // Seeding the stats part's posts is not what is measured: a second client, unmetered (a document
  // client shares its base client's middleware).
  const plainClient = new DynamoDBClient(localClientConfig.dynamodb(db.endpoint));
  try {
    await createTable(client, 'bench-metrics');
    const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    const plainDoc = DynamoDBDocumentClient.from(plainClient, {
      marshallOptions: { removeUndefinedValues: true },
    });
    // Every call is priced by AWS's on-demand rules (bench/capacity.ts: items looked up before and
    // after each write with the meter's own client, which is not counted).
    const consumed = { read: 0, write: 0, largestItem: 0, items: 0 };
    const meter = createMeter(new DynamoDBClient(localClientConfig.dynamodb(db.endpoint)));
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const command = (context.commandName ?? '?').replace(/Command$/, '');
        const priced = await meter.start(command, input);
        let output: Record<string, unknown> | undefined;
        try {
          const out = await next(args);
          output = out.output as Record<string, unknown>;
          return out;
        } finally {
          const { rcu, wcu, largestItem } = await priced(output);
          consumed.read += rcu;
          consumed.write += wcu;
          consumed.largestItem = Math.max(consumed.largestItem, largestItem);
          if (command === 'Query') consumed.items += (output?.Items as unknown[] | undefined)?.length ?? 0;
        }
      },
      { step: 'initialize', name: 'capacityModel' },
    );
    let now = Date.parse('2026-03-02T10:00:00.000Z');
    const start = now;
    const messages: { job: MetricsJob; at: number }[] = [];
    let sent = 0;
    const posts = new Map<string, PostRecord>();
    const channel: ChannelRecord = {
      channelId: 'ch_bench',
      accountId: 'acc_bench',
      workspaceId: 'ws_bench',
      platform: 'x',
      name: 'bench',
      remoteAccountId: 'bench',
      connection: 'connected',
      threadsPermitted: true,
      tokenCiphertext: 'sealed',
      createdAt: new Date(now).toISOString(),
    };
    const sandbox = new SandboxNetworkClient('x');
    const deps: MetricsDeps = {
      clock: { now: () => new Date(now) },
      metrics: new DynamoMetricsStore({ doc, tableName: 'bench-metrics' }),
      metricsQueue: () => ({
        send: async (jobs, delay = 0) => {
          sent += jobs.length;
          for (const job of jobs) messages.push({ job, at: now + delay * 1000 });
        },
      }),
      posts: { get: async (id: string) => posts.get(id) ?? null } as unknown as PostStore,
      channels: { getChannel: async () => channel } as unknown as ChannelStore,
      networks: () => sandbox,
      // Sandbox posts: the token service is never asked.
      tokens: () => {
        throw new Error('sandbox readings need no token');
      },
      cadence: { timeScale: 1 },
    };
    // POSTS sandbox posts, live a few minutes apart.
    for (let i = 0; i < POSTS; i++) {
      const block = await sandbox.publish({
        credentials: { accessToken: 'sandbox', remoteAccountId: 'bench' },
        content: `bench ${i}`,
        media: [],
        title: null,
        postType: null,
        options: {},
        parent: null,
        idempotencyKey: `bench-${i}`,
        round: 1,
      });
      const liveAt = new Date(start + i * 5 * 60_000).toISOString();
      const post: PostRecord = {
        postId: `post_bench${String(i).padStart(17, '0')}`,
        accountId: 'acc_bench',
        workspaceId: 'ws_bench',
        mode: 'test',
        status: 'published',
        scheduledAt: null,
        publishedAt: liveAt,
        tagIds: [],
        createdAt: liveAt,
        updatedAt: liveAt,
        version: 2,
        channels: [
          {
            channelId: 'ch_bench',
            platform: 'x',
            status: 'published',
            error: null,
            remoteUrl: block.remoteUrl,
            title: null,
            postType: null,
            options: {},
            publishedAt: liveAt,
            blocks: [
              {
                content: 'x',
                mediaIds: [],
                mediaAltText: {},
                remoteId: block.remoteId,
                remoteUrl: block.remoteUrl,
              },
            ],
          },
        ],
      };
      posts.set(post.postId, post);
    }
    const trackStart = { ...consumed };
    for (const post of posts.values()) await startTracking(deps, post, 'ch_bench');
    const trackWrite = (consumed.write - trackStart.write) / POSTS;

    // Every minute for 31 days would be 44,640 sweeps; jumping to the next due time gives the same
    // readings. Sweeps that find nothing are priced separately below.
    let sweeps = 0;
    let batches = 0;
    let readings = 0;
    const collectStart = { ...consumed };
    for (;;) {
      const before = consumed.read;
      const due = await deps.metrics.due(new Date(now + 31 * DAY).toISOString(), 1);
      consumed.read = before; // the benchmark's own look-ahead, not the service's
      const next = due[0]?.nextAt ? Date.parse(due[0].nextAt) : undefined;
      if (next === undefined) break;
      now = Math.max(now, next);
      sweeps++;
      await sweepDueReadings(deps);
      const visible = messages.filter((m) => m.at <= now);
      messages.splice(0, messages.length, ...messages.filter((m) => m.at > now));
      for (let i = 0; i < visible.length; i += 10) {
        batches++;
        for (const { job } of visible.slice(i, i + 10)) {
          await takeReading(deps, job);
          readings++;
        }
      }
    }
    const perPost = readings / POSTS;
    const writePerReading = (consumed.write - collectStart.write) / readings;
    const readPerReading = (consumed.read - collectStart.read) / readings + OTHER_READ_UNITS_PER_READING;

    // An empty sweep: the Query of each shard of the due index.
    const emptyStart = { ...consumed };
    await sweepDueReadings(deps);
    const emptySweepRead = consumed.read - emptyStart.read;

    const stats = await statsReads(
      deps.metrics,
      new DynamoMetricsStore({ doc: plainDoc, tableName: 'bench-metrics' }),
      () => ({ ...consumed }),
    );

    // Per 1,000 posts of one channel over 30 days.
    const k = 1000;
    const r = k * perPost;
    const dynamoWrites = k * trackWrite + r * writePerReading;
    const dynamoReads = r * readPerReading;
    // Readings go out in batches of up to 10 per queue message batch; worst case one reading per batch.
    const lambdaRequests = r;
    const sqsRequests = r * 3; // send (batched in the sweep: counted per message as the worst case), receive, delete
    const sweepsPerMonth = 30 * 24 * 60;
    const cost = {
      dynamo: (dynamoWrites * PRICES.dynamoWritePerMillion + dynamoReads * PRICES.dynamoReadPerMillion) / 1e6,
      lambda:
        (lambdaRequests * PRICES.lambdaPerMillionRequests) / 1e6 +
        lambdaRequests * BATCH_SECONDS * LAMBDA_GB * PRICES.lambdaArmPerGbSecond,
      sqs: (sqsRequests * PRICES.sqsPerMillionRequests) / 1e6,
    };
    const sweepFixed = {
      scheduler: (sweepsPerMonth * PRICES.schedulerPerMillionInvocations) / 1e6,
      lambda:
        (sweepsPerMonth * PRICES.lambdaPerMillionRequests) / 1e6 +
        sweepsPerMonth * 0.05 * LAMBDA_GB * PRICES.lambdaArmPerGbSecond,
      sqs: (sweepsPerMonth * 3 * PRICES.sqsPerMillionRequests) / 1e6,
      dynamo: (sweepsPerMonth * emptySweepRead * PRICES.dynamoReadPerMillion) / 1e6,
    };
    const total = cost.dynamo + cost.lambda + cost.sqs;
    const fixed = sweepFixed.scheduler + sweepFixed.lambda + sweepFixed.sqs + sweepFixed.dynamo;
    // The alternative: one one-time EventBridge schedule per reading (created by the previous reading).
    const perReadingSchedules = (r * PRICES.schedulerPerMillionInvocations) / 1e6;

    const md = `## Metrics: readings per post and their cost over 30 days (issue 13)

Command: \`npm run bench -- metrics\` (${POSTS} sandbox posts, the whole cadence in simulated time against DynamoDB Local).
${machineLine()}

| measure | value |
|---|---|
| readings per post channel (cadence) | ${READINGS_PER_CHANNEL} = 24 hourly + 6 daily + 3 weekly (the last on day ${(READING_OFFSETS_SECONDS.at(-1) ?? 0) / 86_400}) |
| readings taken per post in the run | ${perPost} |
| DynamoDB write units when a channel goes live (post and platform counted once, tracker) | ${trackWrite.toFixed(1)} |
| DynamoDB write units per reading (reading + tracker + day, hour and post aggregates, one transaction) | ${writePerReading.toFixed(1)} |
| DynamoDB read units per reading (sweep query share, tracker; plus post and channel: ${OTHER_READ_UNITS_PER_READING}) | ${readPerReading.toFixed(1)} |
| read units of a sweep that finds nothing (${4} shard queries) | ${emptySweepRead.toFixed(1)} |
| sweeps that handed out work; queue messages; worker batches (in the run) | ${sweeps}; ${sent}; ${batches} |

Cost per 1,000 posts (one channel each) over their 30 days, at AWS list prices (us-east-1, as of ${PRICES.date}:
DynamoDB on-demand $${PRICES.dynamoWritePerMillion}/M writes, $${PRICES.dynamoReadPerMillion}/M reads; Lambda arm64 $${PRICES.lambdaPerMillionRequests}/M requests +
$${PRICES.lambdaArmPerGbSecond}/GB-s at ${LAMBDA_GB * 1024} MB and ${BATCH_SECONDS} s per reading (the network call dominates); SQS $${PRICES.sqsPerMillionRequests}/M requests;
EventBridge Scheduler $${PRICES.schedulerPerMillionInvocations}/M invocations; free tiers ignored):

| item | per 1,000 posts |
|---|---|
| DynamoDB (${Math.round(dynamoWrites).toLocaleString('en-US')} WRU, ${Math.round(dynamoReads).toLocaleString('en-US')} RRU) | ${usd(cost.dynamo)} |
| Lambda (${lambdaRequests.toLocaleString('en-US')} reading invocations, worst case one per batch) | ${usd(cost.lambda)} |
| SQS (${sqsRequests.toLocaleString('en-US')} requests: send, receive, delete) | ${usd(cost.sqs)} |
| **total per 1,000 posts** | **${usd(total)}** |
| fixed: the metrics sweep every minute (43,200 a month: Scheduler, Lambda, SQS, index queries), whatever the volume | ${usd(fixed)} / month |
| alternative: one one-time schedule per reading (Scheduler invocations only) | ${usd(perReadingSchedules)} per 1,000 posts |

Why a sweep rather than one-time schedules: both cost cents. Per-reading schedules add a
CreateSchedule call per reading (${READINGS_PER_CHANNEL} per channel), put up to hundreds of thousands of live
schedules against the account's schedule quota, need cleaning up when a post is deleted, and leave
nothing to catch up with after an outage. The sweep costs a fixed ${usd(fixed)} a month, its due
index is a sparse GSI entry updated in the reading's own transaction, a deleted post just drops its
tracker, and overdue readings are found by the next sweep; readings land at most a minute late.
Storage: ${READINGS_PER_CHANNEL} reading items per channel (the largest item written: ${consumed.largestItem} bytes): about ${((READINGS_PER_CHANNEL * k * consumed.largestItem) / 1e6).toFixed(0)} MB per 1,000 posts at most, ${usd(((READINGS_PER_CHANNEL * k * consumed.largestItem) / 1e9) * PRICES.dynamoStoragePerGbMonth)} a month.

${stats}

DynamoDB Local does not price requests as AWS does: the units above apply DynamoDB's on-demand rules (\`bench/capacity.ts\`: item sizes by DynamoDB's rules, each write priced by the item before and after it, index entries written, moved or removed) to every call the run made.
`;
    writeSection('metrics', md);
    console.log(md);
  } finally {
    client.destroy();
    plainClient.destroy();
    await db.stop();
  }
};
