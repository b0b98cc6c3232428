import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface HeraldAlarmsProps {
  /** Dead-letter queues by work queue name; any message in one is an alarm. */
  readonly deadLetterQueues: Record<string, IQueue>;
  readonly api: IHttpApi;
  /**
   * Queue workers by construct id (`PublishWorker`); any error (an unhandled throw or a timeout,
   * not a record reported as failed) is an alarm.
   */
  readonly workers?: Record<string, IFunction>;
  /** Where alarm notifications go, if anywhere (an email subscription needs confirming). */
  readonly alarmEmail?: string;
  /** 5xx share of requests, in percent, above which the API alarm fires. */
  readonly serverErrorPercent?: number;
  /** Fewer requests than this in the window never alarm: one failure in three calls is noise. */
  readonly minimumRequests?: number;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * Alarms on every dead-letter queue, on every queue worker's errors and on the API's server-error
 * rate, sent to one SNS topic.
 */
export class HeraldAlarms extends Construct {
  readonly topic: Topic;
  readonly deadLetterAlarms: Alarm[] = [];
  /** Errors alarm of each worker, by the worker's construct id. */
  readonly workerErrorAlarms = new Map<string, Alarm>();
  readonly serverErrorAlarm: Alarm;

  constructor(scope: Construct, id: string, props: HeraldAlarmsProps) {
    super(scope, id);

    // CloudWatch cannot publish to a topic encrypted with the AWS managed SNS key: use our own.
    const topicKey = new Key(this, 'TopicKey', {
      description: 'Encrypts Herald alarm notifications',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    topicKey.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Topic', { masterKey: topicKey, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action: IAlarmAction = new SnsAction(this.topic);

    for (const [name, dlq] of Object.entries(props.deadLetterQueues)) {
      const alarm = new Alarm(this, `${pascal(name)}DlqAlarm`, {
        alarmDescription: `Messages in the ${name} dead-letter queue: work failed ${name} processing 5 times`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      this.deadLetterAlarms.push(alarm);
    }

    for (const [name, fn] of Object.entries(props.workers ?? {})) {
      const alarm = new Alarm(this, `${name}ErrorsAlarm`, {
        alarmDescription: `${name} failed a whole batch (threw or timed out) at least once in 5 minutes`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      this.workerErrorAlarms.set(name, alarm);
    }

    const percent = props.serverErrorPercent ?? 1;
    const minimum = props.minimumRequests ?? 20;
    const period = Duration.minutes(5);
    this.serverErrorAlarm = new Alarm(this, 'Api5xxAlarm', {
      alarmDescription: `API 5xx responses above ${percent}% of requests over 5 minutes (at least ${minimum} requests)`,
      metric: new MathExpression({
        expression: `IF(requests >= ${minimum}, 100 * errors / requests, 0)`,
        usingMetrics: {
          errors: props.api.metricServerError({ period, statistic: 'Sum' }),
          requests: props.api.metricCount({ period, statistic: 'Sum' }),
        },
        period,
        label: 'API 5xx %',
      }),
      threshold: percent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.serverErrorAlarm.addAlarmAction(action);
    this.serverErrorAlarm.addOkAction(action);
  }
}
