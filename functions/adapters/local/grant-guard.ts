/**
 * IAM for the local runtime. On AWS each route and worker is its own Lambda whose role holds only
 * the grants of its manifest entry; locally every handler runs in one process with shared clients.
 * The local runtime therefore runs each invocation inside a context naming its function and grants
 * (`runAsFunction`), and checks every AWS SDK call made inside it against the same statements the
 * stack turns into IAM policies (functions/shared/grants.ts). A call no grant allows is refused
 * before it leaves the process, with the error AWS would answer. Code outside any invocation (the
 * local pollers, the scheduler's ticker, seeding, tests) plays AWS itself and is not checked.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { KMSServiceException } from '@aws-sdk/client-kms';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { SchedulerServiceException } from '@aws-sdk/client-scheduler';
import { SQSServiceException } from '@aws-sdk/client-sqs';
import type {
  AbsoluteLocation,
  InitializeHandlerOptions,
  InitializeMiddleware,
  MetadataBearer,
} from '@smithy/types';
import type { AppCredentials } from '../../ports/app-credentials.ts';
import type { MediaRecord } from '../../ports/media.ts';
import type { Scheduler } from '../../ports/scheduler.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import { ENV, env, variable } from '../../shared/env.ts';
import { type AccessRequest, type Grant, type GrantResource, grantsAllowing } from '../../shared/grants.ts';
import { TABLE_KEYS } from '../aws/dynamo/keys.ts';
import { recordGrantUse } from './grant-usage.ts';

/** One function of the manifest, as the local runtime invokes it. */
export interface FunctionIdentity {
  /** The manifest's name for it: a route key (`POST /v1/posts`), `$default`, or a worker's entry. */
  id: string;
  /** Its Lambda-style name, as AWS would show it in a refusal. */
  name: string;
  grants: readonly Grant[];
}

const invocation = new AsyncLocalStorage<FunctionIdentity | null>();

/** Runs one invocation of `fn`: every AWS call made inside it, however deep, is checked against its grants. */
export const runAsFunction = <T>(fn: FunctionIdentity, run: () => T): T => {
  recordGrantUse(fn.id);
  return invocation.run(fn, run);
};

/** The function whose invocation is running here, if any. */
export const currentFunction = (): FunctionIdentity | null => invocation.getStore() ?? null;

/** Runs a local stand-in's own work (its table writes play an AWS service, not the function). */
const asStandIn = <T>(run: () => T): T => invocation.run(null, run);

export type AwsService = 'dynamodb' | 's3' | 'sqs' | 'kms' | 'scheduler' | 'secretsmanager';

/** Secrets Manager's refusal (no SDK client of it runs locally: the app credentials are configuration). */
class SecretsManagerServiceException extends KMSServiceException {}

/** The names of our resources in this runtime, to tell which grant resource a call touches. */
export interface ResourceNames {
  region: string;
  account: string;
  tableName: string;
  indexNames: readonly string[];
  mediaBucket: string;
  queueUrls: Partial<Record<'publishQueue' | 'eventQueue' | 'deliveryQueue' | 'metricsQueue', string>>;
  tokenKeyId: string;
  scheduleGroup: string;
  schedulerRoleArn: string;
}

const optional = (read: () => string): string | undefined => {
  try {
    return read();
  } catch {
    return undefined;
  }
};

/** The variables the resource names come from (ENV's names), to tell when they changed. */
const RESOURCE_VARIABLES = [
  'AWS_REGION',
  ENV.tableName,
  ENV.mediaBucket,
  ENV.publishQueueUrl,
  ENV.eventQueueUrl,
  ENV.deliveryQueueUrl,
  ENV.metricsQueueUrl,
  ENV.tokenKmsKeyId,
  ENV.schedulerGroup,
  ENV.schedulerRoleArn,
] as const;

let cachedNames: { variables: string; names: ResourceNames } | null = null;

/**
 * The runtime's resources, read from the same environment the functions read. Every checked call
 * asks, so the names are kept while the variables they come from stay the same (reading them
 * through `env` throws and catches for each unset optional one).
 */
export const resourceNamesFromEnv = (): ResourceNames => {
  const variables = RESOURCE_VARIABLES.map((name) => variable(name) ?? '').join('\n');
  if (cachedNames?.variables === variables) return cachedNames.names;
  const names = readResourceNames();
  cachedNames = { variables, names };
  return names;
};

const readResourceNames = (): ResourceNames => {
  const account = '000000000000';
  return {
    region: env.awsRegion ?? 'us-east-1',
    account,
    tableName: env.tableName,
    indexNames: [TABLE_KEYS.gsi1.name, TABLE_KEYS.gsi2.name],
    mediaBucket: env.mediaBucket,
    queueUrls: {
      publishQueue: optional(() => env.publishQueueUrl),
      eventQueue: optional(() => env.eventQueueUrl),
      deliveryQueue: optional(() => env.deliveryQueueUrl),
      metricsQueue: optional(() => env.metricsQueueUrl),
    },
    // Locally the token key is a file (FileTokenCipher); it stands for the KMS key of the stack.
    tokenKeyId: optional(() => env.tokenKmsKeyId) ?? 'local-token-key',
    scheduleGroup: env.schedulerGroup,
    schedulerRoleArn:
      optional(() => env.schedulerRoleArn) ?? `arn:aws:iam::${account}:role/herald-scheduler-local`,
  };
};

type Input = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

const tableResource = (names: ResourceNames, table: unknown, index?: unknown) => {
  const tableName = str(table);
  const arn = `arn:aws:dynamodb:${names.region}:${names.account}:table/${tableName}`;
  if (tableName !== names.tableName) return { resource: null, arn };
  if (index === undefined) return { resource: 'table' as const, arn };
  return {
    resource: names.indexNames.includes(str(index)) ? ('tableIndexes' as const) : null,
    arn: `${arn}/index/${str(index)}`,
  };
};

/** DynamoDB authorises a transaction item by item, each as its single-item action. */
const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

/** A key attribute's value as a call carries it: plain (document client) or an AttributeValue. */
const keyValue = (value: unknown): string | undefined => {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (value && typeof value === 'object') {
    const attribute = value as { S?: unknown; N?: unknown; B?: unknown };
    if (typeof attribute.S === 'string') return attribute.S;
    if (typeof attribute.N === 'string') return attribute.N;
  }
  return undefined;
};

const partitionOf = (item: unknown): string =>
  // A key the guard cannot read matches no pattern (IAM would see one; we refuse rather than guess).
  keyValue((item as Input | undefined)?.[TABLE_KEYS.partitionKey]) ?? '';

/** The partition key a Query names: its equality on the table's (or the index's) partition key. */
const queriedPartition = (input: Input): string => {
  // On an index, the index's partition key.
  const index = [TABLE_KEYS.gsi1, TABLE_KEYS.gsi2].find((gsi) => gsi.name === input.IndexName);
  const attribute: string = index?.partitionKey ?? TABLE_KEYS.partitionKey;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Input;
  for (const [, name, placeholder] of str(input.KeyConditionExpression).matchAll(
    /(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)/g,
  )) {
    if ((name?.startsWith('#') ? names[name] : name) === attribute)
      return keyValue(values[placeholder ?? '']) ?? '';
  }
  const legacy = (input.KeyConditions as Record<string, { AttributeValueList?: unknown[] }> | undefined)?.[
    attribute
  ];
  return keyValue(legacy?.AttributeValueList?.[0]) ?? '';
};

/** `dynamodb:LeadingKeys`: the partition keys of the items a call names (none for a scan). */
const leadingKeys = (keys: string[] | null) =>
  keys === null ? {} : { context: { 'dynamodb:LeadingKeys': keys } };

const singleItemKeys = (op: string, input: Input): string[] | null => {
  if (op === 'Query') return [queriedPartition(input)];
  if (op === 'PutItem' || op === 'Put') return [partitionOf(input.Item)];
  if (input.Key !== undefined) return [partitionOf(input.Key)];
  return null;
};

const batchKeys = (op: string, requests: unknown): string[] => {
  if (op === 'BatchGetItem')
    return (((requests as Input | undefined)?.Keys ?? []) as unknown[]).map(partitionOf);
  return ((requests ?? []) as Input[]).map((request) => {
    const put = request.PutRequest as Input | undefined;
    const del = request.DeleteRequest as Input | undefined;
    return partitionOf(put ? put.Item : del?.Key);
  });
};

const dynamoRequests = (op: string, input: Input, names: ResourceNames): AccessRequest[] => {
  if (op === 'TransactWriteItems' || op === 'TransactGetItems') {
    return ((input.TransactItems ?? []) as Record<string, Input>[]).flatMap((item) =>
      Object.entries(item).map(([kind, body]) => ({
        action: TRANSACT_ACTIONS[kind] ?? `dynamodb:${kind}`,
        ...tableResource(names, body.TableName),
        ...leadingKeys(singleItemKeys(kind, body)),
      })),
    );
  }
  if (op === 'BatchGetItem' || op === 'BatchWriteItem') {
    // IAM checks a batch once per table, with the partition keys of all its items there.
    return Object.entries((input.RequestItems ?? {}) as Input).map(([table, requests]) => ({
      action: `dynamodb:${op}`,
      ...tableResource(names, table),
      ...leadingKeys(batchKeys(op, requests)),
    }));
  }
  // PartiQL statements and anything else without a TableName name no resource of ours.
  return [
    {
      action: `dynamodb:${op}`,
      ...tableResource(names, input.TableName, input.IndexName),
      ...leadingKeys(singleItemKeys(op, input)),
    },
  ];
};

const objectResource = (names: ResourceNames, bucket: unknown, key?: unknown) => {
  const b = str(bucket);
  const k = str(key);
  const ours = b === names.mediaBucket;
  return {
    resource: ours ? (k !== '' ? ('mediaObjects' as const) : ('mediaBucket' as const)) : null,
    arn: `arn:aws:s3:::${b}${k ? `/${k}` : ''}`,
  };
};

/** `bucket/key` (URL-encoded, maybe with a leading slash or a version) of a copy's source. */
const copySource = (names: ResourceNames, source: unknown) => {
  const [path = ''] = str(source).replace(/^\//, '').split('?');
  const slash = path.indexOf('/');
  return objectResource(names, path.slice(0, slash), decodeURIComponent(path.slice(slash + 1)));
};

const S3_OBJECT_ACTIONS: Record<string, string> = {
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  GetObjectAttributes: 's3:GetObject',
  PutObject: 's3:PutObject',
  CreateMultipartUpload: 's3:PutObject',
  UploadPart: 's3:PutObject',
  CompleteMultipartUpload: 's3:PutObject',
  DeleteObject: 's3:DeleteObject',
  AbortMultipartUpload: 's3:AbortMultipartUpload',
  ListParts: 's3:ListMultipartUploadParts',
};

const S3_BUCKET_ACTIONS: Record<string, string> = {
  ListObjectsV2: 's3:ListBucket',
  ListObjects: 's3:ListBucket',
  HeadBucket: 's3:ListBucket',
  ListMultipartUploads: 's3:ListBucketMultipartUploads',
};

const s3Requests = (op: string, input: Input, names: ResourceNames): AccessRequest[] => {
  const action = S3_OBJECT_ACTIONS[op];
  if (action) return [{ action, ...objectResource(names, input.Bucket, input.Key) }];
  if (op === 'CopyObject' || op === 'UploadPartCopy') {
    return [
      { action: 's3:PutObject', ...objectResource(names, input.Bucket, input.Key) },
      { action: 's3:GetObject', ...copySource(names, input.CopySource) },
    ];
  }
  if (op === 'DeleteObjects') {
    const objects = ((input.Delete as Input | undefined)?.Objects ?? []) as Input[];
    return objects.map((o) => ({ action: 's3:DeleteObject', ...objectResource(names, input.Bucket, o.Key) }));
  }
  return [{ action: S3_BUCKET_ACTIONS[op] ?? `s3:${op}`, ...objectResource(names, input.Bucket) }];
};

const queueName = (url: string) => url.split('/').filter(Boolean).at(-1) ?? '';

const queueResource = (names: ResourceNames, input: Input) => {
  const name = typeof input.QueueName === 'string' ? input.QueueName : queueName(str(input.QueueUrl));
  const arn = `arn:aws:sqs:${names.region}:${names.account}:${name}`;
  const match = Object.entries(names.queueUrls).find(
    ([, url]) => url !== undefined && (url === input.QueueUrl || queueName(url) === name),
  );
  return { resource: (match?.[0] as GrantResource | undefined) ?? null, arn };
};

/** SQS authorises a batch as its single-message action. */
const SQS_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'sqs:SendMessage',
  DeleteMessageBatch: 'sqs:DeleteMessage',
  ChangeMessageVisibilityBatch: 'sqs:ChangeMessageVisibility',
};

const sqsRequests = (op: string, input: Input, names: ResourceNames): AccessRequest[] => [
  { action: SQS_ACTIONS[op] ?? `sqs:${op}`, ...queueResource(names, input) },
];

const keyArn = (names: ResourceNames) =>
  `arn:aws:kms:${names.region}:${names.account}:key/${names.tokenKeyId}`;

const kmsRequest = (
  action: string,
  names: ResourceNames,
  keyId: unknown,
  context: Record<string, string> = {},
): AccessRequest => ({
  action,
  // Decrypt may leave the key to the ciphertext; ours always names it.
  resource: keyId === undefined || keyId === names.tokenKeyId ? 'tokenKey' : null,
  arn: keyArn(names),
  context: Object.fromEntries(Object.entries(context).map(([k, v]) => [`kms:EncryptionContext:${k}`, v])),
});

const kmsRequests = (op: string, input: Input, names: ResourceNames): AccessRequest[] => [
  kmsRequest(`kms:${op}`, names, input.KeyId, (input.EncryptionContext ?? {}) as Record<string, string>),
];

const scheduleRequests = (
  op: string,
  names: ResourceNames,
  name: string,
  group: string,
  roleArn?: string,
) => {
  const requests: AccessRequest[] = [
    {
      action: `scheduler:${op}`,
      resource: group === names.scheduleGroup ? 'schedules' : null,
      arn: `arn:aws:scheduler:${names.region}:${names.account}:schedule/${group}/${name}`,
    },
  ];
  // Naming a role for the schedule's target passes that role to EventBridge Scheduler.
  if (roleArn !== undefined) {
    requests.push({
      action: 'iam:PassRole',
      resource: roleArn === names.schedulerRoleArn ? 'schedulerRole' : null,
      arn: roleArn,
      context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
    });
  }
  return requests;
};

const schedulerRequests = (op: string, input: Input, names: ResourceNames): AccessRequest[] => {
  const target = input.Target as Input | undefined;
  return scheduleRequests(
    op,
    names,
    str(input.Name),
    str(input.GroupName) || 'default',
    op === 'CreateSchedule' || op === 'UpdateSchedule' ? str(target?.RoleArn) : undefined,
  );
};

const SERVICES: Record<
  string,
  { service: AwsService; requests: (op: string, input: Input, names: ResourceNames) => AccessRequest[] }
> = {
  DynamoDBClient: { service: 'dynamodb', requests: dynamoRequests },
  S3Client: { service: 's3', requests: s3Requests },
  SQSClient: { service: 'sqs', requests: sqsRequests },
  KMSClient: { service: 'kms', requests: kmsRequests },
  SchedulerClient: { service: 'scheduler', requests: schedulerRequests },
};

/**
 * What IAM checks for one SDK command (`clientName` and `commandName` as the SDK's middleware
 * context names them): one request per action and resource, like IAM does for transactions and batches.
 */
export const sdkAccessRequests = (
  clientName: string,
  commandName: string,
  input: Input,
  names: ResourceNames,
): { service: AwsService | null; requests: AccessRequest[] } => {
  const op = commandName.replace(/Command$/, '');
  const known = SERVICES[clientName];
  if (!known) {
    const prefix = clientName.replace(/Client$/, '').toLowerCase();
    return { service: null, requests: [{ action: `${prefix}:${op}`, resource: null, arn: '*' }] };
  }
  return { service: known.service, requests: known.requests(op, input, names) };
};

/** How each service words and codes a refusal (what the SDK throws on AWS). */
const DENIALS: Record<
  AwsService,
  {
    name: string;
    status: number;
    exception: new (options: ConstructorParameters<typeof DynamoDBServiceException>[0]) => Error;
    /** SQS names actions in lower case in its messages; S3 quotes the resource. */
    lowerCaseAction?: boolean;
    quoteResource?: boolean;
  }
> = {
  dynamodb: { name: 'AccessDeniedException', status: 400, exception: DynamoDBServiceException },
  kms: { name: 'AccessDeniedException', status: 400, exception: KMSServiceException },
  scheduler: { name: 'AccessDeniedException', status: 403, exception: SchedulerServiceException },
  secretsmanager: { name: 'AccessDeniedException', status: 400, exception: SecretsManagerServiceException },
  s3: { name: 'AccessDenied', status: 403, exception: S3ServiceException, quoteResource: true },
  sqs: { name: 'AccessDenied', status: 403, exception: SQSServiceException, lowerCaseAction: true },
};

/** The error AWS answers when no policy of the function's role allows the request. */
export const accessDenied = (service: AwsService, fn: FunctionIdentity, request: AccessRequest): Error => {
  const denial = DENIALS[service];
  const action = denial.lowerCaseAction ? request.action.toLowerCase() : request.action;
  const resource = denial.quoteResource ? `"${request.arn}"` : request.arn;
  const message =
    `User: arn:aws:sts::000000000000:assumed-role/${fn.name}-role/${fn.name} is not authorized to perform: ` +
    `${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;
  const error = new denial.exception({
    name: denial.name,
    $fault: 'client',
    $metadata: { httpStatusCode: denial.status, requestId: randomUUID(), attempts: 1, totalRetryDelay: 0 },
    message,
  });
  if (service === 's3' || service === 'sqs') Object.assign(error, { Code: denial.name });
  return error;
};

/** Refuses, as AWS would, unless the running function's grants allow every request; records what allowed them. */
export const authorize = (service: AwsService | null, requests: AccessRequest[]): void => {
  const fn = currentFunction();
  if (!fn) return;
  const allowing = requests.map((request) => {
    const grants = grantsAllowing(fn.grants, request);
    if (grants.length === 0) {
      if (service === null)
        throw new Error(`${fn.id} made a call the local runtime cannot check: ${request.action}`);
      throw accessDenied(service, fn, request);
    }
    return grants;
  });
  for (const grants of allowing) recordGrantUse(fn.id, grants);
};

const isNotFound = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

/**
 * S3 tells a missing object (404) only to a caller that may list the bucket; anyone else gets 403,
 * which the SDK throws as `Forbidden` for a HEAD (no body) and `AccessDenied` for a GET. The local
 * S3 stand-in always says 404, so this says what S3 would.
 */
export const missingObjectError = (
  fn: FunctionIdentity,
  command: string,
  input: Input,
  names: ResourceNames,
): Error | null => {
  const listing: AccessRequest = { action: 's3:ListBucket', ...objectResource(names, input.Bucket) };
  const allowing = grantsAllowing(fn.grants, listing);
  if (allowing.length > 0) {
    // The 404 is what the listing grant bought.
    recordGrantUse(fn.id, allowing);
    return null;
  }
  const metadata = { httpStatusCode: 403, requestId: randomUUID(), attempts: 1, totalRetryDelay: 0 };
  if (command === 'HeadObjectCommand') {
    return new S3ServiceException({
      name: 'Forbidden',
      $fault: 'client',
      $metadata: metadata,
      message: 'UnknownError',
    });
  }
  return accessDenied('s3', fn, listing);
};

const guard: InitializeMiddleware<Input, MetadataBearer> = (next, context) => async (args) => {
  const fn = currentFunction();
  if (!fn) return next(args);
  const names = resourceNamesFromEnv();
  const clientName = context.clientName ?? '';
  const commandName = context.commandName ?? '';
  const { service, requests } = sdkAccessRequests(clientName, commandName, args.input, names);
  authorize(service, requests);
  const readsObject =
    clientName === 'S3Client' && (commandName === 'HeadObjectCommand' || commandName === 'GetObjectCommand');
  if (!readsObject) return next(args);
  try {
    return await next(args);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    throw missingObjectError(fn, commandName, args.input, names) ?? error;
  }
};

/** The part of an SDK client the guard needs (every v3 client, the document client's included). */
export interface MiddlewareStackOwner {
  middlewareStack: {
    add(
      middleware: InitializeMiddleware<Input, MetadataBearer>,
      options: InitializeHandlerOptions & AbsoluteLocation & { name: string; override: boolean },
    ): void;
  };
}

/**
 * Checks every command sent through `client` (presigned URLs too: the presigner runs the client's
 * middleware) before anything is serialised or sent.
 */
export const installGrantGuard = (client: MiddlewareStackOwner): void => {
  client.middlewareStack.add(guard, {
    step: 'initialize',
    priority: 'high',
    name: 'heraldGrantGuard',
    override: true,
  });
};

/** The local token cipher, checked as the KMS calls it stands for. */
export const guardTokenCipher = (cipher: TokenCipher): TokenCipher => ({
  encrypt: async (plaintext, context) => {
    const names = resourceNamesFromEnv();
    authorize('kms', [kmsRequest('kms:Encrypt', names, names.tokenKeyId, context)]);
    return cipher.encrypt(plaintext, context);
  },
  decrypt: async (ciphertext, context) => {
    const names = resourceNamesFromEnv();
    authorize('kms', [kmsRequest('kms:Decrypt', names, names.tokenKeyId, context)]);
    return cipher.decrypt(ciphertext, context);
  },
});

/**
 * The media bucket's presigned GETs (made without an S3 client, so the SDK guard does not see
 * them), checked as the GetObject they let a network make: IAM checks a presigned URL's signer's
 * rights when the URL is used, so a function without `bucket:read` hands out URLs S3 refuses.
 */
export const guardMediaUrl =
  (sign: (record: MediaRecord) => Promise<string>) =>
  async (record: MediaRecord): Promise<string> => {
    const names = resourceNamesFromEnv();
    const { service, requests } = sdkAccessRequests(
      'S3Client',
      'GetObjectCommand',
      { Bucket: names.mediaBucket, Key: record.objectKey },
      names,
    );
    authorize(service, requests);
    return sign(record);
  };

/**
 * The local app credentials, checked as the Secrets Manager reads they stand for (one secret per
 * network, `<APP_SECRET_PREFIX><network>`).
 */
export const guardAppCredentials = (credentials: AppCredentials): AppCredentials => ({
  get: async (platform) => {
    const names = resourceNamesFromEnv();
    authorize('secretsmanager', [
      {
        action: 'secretsmanager:GetSecretValue',
        resource: 'appSecrets',
        arn: `arn:aws:secretsmanager:${names.region}:${names.account}:secret:${env.appSecretPrefix}${platform}`,
      },
    ]);
    return credentials.get(platform);
  },
});

/**
 * The local scheduler, checked as the EventBridge Scheduler calls it stands for. Its own table
 * items are the service's storage, not the function's: they are written outside the function.
 */
export const guardScheduler = (scheduler: Scheduler): Scheduler => ({
  scheduleOnce: async (name, at, payload) => {
    const names = resourceNamesFromEnv();
    authorize(
      'scheduler',
      scheduleRequests('CreateSchedule', names, name, names.scheduleGroup, names.schedulerRoleArn),
    );
    await asStandIn(() => scheduler.scheduleOnce(name, at, payload));
  },
  cancel: async (name) => {
    const names = resourceNamesFromEnv();
    authorize('scheduler', scheduleRequests('DeleteSchedule', names, name, names.scheduleGroup));
    await asStandIn(() => scheduler.cancel(name));
  },
});
