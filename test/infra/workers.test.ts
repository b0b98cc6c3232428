import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { Grant } from '../../functions/http/routes.ts';
import type { WorkerDef } from '../../functions/workers/manifest.ts';
import { SCHEDULE_ACTIONS, TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS } from '../../lib/constructs/grants.ts';
import { QUEUE_NAMES, type QueueName } from '../../lib/constructs/queues.ts';
import type { StatefulStack } from '../../lib/stateful-stack.ts';
import type { StatelessStack } from '../../lib/stateless-stack.ts';
import {
  actionsOf,
  buildTestApp,
  logicalIdOf,
  manifest,
  type PolicyStatementJson,
  roleStatements,
  workerManifest,
} from './fixture.ts';

const { stateless, stateful } = buildTestApp();
const template = Template.fromStack(stateless);
const statefulTemplate = Template.fromStack(stateful);

const publishDef = workerManifest.workers.find((w) => w.queue === 'publish');
if (!publishDef) throw new Error('the worker manifest has no publish worker');

const workerOf = (s: StatelessStack, entry: string) => {
  const worker = s.workers.workers.find((w) => w.def.entry === entry);
  if (!worker) throw new Error(`no worker for ${entry}`);
  return worker;
};

const SEND_ACTIONS = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
const CONSUME_ACTIONS = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
];
const TRACING = ['xray:PutTelemetryRecords *', 'xray:PutTraceSegments *'];

/**
 * Every Allow of a function's role as `action resource`, with the stateful stack's imports named
 * (`queue:publish`, `table/index/GSI1`, `media/*`, ...) so expectations read like the grants.
 */
/** A statement's conditions, briefly: ` when channelId ch_*` (key names without their service prefix). */
const when = (statement: PolicyStatementJson): string =>
  Object.values((statement.Condition ?? {}) as Record<string, Record<string, string | string[]>>)
    .flatMap((keys) =>
      Object.entries(keys).map(
        ([key, value]) => ` when ${key.split(':').at(-1)} ${[value].flat().join('|')}`,
      ),
    )
    .join('');

function permissions(s: StatelessStack, t: Template, sf: StatefulStack, entry: string): string[] {
  const names = new Map<string, string>([
    [logicalIdOf(sf, sf.table), 'table'],
    [logicalIdOf(sf, sf.tokenKey), 'tokenKey'],
    [logicalIdOf(sf, sf.schedulerRole), 'schedulerRole'],
    ...QUEUE_NAMES.map((q): [string, string] => [logicalIdOf(sf, sf.queues[q].queue), `queue:${q}`]),
  ]);
  const render = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const o = value as Record<string, unknown>;
    if (typeof o.Ref === 'string') return `<${o.Ref}>`;
    if (typeof o['Fn::ImportValue'] === 'string') {
      const name = o['Fn::ImportValue'];
      if (name === sf.mediaBucketArnExportName) return 'media';
      for (const [id, label] of names) if (name.includes(`FnGetAtt${id}Arn`)) return label;
      return `import:${name}`;
    }
    if (Array.isArray(o['Fn::Join'])) {
      const [separator, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map(render).join(separator);
    }
    return JSON.stringify(value);
  };
  const statements: PolicyStatementJson[] = roleStatements(s, t, workerOf(s, entry).fn);
  const pairs = statements.flatMap((statement) => {
    expect(statement.Effect).toBe('Allow');
    const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
    return resources.flatMap((r) => actionsOf(statement).map((a) => `${a} ${render(r)}${when(statement)}`));
  });
  return [...new Set(pairs)].sort();
}

const scheduleArn = 'arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/herald-dev/*';

/** What each grant should turn into, in the notation of `permissions`. */
const grantPermissions: Record<Grant, string[]> = {
  'table:read': TABLE_READ_ACTIONS.flatMap((a) => [
    `${a} table`,
    `${a} table/index/GSI1`,
    `${a} table/index/GSI2`,
  ]),
  'table:write': TABLE_WRITE_ACTIONS.map((a) => `${a} table`),
  'bucket:read': ['s3:GetObject media/*'],
  'bucket:write': ['s3:AbortMultipartUpload media/*', 's3:DeleteObject media/*', 's3:PutObject media/*'],
  'bucket:list': ['s3:ListBucket media'],
  'publishQueue:send': SEND_ACTIONS.map((a) => `${a} queue:publish`),
  'eventQueue:send': SEND_ACTIONS.map((a) => `${a} queue:event`),
  'deliveryQueue:send': SEND_ACTIONS.map((a) => `${a} queue:delivery`),
  'metricsQueue:send': SEND_ACTIONS.map((a) => `${a} queue:metrics`),
  'table:countRequests': [
    'dynamodb:UpdateItem table when LeadingKeys APIKEY#*|RATE#ip:* when LeadingKeys false',
  ],
  'table:connectStates': ['GetItem', 'PutItem', 'UpdateItem'].map(
    (a) => `dynamodb:${a} table when LeadingKeys CONNECT#* when LeadingKeys false`,
  ),
  'channelToken:encrypt': ['kms:Encrypt tokenKey when channelId ch_*'],
  'channelToken:decrypt': ['kms:Decrypt tokenKey when channelId ch_*'],
  'connectGrant:encrypt': ['kms:Encrypt tokenKey when channelId connect_*'],
  'connectGrant:decrypt': ['kms:Decrypt tokenKey when channelId connect_*'],
  'webhookSecret:encrypt': ['kms:Encrypt tokenKey when channelId wh_*'],
  'webhookSecret:decrypt': ['kms:Decrypt tokenKey when channelId wh_*'],
  'appSecrets:read': [
    'secretsmanager:GetSecretValue arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:herald-dev/network-app/*',
  ],
  'scheduler:manage': [
    ...SCHEDULE_ACTIONS.map((a) => `${a} ${scheduleArn}`),
    'iam:PassRole schedulerRole when PassedToService scheduler.amazonaws.com',
  ],
};

/** Exactly what a worker should be allowed: tracing, consuming its own queue, and its grants. */
const expectedPermissions = (def: WorkerDef): string[] =>
  [
    ...new Set([
      ...TRACING,
      ...CONSUME_ACTIONS.map((a) => `${a} queue:${def.queue}`),
      ...def.grants.flatMap((g) => grantPermissions[g]),
    ]),
  ].sort();

describe('queue workers', () => {
  it('has one function per worker of the manifest, with its timeout and the environment of the HTTP functions (less API_URL)', () => {
    expect(workerManifest.workers.length).toBeGreaterThan(0);
    expect(stateless.workers.workers.map((w) => w.def.entry)).toEqual(
      workerManifest.workers.map((w) => w.entry),
    );
    const functions = template.findResources('AWS::Lambda::Function');
    const health = stateless.httpApi.functionsByRouteKey.get(
      `${manifest.healthRoute.method} ${manifest.healthRoute.path}`,
    );
    if (!health) throw new Error('no health function');
    const httpVariables = functions[logicalIdOf(stateless, health)]?.Properties.Environment.Variables;
    expect(Object.keys(httpVariables).length).toBeGreaterThan(10);
    for (const def of workerManifest.workers) {
      const fn = functions[logicalIdOf(stateless, workerOf(stateless, def.entry).fn)];
      expect(fn?.Properties, def.entry).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: def.timeoutSeconds,
        TracingConfig: { Mode: 'Active' },
        Description: `Herald: ${def.queue} queue worker`,
      });
      // Only HTTP functions build the OAuth callback's URL from the API's own endpoint.
      const { API_URL: _apiUrl, ...shared } = httpVariables;
      expect(fn?.Properties.Environment.Variables, def.entry).toEqual(shared);
    }
  });

  it('feeds the publish worker from the publish queue, 10 messages a batch, with partial batch responses', () => {
    const worker = workerOf(stateless, publishDef.entry);
    expect(publishDef.batchSize).toBe(10);
    const fnRef = { Ref: logicalIdOf(stateless, worker.fn) };
    const mappings = Object.values(
      template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: fnRef } }),
    );
    expect(mappings).toHaveLength(1);
    // Exactly these properties: no batching window holds back batches of 10.
    expect(mappings[0]?.Properties).toEqual({
      EventSourceArn: {
        'Fn::ImportValue': expect.stringContaining(
          `FnGetAtt${logicalIdOf(stateful, stateful.queues.publish.queue)}Arn`,
        ),
      },
      FunctionName: fnRef,
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  it('maps every worker, and only workers, to exactly one queue (its own)', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(workerManifest.workers.length);
    for (const def of workerManifest.workers) {
      const fnRef = { Ref: logicalIdOf(stateless, workerOf(stateless, def.entry).fn) };
      const own = mappings.filter((m) => JSON.stringify(m.Properties.FunctionName) === JSON.stringify(fnRef));
      expect(own, def.entry).toHaveLength(1);
      expect(JSON.stringify(own[0]?.Properties.EventSourceArn)).toContain(
        `FnGetAtt${logicalIdOf(stateful, stateful.queues[def.queue].queue)}Arn`,
      );
      expect(own[0]?.Properties).toMatchObject({
        BatchSize: def.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
  });

  it('gives the publish worker exactly its grants: it sends to the publish and event queues, decrypts tokens and reads media, and cannot manage schedules', () => {
    const granted = permissions(stateless, template, stateful, publishDef.entry);
    expect(granted).toEqual(
      expect.arrayContaining([
        'sqs:SendMessage queue:publish',
        'sqs:SendMessage queue:event',
        'sqs:ReceiveMessage queue:publish',
        'sqs:DeleteMessage queue:publish',
        'sqs:ChangeMessageVisibility queue:publish',
        'sqs:GetQueueAttributes queue:publish',
        // Channel tokens only: never a webhook secret or a connect state's grant.
        'kms:Decrypt tokenKey when channelId ch_*',
        // The token service seals refreshed channel tokens with the app's credentials (issue 11).
        'kms:Encrypt tokenKey when channelId ch_*',
        'secretsmanager:GetSecretValue arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:herald-dev/network-app/*',
        's3:GetObject media/*',
        'dynamodb:Query table/index/GSI1',
        'dynamodb:UpdateItem table',
      ]),
    );
    const forbidden = granted.filter(
      (p) =>
        p.startsWith('scheduler:') ||
        p.startsWith('iam:') ||
        p.startsWith('s3:Put') ||
        p.startsWith('s3:Delete') ||
        p.includes('queue:delivery') ||
        p.includes('queue:metrics') ||
        p.startsWith('sqs:ReceiveMessage queue:event'),
    );
    expect(forbidden).toEqual([]);
    expect(granted).toEqual(expectedPermissions(publishDef));
  });

  it('gives every worker of the manifest exactly its grants, its own queue and tracing', () => {
    for (const def of workerManifest.workers)
      expect(permissions(stateless, template, stateful, def.entry), def.entry).toEqual(
        expectedPermissions(def),
      );
  });

  it('maps every kind of grant on a worker to exactly its permission, and gathers batches above 10 for 1 s', () => {
    const grants = Object.keys(grantPermissions) as Grant[];
    const everything: WorkerDef = {
      queue: 'metrics',
      entry: 'functions/workers/everything.ts',
      batchSize: 100,
      grants,
      timeoutSeconds: 30,
    };
    const other = buildTestApp({ workerManifest: { workers: [publishDef, everything] } });
    const t = Template.fromStack(other.stateless);
    expect(permissions(other.stateless, t, other.stateful, everything.entry)).toEqual(
      expectedPermissions(everything),
    );
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(other.stateless, workerOf(other.stateless, everything.entry).fn) },
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // Batches of at most 10 are not held back.
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: Match.absent(),
    });
  });

  it('runs every worker within a sixth of its queue visibility timeout', () => {
    const queues = statefulTemplate.findResources('AWS::SQS::Queue');
    const functions = template.findResources('AWS::Lambda::Function');
    for (const { def, fn } of stateless.workers.workers) {
      const visibility: number =
        queues[logicalIdOf(stateful, stateful.queues[def.queue as QueueName].queue)]?.Properties
          .VisibilityTimeout;
      const timeout: number = functions[logicalIdOf(stateless, fn)]?.Properties.Timeout;
      expect(visibility, def.entry).toBeGreaterThanOrEqual(6 * timeout);
    }
  });

  it('fails synth, naming the worker and the limit, when a worker timeout is too long for its queue', () => {
    const tooSlow: WorkerDef = { ...publishDef, timeoutSeconds: 61 };
    expect(() => buildTestApp({ workerManifest: { workers: [tooSlow] } })).toThrow(
      `Worker ${publishDef.entry} (queue publish): timeoutSeconds 61 is too long for the publish queue, ` +
        'whose visibility timeout of 360 s must be at least 6 times the function timeout; use at most 60 s',
    );
  });

  it('rejects a worker listed twice and a queue that does not exist', () => {
    expect(() => buildTestApp({ workerManifest: { workers: [publishDef, { ...publishDef }] } })).toThrow(
      /listed twice/,
    );
    const bogus = { ...publishDef, queue: 'outbox' } as unknown as WorkerDef;
    expect(() => buildTestApp({ workerManifest: { workers: [bogus] } })).toThrow(
      /queue outbox\): no such queue/,
    );
  });
});

describe('worker alarms', () => {
  it('alarms on any error of each worker within 5 minutes, on the alarm topic', () => {
    for (const { def, fn } of stateless.workers.workers) {
      const alarms = template.findResources('AWS::CloudWatch::Alarm', {
        Properties: {
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(stateless, fn) } }],
        },
      });
      expect(Object.values(alarms), def.entry).toHaveLength(1);
      expect(Object.values(alarms)[0]?.Properties).toMatchObject({
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: logicalIdOf(stateless, stateless.alarms.topic) }],
        OKActions: [{ Ref: logicalIdOf(stateless, stateless.alarms.topic) }],
      });
    }
    expect(stateless.alarms.workerErrorAlarms.size).toBe(workerManifest.workers.length);
  });
});
