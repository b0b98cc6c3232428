/**
 * What the stack costs, computed from its synthesized templates (`npm run cost`, bin/cost.ts):
 * the fixed monthly cost of a stage nobody uses, item by item, and the cost of one post, from the
 * measured figures of BENCHMARKS.md's publishing and metrics sections. Prices come from
 * `bench/prices.ts`. Every resource type of the templates must be priced here or named as free to
 * keep, so a new kind of resource cannot slip past the table.
 */
import { PRICE, type Price } from './prices.ts';

type Json = Record<string, unknown>;

/** One stack's template, as `cdk synth` writes it. */
export interface StackTemplate {
  readonly stackName: string;
  readonly template: Json;
}

/** What the benches measured, read from BENCHMARKS.md (see `readMeasuredFigures`). */
export interface MeasuredFigures {
  readonly publishing: {
    /** The day of the run (its `Machine:` line). */
    readonly measuredOn: string;
    readonly channels: number;
    readonly dynamoRequests: number;
    readonly rcu: number;
    readonly wcu: number;
    readonly sqsSends: number;
    /** Queue messages per post, by the queue's local name (`herald-publish`). */
    readonly queueMessages: Readonly<Record<string, number>>;
    readonly invocations: number;
  };
  readonly metrics: {
    readonly measuredOn: string;
    /** Read units of one sweep that finds nothing due. */
    readonly idleSweepReadUnits: number;
    /** Dollars per 1,000 posts of one channel, for the 30 days of readings that follow. */
    readonly perThousandPostChannels: number;
  };
}

/** Lambda durations the cost assumes (not measured: local runs say nothing of Lambda's billed time). */
export const ASSUMED_LAMBDA_SECONDS = { http: 0.05, publishPerBlock: 0.4, queueJob: 0.05 } as const;
/** Bytes of CloudWatch Logs per invocation: Lambda's START, END and REPORT lines and one log line. */
export const ASSUMED_LOG_BYTES_PER_INVOCATION = 1024;
/**
 * ReceiveMessage requests of one SQS event source mapping on an empty queue in a month: Lambda
 * long-polls (20 s) with at least 5 pollers. An estimate: AWS publishes no figure.
 */
export const IDLE_POLLS_PER_MAPPING_MONTH = 5 * 3 * 60 * 730;
/** Hours in a month, as AWS's price pages count them. */
export const HOURS_PER_MONTH = 730;

/** Resource types that cost nothing to keep, and nothing per use that another row does not count. */
export const FREE_TO_KEEP: ReadonlySet<string> = new Set([
  'AWS::ApiGatewayV2::Authorizer',
  'AWS::ApiGatewayV2::Integration',
  'AWS::ApiGatewayV2::Route',
  'AWS::ApiGatewayV2::Stage',
  'AWS::CDK::Metadata',
  'AWS::CloudFront::Function',
  'AWS::CloudFront::OriginAccessControl',
  'AWS::CloudFront::ResponseHeadersPolicy',
  'AWS::Cognito::UserPoolClient',
  'AWS::IAM::Policy',
  'AWS::IAM::Role',
  'AWS::KMS::Alias',
  'AWS::Lambda::LayerVersion',
  'AWS::Lambda::Permission',
  'AWS::S3::BucketPolicy',
  'AWS::SNS::TopicPolicy',
  'AWS::SQS::QueuePolicy',
  'AWS::Scheduler::ScheduleGroup',
  'Custom::CDKBucketDeployment',
]);

/** Types the rows below price (at zero when nothing uses them). */
const PRICED: ReadonlySet<string> = new Set([
  'AWS::ApiGatewayV2::Api',
  'AWS::CloudFront::Distribution',
  'AWS::CloudWatch::Alarm',
  'AWS::CloudWatch::Dashboard',
  'AWS::Cognito::UserPool',
  'AWS::DynamoDB::GlobalTable',
  'AWS::DynamoDB::Table',
  'AWS::KMS::Key',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Function',
  'AWS::Logs::LogGroup',
  'AWS::S3::Bucket',
  'AWS::SNS::Topic',
  'AWS::SQS::Queue',
  'AWS::Scheduler::Schedule',
  'AWS::SecretsManager::Secret',
]);

interface Resource {
  readonly stack: StackTemplate;
  readonly id: string;
  readonly type: string;
  readonly props: Json;
}

/** One line of a cost table. */
export interface CostRow {
  readonly item: string;
  readonly count: string;
  readonly how: string;
  readonly usd: number;
  /** For per-post rows: the dollars if every post were scheduled, where that differs. */
  readonly usdScheduled?: number;
}

const resourcesOf = (stacks: readonly StackTemplate[]): Resource[] =>
  stacks.flatMap((stack) =>
    Object.entries(
      (stack.template.Resources ?? {}) as Record<string, { Type: string; Properties?: Json }>,
    ).map(([id, r]) => ({ stack, id, type: r.Type, props: r.Properties ?? {} })),
  );

/** The resource a `Ref`, `Fn::GetAtt` or (through the exporting stack's outputs) `Fn::ImportValue` names. */
const target = (
  stacks: readonly StackTemplate[],
  from: StackTemplate,
  value: unknown,
): Resource | undefined => {
  const v = value as Json | undefined;
  if (!v || typeof v !== 'object') return undefined;
  const find = (stack: StackTemplate, id: string): Resource | undefined => {
    const r = (stack.template.Resources as Record<string, { Type: string; Properties?: Json }>)[id];
    return r ? { stack, id, type: r.Type, props: r.Properties ?? {} } : undefined;
  };
  if (typeof v.Ref === 'string') return find(from, v.Ref);
  const getAtt = v['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return find(from, getAtt[0]);
  const imported = v['Fn::ImportValue'];
  if (typeof imported === 'string') {
    for (const stack of stacks) {
      for (const output of Object.values((stack.template.Outputs ?? {}) as Record<string, Json>)) {
        if ((output.Export as Json | undefined)?.Name === imported)
          return target(stacks, stack, output.Value);
      }
    }
  }
  return undefined;
};

const usdOf = (n: number, p: Price, per = 1): number => (n * p.usd) / per;
const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}`;
/** A price as its page prints it: cents where it is whole cents, every digit otherwise. */
const priceText = (usd: number): string =>
  Number.isInteger(Math.round(usd * 1e6) / 1e4) ? `$${usd.toFixed(2)}` : `$${usd}`;
const money = (p: Price) => priceText(p.usd);

/** Firings per month of a recurring schedule expression (`rate(...)`); one-time `at()` schedules are not recurring. */
export const firingsPerMonth = (expression: string): number => {
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!rate) throw new Error(`bench/cost.ts cannot count the firings of schedule expression ${expression}`);
  const minutes = { minute: 1, minutes: 1, hour: 60, hours: 60, day: 1440, days: 1440 }[rate[2] as 'minute'];
  return (HOURS_PER_MONTH * 60) / (Number(rate[1]) * minutes);
};

interface FunctionFacts {
  readonly id: string;
  readonly gb: number;
  readonly gbSecond: Price;
  readonly traced: boolean;
}

const functionFacts = (fn: Resource): FunctionFacts => {
  const arch = ((fn.props.Architectures as string[] | undefined) ?? ['x86_64'])[0];
  return {
    id: fn.id,
    gb: Number(fn.props.MemorySize ?? 128) / 1024,
    gbSecond: arch === 'arm64' ? PRICE.lambdaArm : PRICE.lambdaX86,
    traced: (fn.props.TracingConfig as Json | undefined)?.Mode === 'Active',
  };
};

/** The stacks' facts the cost rests on. */
class Inventory {
  readonly resources: Resource[];
  constructor(readonly stacks: readonly StackTemplate[]) {
    this.resources = resourcesOf(stacks);
    const unknown = [...new Set(this.resources.map((r) => r.type))].filter(
      (t) => !PRICED.has(t) && !FREE_TO_KEEP.has(t),
    );
    if (unknown.length > 0) {
      throw new Error(
        `bench/cost.ts does not know what these resource types cost: ${unknown.sort().join(', ')}. ` +
          'Price them in idleCost, or add them to FREE_TO_KEEP with the reason they cost nothing.',
      );
    }
  }
  of(type: string): Resource[] {
    return this.resources.filter((r) => r.type === type);
  }
  /** The function an SQS queue's event source mapping invokes. */
  workerOf(queue: Resource): FunctionFacts {
    const mapping = this.of('AWS::Lambda::EventSourceMapping').find(
      (m) => target(this.stacks, m.stack, m.props.EventSourceArn)?.id === queue.id,
    );
    const fn = mapping && target(this.stacks, mapping.stack, mapping.props.FunctionName);
    if (!fn) throw new Error(`no event source mapping invokes a function for queue ${queue.id}`);
    return functionFacts(fn);
  }
  /** The queue named `herald-<name>` locally: its logical id is `Queues<Name>Queue<hash>`. */
  queueNamed(local: string): Resource {
    const name = local.replace(/^herald-/, '');
    const id = new RegExp(`^Queues${name.charAt(0).toUpperCase()}${name.slice(1)}Queue[0-9A-F]{8}$`);
    const queue = this.of('AWS::SQS::Queue').find((q) => id.test(q.id));
    if (!queue) throw new Error(`no queue in the templates for ${local}`);
    return queue;
  }
  /** The function behind an HTTP API route (`POST /v1/posts`). */
  routeFunction(routeKey: string): FunctionFacts {
    const route = this.of('AWS::ApiGatewayV2::Route').find((r) => r.props.RouteKey === routeKey);
    const parts = (
      (route?.props.Target as Json | undefined)?.['Fn::Join'] as [string, unknown[]] | undefined
    )?.[1];
    const integration = route && parts && target(this.stacks, route.stack, parts[1]);
    const fn = integration && target(this.stacks, integration.stack, integration.props.IntegrationUri);
    if (!fn) throw new Error(`no function behind route ${routeKey}`);
    return functionFacts(fn);
  }
}

/** The fixed monthly cost of a stage nobody uses, item by item. */
export function idleCost(stacks: readonly StackTemplate[], measured: MeasuredFigures): CostRow[] {
  const inv = new Inventory(stacks);
  const rows: CostRow[] = [];

  /** A row of `n` items of one kind, each at one list price a month. */
  const perItem = (item: string, n: number, noun: string, price: Price): CostRow => ({
    item,
    count: count(n, noun),
    how: `${money(price)} per ${price.unit}`,
    usd: usdOf(n, price),
  });

  rows.push(
    perItem('Secrets Manager secrets', inv.of('AWS::SecretsManager::Secret').length, 'secrets', PRICE.secret),
  );

  const keys = inv.of('AWS::KMS::Key');
  const rotating = keys.filter((k) => k.props.EnableKeyRotation === true).length;
  rows.push({
    item: 'KMS customer managed keys',
    count: count(keys.length, 'keys'),
    how:
      `${money(PRICE.kmsKey)} per key-month; ${rotating} of ${keys.length} rotate yearly, and each of a key's first ` +
      `two rotations adds $1.00 a month (${usdText(keys.length + rotating)} in the second year, ${usdText(keys.length + 2 * rotating)} from the third)`,
    usd: usdOf(keys.length, PRICE.kmsKey),
  });

  let standard = 0;
  let highResolution = 0;
  const alarms = inv.of('AWS::CloudWatch::Alarm');
  for (const alarm of alarms) {
    const stats = ((alarm.props.Metrics as Json[] | undefined) ?? []).filter((m) => m.MetricStat);
    const periods = stats.length
      ? stats.map((m) => Number((m.MetricStat as Json).Period))
      : [Number(alarm.props.Period)];
    const metrics = Math.max(1, stats.length);
    if (Math.min(...periods) < 60) highResolution += metrics;
    else standard += metrics;
  }
  rows.push({
    item: 'CloudWatch alarms',
    count: count(alarms.length, 'alarms'),
    how:
      `${standard} alarm metrics at standard resolution (a metric-math alarm counts each metric it reads), ` +
      `${money(PRICE.alarmMetric)} each` +
      (highResolution
        ? `; ${highResolution} at high resolution, ${money(PRICE.highResolutionAlarmMetric)} each`
        : ''),
    usd: usdOf(standard, PRICE.alarmMetric) + usdOf(highResolution, PRICE.highResolutionAlarmMetric),
  });

  rows.push(
    perItem(
      'CloudWatch dashboards',
      inv.of('AWS::CloudWatch::Dashboard').length,
      'dashboard',
      PRICE.dashboard,
    ),
  );

  // Recurring schedules, and the work each firing starts: a queue message, a worker invocation that
  // finds nothing to do (a few index queries), its trace and its log lines.
  const schedules = inv
    .of('AWS::Scheduler::Schedule')
    .filter((s) => s.props.State !== 'DISABLED' && String(s.props.ScheduleExpression).startsWith('rate('));
  let firings = 0;
  let gbSeconds = 0;
  let gbSecondUsd = 0;
  let traces = 0;
  for (const schedule of schedules) {
    const n = firingsPerMonth(String(schedule.props.ScheduleExpression));
    const queue = target(inv.stacks, schedule.stack, (schedule.props.Target as Json).Arn);
    if (queue?.type !== 'AWS::SQS::Queue') throw new Error(`schedule ${schedule.id} does not target a queue`);
    const worker = inv.workerOf(queue);
    firings += n;
    gbSeconds += n * worker.gb * ASSUMED_LAMBDA_SECONDS.queueJob;
    gbSecondUsd += n * worker.gb * ASSUMED_LAMBDA_SECONDS.queueJob * worker.gbSecond.usd;
    if (worker.traced) traces += n;
  }
  const byRate = new Map<string, number>();
  for (const s of schedules) {
    const every = String(s.props.ScheduleExpression)
      .replace(/^rate\((.*)\)$/, '$1')
      .replace(/^1 /, '');
    byRate.set(every, (byRate.get(every) ?? 0) + 1);
  }
  const expressions = [...byRate].map(([every, n]) => `${n} every ${every}`);
  rows.push({
    item: 'EventBridge Scheduler: recurring schedules',
    count: count(schedules.length, 'schedules'),
    how: `${expressions.join(', ')}: ${Math.round(firings).toLocaleString('en-US')} firings a month, ${money(PRICE.schedulerInvocations)} per million`,
    usd: usdOf(firings, PRICE.schedulerInvocations, 1e6),
  });
  rows.push({
    item: 'Lambda: the sweeps each firing starts',
    count: count(Math.round(firings), 'invocations'),
    how: `one queue worker invocation per firing, assumed ${ASSUMED_LAMBDA_SECONDS.queueJob * 1000} ms: ${gbSeconds.toFixed(0)} GB-s; ${money(PRICE.lambdaRequests)} per million requests`,
    usd: usdOf(firings, PRICE.lambdaRequests, 1e6) + gbSecondUsd,
  });
  rows.push({
    item: 'DynamoDB: the sweeps’ queries',
    count: count(Math.round(firings * measured.metrics.idleSweepReadUnits), 'read units'),
    how: `${measured.metrics.idleSweepReadUnits} read units per sweep that finds nothing (measured for the metrics sweep, Metrics section, ${measured.metrics.measuredOn}; taken for each sweep), ${money(PRICE.dynamoRead)} per million`,
    usd: usdOf(firings * measured.metrics.idleSweepReadUnits, PRICE.dynamoRead, 1e6),
  });
  const mappings = inv
    .of('AWS::Lambda::EventSourceMapping')
    .filter((m) => target(inv.stacks, m.stack, m.props.EventSourceArn)?.type === 'AWS::SQS::Queue').length;
  const sqsRequests = 3 * firings + mappings * IDLE_POLLS_PER_MAPPING_MONTH;
  rows.push({
    item: 'SQS: the sweeps’ messages and the mappings’ polling',
    count: count(Math.round(sqsRequests), 'requests'),
    how:
      `3 per firing (send, receive, delete), and an estimated ${IDLE_POLLS_PER_MAPPING_MONTH.toLocaleString('en-US')} ` +
      `empty long polls a month for each of the ${mappings} queue event source mappings (at least 5 pollers, 20 s each); ` +
      `${money(PRICE.sqsRequests)} per million`,
    usd: usdOf(sqsRequests, PRICE.sqsRequests, 1e6),
  });
  rows.push({
    item: 'X-Ray: the sweeps’ traces',
    count: count(Math.round(traces), 'traces'),
    how: `active tracing records every invocation at this rate (the default rule keeps the first each second), ${money(PRICE.xrayTraces)} per million`,
    usd: usdOf(traces, PRICE.xrayTraces, 1e6),
  });
  const logGroups = inv.of('AWS::Logs::LogGroup');
  const logGb = (firings * ASSUMED_LOG_BYTES_PER_INVOCATION) / 1024 ** 3;
  rows.push({
    item: 'CloudWatch Logs',
    count: count(logGroups.length, 'log groups'),
    how:
      `kept ${logGroups.map((g) => `${g.props.RetentionInDays ?? 'forever'} days`).join(' and ')}; storage is 0 when nothing is logged; ` +
      `the sweeps log about ${(logGb * 1024).toFixed(0)} MB a month (assumed ${ASSUMED_LOG_BYTES_PER_INVOCATION} bytes per invocation), ` +
      `${money(PRICE.logsIngestion)} per GB ingested, ${money(PRICE.logsStorage)} per GB-month kept`,
    usd: usdOf(logGb, PRICE.logsIngestion) + usdOf(logGb, PRICE.logsStorage),
  });

  for (const pool of inv.of('AWS::Cognito::UserPool')) {
    const tier = String(pool.props.UserPoolTier ?? 'ESSENTIALS');
    const perMau = { LITE: PRICE.cognitoLite, ESSENTIALS: PRICE.cognitoEssentials, PLUS: PRICE.cognitoPlus }[
      tier as 'LITE'
    ];
    if (!perMau) throw new Error(`unknown Cognito plan ${tier}`);
    const threat = (pool.props.UserPoolAddOns as Json | undefined)?.AdvancedSecurityMode;
    rows.push({
      item: 'Cognito user pool',
      count: `${tier.charAt(0)}${tier.slice(1).toLowerCase()} plan`,
      how: `${threat ? `threat protection ${String(threat).toLowerCase()}; ` : ''}${money(perMau)} per ${perMau.unit}; 0 when nobody signs in`,
      usd: 0,
    });
  }

  const zeroAtIdle = (item: string, type: string, what: string, how: string) => {
    const n = inv.of(type).length;
    if (n > 0) rows.push({ item, count: count(n, what), how, usd: 0 });
  };
  const tables = [...inv.of('AWS::DynamoDB::GlobalTable'), ...inv.of('AWS::DynamoDB::Table')];
  const onDemand = tables.every((t) => t.props.BillingMode === 'PAY_PER_REQUEST');
  if (!onDemand) throw new Error('a table is not on-demand: its provisioned capacity costs at idle');
  const pitr = tables.some(
    (t) =>
      (t.props.PointInTimeRecoverySpecification as Json | undefined)?.PointInTimeRecoveryEnabled === true ||
      ((t.props.Replicas as Json[] | undefined) ?? []).some(
        (r) => (r.PointInTimeRecoverySpecification as Json | undefined)?.PointInTimeRecoveryEnabled === true,
      ),
  );
  if (tables.length > 0) {
    rows.push({
      item: 'DynamoDB',
      count: count(tables.length, tables.length === 1 ? 'on-demand table' : 'on-demand tables'),
      how:
        `per request (above); ${money(PRICE.dynamoStorage)} per GB-month stored` +
        (pitr ? ` and ${money(PRICE.dynamoPitr)} per GB-month for point-in-time recovery` : '') +
        ': 0 when empty',
      usd: 0,
    });
  }
  zeroAtIdle(
    'API Gateway',
    'AWS::ApiGatewayV2::Api',
    'HTTP API',
    `${money(PRICE.httpApiRequests)} per million requests`,
  );
  zeroAtIdle(
    'Lambda',
    'AWS::Lambda::Function',
    'functions',
    `per request and GB-second only (the sweeps' above); ${money(PRICE.lambdaRequests)} per million requests`,
  );
  zeroAtIdle('SQS', 'AWS::SQS::Queue', 'queues', 'per request only (the sweeps’ and the polling above)');
  zeroAtIdle(
    'S3',
    'AWS::S3::Bucket',
    'buckets',
    `${money(PRICE.s3Storage)} per GB-month: 0 with nothing stored (the dashboard's files are a few hundred KB)`,
  );
  zeroAtIdle(
    'CloudFront',
    'AWS::CloudFront::Distribution',
    'distribution',
    `per request and per GB sent (${money(PRICE.cloudFrontRequests)} per million HTTPS requests)`,
  );
  zeroAtIdle(
    'SNS',
    'AWS::SNS::Topic',
    'topic',
    `${money(PRICE.snsPublishes)} per million publishes (alarm changes only)`,
  );
  return rows;
}

/** The cost of one post with the publishing bench's channels, per post and per million. */
export function perPostCost(stacks: readonly StackTemplate[], measured: MeasuredFigures): CostRow[] {
  const inv = new Inventory(stacks);
  const p = measured.publishing;
  const http = inv.routeFunction('POST /v1/posts');
  const messages = Object.values(p.queueMessages).reduce((a, b) => a + b, 0);
  let gbSeconds = http.gb * ASSUMED_LAMBDA_SECONDS.http;
  let gbSecondUsd = gbSeconds * http.gbSecond.usd;
  let traced = http.traced ? 1 : 0;
  const memories = [`POST /v1/posts ${http.gb * 1024} MB`];
  for (const [local, n] of Object.entries(p.queueMessages)) {
    const worker = inv.workerOf(inv.queueNamed(local));
    memories.push(`${local}'s worker ${worker.gb * 1024} MB`);
    const seconds = local.endsWith('publish')
      ? p.channels * ASSUMED_LAMBDA_SECONDS.publishPerBlock
      : n * ASSUMED_LAMBDA_SECONDS.queueJob;
    gbSeconds += worker.gb * seconds;
    gbSecondUsd += worker.gb * seconds * worker.gbSecond.usd;
    if (worker.traced) traced += n;
  }
  const sqs = p.sqsSends + 2 * messages;
  const logGb = (p.invocations * ASSUMED_LOG_BYTES_PER_INVOCATION) / 1024 ** 3;
  const from = `the publishing bench's cost run (${p.measuredOn})`;
  const rows: CostRow[] = [
    {
      item: 'API Gateway requests',
      count: '1',
      how: `POST /v1/posts, ${money(PRICE.httpApiRequests)} per million`,
      usd: usdOf(1, PRICE.httpApiRequests, 1e6),
    },
    {
      item: 'Lambda requests',
      count: p.invocations.toFixed(2),
      how: `row "post: Lambda invocations" of ${from}: 1 HTTP and one per queue message (the most), ${money(PRICE.lambdaRequests)} per million`,
      usd: usdOf(p.invocations, PRICE.lambdaRequests, 1e6),
    },
    {
      item: 'Lambda duration',
      count: `${gbSeconds.toFixed(3)} GB-s`,
      how:
        `memory and architecture from the template (${memories.join(', ')}); assumed ${ASSUMED_LAMBDA_SECONDS.http * 1000} ms per HTTP call, ` +
        `${ASSUMED_LAMBDA_SECONDS.publishPerBlock * 1000} ms per block sent, ${ASSUMED_LAMBDA_SECONDS.queueJob * 1000} ms per other queue job`,
      usd: gbSecondUsd,
    },
    {
      item: 'DynamoDB reads',
      count: `${p.rcu.toFixed(2)} RCU`,
      how: `row "all" of ${from} (${p.dynamoRequests.toFixed(2)} requests), ${money(PRICE.dynamoRead)} per million read units`,
      usd: usdOf(p.rcu, PRICE.dynamoRead, 1e6),
    },
    {
      item: 'DynamoDB writes',
      count: `${p.wcu.toFixed(2)} WCU`,
      how: `row "all" of ${from}, ${money(PRICE.dynamoWrite)} per million write units`,
      usd: usdOf(p.wcu, PRICE.dynamoWrite, 1e6),
    },
    {
      item: 'SQS requests',
      count: sqs.toFixed(2),
      how: `${p.sqsSends.toFixed(2)} sends (row "all") and a receive and a delete per message (${messages.toFixed(2)}, "Queue messages per post"), ${money(PRICE.sqsRequests)} per million`,
      usd: usdOf(sqs, PRICE.sqsRequests, 1e6),
    },
    {
      item: 'KMS requests',
      count: String(p.channels),
      how: `one Decrypt of each channel's token per job, ${money(PRICE.kmsRequests)} per million`,
      usd: usdOf(p.channels, PRICE.kmsRequests, 1e6),
    },
    {
      item: 'EventBridge Scheduler',
      count: '0 (1 if scheduled)',
      how: `a scheduled post's one-time schedule fires once, ${money(PRICE.schedulerInvocations)} per million`,
      usd: 0,
      usdScheduled: usdOf(1, PRICE.schedulerInvocations, 1e6),
    },
    {
      item: 'X-Ray traces',
      count: traced.toFixed(2),
      how: `the most: one per invocation of a function with active tracing, ${money(PRICE.xrayTraces)} per million`,
      usd: usdOf(traced, PRICE.xrayTraces, 1e6),
    },
    {
      item: 'CloudWatch Logs',
      count: `${(logGb * 1024 ** 2).toFixed(1)} KB`,
      how: `assumed ${ASSUMED_LOG_BYTES_PER_INVOCATION} bytes per invocation, ${money(PRICE.logsIngestion)} per GB ingested`,
      usd: usdOf(logGb, PRICE.logsIngestion),
    },
  ];
  return rows;
}

const usdText = (value: number): string =>
  value === 0
    ? '$0'
    : value < 0.01
      ? `$${value.toFixed(4)}`
      : `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

const section = (markdown: string, suite: string): string => {
  const start = markdown.indexOf(`<!-- bench:${suite}:start -->`);
  const end = markdown.indexOf(`<!-- bench:${suite}:end -->`);
  if (start < 0 || end < start) throw new Error(`BENCHMARKS.md has no ${suite} section`);
  return markdown.slice(start, end);
};

const match = (text: string, pattern: RegExp, what: string): RegExpExecArray => {
  const found = pattern.exec(text);
  if (!found) throw new Error(`BENCHMARKS.md: cannot find ${what} (${pattern})`);
  return found;
};

/** The measured figures the cost rests on, from the sections `npm run bench` writes. */
export function readMeasuredFigures(benchmarks: string): MeasuredFigures {
  const pub = section(benchmarks, 'publishing');
  const all = match(
    pub,
    /^\| \*\*all\*\* \| ([\d.]+) \| \*\*([\d.]+)\*\* \| \*\*([\d.]+)\*\* \| ([\d.]+) \|$/m,
    'the publishing cost run’s row "all"',
  );
  const queues = match(pub, /^Queue messages per post: (.+)\.$/m, 'the queue messages per post')[1] as string;
  const met = section(benchmarks, 'metrics');
  const day = (text: string) =>
    match(text, /^Machine: .*, (\d{4}-\d{2}-\d{2})\.$/m, 'the Machine line')[1] as string;
  return {
    publishing: {
      measuredOn: day(pub),
      channels: Number(match(pub, /Counted on \d+ posts with (\d+) channels/, 'the cost run’s channels')[1]),
      dynamoRequests: Number(all[1]),
      rcu: Number(all[2]),
      wcu: Number(all[3]),
      sqsSends: Number(all[4]),
      queueMessages: Object.fromEntries(
        queues.split(', ').map((entry) => {
          const [queue, n] = entry.split(' ');
          return [queue as string, Number(n)];
        }),
      ),
      invocations: Number(
        match(pub, /^\| post \| Lambda invocations[^|]*\| ([\d.]+) /m, 'the Lambda invocations per post')[1],
      ),
    },
    metrics: {
      measuredOn: day(met),
      idleSweepReadUnits: Number(
        match(
          met,
          /^\| read units of a sweep that finds nothing[^|]*\| ([\d.]+) \|$/m,
          'the idle sweep’s reads',
        )[1],
      ),
      perThousandPostChannels: Number(
        match(met, /^\| \*\*total per 1,000 posts\*\* \| \*\*\$([\d.]+)\*\* \|$/m, 'the metrics total')[1],
      ),
    },
  };
}

const table = (header: string, rows: readonly CostRow[], money: (row: CostRow) => string): string =>
  [
    header,
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.item} | ${r.count} | ${r.how} | ${money(r)} |`),
  ].join('\n');

/** The Markdown that `npm run cost` writes between `<!-- cost:start -->` and `<!-- cost:end -->`. */
export function renderCost(stacks: readonly StackTemplate[], measured: MeasuredFigures): string {
  const idle = idleCost(stacks, measured);
  const post = perPostCost(stacks, measured);
  const idleTotal = idle.reduce((a, r) => a + r.usd, 0);
  const postTotal = post.reduce((a, r) => a + r.usd, 0);
  const scheduledExtra = post.reduce((a, r) => a + (r.usdScheduled ?? r.usd) - r.usd, 0);
  const channels = measured.publishing.channels;
  const metricsPerPost = (measured.metrics.perThousandPostChannels / 1000) * channels;
  const perMillion = (row: CostRow) =>
    row.usdScheduled !== undefined && row.usdScheduled !== row.usd
      ? `${usdText(row.usd * 1e6)} (${usdText(row.usdScheduled * 1e6)} if scheduled)`
      : usdText(row.usd * 1e6);
  const used = Object.values(PRICE).sort((a, b) => a.source.localeCompare(b.source));
  const stackNames = stacks.map((s) => `\`${s.stackName}\``).join(' and ');
  return `Computed by \`npm run cost\` (bin/cost.ts, bench/cost.ts) from the templates of
${stackNames}, and the measured rows of the Publishing and Metrics sections
below; AWS list prices, us-east-1, free tiers left out, a month of ${HOURS_PER_MONTH} hours. Rerun it after
changing the stacks or running those benches: a test fails while this table differs from what it
computes.

### Fixed monthly cost of a stage nobody uses

${table('| item | count | how | per month |', idle, (r) => usdText(r.usd))}
| **total** | | | **${usdText(idleTotal)}** |

### Cost of one post (${channels} channels, one block each, published at once, no webhook endpoint)

${table('| item | per post | how | per 1,000,000 posts |', post, perMillion)}
| **publishing, total** | | | **${usdText(postTotal * 1e6)}** (${usdText((postTotal + scheduledExtra) * 1e6)} if every post is scheduled) |
| metrics readings over the next 30 days | ${channels} channels | ${usdText(measured.metrics.perThousandPostChannels)} per 1,000 posts of one channel (Metrics section, ${measured.metrics.measuredOn}) | ${usdText(metricsPerPost * 1e6)} |
| **with 30 days of metrics, total** | | | **${usdText((postTotal + metricsPerPost) * 1e6)}** |

Not included: DynamoDB storage (about 2 KB per published post, $0.25 per GB-month), media
(S3 storage and transfer), webhook deliveries, the dashboard's traffic (CloudFront), Cognito's
monthly active users, and the custom metrics the functions publish once traffic flows.

Prices (\`bench/prices.ts\`):

| price | per | source | read |
|---|---|---|---|
${used.map((p) => `| ${priceText(p.usd)} | ${p.unit} | ${p.source} | ${p.read} |`).join('\n')}`;
}

const START = '<!-- cost:start -->';
const END = '<!-- cost:end -->';

/** `doc` with the region between the cost markers replaced by `markdown`. */
export function replaceCostRegion(doc: string, markdown: string): string {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`the document has no ${START} ... ${END} region`);
  return `${doc.slice(0, from)}${START}\n${markdown.trim()}\n${doc.slice(to)}`;
}

/** The region between the cost markers, as `replaceCostRegion` writes it. */
export function costRegion(doc: string): string {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`the document has no ${START} ... ${END} region`);
  return doc.slice(from + START.length, to).trim();
}
