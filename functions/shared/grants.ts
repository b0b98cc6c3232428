/**
 * What each manifest grant allows, as IAM statements over named resources. The CDK stack turns
 * these statements into the functions' policies (lib/constructs/grants.ts) and the local runtime
 * checks every AWS call a function makes against the same statements
 * (functions/adapters/local/grant-guard.ts), so the two can never disagree.
 */

/** Resources a function may use; the stack turns each into a least-privilege grant. */
export type Grant =
  | 'table:read'
  | 'table:write'
  | 'bucket:read'
  | 'bucket:write'
  /**
   * Lists the media bucket. Needed only to learn that an object is missing: without it S3 answers a
   * GET or HEAD of a missing object with 403 instead of 404.
   */
  | 'bucket:list'
  | 'publishQueue:send'
  | 'eventQueue:send'
  | 'deliveryQueue:send'
  | 'metricsQueue:send'
  | 'scheduler:manage'
  | 'tokenKey:decrypt'
  | 'tokenKey:encrypt'
  /** Decrypts with the token key only what was sealed for a webhook endpoint (never a channel token). */
  | 'webhookSecret:decrypt'
  /** Reads the networks' app credentials (one Secrets Manager secret per network). */
  | 'appSecrets:read';

/** The resources a grant statement can name; each runtime knows their ARNs. */
export type GrantResource =
  | 'table'
  /** Every global secondary index of the table, by name. */
  | 'tableIndexes'
  /** The objects of the media bucket (`<bucket arn>/*`). */
  | 'mediaObjects'
  /** The media bucket itself (bucket-level actions such as listing). */
  | 'mediaBucket'
  | 'publishQueue'
  | 'eventQueue'
  | 'deliveryQueue'
  | 'metricsQueue'
  | 'tokenKey'
  /** The schedules of our schedule group (`schedule/<group>/*`). */
  | 'schedules'
  /** The role EventBridge Scheduler assumes to deliver our schedules. */
  | 'schedulerRole'
  /** The networks' app-credential secrets. */
  | 'appSecrets';

/** IAM condition operators we use, with their keys and values (as in a policy document). */
export interface GrantConditions {
  StringEquals?: Record<string, string>;
  StringLike?: Record<string, string>;
}

export interface GrantStatement {
  readonly actions: readonly string[];
  readonly resources: readonly GrantResource[];
  readonly conditions?: GrantConditions;
}

/** What `table:read` allows: the item reads of `grantReadData`, without its stream actions. */
export const TABLE_READ_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
];

/** What `table:write` allows: the item writes of `grantWriteData` (transactions check these per item). */
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:BatchWriteItem',
  'dynamodb:DeleteItem',
  'dynamodb:DescribeTable',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
];

/** What a queue's `send` grant allows (CDK's `grantSendMessages`; SendMessageBatch is authorised as SendMessage). */
export const QUEUE_SEND_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];

/** The actions `scheduler:manage` allows, on the schedules of our group only. */
export const SCHEDULE_ACTIONS = [
  'scheduler:CreateSchedule',
  'scheduler:UpdateSchedule',
  'scheduler:DeleteSchedule',
  'scheduler:GetSchedule',
];

/** Webhook endpoint ids are the encryption context of their sealed secrets (see core/webhooks/endpoints.ts). */
export const WEBHOOK_SECRET_CONTEXT = { 'kms:EncryptionContext:channelId': 'wh_*' };

/** Every grant as the statements it adds to a function's policy. */
export const GRANT_STATEMENTS: Record<Grant, readonly GrantStatement[]> = {
  // Like grantReadData, but naming our indexes instead of `index/*`: a new index is a deliberate grant change.
  'table:read': [{ actions: TABLE_READ_ACTIONS, resources: ['table', 'tableIndexes'] }],
  'table:write': [{ actions: TABLE_WRITE_ACTIONS, resources: ['table'] }],
  // Presigned GETs and HEADs are signed with the function's credentials: object reads only.
  'bucket:read': [{ actions: ['s3:GetObject'], resources: ['mediaObjects'] }],
  'bucket:write': [
    { actions: ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], resources: ['mediaObjects'] },
  ],
  'bucket:list': [{ actions: ['s3:ListBucket'], resources: ['mediaBucket'] }],
  'publishQueue:send': [{ actions: QUEUE_SEND_ACTIONS, resources: ['publishQueue'] }],
  'eventQueue:send': [{ actions: QUEUE_SEND_ACTIONS, resources: ['eventQueue'] }],
  'deliveryQueue:send': [{ actions: QUEUE_SEND_ACTIONS, resources: ['deliveryQueue'] }],
  'metricsQueue:send': [{ actions: QUEUE_SEND_ACTIONS, resources: ['metricsQueue'] }],
  'tokenKey:encrypt': [{ actions: ['kms:Encrypt'], resources: ['tokenKey'] }],
  'tokenKey:decrypt': [{ actions: ['kms:Decrypt'], resources: ['tokenKey'] }],
  'webhookSecret:decrypt': [
    { actions: ['kms:Decrypt'], resources: ['tokenKey'], conditions: { StringLike: WEBHOOK_SECRET_CONTEXT } },
  ],
  'appSecrets:read': [{ actions: ['secretsmanager:GetSecretValue'], resources: ['appSecrets'] }],
  'scheduler:manage': [
    { actions: SCHEDULE_ACTIONS, resources: ['schedules'] },
    {
      actions: ['iam:PassRole'],
      resources: ['schedulerRole'],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    },
  ],
};

/** Every grant name, in a stable order. */
export const ALL_GRANTS = Object.keys(GRANT_STATEMENTS) as Grant[];

/** One AWS authorisation question: may the caller do `action` on `resource`, with these condition values? */
export interface AccessRequest {
  /** IAM action, e.g. `dynamodb:PutItem`. */
  action: string;
  /** Which of our resources it is, or null when it is none of them (nothing grants that). */
  resource: GrantResource | null;
  /** The resource's ARN, for the refusal message. */
  arn: string;
  /** Condition keys the request carries, e.g. `kms:EncryptionContext:channelId`. */
  context?: Record<string, string>;
}

const likePattern = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );

/** IAM's rule: every condition must hold, and a key the request does not carry does not match. */
const conditionsHold = (conditions: GrantConditions | undefined, context: Record<string, string> = {}) =>
  Object.entries(conditions?.StringEquals ?? {}).every(([key, value]) => context[key] === value) &&
  Object.entries(conditions?.StringLike ?? {}).every(
    ([key, pattern]) => context[key] !== undefined && likePattern(pattern).test(context[key]),
  );

/** Whether one grant allows the request. */
export const grantAllows = (grant: Grant, request: AccessRequest): boolean =>
  request.resource !== null &&
  GRANT_STATEMENTS[grant].some(
    (statement) =>
      statement.actions.includes(request.action) &&
      statement.resources.includes(request.resource as GrantResource) &&
      conditionsHold(statement.conditions, request.context),
  );

/** The grants among `grants` that allow the request (none: IAM refuses it). */
export const grantsAllowing = (grants: readonly Grant[], request: AccessRequest): Grant[] =>
  grants.filter((grant) => grantAllows(grant, request));
