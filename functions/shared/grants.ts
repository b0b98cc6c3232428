/**
 * What each manifest grant allows, as IAM statements over named resources. The CDK stack turns
 * these statements into the functions' policies (lib/constructs/grants.ts) and the local runtime
 * checks every AWS call a function makes against the same statements
 * (functions/adapters/local/grant-guard.ts), so the two can never disagree.
 */

/** Resources a function may use; the stack turns each into a least-privilege grant. */
export type Grant =
  /** Item reads on the whole table and its indexes (functions that hold a key: any tenant's data). */
  | 'table:read'
  /** Item writes on the whole table. */
  | 'table:write'
  /**
   * Finds an optional key and counts the request: updates of API-key items and of client-address
   * rate windows only (what a key-less function needs to rate-limit its caller).
   */
  | 'table:countRequests'
  /** Reads, creates and moves connect states (`CONNECT#` items) only. */
  | 'table:connectStates'
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
  /** Opens, with the token key, channel tokens only (encryption context `ch_…`). */
  | 'channelToken:decrypt'
  /** Seals, with the token key, channel tokens only. */
  | 'channelToken:encrypt'
  /** Opens an account's grant sealed in a connect state (context `connect_…`), nothing else. */
  | 'connectGrant:decrypt'
  /** Seals an account's grant for a connect state. */
  | 'connectGrant:encrypt'
  /** Opens with the token key only what was sealed for a webhook endpoint (context `wh_…`). */
  | 'webhookSecret:decrypt'
  /** Seals a webhook endpoint's signing secret. */
  | 'webhookSecret:encrypt'
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
  /** Every value of a multivalued key matches one of the patterns (true when the key is absent). */
  'ForAllValues:StringLike'?: Record<string, readonly string[]>;
  /** `'false'`: the key must be present (what makes a ForAllValues condition refuse a call without it). */
  Null?: Record<string, 'true' | 'false'>;
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

/**
 * What the token key seals, told apart by the encryption context (`channelId`, see
 * core/channels/tokens.ts and core/webhooks/endpoints.ts): a channel's tokens under its channel id,
 * an account's grant waiting in a connect state under `connect_<state hash>`, a webhook endpoint's
 * signing secret under the endpoint id. Each grant of the key is conditioned on one of them, so a
 * function that opens channel tokens cannot open a webhook secret, nor the other way round.
 */
export const CHANNEL_TOKEN_CONTEXT = { 'kms:EncryptionContext:channelId': 'ch_*' };
export const CONNECT_GRANT_CONTEXT = { 'kms:EncryptionContext:channelId': 'connect_*' };
export const WEBHOOK_SECRET_CONTEXT = { 'kms:EncryptionContext:channelId': 'wh_*' };

/** The item actions a partition-scoped table grant may name (each carries `dynamodb:LeadingKeys`; Scan does not). */
const inPartitions = (actions: readonly string[], prefixes: readonly string[]): GrantStatement => ({
  actions,
  resources: ['table'],
  conditions: {
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
    // A call without partition keys would pass ForAllValues: refused instead.
    Null: { 'dynamodb:LeadingKeys': 'false' },
  },
});

/** Partition-key prefixes of the table (functions/adapters/aws/dynamo/keys.ts) the scoped grants name. */
export const PARTITIONS = {
  apiKey: 'APIKEY#',
  /** Rate windows of client addresses (`RATE#ip:<address>`); a key's window is on the key's item. */
  addressRate: 'RATE#ip:',
  connectState: 'CONNECT#',
  account: 'ACCOUNT#',
  workspace: 'WORKSPACE#',
} as const;

const kms = (action: string, context: Record<string, string>): GrantStatement[] => [
  { actions: [action], resources: ['tokenKey'], conditions: { StringLike: context } },
];

/** Every grant as the statements it adds to a function's policy. */
export const GRANT_STATEMENTS: Record<Grant, readonly GrantStatement[]> = {
  // Like grantReadData, but naming our indexes instead of `index/*`: a new index is a deliberate grant change.
  'table:read': [{ actions: TABLE_READ_ACTIONS, resources: ['table', 'tableIndexes'] }],
  'table:write': [{ actions: TABLE_WRITE_ACTIONS, resources: ['table'] }],
  'table:countRequests': [inPartitions(['dynamodb:UpdateItem'], [PARTITIONS.apiKey, PARTITIONS.addressRate])],
  'table:connectStates': [
    inPartitions(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [PARTITIONS.connectState]),
  ],
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
  'channelToken:decrypt': kms('kms:Decrypt', CHANNEL_TOKEN_CONTEXT),
  'channelToken:encrypt': kms('kms:Encrypt', CHANNEL_TOKEN_CONTEXT),
  'connectGrant:decrypt': kms('kms:Decrypt', CONNECT_GRANT_CONTEXT),
  'connectGrant:encrypt': kms('kms:Encrypt', CONNECT_GRANT_CONTEXT),
  'webhookSecret:decrypt': kms('kms:Decrypt', WEBHOOK_SECRET_CONTEXT),
  'webhookSecret:encrypt': kms('kms:Encrypt', WEBHOOK_SECRET_CONTEXT),
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

/** What the token service needs (core/channels/token-service.ts): open and seal tokens, read the app, send the needs_reconnect event. */
export const tokenRefresh: Grant[] = [
  'channelToken:decrypt',
  'channelToken:encrypt',
  'appSecrets:read',
  'eventQueue:send',
];

/** One AWS authorisation question: may the caller do `action` on `resource`, with these condition values? */
export interface AccessRequest {
  /** IAM action, e.g. `dynamodb:PutItem`. */
  action: string;
  /** Which of our resources it is, or null when it is none of them (nothing grants that). */
  resource: GrantResource | null;
  /** The resource's ARN, for the refusal message. */
  arn: string;
  /**
   * Condition keys the request carries, e.g. `kms:EncryptionContext:channelId`, or the multivalued
   * `dynamodb:LeadingKeys` (the partition keys of the items a table call names).
   */
  context?: Record<string, string | readonly string[]>;
}

const likePattern = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );

const single = (value: string | readonly string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * IAM's rules: every condition must hold; a single-valued operator does not match a key the request
 * does not carry; `ForAllValues` holds when every value matches (so also when there is none, which
 * is why it goes with `Null: false`).
 */
const conditionsHold = (
  conditions: GrantConditions | undefined,
  context: Record<string, string | readonly string[]> = {},
) =>
  Object.entries(conditions?.StringEquals ?? {}).every(([key, value]) => single(context[key]) === value) &&
  Object.entries(conditions?.StringLike ?? {}).every(([key, pattern]) => {
    const value = single(context[key]);
    return value !== undefined && likePattern(pattern).test(value);
  }) &&
  Object.entries(conditions?.['ForAllValues:StringLike'] ?? {}).every(([key, patterns]) => {
    const value = context[key];
    const values = value === undefined ? [] : typeof value === 'string' ? [value] : value;
    return values.every((v) => patterns.some((pattern) => likePattern(pattern).test(v)));
  }) &&
  Object.entries(conditions?.Null ?? {}).every(
    ([key, absent]) => (context[key] === undefined) === (absent === 'true'),
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
