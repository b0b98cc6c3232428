/**
 * The local runtime's `assembly` source of functions (the deploy rehearsal): each Lambda of a
 * synthesized cloud assembly runs from its own asset folder (lambda-host.ts) with the environment
 * the template gives it, its Refs, GetAtts and imports resolved to the local engines; every AWS call
 * goes through the front door (aws-front-door.ts), which checks it against the IAM statements the
 * template attaches to the function's role; each queue worker is fed with its event source
 * mapping's batch size, concurrency and partial-batch setting, on queues given the template's
 * visibility timeout and redrive policy.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { ENV } from '../../shared/env.ts';
import type { AccessRequest } from '../../shared/grants.ts';
import { TABLE_KEYS } from '../aws/dynamo/keys.ts';
import {
  type AssemblyFunction,
  type CloudAssemblyModel,
  functionKey,
  handlerLocation,
  type ResourceRef,
  readCloudAssembly,
  referencedResource,
  resolveValue,
  type TemplateStatement,
} from './assembly.ts';
import { type ResolvedStatement, statementsAllow } from './assembly-iam.ts';
import { ACCOUNT, localPhysicalValues, REGION } from './assembly-names.ts';
import { type Caller, type DueSchedule, startFrontDoor } from './aws-front-door.ts';
import { type LocalAwsServices, localClientConfig, type QueueKey } from './aws-services.ts';
import type { ResourceNames } from './grant-guard.ts';
import { FunctionError, LambdaHost } from './lambda-host.ts';

type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;
type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/** What the local runtime hands the assembly source once its engines run. */
export interface AssemblyStartContext {
  dynamoEndpoint: string;
  services: LocalAwsServices;
  /** The runtime's base URL (the API's endpoint, `API_URL`). */
  apiUrl: string;
  tableName: string;
  /** Variables the rehearsal adds to every function's template environment (networks, webhooks). */
  extraEnvironment: Record<string, string>;
  /** Each network's app credentials (what an operator puts in its secret), by network. */
  appSecrets: Record<string, string>;
}

/** One queue consumer as the template's event source mapping configures it. */
export interface AssemblyConsumer {
  /** The function's construct path. */
  id: string;
  queue: QueueKey;
  batchSize: number;
  concurrency: number;
  timeoutSeconds: number;
  handler: SqsHandler;
}

export interface StartedAssembly {
  /** The runtime's own environment (seeding, recovery) set to talk as the bundles do. */
  environment: Record<string, string>;
  /** What the SDK reads from the process's environment itself: the runtime's clients reach the stand-ins. */
  sdkEnvironment: Record<string, string>;
  /** The handler of an API route (`POST /v1/posts`, `GET /health`, `$default`). */
  httpHandler(routeKey: string): HttpHandler;
  consumers: AssemblyConsumer[];
  /** Per function: construct path, cold starts, invocations. */
  stats(): { path: string; coldStarts: number; invocations: number }[];
  /** Refusals the front door answered (function, action, resource), for the rehearsal's report. */
  refusals: string[];
  stop(): Promise<void>;
}

export interface AssemblySource {
  /** The `cdk synth` output folder. */
  directory: string;
  /** Replaces the parsed assembly before it runs (tests remove a statement with it). */
  edit?: (model: CloudAssemblyModel) => void;
  /** Each line a function prints. */
  onLog?: (fn: string, line: string) => void;
}

/** The environment variables that name each local queue (the contract between stack and code). */
const QUEUE_VARIABLES: Record<QueueKey, string> = {
  publish: ENV.publishQueueUrl,
  event: ENV.eventQueueUrl,
  delivery: ENV.deliveryQueueUrl,
  metrics: ENV.metricsQueueUrl,
};

const TOKEN_KEY_ID = '00000000-0000-4000-8000-rehearsal000';

const asList = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === undefined ? [] : [value];

/** Starts every function of the assembly behind the local engines the runtime started. */
export const startAssembly = async (
  source: AssemblySource,
  ctx: AssemblyStartContext,
): Promise<StartedAssembly> => {
  const model = readCloudAssembly(source.directory);
  source.edit?.(model);
  const functions = [...model.functions.values()];
  if (functions.length === 0) throw new Error(`The assembly in ${source.directory} has no Lambda function`);
  const { services } = ctx;

  // Local names of the resources the functions' environment names; anything else keeps its logical id.
  const names = new Map<string, string>();
  const anyFn = functions[0] as AssemblyFunction;
  const bind = (variable: string, name: string) => {
    const value = anyFn.environment[variable];
    const resource = value === undefined ? null : referencedResource(model, anyFn.stack, value);
    if (!resource) throw new Error(`The template's ${variable} names no resource of the assembly`);
    names.set(functionKey(resource.stack, resource.logicalId), name);
    return resource;
  };
  bind(ENV.tableName, ctx.tableName);
  bind(ENV.mediaBucket, services.bucket);
  bind(ENV.tokenKmsKeyId, TOKEN_KEY_ID);
  bind(ENV.schedulerRoleArn, 'herald-scheduler');
  const queueResources = new Map<QueueKey, ResourceRef>();
  for (const [key, variable] of Object.entries(QUEUE_VARIABLES) as [QueueKey, string][]) {
    const queue = bind(variable, services.queues[key].name);
    queueResources.set(key, queue);
    const template = model.queues.find((q) => q.stack === queue.stack && q.logicalId === queue.logicalId);
    const dlq = template?.redrive
      ? referencedResource(model, queue.stack, template.redrive.deadLetterTargetArn)
      : null;
    if (dlq) names.set(functionKey(dlq.stack, dlq.logicalId), `${services.queues[key].name}-dlq`);
  }

  // The front door's URL is in the functions' environment: known once it listens, read lazily.
  let frontDoorUrl = '';
  const physical = localPhysicalValues(names, { apiUrl: ctx.apiUrl, frontDoorUrl: () => frontDoorUrl });
  const resolve = (stack: string, value: unknown) => resolveValue(model, stack, value, physical);

  const resolveStatements = (stack: string, statements: readonly TemplateStatement[]): ResolvedStatement[] =>
    statements.map((statement) => ({
      effect: statement.Effect === 'Deny' ? 'Deny' : 'Allow',
      actions: asList(statement.Action).map((action) => resolve(stack, action)),
      resources: asList(statement.Resource).map((resource) => resolve(stack, resource)),
      conditions: Object.fromEntries(
        Object.entries(statement.Condition ?? {}).map(([operator, keys]) => [
          operator,
          Object.fromEntries(
            Object.entries(keys).map(([key, values]) => [key, asList(values).map((v) => resolve(stack, v))]),
          ),
        ]),
      ),
    }));

  // Each function is known to the front door by the session token its credentials carry.
  const callers = new Map<string, Caller & { fn: AssemblyFunction }>();
  const tokens = new Map<string, string>();
  const refusals: string[] = [];
  for (const fn of functions) {
    const token = `rehearsal-${randomUUID()}`;
    const name = fn.logicalId;
    let statements: ResolvedStatement[] | null = null;
    callers.set(token, {
      fn,
      name,
      allows: (request: AccessRequest) => {
        statements ??= resolveStatements(fn.stack, fn.statements);
        return statementsAllow(statements, request);
      },
    });
    tokens.set(functionKey(fn.stack, fn.logicalId), token);
  }

  // Roles other than the functions' (the scheduler's), by their local ARN.
  const roleStatements = (arn: string): ResolvedStatement[] | null => {
    for (const stack of model.stacks.values()) {
      for (const [logicalId, resource] of Object.entries(stack.resources)) {
        if (resource.Type !== 'AWS::IAM::Role') continue;
        if (physical({ stack: stack.name, logicalId, type: resource.Type }, 'Arn') !== arn) continue;
        const inline = asList(resource.Properties?.Policies).flatMap((policy) =>
          asList((policy as { PolicyDocument: { Statement: unknown } }).PolicyDocument.Statement),
        ) as TemplateStatement[];
        const attached = Object.values(stack.resources)
          .filter(
            (p) =>
              p.Type === 'AWS::IAM::Policy' &&
              asList(p.Properties?.Roles).some((r) => (r as { Ref?: string }).Ref === logicalId),
          )
          .flatMap((p) =>
            asList((p.Properties?.PolicyDocument as { Statement?: unknown } | undefined)?.Statement),
          ) as TemplateStatement[];
        return resolveStatements(stack.name, [...inline, ...attached]);
      }
    }
    return null;
  };

  const sqs = new SQSClient(localClientConfig.sqs(services.sqsEndpoint));
  const localQueueByArn = new Map(Object.values(services.queues).map((queue) => [queue.arn, queue]));
  const deliver = async (schedule: DueSchedule) => {
    const queue = localQueueByArn.get(schedule.target.Arn);
    const statements = roleStatements(schedule.target.RoleArn);
    const request: AccessRequest = { action: 'sqs:SendMessage', resource: null, arn: schedule.target.Arn };
    if (!queue || !statements || !statementsAllow(statements, request)) {
      refusals.push(`scheduler role ${schedule.target.RoleArn}: sqs:SendMessage on ${schedule.target.Arn}`);
      return;
    }
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: schedule.target.Input }));
  };

  const appSecretPrefix = resolve(anyFn.stack, anyFn.environment[ENV.appSecretPrefix] ?? '');
  const secretNames = new Set<string>();
  const scheduleGroups = new Set<string>();
  for (const stack of model.stacks.values()) {
    for (const [logicalId, resource] of Object.entries(stack.resources)) {
      if (resource.Type === 'AWS::SecretsManager::Secret' && resource.Properties?.Name !== undefined)
        secretNames.add(resolve(stack.name, resource.Properties.Name));
      if (resource.Type === 'AWS::Scheduler::ScheduleGroup')
        scheduleGroups.add(
          resource.Properties?.Name !== undefined
            ? resolve(stack.name, resource.Properties.Name)
            : physical({ stack: stack.name, logicalId, type: resource.Type }, 'Ref'),
        );
    }
  }
  const functionQueueUrls = () =>
    Object.fromEntries(
      (Object.keys(QUEUE_VARIABLES) as QueueKey[]).map((key) => [
        `${key}Queue`,
        physical(queueResources.get(key) as ResourceRef, 'Ref'),
      ]),
    ) as ResourceNames['queueUrls'];
  const resourceNames = (): ResourceNames => ({
    region: REGION,
    account: ACCOUNT,
    tableName: ctx.tableName,
    indexNames: [TABLE_KEYS.gsi1.name, TABLE_KEYS.gsi2.name],
    mediaBucket: services.bucket,
    queueUrls: functionQueueUrls(),
    tokenKeyId: TOKEN_KEY_ID,
    scheduleGroup: resolve(anyFn.stack, anyFn.environment[ENV.schedulerGroup] ?? ''),
    schedulerRoleArn: `arn:aws:iam::${ACCOUNT}:role/herald-scheduler`,
  });
  const frontDoor = await startFrontDoor({
    dynamoEndpoint: ctx.dynamoEndpoint,
    s3Endpoint: services.s3Endpoint,
    sqsEndpoint: services.sqsEndpoint,
    sqsQueueBase: new URL(services.queues.publish.url).origin,
    callerOf: (token) => (token === undefined ? undefined : callers.get(token)),
    names: resourceNames,
    kmsKey: { id: TOKEN_KEY_ID, arn: `arn:aws:kms:${REGION}:${ACCOUNT}:key/${TOKEN_KEY_ID}` },
    scheduleGroups,
    secret: (name) => {
      if (!secretNames.has(name)) return undefined;
      return name.startsWith(appSecretPrefix)
        ? (ctx.appSecrets[name.slice(appSecretPrefix.length)] ?? '{}')
        : '{}';
    },
    deliver,
    onRefused: (caller, request) => {
      const fn = (caller as Caller & { fn?: AssemblyFunction }).fn;
      refusals.push(`${fn?.path ?? caller.name}: ${request.action} on ${request.arn}`);
    },
  });
  frontDoorUrl = frontDoor.url;
  const stops: (() => Promise<void>)[] = [frontDoor.stop, async () => sqs.destroy()];

  try {
    // The template's queue settings on the local queues.
    for (const [key, resource] of queueResources) {
      const template = model.queues.find(
        (q) => q.stack === resource.stack && q.logicalId === resource.logicalId,
      );
      if (!template) throw new Error(`${resource.logicalId} is not a queue of the assembly`);
      const local = services.queues[key];
      const attributes: Record<string, string> = {
        VisibilityTimeout: String(template.visibilityTimeoutSeconds),
      };
      if (template.redrive) {
        const target = resolve(resource.stack, template.redrive.deadLetterTargetArn);
        if (target !== local.dlqArn)
          throw new Error(`The ${key} queue's redrive policy names ${target}, not its dead-letter queue`);
        attributes.RedrivePolicy = JSON.stringify({
          deadLetterTargetArn: local.dlqArn,
          maxReceiveCount: template.redrive.maxReceiveCount,
        });
      } else {
        // No redrive in the template: poison messages would circle for ever, as on AWS.
        attributes.RedrivePolicy = '';
      }
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: local.url, Attributes: attributes }));
    }

    const hosts = new Map<string, LambdaHost>();
    const hostOf = (fn: AssemblyFunction): LambdaHost => {
      const key = functionKey(fn.stack, fn.logicalId);
      const known = hosts.get(key);
      if (known) return known;
      if (!fn.runtime.startsWith('nodejs'))
        throw new Error(`${fn.path}: runtime ${fn.runtime} is not Node.js`);
      const { file, exportName } = handlerLocation(fn);
      const environment: Record<string, string> = {
        ...Object.fromEntries(
          Object.entries(fn.environment).map(([name, value]) => [name, resolve(fn.stack, value)]),
        ),
        ...ctx.extraEnvironment,
        // What Lambda itself sets.
        AWS_REGION: REGION,
        AWS_DEFAULT_REGION: REGION,
        AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
        LAMBDA_TASK_ROOT: fn.assetDir,
        _HANDLER: fn.handler,
        TZ: ':UTC',
        // The role's credentials: the local engines' key pair, and a session token naming the function.
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        AWS_SESSION_TOKEN: tokens.get(key) as string,
        // Every AWS call goes to the front door.
        AWS_ENDPOINT_URL: frontDoor.url,
        AWS_ENDPOINT_URL_DYNAMODB: frontDoor.url,
        AWS_ENDPOINT_URL_S3: frontDoor.url,
        AWS_ENDPOINT_URL_SQS: frontDoor.url,
        AWS_ENDPOINT_URL_KMS: frontDoor.url,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: frontDoor.url,
        AWS_ENDPOINT_URL_SCHEDULER: frontDoor.url,
        // s3rver accepts no aws-chunked uploads.
        AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
        AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      };
      const host = new LambdaHost({
        name: fn.logicalId,
        file,
        exportName,
        environment,
        timeoutSeconds: fn.timeoutSeconds,
        memoryMb: fn.memoryMb,
        ...(source.onLog ? { onLog: (line: string) => source.onLog?.(fn.path, line) } : {}),
      });
      hosts.set(key, host);
      return host;
    };
    stops.push(async () => {
      await Promise.all([...hosts.values()].map((host) => host.stop()));
    });

    const routes = new Map(model.routes.map((route) => [route.routeKey, route.functionId]));
    const httpHandler = (routeKey: string): HttpHandler => {
      // A request no route of the template matches goes to its $default route, as on API Gateway.
      const id = routes.get(routeKey) ?? routes.get('$default');
      const fn = id ? model.functions.get(id) : undefined;
      if (!fn) throw new Error(`The assembly's HTTP API has no route ${routeKey} and no $default route`);
      return async (event) => {
        try {
          return (await hostOf(fn).invoke(
            event,
            event.requestContext.requestId,
          )) as APIGatewayProxyStructuredResultV2;
        } catch (error) {
          if (!(error instanceof FunctionError)) throw error;
          source.onLog?.(fn.path, error.message);
          // What API Gateway answers when the integration fails.
          return {
            statusCode: 500,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: 'Internal Server Error' }),
          };
        }
      };
    };

    const consumers: AssemblyConsumer[] = model.eventSources.map((mapping) => {
      const fn = model.functions.get(mapping.functionId);
      if (!fn)
        throw new Error(
          `An event source mapping names ${mapping.functionId}, not a function of the assembly`,
        );
      const arn = resolve(fn.stack, mapping.eventSourceArn);
      const queue = (Object.keys(services.queues) as QueueKey[]).find(
        (key) => services.queues[key].arn === arn,
      );
      if (!queue) throw new Error(`${fn.path} consumes ${arn}, which is none of the local queues`);
      // Lambda polls with the function's role: without these it cannot create the mapping.
      const caller = callers.get(tokens.get(mapping.functionId) as string) as Caller;
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) {
        if (!caller.allows({ action, resource: null, arn }))
          throw new Error(
            `${fn.path}: its role does not allow ${action} on ${arn}; Lambda would refuse the event source mapping`,
          );
      }
      const host = hostOf(fn);
      return {
        id: fn.path,
        queue,
        batchSize: mapping.batchSize,
        concurrency: mapping.maxConcurrency ?? 5,
        timeoutSeconds: fn.timeoutSeconds,
        handler: async (event) => {
          const result = (await host.invoke(event)) as SQSBatchResponse | undefined;
          // Without ReportBatchItemFailures Lambda ignores the list: a returned batch succeeded whole.
          return mapping.reportBatchItemFailures ? result : undefined;
        },
      };
    });

    const runtimeEnvironment: Record<string, string> = {
      [ENV.runtime]: resolve(anyFn.stack, anyFn.environment[ENV.runtime] ?? 'aws'),
      [ENV.tokenKmsKeyId]: resolve(anyFn.stack, anyFn.environment[ENV.tokenKmsKeyId]),
      [ENV.schedulerGroup]: resolve(anyFn.stack, anyFn.environment[ENV.schedulerGroup]),
      [ENV.schedulerRoleArn]: resolve(anyFn.stack, anyFn.environment[ENV.schedulerRoleArn]),
      [ENV.appSecretPrefix]: appSecretPrefix,
      ...Object.fromEntries(
        (Object.keys(QUEUE_VARIABLES) as QueueKey[]).map((key) => [
          QUEUE_VARIABLES[key],
          physical(queueResources.get(key) as ResourceRef, 'Ref'),
        ]),
      ),
    };

    return {
      environment: runtimeEnvironment,
      sdkEnvironment: {
        AWS_ENDPOINT_URL_KMS: frontDoor.url,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: frontDoor.url,
        AWS_ENDPOINT_URL_SCHEDULER: frontDoor.url,
      },
      httpHandler,
      consumers,
      stats: () =>
        functions.map((fn) => {
          const host = hosts.get(functionKey(fn.stack, fn.logicalId));
          return { path: fn.path, coldStarts: host?.coldStarts ?? 0, invocations: host?.invocations ?? 0 };
        }),
      refusals,
      stop: async () => {
        for (const stop of stops.reverse()) await stop().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw error;
  }
};
