import { Aws, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnSchedule, ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  METRICS_SWEEP_MESSAGE,
  POST_SWEEP_MESSAGE,
  TOKEN_SWEEP_MESSAGE,
  WEBHOOK_SWEEP_MESSAGE,
} from '../../functions/ports/queue-messages.ts';

export interface SchedulingProps {
  readonly groupName: string;
  /** The target of the one-time schedules (scheduled posts). */
  readonly publishQueue: IQueue;
  /**
   * The webhook sweep: a recurring schedule that puts a `sweep` message on the event queue every
   * minute, so outbox events and deliveries whose queue message was lost are sent again.
   */
  readonly webhookSweep?: { readonly eventQueue: IQueue };
  /**
   * The metrics sweep: a recurring schedule that puts a `sweep` message on the metrics queue every
   * minute; the metrics worker hands the readings that are due to the same queue.
   */
  readonly metricsSweep?: { readonly metricsQueue: IQueue };
}

/**
 * The EventBridge Scheduler group holding one `at()` schedule per scheduled post (and the recurring
 * webhook and post sweeps), and the role the scheduler assumes to deliver them: it may only send messages to
 * the publish queue (and, for the sweep, the event queue).
 */
export class Scheduling extends Construct {
  readonly group: ScheduleGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    // The group keeps its fixed name (functions and grants name it) but goes with the stack: its
    // schedules are no record of their own (each scheduled post is in the table, and the post sweep
    // requeues any whose time has passed), and a retained group would stop the next deploy of the
    // stage at AlreadyExists.
    this.group = new ScheduleGroup(this, 'Group', {
      scheduleGroupName: props.groupName,
      removalPolicy: RemovalPolicy.DESTROY,
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
        ...(props.webhookSweep
          ? {
              SendSweepToEventQueue: new PolicyDocument({
                statements: [
                  new PolicyStatement({
                    actions: ['sqs:SendMessage'],
                    resources: [props.webhookSweep.eventQueue.queueArn],
                  }),
                ],
              }),
            }
          : {}),
        ...(props.metricsSweep
          ? {
              SendSweepToMetricsQueue: new PolicyDocument({
                statements: [
                  new PolicyStatement({
                    actions: ['sqs:SendMessage'],
                    resources: [props.metricsSweep.metricsQueue.queueArn],
                  }),
                ],
              }),
            }
          : {}),
      },
    });
    if (props.webhookSweep) {
      const sweep = new CfnSchedule(this, 'WebhookSweep', {
        name: 'webhook-sweep',
        groupName: this.group.scheduleGroupName,
        description: 'Every minute: re-sends webhook work whose queue message was lost',
        scheduleExpression: 'rate(1 minute)',
        flexibleTimeWindow: { mode: 'OFF' },
        state: 'ENABLED',
        target: {
          arn: props.webhookSweep.eventQueue.queueArn,
          roleArn: this.role.roleArn,
          input: WEBHOOK_SWEEP_MESSAGE,
          // A missed sweep is made up by the next one a minute later.
          retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 },
        },
      });
      // The group is named by its literal name, which carries no dependency by itself.
      sweep.node.addDependency(this.group);
    }
    // The role may send to the publish queue already: the sweep needs nothing more.
    const postSweep = new CfnSchedule(this, 'PostSweep', {
      name: 'post-sweep',
      groupName: this.group.scheduleGroupName,
      description: 'Every minute: requeues posts stuck publishing, or scheduled past their time',
      scheduleExpression: 'rate(1 minute)',
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: props.publishQueue.queueArn,
        roleArn: this.role.roleArn,
        input: POST_SWEEP_MESSAGE,
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 },
      },
    });
    postSweep.node.addDependency(this.group);
    // Extends channels' long-lived tokens before they lapse (the publish worker runs the sweep).
    const tokenSweep = new CfnSchedule(this, 'TokenRefreshSweep', {
      name: 'token-refresh-sweep',
      groupName: this.group.scheduleGroupName,
      description:
        "Every 15 minutes: refreshes channels' long-lived tokens that are due (Instagram, Threads, Pinterest, Facebook)",
      scheduleExpression: 'rate(15 minutes)',
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: props.publishQueue.queueArn,
        roleArn: this.role.roleArn,
        input: TOKEN_SWEEP_MESSAGE,
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 300 },
      },
    });
    tokenSweep.node.addDependency(this.group);
    if (props.metricsSweep) {
      // One sweep a minute instead of a schedule per reading: see docs/metrics.md and BENCHMARKS.md.
      const metricsSweep = new CfnSchedule(this, 'MetricsSweep', {
        name: 'metrics-sweep',
        groupName: this.group.scheduleGroupName,
        description: 'Every minute: hands the metrics readings that are due to the metrics queue',
        scheduleExpression: 'rate(1 minute)',
        flexibleTimeWindow: { mode: 'OFF' },
        state: 'ENABLED',
        target: {
          arn: props.metricsSweep.metricsQueue.queueArn,
          roleArn: this.role.roleArn,
          input: METRICS_SWEEP_MESSAGE,
          // A missed sweep is made up by the next one a minute later.
          retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 },
        },
      });
      metricsSweep.node.addDependency(this.group);
    }
    // Live schedules name this role: it goes only with the group (a generated name, so a new
    // stack never collides with it).
    this.role.applyRemovalPolicy(RemovalPolicy.DESTROY);
  }
}
