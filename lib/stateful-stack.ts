import { Duration, RemovalPolicy, SecretValue, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { PLATFORM_IDS } from '../functions/domain/platforms/types.ts';
import { MediaStorage } from './constructs/media-storage.ts';
import { HeraldQueues, type QueueName, type QueueWithDlq } from './constructs/queues.ts';
import { Scheduling } from './constructs/scheduling.ts';
import { HeraldTable } from './constructs/table.ts';

export interface StatefulStackProps extends StackProps {
  /** Name of the EventBridge Scheduler group, e.g. `herald-dev`. */
  readonly scheduleGroupName: string;
}

/**
 * Everything that holds data or is named by data: the table, the media bucket, the queues, the
 * token key and the schedule group with its role. Termination protection is on and every
 * resource is retained, so a mistaken deploy or delete cannot replace or drop them.
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

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, { terminationProtection: true, ...props });

    this.table = new HeraldTable(this, 'Data').table;
    this.mediaBucket = new MediaStorage(this, 'MediaStorage').bucket;
    this.mediaBucketArnExportName = `${this.stackName}-MediaBucketArn`;
    this.exportValue(this.mediaBucket.bucketArn, { name: this.mediaBucketArnExportName });
    this.queues = new HeraldQueues(this, 'Queues').byName;

    this.tokenKey = new Key(this, 'TokenKey', {
      description: 'Encrypts the access tokens of connected social channels',
      enableKeyRotation: true,
      pendingWindow: Duration.days(30),
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // One secret per network for its app's client id and secret, created empty (`{}`): a network
    // whose secret is not filled in answers POST /channels/connect with network_not_configured.
    this.appSecretPrefix = `${props.scheduleGroupName}/network-app/`;
    for (const platform of PLATFORM_IDS) {
      const secret = new Secret(this, `AppSecret-${platform}`, {
        secretName: `${this.appSecretPrefix}${platform}`,
        description: `OAuth app credentials of ${platform} as {"clientId":"...","clientSecret":"..."} (see the README)`,
        secretStringValue: SecretValue.unsafePlainText('{}'),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          "A network app's client secret is issued by the network's developer console and cannot be rotated by a Lambda; it is replaced by hand when the network rotates it.",
      });
    }

    const scheduling = new Scheduling(this, 'Scheduling', {
      groupName: props.scheduleGroupName,
      publishQueue: this.queues.publish.queue,
      webhookSweep: { eventQueue: this.queues.event.queue },
      metricsSweep: { metricsQueue: this.queues.metrics.queue },
    });
    // The literal name (not the group's Ref) so other stacks can build ARNs from it without an import.
    this.scheduleGroupName = props.scheduleGroupName;
    this.schedulerRole = scheduling.role;
  }
}
