import fs from 'node:fs';
import path from 'node:path';
import {
  AssetHashType,
  type BundlingOptions,
  DockerImage,
  Duration,
  type ILocalBundling,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { bundleFunction, ENTRY_FILE } from '../bundling/options.ts';

export interface HandlerFunctionProps {
  /** Handler module relative to `sourceRoot`; it exports `handler`. */
  readonly entry: string;
  /** Repository root: entries, node_modules and tsconfig are resolved from here. */
  readonly sourceRoot: string;
  readonly description: string;
  readonly environment: Record<string, string>;
  readonly timeout?: Duration;
  readonly memorySize?: number;
  /** The execution role (one per set of grants: lib/constructs/function-roles.ts); by default a role of its own. */
  readonly role?: IRole;
  /** npm package files (`package/file`) copied beside the bundle, for a handler that serves them. */
  readonly assets?: readonly string[];
}

export { ESM_REQUIRE_BANNER } from '../bundling/options.ts';

/**
 * Bundles one function in this process with esbuild (lib/bundling/options.ts, the same options the
 * bundle test and the spine bench use), with code splitting, which NodejsFunction cannot do. No
 * Docker: local esbuild only, so `cdk synth` works offline. The entry and the copied files are
 * fields so that they enter CDK's asset cache key: without them every function would get the
 * first function's staged asset.
 */
class LocalEsbuild implements BundlingOptions {
  // Never used: local bundling below always succeeds or throws.
  readonly image = DockerImage.fromRegistry('local-esbuild-only');
  readonly local: ILocalBundling;
  readonly entry: string;
  readonly assets: readonly string[];

  constructor(sourceRoot: string, entry: string, assets: readonly string[]) {
    this.entry = entry;
    this.assets = assets;
    this.local = {
      tryBundle: (outputDir: string) => {
        bundleFunction(entry, sourceRoot, outputDir);
        for (const asset of assets) {
          fs.copyFileSync(
            path.join(sourceRoot, 'node_modules', asset),
            path.join(outputDir, path.basename(asset)),
          );
        }
        return true;
      },
    };
  }
}

const bundledCode = (props: HandlerFunctionProps): Code =>
  Code.fromAsset(props.sourceRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: new LocalEsbuild(props.sourceRoot, props.entry, props.assets ?? []),
  });

const LOG_GROUP_ID = 'FunctionLogs';

/**
 * The stack's one log group for every function (a month of logs). Lambda names each stream in a
 * shared group `YYYY/MM/DD/<function name>[<version>]<instance>`, so a function's logs stay apart
 * (filter on the stream prefix, or `@logStream` in Logs Insights), at one resource per stack
 * instead of one per function.
 */
export const functionLogGroup = (scope: Construct): ILogGroup => {
  const stack = Stack.of(scope);
  return (
    (stack.node.tryFindChild(LOG_GROUP_ID) as LogGroup | undefined) ??
    new LogGroup(stack, LOG_GROUP_ID, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    })
  );
};

/** One Lambda function bundled from TypeScript by local esbuild, with our defaults. */
export class HandlerFunction extends LambdaFunction {
  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    const logGroup = functionLogGroup(scope);
    super(scope, id, {
      ...(props.role ? { role: props.role } : {}),
      code: bundledCode(props),
      handler: `${path.basename(ENTRY_FILE, '.mjs')}.handler`,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
    });

    const acknowledge = (id: string, reason: string) => Validations.of(this).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AWS managed basic execution policy: lets the function write its own CloudWatch logs, nothing else.',
    );
    acknowledge(
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    );
    acknowledge(
      'AwsSolutions-L1',
      'nodejs22.x is pinned on purpose (the runtime the code is built and tested for: esbuild target node22, local Node 20/22); moving to a newer runtime is a tested change, not an automatic one.',
    );
  }
}
