/**
 * Reads a synthesized cloud assembly (`cdk synth -o <dir>`): every Lambda function with its asset
 * folder, handler, environment, timeout and the IAM statements of its role; the HTTP API's routes;
 * the SQS event source mappings; the queues' visibility timeouts and redrive policies. Values are
 * kept as the template writes them (Refs, GetAtts, imports) and resolved by `resolveValue` against
 * the local engines' names, so the deploy rehearsal runs what `cdk deploy` would upload, wired as
 * the template wires it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, unknown>;

export interface TemplateResource {
  Type: string;
  Properties?: Json;
  Metadata?: Json;
}

export interface StackTemplate {
  name: string;
  resources: Record<string, TemplateResource>;
  /** Exported output values by export name (what `Fn::ImportValue` reads). */
  exports: Record<string, unknown>;
}

/** One IAM statement as the template writes it (resources still unresolved). */
export interface TemplateStatement {
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

export interface AssemblyFunction {
  stack: string;
  logicalId: string;
  /** The construct path (`Herald-Stateless-dev/Http/PostsCreate/Resource`). */
  path: string;
  assetDir: string;
  /** `index.handler`. */
  handler: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  environment: Record<string, unknown>;
  role: { stack: string; logicalId: string } | null;
  /** Every identity-policy statement attached to the role (inline and `AWS::IAM::Policy`). */
  statements: TemplateStatement[];
  /** Managed policy ARNs of the role (as written). */
  managedPolicies: unknown[];
}

export interface AssemblyRoute {
  routeKey: string;
  /** The function its integration invokes. */
  functionId: string;
  /** The JWT authorizer API Gateway runs before the function, as the template configures it. */
  jwtAuthorizer?: AssemblyJwtAuthorizer;
}

/** An `AWS::ApiGatewayV2::Authorizer` of type JWT: its values as the template writes them. */
export interface AssemblyJwtAuthorizer {
  stack: string;
  logicalId: string;
  issuer: unknown;
  audience: unknown[];
  identitySource: unknown[];
}

export interface AssemblyEventSource {
  functionId: string;
  eventSourceArn: unknown;
  batchSize: number;
  maxConcurrency: number | undefined;
  reportBatchItemFailures: boolean;
  maxBatchingWindowSeconds: number;
}

export interface AssemblyQueue {
  stack: string;
  logicalId: string;
  visibilityTimeoutSeconds: number;
  redrive: { deadLetterTargetArn: unknown; maxReceiveCount: number } | null;
}

export interface CloudAssemblyModel {
  directory: string;
  stacks: Map<string, StackTemplate>;
  /** By `<stack>/<logicalId>`. */
  functions: Map<string, AssemblyFunction>;
  routes: AssemblyRoute[];
  eventSources: AssemblyEventSource[];
  queues: AssemblyQueue[];
}

export const functionKey = (stack: string, logicalId: string): string => `${stack}/${logicalId}`;

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

const refOf = (value: unknown): string | undefined => {
  const ref = (value as Json | null)?.Ref;
  return typeof ref === 'string' ? ref : undefined;
};

const getAttOf = (value: unknown): [string, string] | undefined => {
  const att = (value as Json | null)?.['Fn::GetAtt'];
  if (Array.isArray(att) && typeof att[0] === 'string' && typeof att[1] === 'string') return [att[0], att[1]];
  if (typeof att === 'string') {
    const [id, ...rest] = att.split('.');
    return [id ?? '', rest.join('.')];
  }
  return undefined;
};

/** Reads every `*.template.json` of the assembly directory. */
export const readCloudAssembly = (directory: string): CloudAssemblyModel => {
  const stacks = new Map<string, StackTemplate>();
  for (const file of readdirSync(directory)
    .filter((f) => f.endsWith('.template.json'))
    .sort()) {
    const name = file.replace(/\.template\.json$/, '');
    const template = JSON.parse(readFileSync(join(directory, file), 'utf8')) as {
      Resources?: Record<string, TemplateResource>;
      Outputs?: Record<string, { Value: unknown; Export?: { Name?: unknown } }>;
    };
    const exports: Record<string, unknown> = {};
    for (const output of Object.values(template.Outputs ?? {})) {
      const exportName = output.Export?.Name;
      if (typeof exportName === 'string') exports[exportName] = { stack: name, value: output.Value };
    }
    stacks.set(name, { name, resources: template.Resources ?? {}, exports });
  }
  if (stacks.size === 0) throw new Error(`No CloudFormation template in ${directory}`);

  const functions = new Map<string, AssemblyFunction>();
  const routes: AssemblyRoute[] = [];
  const eventSources: AssemblyEventSource[] = [];
  const queues: AssemblyQueue[] = [];
  for (const stack of stacks.values()) {
    const byType = (type: string) =>
      Object.entries(stack.resources).filter(([, resource]) => resource.Type === type);
    // Functions that only serve CloudFormation custom resources at deploy time (CDK's
    // BucketDeployment copying the dashboard's files) are CDK's, not the app's: nothing calls them
    // once the stack is up, so the rehearsal does not host them.
    const deployTimeOnly = new Set(
      Object.values(stack.resources)
        .filter((r) => r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource')
        .map((r) => getAttOf(r.Properties?.ServiceToken)?.[0])
        .filter((id): id is string => id !== undefined),
    );
    for (const [logicalId, resource] of byType('AWS::Lambda::Function')) {
      if (deployTimeOnly.has(logicalId)) continue;
      const props = resource.Properties ?? {};
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (typeof assetPath !== 'string')
        throw new Error(`${stack.name}/${logicalId} names no asset folder (aws:asset:path)`);
      const roleId = getAttOf(props.Role)?.[0];
      const statements: TemplateStatement[] = [];
      const managedPolicies: unknown[] = [];
      if (roleId) {
        const role = stack.resources[roleId];
        for (const policy of asArray(role?.Properties?.Policies as Json[] | undefined)) {
          statements.push(...asArray((policy.PolicyDocument as Json).Statement as TemplateStatement[]));
        }
        managedPolicies.push(...asArray(role?.Properties?.ManagedPolicyArns as unknown[] | undefined));
        for (const [, policy] of byType('AWS::IAM::Policy')) {
          const roles = asArray(policy.Properties?.Roles as unknown[] | undefined);
          if (!roles.some((r) => refOf(r) === roleId)) continue;
          const document = policy.Properties?.PolicyDocument as Json;
          statements.push(...asArray(document.Statement as TemplateStatement[]));
        }
      }
      const environment = ((props.Environment as Json | undefined)?.Variables ?? {}) as Record<
        string,
        unknown
      >;
      functions.set(functionKey(stack.name, logicalId), {
        stack: stack.name,
        logicalId,
        path: String(resource.Metadata?.['aws:cdk:path'] ?? logicalId),
        assetDir: join(directory, assetPath),
        handler: String(props.Handler ?? 'index.handler'),
        runtime: String(props.Runtime ?? ''),
        timeoutSeconds: Number(props.Timeout ?? 3),
        memoryMb: Number(props.MemorySize ?? 128),
        environment,
        role: roleId ? { stack: stack.name, logicalId: roleId } : null,
        statements,
        managedPolicies,
      });
    }
    for (const [logicalId, resource] of byType('AWS::ApiGatewayV2::Route')) {
      const props = resource.Properties ?? {};
      const target = props.Target as Json | undefined;
      // `integrations/<Ref Integration>` as a Fn::Join.
      const parts = (target?.['Fn::Join'] as [string, unknown[]] | undefined)?.[1] ?? [];
      const integrationId = parts.map(refOf).find((ref) => ref !== undefined);
      const integration = integrationId ? stack.resources[integrationId] : undefined;
      const fnId = getAttOf(integration?.Properties?.IntegrationUri)?.[0];
      if (!fnId) throw new Error(`${stack.name}/${logicalId}: no Lambda integration found`);
      const authorizerId = props.AuthorizationType === 'JWT' ? refOf(props.AuthorizerId) : undefined;
      const authorizer = authorizerId ? stack.resources[authorizerId] : undefined;
      if (props.AuthorizationType === 'JWT' && authorizer?.Properties?.AuthorizerType !== 'JWT')
        throw new Error(
          `${stack.name}/${logicalId}: its JWT authorizer is not a JWT authorizer of the stack`,
        );
      const jwt = authorizer?.Properties?.JwtConfiguration as Json | undefined;
      routes.push({
        routeKey: String(props.RouteKey),
        functionId: functionKey(stack.name, fnId),
        ...(authorizerId && jwt
          ? {
              jwtAuthorizer: {
                stack: stack.name,
                logicalId: authorizerId,
                issuer: jwt.Issuer,
                audience: asArray(jwt.Audience as unknown[] | undefined),
                identitySource: asArray(authorizer?.Properties?.IdentitySource as unknown[] | undefined),
              },
            }
          : {}),
      });
    }
    for (const [, resource] of byType('AWS::Lambda::EventSourceMapping')) {
      const props = resource.Properties ?? {};
      const fnId = refOf(props.FunctionName);
      if (!fnId) throw new Error(`${stack.name}: an event source mapping names no function of the stack`);
      eventSources.push({
        functionId: functionKey(stack.name, fnId),
        eventSourceArn: props.EventSourceArn,
        // CloudFormation's default for SQS.
        batchSize: Number(props.BatchSize ?? 10),
        maxConcurrency: (props.ScalingConfig as Json | undefined)?.MaximumConcurrency as number | undefined,
        reportBatchItemFailures: asArray(props.FunctionResponseTypes as string[] | undefined).includes(
          'ReportBatchItemFailures',
        ),
        maxBatchingWindowSeconds: Number(props.MaximumBatchingWindowInSeconds ?? 0),
      });
    }
    for (const [logicalId, resource] of byType('AWS::SQS::Queue')) {
      const props = resource.Properties ?? {};
      const redrive = props.RedrivePolicy as Json | undefined;
      queues.push({
        stack: stack.name,
        logicalId,
        // SQS's default.
        visibilityTimeoutSeconds: Number(props.VisibilityTimeout ?? 30),
        redrive: redrive
          ? {
              deadLetterTargetArn: redrive.deadLetterTargetArn,
              maxReceiveCount: Number(redrive.maxReceiveCount),
            }
          : null,
      });
    }
  }
  return { directory, stacks, functions, routes, eventSources, queues };
};

/** Where a function's handler is: Lambda's `<file>.<export>`, the file found as Lambda looks for it. */
export const handlerLocation = (fn: AssemblyFunction): { file: string; exportName: string } => {
  const dot = fn.handler.lastIndexOf('.');
  const base = fn.handler.slice(0, dot);
  const exportName = fn.handler.slice(dot + 1);
  for (const extension of ['.js', '.mjs', '.cjs']) {
    const file = join(fn.assetDir, `${base}${extension}`);
    if (existsSync(file)) return { file, exportName };
  }
  throw new Error(`${fn.path}: handler ${fn.handler} names no file in its asset ${fn.assetDir}`);
};

/** A resource of the assembly named by its stack and logical id. */
export interface ResourceRef {
  stack: string;
  logicalId: string;
  type: string;
}

/**
 * The local value of a resource's `Ref` (attribute `Ref`) or of one of its attributes (`Arn`,
 * `QueueName`, `ApiEndpoint`, ...). Throws for what the rehearsal cannot stand in for.
 */
export type PhysicalValues = (resource: ResourceRef, attribute: string) => string;

export const PSEUDO_PARAMETERS = {
  'AWS::AccountId': '000000000000',
  'AWS::Region': 'us-east-1',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::NoValue': '',
} as const;

/** Resolves a template value of `stack` (literal, Ref, GetAtt, ImportValue, Join, Sub, Select, Split). */
export const resolveValue = (
  model: CloudAssemblyModel,
  stack: string,
  value: unknown,
  physical: PhysicalValues,
): string => {
  const template = model.stacks.get(stack);
  if (!template) throw new Error(`No stack ${stack} in the assembly`);
  const again = (v: unknown, s = stack) => resolveValue(model, s, v, physical);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const object = (value ?? {}) as Json;
  const [kind, argument] = Object.entries(object)[0] ?? [];
  const resource = (logicalId: string): ResourceRef => {
    const found = template.resources[logicalId];
    if (!found) throw new Error(`${stack}: no resource ${logicalId}`);
    return { stack, logicalId, type: found.Type };
  };
  switch (kind) {
    case 'Ref': {
      const name = String(argument);
      if (name in PSEUDO_PARAMETERS) return PSEUDO_PARAMETERS[name as keyof typeof PSEUDO_PARAMETERS];
      if (name === 'AWS::StackName') return stack;
      return physical(resource(name), 'Ref');
    }
    case 'Fn::GetAtt': {
      const [id, attribute] = getAttOf(object) ?? ['', ''];
      return physical(resource(id), attribute);
    }
    case 'Fn::ImportValue': {
      const exportName = again(argument);
      for (const other of model.stacks.values()) {
        const exported = other.exports[exportName] as { stack: string; value: unknown } | undefined;
        if (exported) return again(exported.value, exported.stack);
      }
      throw new Error(`${stack} imports ${exportName}, which no stack of the assembly exports`);
    }
    case 'Fn::Join': {
      const [separator, parts] = argument as [string, unknown[]];
      return parts.map((part) => again(part)).join(separator);
    }
    case 'Fn::Select': {
      const [index, list] = argument as [unknown, unknown];
      const items = Array.isArray(list) ? list.map((item) => again(item)) : splitOf(list);
      const picked = items[Number(again(index))];
      if (picked === undefined) throw new Error(`${stack}: Fn::Select out of range`);
      return picked;
    }
    case 'Fn::Sub': {
      const [text, variables] = (Array.isArray(argument) ? argument : [argument, {}]) as [string, Json];
      return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
        if (name in variables) return again(variables[name]);
        if (name.includes('.')) {
          const [id, ...attribute] = name.split('.');
          return again({ 'Fn::GetAtt': [id, attribute.join('.')] });
        }
        return again({ Ref: name });
      });
    }
    default:
      throw new Error(`${stack}: cannot resolve ${JSON.stringify(value)}`);
  }

  function splitOf(list: unknown): string[] {
    const split = (list as Json)['Fn::Split'] as [string, unknown] | undefined;
    if (!split) throw new Error(`${stack}: cannot select from ${JSON.stringify(list)}`);
    return again(split[1]).split(split[0]);
  }
};

/** The resource a template value names through Refs, GetAtts and imports (null for literals and joins). */
export const referencedResource = (
  model: CloudAssemblyModel,
  stack: string,
  value: unknown,
): (ResourceRef & { attribute: string }) | null => {
  const template = model.stacks.get(stack);
  if (!template) return null;
  const ref = refOf(value);
  const byRef = ref ? template.resources[ref] : undefined;
  if (ref && byRef) return { stack, logicalId: ref, type: byRef.Type, attribute: 'Ref' };
  const att = getAttOf(value);
  const byAtt = att ? template.resources[att[0]] : undefined;
  if (att && byAtt) return { stack, logicalId: att[0], type: byAtt.Type, attribute: att[1] };
  const imported = (value as Json | null)?.['Fn::ImportValue'];
  if (typeof imported === 'string') {
    for (const other of model.stacks.values()) {
      const exported = other.exports[imported] as { stack: string; value: unknown } | undefined;
      if (exported) return referencedResource(model, exported.stack, exported.value);
    }
  }
  return null;
};
