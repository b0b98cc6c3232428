import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  costRegion,
  firingsPerMonth,
  idleCost,
  type MeasuredFigures,
  perPostCost,
  readMeasuredFigures,
  renderCost,
  replaceCostRegion,
  type StackTemplate,
} from '../../bench/cost.ts';
import { PRICE } from '../../bench/prices.ts';

const measured: MeasuredFigures = {
  publishing: {
    measuredOn: '2026-01-02',
    channels: 3,
    dynamoRequests: 7,
    rcu: 8,
    wcu: 60,
    sqsSends: 1,
    queueMessages: { 'herald-publish': 1 },
    invocations: 2,
  },
  metrics: { measuredOn: '2026-01-03', idleSweepReadUnits: 2, perThousandPostChannels: 0.5 },
};

/** A stateful stack exporting its queue, and a stateless one whose worker and route read it. */
const stacks = (extra: Record<string, unknown> = {}): StackTemplate[] => [
  {
    stackName: 'Fixture-Stateful',
    template: {
      Resources: {
        SecretA: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
        SecretB: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
        TokenKey: { Type: 'AWS::KMS::Key', Properties: { EnableKeyRotation: true } },
        QueuesPublishQueue0123ABCD: { Type: 'AWS::SQS::Queue', Properties: {} },
        Sweep: {
          Type: 'AWS::Scheduler::Schedule',
          Properties: {
            ScheduleExpression: 'rate(5 minutes)',
            State: 'ENABLED',
            Target: { Arn: { 'Fn::GetAtt': ['QueuesPublishQueue0123ABCD', 'Arn'] } },
          },
        },
        Once: {
          Type: 'AWS::Scheduler::Schedule',
          Properties: { ScheduleExpression: 'at(2027-01-01T00:00:00)', Target: {} },
        },
        Users: { Type: 'AWS::Cognito::UserPool', Properties: { UserPoolTier: 'ESSENTIALS' } },
        Table: { Type: 'AWS::DynamoDB::Table', Properties: { BillingMode: 'PAY_PER_REQUEST' } },
        ...extra,
      },
      Outputs: {
        QueueArn: {
          Value: { 'Fn::GetAtt': ['QueuesPublishQueue0123ABCD', 'Arn'] },
          Export: { Name: 'Fixture-Stateful:QueueArn' },
        },
      },
    },
  },
  {
    stackName: 'Fixture-Stateless',
    template: {
      Resources: {
        Worker: {
          Type: 'AWS::Lambda::Function',
          Properties: { MemorySize: 1024, Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } },
        },
        Create: { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 256 } },
        Mapping: {
          Type: 'AWS::Lambda::EventSourceMapping',
          Properties: {
            EventSourceArn: { 'Fn::ImportValue': 'Fixture-Stateful:QueueArn' },
            FunctionName: { Ref: 'Worker' },
          },
        },
        Api: { Type: 'AWS::ApiGatewayV2::Api', Properties: {} },
        CreateIntegration: {
          Type: 'AWS::ApiGatewayV2::Integration',
          Properties: { IntegrationUri: { 'Fn::GetAtt': ['Create', 'Arn'] } },
        },
        CreateRoute: {
          Type: 'AWS::ApiGatewayV2::Route',
          Properties: {
            RouteKey: 'POST /v1/posts',
            Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'CreateIntegration' }]] },
          },
        },
        Plain: { Type: 'AWS::CloudWatch::Alarm', Properties: { Period: 300 } },
        Ratio: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: {
            Metrics: [
              { Id: 'expr', Expression: 'a / b' },
              { Id: 'a', MetricStat: { Period: 60 } },
              { Id: 'b', MetricStat: { Period: 60 } },
            ],
          },
        },
        Fast: { Type: 'AWS::CloudWatch::Alarm', Properties: { Period: 10 } },
        Board: { Type: 'AWS::CloudWatch::Dashboard', Properties: {} },
        Logs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } },
      },
    },
  },
];

const row = (rows: { item: string; usd: number }[], item: string) => {
  const found = rows.find((r) => r.item === item);
  if (!found) throw new Error(`no row ${item}`);
  return found.usd;
};

describe('the cost computed from templates', () => {
  it('counts a recurring rate by the 730-hour month and refuses an expression it cannot count', () => {
    expect(firingsPerMonth('rate(1 minute)')).toBe(43_800);
    expect(firingsPerMonth('rate(15 minutes)')).toBe(2_920);
    expect(firingsPerMonth('rate(2 hours)')).toBe(365);
    expect(() => firingsPerMonth('cron(0 12 * * ? *)')).toThrow(/cannot count/);
  });

  it('prices what a stage keeps: secrets, keys, alarm metrics by resolution, dashboards', () => {
    const idle = idleCost(stacks(), measured);
    expect(row(idle, 'Secrets Manager secrets')).toBeCloseTo(2 * PRICE.secret.usd, 10);
    expect(row(idle, 'KMS customer managed keys')).toBeCloseTo(PRICE.kmsKey.usd, 10);
    // One plain alarm, a metric-math alarm reading two metrics, one high-resolution alarm.
    expect(row(idle, 'CloudWatch alarms')).toBeCloseTo(
      3 * PRICE.alarmMetric.usd + PRICE.highResolutionAlarmMetric.usd,
      10,
    );
    expect(row(idle, 'CloudWatch dashboards')).toBeCloseTo(PRICE.dashboard.usd, 10);
  });

  it('prices the work a recurring schedule starts through its queue’s worker, and skips one-time schedules', () => {
    const idle = idleCost(stacks(), measured);
    const firings = (730 * 60) / 5;
    expect(row(idle, 'EventBridge Scheduler: recurring schedules')).toBeCloseTo(
      (firings * PRICE.schedulerInvocations.usd) / 1e6,
      10,
    );
    // The worker the mapping names, found through the stateful stack's export: 1 GB, arm64, traced.
    expect(row(idle, 'Lambda: the sweeps each firing starts')).toBeCloseTo(
      (firings * PRICE.lambdaRequests.usd) / 1e6 + firings * 1 * 0.05 * PRICE.lambdaArm.usd,
      10,
    );
    expect(row(idle, 'X-Ray: the sweeps’ traces')).toBeCloseTo((firings * PRICE.xrayTraces.usd) / 1e6, 10);
    expect(row(idle, 'DynamoDB: the sweeps’ queries')).toBeCloseTo(
      (firings * 2 * PRICE.dynamoRead.usd) / 1e6,
      10,
    );
    expect(row(idle, 'SQS: the sweeps’ messages and the mappings’ polling')).toBeCloseTo(
      ((3 * firings + 5 * 3 * 60 * 730) * PRICE.sqsRequests.usd) / 1e6,
      10,
    );
    const cognito = idle.find((r) => r.item === 'Cognito user pool');
    expect(cognito?.count).toBe('Essentials plan');
    expect(cognito?.usd).toBe(0);
  });

  it('refuses a resource type it has no price for, and a table with provisioned capacity', () => {
    expect(() =>
      idleCost(stacks({ Db: { Type: 'AWS::RDS::DBInstance', Properties: {} } }), measured),
    ).toThrow(/AWS::RDS::DBInstance/);
    expect(() =>
      idleCost(
        stacks({ Table: { Type: 'AWS::DynamoDB::Table', Properties: { BillingMode: 'PROVISIONED' } } }),
        measured,
      ),
    ).toThrow(/provisioned/);
  });

  it('prices a post from the measured figures, with the memory and architecture of the functions that run it', () => {
    const post = perPostCost(stacks(), measured);
    expect(row(post, 'DynamoDB writes')).toBeCloseTo((60 * PRICE.dynamoWrite.usd) / 1e6, 12);
    expect(row(post, 'DynamoDB reads')).toBeCloseTo((8 * PRICE.dynamoRead.usd) / 1e6, 12);
    // POST /v1/posts at 256 MB on x86_64 (no architecture named) for 50 ms; the worker at 1 GB arm64, 400 ms per channel.
    expect(row(post, 'Lambda duration')).toBeCloseTo(
      0.25 * 0.05 * PRICE.lambdaX86.usd + 1 * 3 * 0.4 * PRICE.lambdaArm.usd,
      12,
    );
    // A send, then a receive and a delete of the one message; only the traced worker records a trace.
    expect(row(post, 'SQS requests')).toBeCloseTo((3 * PRICE.sqsRequests.usd) / 1e6, 12);
    expect(row(post, 'X-Ray traces')).toBeCloseTo(PRICE.xrayTraces.usd / 1e6, 12);
  });

  it('writes the table between the cost markers only, and refuses a document without them', () => {
    const doc = 'before\n<!-- cost:start -->\nold\n<!-- cost:end -->\nafter\n';
    const markdown = renderCost(stacks(), measured);
    const next = replaceCostRegion(doc, markdown);
    expect(next.startsWith('before\n<!-- cost:start -->\n')).toBe(true);
    expect(next.endsWith('<!-- cost:end -->\nafter\n')).toBe(true);
    expect(costRegion(next)).toBe(markdown.trim());
    expect(markdown).toContain('| **total** | | | **$');
    expect(() => replaceCostRegion('no markers', markdown)).toThrow(/cost:start/);
  });
});

describe('the measured figures in BENCHMARKS.md', () => {
  it('are found in the sections the benches write', () => {
    const figures = readMeasuredFigures(
      readFileSync(join(import.meta.dirname, '../../BENCHMARKS.md'), 'utf8'),
    );
    expect(figures.publishing.channels).toBe(3);
    expect(figures.publishing.wcu).toBeGreaterThan(0);
    expect(figures.publishing.rcu).toBeGreaterThan(0);
    expect(Object.keys(figures.publishing.queueMessages)).toContain('herald-publish');
    expect(figures.publishing.invocations).toBeGreaterThanOrEqual(2);
    expect(figures.publishing.measuredOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(figures.metrics.idleSweepReadUnits).toBeGreaterThan(0);
    expect(figures.metrics.perThousandPostChannels).toBeGreaterThan(0);
  });

  it('name the row they miss', () => {
    expect(() =>
      readMeasuredFigures('<!-- bench:publishing:start -->\nnothing\n<!-- bench:publishing:end -->'),
    ).toThrow(/row "all"/);
  });
});
