import { Duration, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  LogQueryVisualizationType,
  LogQueryWidget,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** The custom metrics the code writes (functions/shared/powertools.ts): namespace and service dimension. */
const NAMESPACE = 'Herald';
const SERVICE = { service: 'herald' };
const PERIOD = Duration.minutes(5);

export interface HeraldDashboardProps {
  readonly api: IHttpApi;
  /** The API's access log group (one JSON line per request, with its route key, status and latency). */
  readonly accessLogs: ILogGroup;
  /** Each route's function by route key (`POST /v1/posts`): its invocations and duration. */
  readonly routes: ReadonlyMap<string, IFunction>;
  /** Each work queue and its dead-letter queue, by name (`publish`, `event`, `delivery`, `metrics`). */
  readonly queues: Readonly<Record<string, { readonly queue: IQueue; readonly deadLetterQueue: IQueue }>>;
  /** The queue workers by name (`delivery` is the webhook delivery worker). */
  readonly workers: Readonly<Record<string, IFunction>>;
}

const herald = (metricName: string, label: string) =>
  new Metric({
    namespace: NAMESPACE,
    metricName,
    dimensionsMap: SERVICE,
    statistic: 'Sum',
    period: PERIOD,
    label,
  });

/** Every series of a custom metric, one per `network` (SEARCH: a network added later appears by itself). */
const perNetwork = (metricName: string, label: string): IMetric =>
  new MathExpression({
    expression: `SEARCH('{${NAMESPACE},network,service} MetricName="${metricName}"', 'Sum', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    label,
    period: PERIOD,
  });

/**
 * One CloudWatch dashboard per stage: the API (requests, errors, latency, per route), the queues
 * (depth, oldest message, dead letters), publish outcomes per network and webhook deliveries. Built
 * from what the stack and the code already produce: AWS metrics, the access logs, and the custom
 * metrics of functions/shared/powertools.ts. $3 a month (over the free tier's 50 metrics); a log
 * query costs only when the dashboard is opened ($0.005 per GB scanned).
 */
export class HeraldDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: HeraldDashboardProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: stack.stackName,
      defaultInterval: Duration.hours(3),
    });
    const width = 12;
    const routeFunctions = [...props.routes].filter(([key]) => key.includes(' '));

    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# Herald: ${stack.stackName}\nAPI, queues, publishing and webhooks. Alarms notify the stack's AlarmTopicArn output.`,
        width: 24,
        height: 2,
      }),
    );
    // The API as a whole.
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests and errors',
        width,
        left: [
          props.api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' }),
          props.api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' }),
          props.api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' }),
        ],
      }),
      new GraphWidget({
        title: 'API latency (ms)',
        width,
        left: [
          props.api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'p50' }),
          props.api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'p99' }),
          props.api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99', label: 'function p99' }),
        ],
      }),
    );
    // Per route: from the access logs (status and latency as API Gateway answered), and each
    // route's function (every route has its own).
    const accessLogQuery = (title: string, queryLines: string[]) =>
      new LogQueryWidget({
        title,
        width,
        height: 8,
        logGroupNames: [props.accessLogs.logGroupName],
        view: LogQueryVisualizationType.TABLE,
        queryLines,
      });
    this.dashboard.addWidgets(
      accessLogQuery('Per route: requests and latency in ms (access logs)', [
        'stats count(*) as requests, avg(responseLatency) as avgMs, pct(responseLatency, 99) as p99Ms by routeKey',
        'sort requests desc',
      ]),
      accessLogQuery('Per route: error answers by status (access logs)', [
        'filter status like /^[45]/',
        'stats count(*) as answers by routeKey, status',
        'sort answers desc',
      ]),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Invocations per route',
        width,
        left: routeFunctions.map(([key, fn]) =>
          fn.metricInvocations({ period: PERIOD, statistic: 'Sum', label: key }),
        ),
      }),
      new GraphWidget({
        title: 'Duration per route, p99 (ms)',
        width,
        left: routeFunctions.map(([key, fn]) =>
          fn.metricDuration({ period: PERIOD, statistic: 'p99', label: key }),
        ),
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Answers by class (all routes)',
        width,
        left: [herald('Successes', '2xx/3xx'), herald('ClientErrors', '4xx'), herald('ServerErrors', '5xx')],
      }),
      new GraphWidget({
        title: 'Function errors per route (threw or timed out)',
        width,
        left: routeFunctions.map(([key, fn]) =>
          fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: key }),
        ),
      }),
    );
    // Queues.
    const queues = Object.entries(props.queues);
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Queue depth (messages waiting)',
        width: 8,
        left: queues.map(([name, { queue }]) =>
          queue.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: name,
          }),
        ),
      }),
      new GraphWidget({
        title: 'Oldest message age (s)',
        width: 8,
        left: queues.map(([name, { queue }]) =>
          queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum', label: name }),
        ),
      }),
      new GraphWidget({
        title: 'Dead-letter queues (any message alarms)',
        width: 8,
        left: queues.map(([name, { deadLetterQueue }]) =>
          deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: `${name} DLQ`,
          }),
        ),
      }),
    );
    // Publishing and webhooks.
    const delivery = props.queues.delivery;
    const deliveryWorker = props.workers.delivery;
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Publish outcomes per network (live posts, channels)',
        width,
        left: [perNetwork('ChannelsPublished', 'published')],
        right: [perNetwork('ChannelsFailed', 'failed')],
      }),
      new GraphWidget({
        title: 'Webhook deliveries',
        width,
        left: [
          ...(delivery
            ? [
                delivery.queue.metricNumberOfMessagesSent({
                  period: PERIOD,
                  statistic: 'Sum',
                  label: 'attempts queued',
                }),
                delivery.queue.metricNumberOfMessagesDeleted({
                  period: PERIOD,
                  statistic: 'Sum',
                  label: 'attempts done',
                }),
              ]
            : []),
          ...(deliveryWorker
            ? [deliveryWorker.metricErrors({ period: PERIOD, statistic: 'Sum', label: 'worker errors' })]
            : []),
        ],
        right: deliveryWorker
          ? [deliveryWorker.metricDuration({ period: PERIOD, statistic: 'p99', label: 'worker p99 (ms)' })]
          : [],
      }),
    );
    const workers = Object.entries(props.workers);
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Queue workers: invocations',
        width,
        left: workers.map(([name, fn]) =>
          fn.metricInvocations({ period: PERIOD, statistic: 'Sum', label: name }),
        ),
      }),
      new GraphWidget({
        title: 'Queue workers: errors (a whole batch failed)',
        width,
        left: workers.map(([name, fn]) => fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: name })),
      }),
    );
  }
}
