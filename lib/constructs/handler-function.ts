import path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface HandlerFunctionProps {
  /** Handler module relative to `sourceRoot`; it exports `handler`. */
  readonly entry: string;
  /** Repository root: entries, package-lock.json and tsconfig are resolved from here. */
  readonly sourceRoot: string;
  readonly description: string;
  readonly environment: Record<string, string>;
  readonly timeout?: Duration;
  readonly memorySize?: number;
  readonly logRetention?: RetentionDays;
  /** npm package files (`package/file`) copied beside the bundle, for a handler that serves them. */
  readonly assets?: readonly string[];
}

/** Lets CommonJS dependencies call `require` inside the ESM bundle. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** One Lambda function bundled from TypeScript by local esbuild, with our defaults. */
export class HandlerFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry: path.join(props.sourceRoot, props.entry),
      handler: 'handler',
      projectRoot: props.sourceRoot,
      depsLockFilePath: path.join(props.sourceRoot, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        target: 'node22',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Bundle the pinned AWS SDK v3 too: tree-shaken, the version we test with, not the runtime's.
        externalModules: [],
        ...(props.assets?.length
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) =>
                  (props.assets ?? []).map(
                    (asset) =>
                      `cp "${path.join(inputDir, 'node_modules', asset)}" "${path.join(outputDir, path.basename(asset))}"`,
                  ),
              },
            }
          : {}),
      },
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
