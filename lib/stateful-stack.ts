import {
  Aws,
  CfnOutput,
  Duration,
  RemovalPolicy,
  SecretValue,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Alias, Key } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { PLATFORM_IDS } from '../functions/domain/platforms/types.ts';
import { MediaStorage } from './constructs/media-storage.ts';
import { HeraldQueues, type QueueName, type QueueWithDlq } from './constructs/queues.ts';
import { Scheduling } from './constructs/scheduling.ts';
import { HeraldTable } from './constructs/table.ts';
import { HeraldUsers } from './constructs/user-pool.ts';
import { queueOutputKeys, STATEFUL_OUTPUTS, type StatefulOutput } from './stack-outputs.ts';

export interface StatefulStackProps extends StackProps {
  /** The stage (`dev`, `prod`): every fixed physical name below is made from it. */
  readonly stage: string;
}

/**
 * The fixed physical names of a stage's stateful resources. The ones that hold data (table, media
 * bucket, token key alias, app secrets) are retained and named so that a stack re-created beside
 * them fails loudly instead of starting empty ones (docs/operating-on-aws.md, "Re-creating a stage": import them);
 * the schedule group holds no data and goes with the stack.
 */
export const physicalNames = (stage: string) => ({
  table: `herald-${stage}`,
  /** Bucket names are global: the account and region make it ours. */
  mediaBucket: `herald-${stage}-media-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
  tokenKeyAlias: `alias/herald-${stage}-tokens`,
  appSecretPrefix: `herald-${stage}/network-app/`,
  scheduleGroup: `herald-${stage}`,
  userPool: `herald-${stage}`,
});

/**
 * Everything that holds data or is named by data: the table, the media bucket, the queues, the
 * token key, the schedule group with its role and the dashboard's user pool. Termination protection is on and every resource
 * that holds data is retained on delete and replacement (but not when the deploy that created it
 * rolls back, so a failed first deploy can simply be run again).
 */
export class StatefulStack extends Stack {
  readonly table: TableV2;
  readonly mediaBucket: IBucket;
  /**
   * Name of an explicit export of the media bucket's ARN. Object grants in other stacks import it
   * by this name, so their (unavoidable) `<arn>/*` IAM finding has an id we can acknowledge.
   */
  readonly mediaBucketArnExportName: string;
  readonly queues: Record<QueueName, QueueWithDlq>;
  readonly tokenKey: Key;
  readonly scheduleGroupName: string;
  readonly schedulerRole: IRole;
  /** Name prefix of the networks' app-credential secrets: `<prefix><network>`, one per network. */
  readonly appSecretPrefix: string;
  /** The people who sign in to the dashboard, and its app client. */
  readonly users: HeraldUsers;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, { terminationProtection: true, ...props });
    const names = physicalNames(props.stage);

    this.table = new HeraldTable(this, 'Data', { tableName: names.table }).table;
    const storage = new MediaStorage(this, 'MediaStorage', { bucketName: names.mediaBucket });
    this.mediaBucket = storage.bucket;
    this.mediaBucketArnExportName = `${this.stackName}-MediaBucketArn`;
    this.exportValue(this.mediaBucket.bucketArn, { name: this.mediaBucketArnExportName });
    this.queues = new HeraldQueues(this, 'Queues').byName;

    this.tokenKey = new Key(this, 'TokenKey', {
      description: 'Encrypts the access tokens of connected social channels',
      enableKeyRotation: true,
      pendingWindow: Duration.days(30),
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    // A key has no name of its own: the alias is the fixed name that makes a re-created stack fail
    // beside a retained key (whose loss would leave every stored token unreadable).
    const tokenKeyAlias = new Alias(this, 'TokenAlias', {
      aliasName: names.tokenKeyAlias,
      targetKey: this.tokenKey,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    // One secret per network for its app's client id and secret, created empty (`{}`): a network
    // whose secret is not filled in answers POST /channels/connect with network_not_configured.
    this.appSecretPrefix = names.appSecretPrefix;
    for (const platform of PLATFORM_IDS) {
      const secret = new Secret(this, `AppSecret-${platform}`, {
        secretName: `${this.appSecretPrefix}${platform}`,
        description: `OAuth app credentials of ${platform} as {"clientId":"...","clientSecret":"..."} (see docs/operating-on-aws.md)`,
        secretStringValue: SecretValue.unsafePlainText('{}'),
        removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          "A network app's client secret is issued by the network's developer console and cannot be rotated by a Lambda; it is replaced by hand when the network rotates it.",
      });
    }

    const scheduling = new Scheduling(this, 'Scheduling', {
      groupName: names.scheduleGroup,
      publishQueue: this.queues.publish.queue,
      webhookSweep: { eventQueue: this.queues.event.queue },
      metricsSweep: { metricsQueue: this.queues.metrics.queue },
    });
    // The literal name (not the group's Ref) so other stacks can build ARNs from it without an import.
    this.scheduleGroupName = names.scheduleGroup;
    this.schedulerRole = scheduling.role;

    this.users = new HeraldUsers(this, 'Users', { userPoolName: names.userPool });

    const queueOutputs = (
      [
        ['Publish', this.queues.publish],
        ['Event', this.queues.event],
        ['Delivery', this.queues.delivery],
        ['Metrics', this.queues.metrics],
      ] as const
    ).flatMap(([name, { queue, deadLetterQueue }]): [StatefulOutput, string][] => {
      const keys = queueOutputKeys(name);
      return [
        [keys.queueUrl, queue.queueUrl],
        [keys.dlqUrl, deadLetterQueue.queueUrl],
        [keys.dlqArn, deadLetterQueue.queueArn],
      ];
    });
    const outputs: [StatefulOutput, string][] = [
      ['TableName', this.table.tableName],
      ['TokenKeyArn', this.tokenKey.keyArn],
      ['TokenKeyId', this.tokenKey.keyId],
      ['TokenKeyAlias', tokenKeyAlias.aliasName],
      ['MediaBucketName', this.mediaBucket.bucketName],
      ['AccessLogsBucketName', storage.accessLogsBucket.bucketName],
      ...queueOutputs,
      ['ScheduleGroupName', this.scheduleGroupName],
      ['SchedulerRoleArn', this.schedulerRole.roleArn],
      ['AppSecretPrefix', this.appSecretPrefix],
      ['UserPoolId', this.users.userPool.userPoolId],
      ['UserPoolClientId', this.users.client.userPoolClientId],
      ['UserPoolIssuer', this.users.issuer],
    ];
    // At the stack's root, so each output's logical id is its key; never exported.
    for (const [key, value] of outputs)
      new CfnOutput(this, key, { value, description: STATEFUL_OUTPUTS[key] });
  }
}
