/**
 * The stacks' names and their named outputs: what an operator (and `npm run admin -- --aws`) reads
 * from a deployed stage. Plain data, no CDK: the admin CLI imports it without loading aws-cdk-lib.
 * Each output's key is its logical id in the template (never exported, so a stack can drop or
 * change one without another stack holding on to it).
 */

export const statefulStackName = (stage: string): string => `Herald-Stateful-${stage}`;
export const statelessStackName = (stage: string): string => `Herald-Stateless-${stage}`;

/** The output keys of a work queue (`Publish`, ...): its URL, its dead-letter queue's URL and ARN. */
export type QueueOutput<N extends string> = `${N}QueueUrl` | `${N}DlqUrl` | `${N}DlqArn`;

export const queueOutputKeys = <N extends string>(
  name: N,
): Record<'queueUrl' | 'dlqUrl' | 'dlqArn', QueueOutput<N>> => ({
  queueUrl: `${name}QueueUrl`,
  dlqUrl: `${name}DlqUrl`,
  dlqArn: `${name}DlqArn`,
});

const queueOutputs = <N extends string>(name: N, queue: string): Record<QueueOutput<N>, string> => {
  const keys = queueOutputKeys(name);
  return {
    [keys.queueUrl]: `URL of the ${queue} queue`,
    [keys.dlqUrl]: `URL of the ${queue} queue's dead-letter queue (its alarm fires on any message)`,
    [keys.dlqArn]: `ARN of the ${queue} queue's dead-letter queue (the source of a redrive)`,
  } as Record<QueueOutput<N>, string>;
};

/** The stateful stack's outputs, by key, with their descriptions. */
export const STATEFUL_OUTPUTS = {
  TableName: 'DynamoDB table holding every account, workspace, key, channel and post (TABLE_NAME)',
  TokenKeyArn: 'ARN of the KMS key that encrypts channel tokens and webhook secrets (TOKEN_KMS_KEY_ID)',
  TokenKeyId: 'Id of the KMS key that encrypts channel tokens and webhook secrets',
  TokenKeyAlias: 'Alias of the KMS key that encrypts channel tokens (names the key when it is imported)',
  MediaBucketName: 'S3 bucket holding the media library and presigned uploads (MEDIA_BUCKET)',
  AccessLogsBucketName: "S3 bucket receiving the media bucket's server access logs",
  ...queueOutputs('Publish', 'publish'),
  ...queueOutputs('Event', 'webhook event'),
  ...queueOutputs('Delivery', 'webhook delivery'),
  ...queueOutputs('Metrics', 'metrics'),
  ScheduleGroupName: 'EventBridge Scheduler group of the scheduled posts and the sweeps (SCHEDULER_GROUP)',
  SchedulerRoleArn: 'Role EventBridge Scheduler assumes to deliver schedules to the queues',
  AppSecretPrefix:
    "Name prefix of the networks' app-credential secrets: <prefix><network>, e.g. <prefix>x (APP_SECRET_PREFIX)",
  UserPoolId: 'Cognito user pool of the people who sign in to the dashboard (create-owner adds one)',
  UserPoolClientId: "Id of the dashboard's app client (the audience the API's JWT authorizer accepts)",
  UserPoolIssuer: "Issuer of the user pool's tokens (the JWT authorizer's issuer)",
} as const;

/** The stateless stack's outputs, by key, with their descriptions. */
export const STATELESS_OUTPUTS = {
  ApiUrl: 'Base URL of the Herald API (append /v1/...)',
  AlarmTopicArn: 'SNS topic every Herald alarm notifies (subscribe email, chat or a pager to it)',
  DashboardUrl: 'The dashboard (CloudFront; the API is served at the same origin under /v1)',
} as const;

export type StatefulOutput = keyof typeof STATEFUL_OUTPUTS;
export type StatelessOutput = keyof typeof STATELESS_OUTPUTS;
