import { CfnOutput, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ENV } from '../functions/shared/env.ts';
import { HeraldAlarms } from './constructs/alarms.ts';
import { HeraldDashboard } from './constructs/dashboard.ts';
import { DashboardHosting } from './constructs/dashboard-hosting.ts';
import type { GrantTargets } from './constructs/grants.ts';
import { HeraldHttpApi, type RouteManifest, type Throttle } from './constructs/http-api.ts';
import { HeraldWorkers, type WorkerManifest } from './constructs/workers.ts';
import { STATELESS_OUTPUTS } from './stack-outputs.ts';
import type { StatefulStack } from './stateful-stack.ts';

export interface StatelessStackProps extends StackProps {
  readonly stateful: StatefulStack;
  readonly manifest: RouteManifest;
  /** The queue workers (`functions/workers/manifest.ts` unless a test supplies its own). */
  readonly workerManifest: WorkerManifest;
  /** Repository root the handler entries are resolved from. */
  readonly sourceRoot: string;
  readonly rateLimitPerMinute: number;
  /** The stage's default throttle (each route without its own). */
  readonly apiThrottle: Throttle;
  /** Each key-less route's throttle. */
  readonly keylessThrottle: Throttle;
  readonly alarmEmail?: string;
  /** The API's custom domain (`https://api.example.com`): the OAuth callback's base instead of the API's URL. */
  readonly publicBaseUrl?: string;
  /** A dashboard already built (tests): deployed instead of building `dashboard/` at synth. */
  readonly builtDashboard?: string;
}

/**
 * Code and its wiring: the HTTP API, its functions, the queue workers and the alarms. Safe to
 * destroy and redeploy.
 */
export class StatelessStack extends Stack {
  readonly httpApi: HeraldHttpApi;
  readonly workers: HeraldWorkers;
  readonly alarms: HeraldAlarms;
  readonly dashboard: HeraldDashboard;
  /** The people's dashboard: S3 behind CloudFront, with the API at the same origin. */
  readonly dashboardHosting: DashboardHosting;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { stateful } = props;
    // Named imports (below) do not create the dependency by themselves.
    this.addStackDependency(stateful);
    const { publish, event, delivery, metrics } = stateful.queues;

    const grantTargets: GrantTargets = {
      table: stateful.table,
      mediaBucket: {
        arn: Fn.importValue(stateful.mediaBucketArnExportName),
        arnExportName: stateful.mediaBucketArnExportName,
      },
      publishQueue: publish.queue,
      eventQueue: event.queue,
      deliveryQueue: delivery.queue,
      metricsQueue: metrics.queue,
      tokenKey: stateful.tokenKey,
      scheduleGroupName: stateful.scheduleGroupName,
      schedulerRole: stateful.schedulerRole,
      appSecretPrefix: stateful.appSecretPrefix,
    };

    // Every function, route or worker, gets every variable (names from the code's env module); IAM,
    // not the environment, decides what a function may touch. The publishing tunables
    // (NETWORK_*, SCHEDULE_LEAD_SECONDS, PUBLISH_*) are left to the code's defaults, which suit AWS.
    const environment: Record<string, string> = {
      [ENV.runtime]: 'aws',
      [ENV.tableName]: stateful.table.tableName,
      [ENV.mediaBucket]: stateful.mediaBucket.bucketName,
      [ENV.publishQueueUrl]: publish.queue.queueUrl,
      [ENV.eventQueueUrl]: event.queue.queueUrl,
      [ENV.deliveryQueueUrl]: delivery.queue.queueUrl,
      [ENV.metricsQueueUrl]: metrics.queue.queueUrl,
      [ENV.schedulerGroup]: stateful.scheduleGroupName,
      [ENV.schedulerRoleArn]: stateful.schedulerRole.roleArn,
      [ENV.schedulerTargetArn]: publish.queue.queueArn,
      [ENV.tokenKmsKeyId]: stateful.tokenKey.keyArn,
      [ENV.rateLimitPerMinute]: String(props.rateLimitPerMinute),
      [ENV.appSecretPrefix]: stateful.appSecretPrefix,
      ...(props.publicBaseUrl ? { [ENV.publicBaseUrl]: props.publicBaseUrl } : {}),
    };

    this.httpApi = new HeraldHttpApi(this, 'Http', {
      manifest: props.manifest,
      sourceRoot: props.sourceRoot,
      environment,
      grantTargets,
      throttle: props.apiThrottle,
      keylessThrottle: props.keylessThrottle,
      users: { issuer: stateful.users.issuer, audience: stateful.users.client.userPoolClientId },
    });

    this.workers = new HeraldWorkers(this, 'Workers', {
      manifest: props.workerManifest,
      sourceRoot: props.sourceRoot,
      environment,
      grantTargets,
      queues: stateful.queues,
    });

    this.dashboard = new HeraldDashboard(this, 'Dashboard', {
      api: this.httpApi.api,
      accessLogs: this.httpApi.accessLogs,
      routes: this.httpApi.functionsByRouteKey,
      queues: stateful.queues,
      workers: Object.fromEntries(this.workers.workers.map(({ def, fn }) => [def.queue, fn])),
    });

    this.dashboardHosting = new DashboardHosting(this, 'DashboardHosting', {
      api: this.httpApi.api,
      userPoolId: stateful.users.userPool.userPoolId,
      userPoolClientId: stateful.users.client.userPoolClientId,
      sourceRoot: props.sourceRoot,
      ...(props.builtDashboard ? { builtDashboard: props.builtDashboard } : {}),
    });

    this.alarms = new HeraldAlarms(this, 'Alarms', {
      deadLetterQueues: {
        publish: publish.deadLetterQueue,
        event: event.deadLetterQueue,
        delivery: delivery.deadLetterQueue,
        metrics: metrics.deadLetterQueue,
      },
      api: this.httpApi.api,
      workers: Object.fromEntries(this.workers.workers.map(({ fn }) => [fn.node.id, fn])),
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });

    // Named outputs (lib/stack-outputs.ts), never exported. The API's URL is the HTTP API's own
    // output, given its stable key here.
    const apiUrl = this.httpApi.node.findChild('Url') as CfnOutput;
    apiUrl.overrideLogicalId('ApiUrl');
    apiUrl.description = STATELESS_OUTPUTS.ApiUrl;
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: STATELESS_OUTPUTS.AlarmTopicArn,
    });
    new CfnOutput(this, 'DashboardUrl', {
      value: this.dashboardHosting.url,
      description: STATELESS_OUTPUTS.DashboardUrl,
    });
  }
}
