import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TABLE_KEYS } from '../../functions/adapters/aws/dynamo/keys.ts';
import { PLATFORM_IDS } from '../../functions/domain/platforms/types.ts';
import { buildTestApp, logicalIdOf } from './fixture.ts';

const { stateful } = buildTestApp();
const template = Template.fromStack(stateful);
const resources = template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>;

const denyInsecureTransport = Match.objectLike({
  Effect: 'Deny',
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
});

describe('stateful stack', () => {
  it('is named for the stage, has termination protection and retains every resource that holds data', () => {
    expect(stateful.stackName).toBe('Herald-Stateful-dev');
    expect(stateful.terminationProtection).toBe(true);
    const kept = Object.entries(resources).filter(([, r]) =>
      [
        'AWS::DynamoDB::GlobalTable',
        'AWS::S3::Bucket',
        'AWS::SQS::Queue',
        'AWS::KMS::Key',
        'AWS::Scheduler::ScheduleGroup',
      ].includes(r.Type),
    );
    expect(kept).toHaveLength(1 + 2 + 8 + 1 + 1);
    for (const [id, resource] of kept)
      expect({ id, policy: resource.DeletionPolicy }).toEqual({ id, policy: 'Retain' });
  });

  it('has one on-demand table with the code key layout, two ALL-projected GSIs, TTL, PITR and deletion protection', () => {
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
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [index(TABLE_KEYS.gsi1), index(TABLE_KEYS.gsi2)],
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      },
    });
  });

  it('keeps media in an encrypted, private, TLS-only bucket that logs access and drops stale and uncompleted uploads', () => {
    const media = logicalIdOf(stateful, stateful.mediaBucket);
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: {
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

  it('has a rotating, retained KMS key for channel tokens', () => {
    template.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true, Description: Match.stringLikeRegexp('access tokens') },
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
      DeletionPolicy: 'Retain',
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
    Template.fromStack(prod.stateful).hasResourceProperties('AWS::Scheduler::ScheduleGroup', {
      Name: 'herald-prod',
    });
    expect(() => buildTestApp({ context: { stage: 'Prod Env' } })).toThrow(/stage/);
  });
});
