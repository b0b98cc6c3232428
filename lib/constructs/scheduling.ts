import { Aws, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface SchedulingProps {
  readonly groupName: string;
  /** The only target schedules may deliver to. */
  readonly publishQueue: IQueue;
}

/**
 * The EventBridge Scheduler group holding one `at()` schedule per scheduled post, and the role the
 * scheduler assumes to deliver them: it may only send messages to the publish queue.
 */
export class Scheduling extends Construct {
  readonly group: ScheduleGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    this.group = new ScheduleGroup(this, 'Group', {
      scheduleGroupName: props.groupName,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const groupArn = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule-group',
      resourceName: props.groupName,
    });
    this.role = new Role(this, 'Role', {
      description: `EventBridge Scheduler delivers ${props.groupName} schedules to the publish queue`,
      // Confused-deputy guard: only schedules of this account's group may use the role.
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnEquals: { 'aws:SourceArn': groupArn },
      }),
      inlinePolicies: {
        SendToPublishQueue: new PolicyDocument({
          // SSE-SQS (SQS-managed keys) needs no KMS permission.
          statements: [
            new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.publishQueue.queueArn] }),
          ],
        }),
      },
    });
    // Live schedules name this role; it must outlive a stack replacement like the group does.
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
