import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TABLE_KEYS } from '../../functions/adapters/aws/dynamo/keys.ts';
import { PLATFORM_IDS } from '../../functions/domain/platforms/types.ts';
import { buildTestApp, logicalIdOf } from './fixture.ts';

const { stateful, stateless } = buildTestApp();
const template = Template.fromStack(stateful);
const resources = template.toJSON().Resources as Record<
  string,
  { Type: string; DeletionPolicy?: string; UpdateReplacePolicy?: string }
>;

const denyInsecureTransport = Match.objectLike({
  Effect: 'Deny',
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
});

describe('stateful stack', () => {
  it('is named for the stage, has termination protection and retains every resource that holds data, except when its first deploy rolls back', () => {
    expect(stateful.stackName).toBe('Herald-Stateful-dev');
    expect(stateful.terminationProtection).toBe(true);
    const kept = Object.entries(resources).filter(([, r]) =>
      [
        'AWS::DynamoDB::GlobalTable',
        'AWS::S3::Bucket',
        'AWS::SQS::Queue',
        'AWS::KMS::Key',
        'AWS::KMS::Alias',
        'AWS::SecretsManager::Secret',
      ].includes(r.Type),
    );
    expect(kept).toHaveLength(1 + 2 + 8 + 1 + 1 + PLATFORM_IDS.length);
    for (const [id, resource] of kept) {
      expect({ id, policy: resource.DeletionPolicy, onReplace: resource.UpdateReplacePolicy }).toEqual({
        id,
        policy: 'RetainExceptOnCreate',
        onReplace: 'Retain',
      });
    }
    // The schedule group and its role hold no data: they go with the stack.
    const gone = Object.entries(resources).filter(([, r]) =>
      ['AWS::Scheduler::ScheduleGroup', 'AWS::IAM::Role'].includes(r.Type),
    );
    expect(gone).toHaveLength(2);
    for (const [id, resource] of gone)
      expect({ id, policy: resource.DeletionPolicy }).toEqual({ id, policy: 'Delete' });
  });

  it('has one on-demand table named for the stage, with the code key layout, two ALL-projected GSIs, TTL and PITR', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    const index = (gsi: { name: string; partitionKey: string; sortKey: string }) => ({
      IndexName: gsi.name,
      KeySchema: [
        { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
        { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    });
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        TableName: 'herald-dev',
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [index(TABLE_KEYS.gsi1), index(TABLE_KEYS.gsi2)],
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
        Replicas: [
          Match.objectLike({
            // Deletion protection would refuse the delete of a rolled-back first deploy (docs/operating-on-aws.md).
            DeletionProtectionEnabled: Match.absent(),
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      },
    });
  });

  it('keeps media in an encrypted, private, TLS-only bucket that logs access and drops stale and uncompleted uploads', () => {
    const media = logicalIdOf(stateful, stateful.mediaBucket);
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'RetainExceptOnCreate',
      Properties: {
        BucketName: {
          'Fn::Join': ['', ['herald-dev-media-', { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }]],
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LoggingConfiguration: { DestinationBucketName: { Ref: Match.anyValue() }, LogFilePrefix: 'media/' },
        LifecycleConfiguration: {
          Rules: [
            Match.objectLike({
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
              Status: 'Enabled',
            }),
            // Presigned uploads never completed (functions/core/media/object-keys.ts).
            Match.objectLike({ Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' }),
          ],
        },
        CorsConfiguration: {
          CorsRules: [Match.objectLike({ AllowedMethods: ['PUT', 'GET'], AllowedOrigins: ['*'] })],
        },
      },
    });
    // The log bucket is just as locked down; both refuse plain HTTP.
    const buckets = template.findResources('AWS::S3::Bucket');
    for (const bucket of Object.values(buckets)) {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toMatchObject({
        BlockPublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties.BucketEncryption).toBeDefined();
    }
    for (const id of Object.keys(buckets)) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: { Statement: Match.arrayWith([denyInsecureTransport]) },
      });
    }
    expect(Object.keys(buckets)).toContain(media);
  });

  it('has publish, event, delivery and metrics queues, each redriving to its own 14-day dead-letter queue after 5 receives', () => {
    template.resourceCountIs('AWS::SQS::Queue', 8);
    const dlqIds = new Set<string>();
    for (const { queue, deadLetterQueue } of Object.values(stateful.queues)) {
      const dlqId = logicalIdOf(stateful, deadLetterQueue);
      dlqIds.add(dlqId);
      const queueProps = template.findResources('AWS::SQS::Queue')[logicalIdOf(stateful, queue)]?.Properties;
      expect(queueProps).toMatchObject({
        SqsManagedSseEnabled: true,
        VisibilityTimeout: 360,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
      });
      const dlqProps = template.findResources('AWS::SQS::Queue')[dlqId]?.Properties;
      expect(dlqProps).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
      expect(dlqProps.RedrivePolicy).toBeUndefined();
    }
    expect(dlqIds.size).toBe(4);
    // Every queue, dead-letter queues included, refuses plain HTTP.
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    expect(policies).toHaveLength(8);
    for (const policy of policies) {
      expect(policy.Properties.PolicyDocument.Statement).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      );
    }
  });

  it('has a rotating, retained KMS key for channel tokens, named by a retained alias', () => {
    template.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'RetainExceptOnCreate',
      Properties: { EnableKeyRotation: true, Description: Match.stringLikeRegexp('access tokens') },
    });
    template.hasResource('AWS::KMS::Alias', {
      DeletionPolicy: 'RetainExceptOnCreate',
      Properties: {
        AliasName: 'alias/herald-dev-tokens',
        TargetKeyId: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.tokenKey), 'Arn'] },
      },
    });
  });

  it('has a schedule group and a scheduler role that may only send messages to the publish queue (and the sweeps to the event and metrics queues)', () => {
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'herald-dev' });
    const roleId = logicalIdOf(stateful, stateful.schedulerRole);
    const role = template.findResources('AWS::IAM::Role')[roleId];
    expect(role?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: expect.objectContaining({
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        }),
      }),
    ]);
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role?.Properties.Policies).toEqual([
      {
        PolicyName: 'SendToPublishQueue',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'sqs:SendMessage',
              Resource: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queues.publish.queue), 'Arn'] },
            },
          ],
        },
      },
      {
        PolicyName: 'SendSweepToEventQueue',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'sqs:SendMessage',
              Resource: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queues.event.queue), 'Arn'] },
            },
          ],
        },
      },
      {
        PolicyName: 'SendSweepToMetricsQueue',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'sqs:SendMessage',
              Resource: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queues.metrics.queue), 'Arn'] },
            },
          ],
        },
      },
    ]);
    // No other policy is attached to it anywhere in the stack.
    const attached = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(roleId),
    );
    expect(attached).toEqual([]);
  });

  it('refreshes long-lived channel tokens every 15 minutes: a recurring schedule puts {"kind":"token-sweep"} on the publish queue', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'token-refresh-sweep',
      ScheduleExpression: 'rate(15 minutes)',
      Target: Match.objectLike({ Input: '{"kind":"token-sweep"}' }),
    });
  });

  it('creates one empty app-credentials secret per network, kept on stack deletion', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', PLATFORM_IDS.length);
    template.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'RetainExceptOnCreate',
      Properties: Match.objectLike({ Name: 'herald-dev/network-app/x', SecretString: '{}' }),
    });
  });

  it('sweeps lost webhook work every minute: a recurring schedule puts {"kind":"sweep"} on the event queue', () => {
    // The webhook sweep, the post sweep, the token refresh sweep and the metrics sweep.
    template.resourceCountIs('AWS::Scheduler::Schedule', 4);
    const groupId = logicalIdOf(stateful, stateful.node.findChild('Scheduling').node.findChild('Group'));
    template.hasResource('AWS::Scheduler::Schedule', { DependsOn: Match.arrayWith([groupId]) });
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'webhook-sweep',
      GroupName: 'herald-dev',
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queues.event.queue), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.schedulerRole), 'Arn'] },
        Input: '{"kind":"sweep"}',
      },
    });
  });

  it('hands out due metrics readings every minute: a recurring schedule puts {"kind":"sweep"} on the metrics queue', () => {
    const groupId = logicalIdOf(stateful, stateful.node.findChild('Scheduling').node.findChild('Group'));
    const [sweep] = Object.values(
      template.findResources('AWS::Scheduler::Schedule', { Properties: { Name: 'metrics-sweep' } }),
    );
    expect(sweep?.DependsOn).toEqual(expect.arrayContaining([groupId]));
    expect(sweep?.Properties).toMatchObject({
      GroupName: 'herald-dev',
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queues.metrics.queue), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.schedulerRole), 'Arn'] },
        Input: '{"kind":"sweep"}',
      },
    });
  });

  it('sweeps stuck posts every minute: a recurring schedule puts {"kind":"sweep"} on the publish queue', () => {
    const groupId = logicalIdOf(stateful, stateful.node.findChild('Scheduling').node.findChild('Group'));
    const [sweep] = Object.values(
      template.findResources('AWS::Scheduler::Schedule', { Properties: { Name: 'post-sweep' } }),
    );
    expect(sweep?.DependsOn).toEqual(expect.arrayContaining([groupId]));
    expect(sweep?.Properties).toMatchObject({
      GroupName: 'herald-dev',
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queues.publish.queue), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.schedulerRole), 'Arn'] },
        Input: '{"kind":"sweep"}',
      },
    });
  });

  it('takes its names from the stage context', () => {
    const prod = buildTestApp({ context: { stage: 'prod' } });
    expect(prod.stateful.stackName).toBe('Herald-Stateful-prod');
    expect(prod.stateless.stackName).toBe('Herald-Stateless-prod');
    const prodTemplate = Template.fromStack(prod.stateful);
    prodTemplate.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'herald-prod' });
    prodTemplate.hasResourceProperties('AWS::DynamoDB::GlobalTable', { TableName: 'herald-prod' });
    prodTemplate.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/herald-prod-tokens' });
    prodTemplate.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'herald-prod/network-app/x' });
    prodTemplate.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: {
        'Fn::Join': ['', ['herald-prod-media-', { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }]],
      },
    });
    expect(() => buildTestApp({ context: { stage: 'Prod Env' } })).toThrow(/stage/);
  });
});

/** The property holding each resource type's physical name; `null`: the type has no name of its own. */
const NAME_PROPERTY: Record<string, string | null> = {
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::KMS::Key': null,
  'AWS::KMS::Alias': 'AliasName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::Scheduler::ScheduleGroup': 'Name',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::Cognito::UserPool': 'UserPoolName',
};

/** A physical name as docs/operating-on-aws.md writes it: `herald-<stage>-media-<account>-<region>`. */
const docForm = (name: unknown): string => {
  const text = (part: unknown): string => {
    if (typeof part === 'string') return part;
    const ref = (part as { Ref?: string }).Ref;
    if (ref === 'AWS::AccountId') return '<account>';
    if (ref === 'AWS::Region') return '<region>';
    const join = (part as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map(text).join(join[0]);
    throw new Error(`a name the docs cannot write: ${JSON.stringify(part)}`);
  };
  return text(name).replaceAll('herald-dev', 'herald-<stage>');
};

/** The rows of "Re-creating a stage" (docs/operating-on-aws.md): type, physical name and import identifier of each kept resource. */
const docRows = (() => {
  const page = readFileSync(resolve(import.meta.dirname, '../../docs/operating-on-aws.md'), 'utf8');
  const start = page.indexOf('\n## Re-creating a stage');
  expect(start).toBeGreaterThan(0);
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && line.includes('`AWS::'))
    .map((line) => line.split('|').map((cell) => cell.trim()));
})();

describe('re-creating a stage', () => {
  const all = [
    ...Object.entries(resources).map(([id, r]) => ({ stack: 'stateful', id, ...r })),
    ...Object.entries(
      Template.fromStack(stateless).toJSON().Resources as Record<
        string,
        { Type: string; DeletionPolicy?: string }
      >,
    ).map(([id, r]) => ({ stack: 'stateless', id, ...r })),
  ] as {
    stack: string;
    id: string;
    Type: string;
    DeletionPolicy?: string;
    Properties?: Record<string, unknown>;
  }[];
  const kept = all.filter((r) =>
    ['Retain', 'RetainExceptOnCreate', 'Snapshot'].includes(r.DeletionPolicy ?? ''),
  );

  it('no resource is kept when the deploy that created it rolls back, so a failed first deploy can be run again', () => {
    expect(kept.length).toBeGreaterThan(0);
    expect(all.filter((r) => r.DeletionPolicy === 'Retain').map((r) => `${r.stack}/${r.id}`)).toEqual([]);
  });

  it('a resource kept on delete has a fixed physical name only when docs/operating-on-aws.md lists it with its import identifier', () => {
    const named = kept.flatMap((r) => {
      expect({ type: r.Type, known: r.Type in NAME_PROPERTY }).toEqual({ type: r.Type, known: true });
      const property = NAME_PROPERTY[r.Type];
      const name = property ? r.Properties?.[property] : undefined;
      return name === undefined ? [] : [{ type: r.Type, name: docForm(name) }];
    });
    // The table, the media bucket, the token key's alias, the app secrets (one per network) and the user pool.
    expect(new Set(named.map((n) => n.type))).toEqual(
      new Set([
        'AWS::DynamoDB::GlobalTable',
        'AWS::S3::Bucket',
        'AWS::KMS::Alias',
        'AWS::SecretsManager::Secret',
        'AWS::Cognito::UserPool',
      ]),
    );
    for (const { type, name } of named) {
      const row = docRows.find((cells) => {
        const pattern = cells[3]?.replaceAll('`', '');
        if (!cells[2]?.includes(`\`${type}\``) || !pattern) return false;
        const regex = new RegExp(
          `^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('<network>', `(${PLATFORM_IDS.join('|')})`)}$`,
        );
        return regex.test(name);
      });
      expect({ type, name, listed: row !== undefined }).toEqual({ type, name, listed: true });
      // Its import column says how to find the identifier CloudFormation asks for.
      expect(row?.[5]).toMatch(/\S/);
    }
  });

  it('the key behind the alias is kept too, and is listed with how to find its id', () => {
    const key = kept.find((r) => r.Type === 'AWS::KMS::Key');
    expect(key).toBeDefined();
    expect(docRows.find((cells) => cells[2]?.includes('`AWS::KMS::Key`'))?.[5]).toMatch(
      /alias\/herald-<stage>-tokens/,
    );
  });
});
