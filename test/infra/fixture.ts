import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  type CloudAssembly,
  FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT,
  VALIDATION_REPORT_FILE,
} from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import * as routeManifest from '../../functions/http/routes.ts';
import * as defaultWorkerManifest from '../../functions/workers/manifest.ts';
import { addNagChecks, buildApp, type HeraldStacks, REPO_ROOT } from '../../lib/app.ts';
import type { RouteManifest } from '../../lib/constructs/http-api.ts';
import type { WorkerManifest } from '../../lib/constructs/workers.ts';

export const manifest: RouteManifest = routeManifest;
export const workerManifest: WorkerManifest = defaultWorkerManifest;

/** cdk.json's context (its feature flags), which the CLI gives `bin/app.ts` and the tests give their apps. */
export const cdkJsonContext: Record<string, unknown> = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

// The infra files share their worker's modules (vitest.config.ts), so this module is loaded once
// a worker: each file's scratch directories go when that file is done, by the hook
// test/infra/setup.ts registers for every file.
const scratchDirs: string[] = [];
export const removeScratchDirs = (): void => {
  for (const dir of scratchDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
};
const scratchDir = (prefix: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
};

/**
 * NodejsFunction insists that its entry file exists even when bundling is skipped, and handler
 * modules are written independently of the stacks. The infra tests therefore build against a
 * throw-away source root holding a stub for every entry of the route and worker manifests under test.
 */
export function stubSourceRoot(
  m: RouteManifest = manifest,
  stub = 'export const handler = async () => ({ statusCode: 204 });\n',
  w: WorkerManifest = workerManifest,
): string {
  const root = scratchDir('herald-infra-src-');
  const entries = [
    m.fallbackEntry,
    m.healthRoute.entry,
    ...(m.publicRoutes ?? []).map((route) => route.entry),
    ...m.routes.map((route) => route.entry),
    ...m.userRoutes.map((route) => route.entry),
    ...w.workers.map((worker) => worker.entry),
  ];
  for (const entry of entries) {
    const file = path.join(root, entry);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, stub);
  }
  fs.writeFileSync(path.join(root, 'package-lock.json'), '{}\n');
  // Real bundling runs `npx --no-install esbuild` in the source root: lend it our node_modules.
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return root;
}

/** A folder shaped like the dashboard's Vite build: an index.html and a hashed script. */
export function builtDashboardFixture(): string {
  const dir = scratchDir('herald-infra-dashboard-');
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>Herald</title><script type="module" src="/dashboard/assets/index-abc123.js"></script>\n',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'document.title = "Herald";\n');
  return dir;
}

export interface TestApp extends HeraldStacks {
  readonly app: App;
}

/** The same app `bin/app.ts` builds, without bundling, optionally with extra context or other manifests. */
export function buildTestApp(
  options: {
    context?: Record<string, unknown>;
    manifest?: RouteManifest;
    workerManifest?: WorkerManifest;
    nag?: boolean;
    /** Really bundle (with local esbuild), from stub handlers with this source. */
    bundleStub?: string;
    /** A built dashboard folder to deploy (`builtDashboardFixture()`); none deploys no dashboard files. */
    builtDashboard?: string;
  } = {},
): TestApp {
  const m = options.manifest ?? manifest;
  const w = options.workerManifest ?? workerManifest;
  const bundling = options.bundleStub === undefined ? { 'aws:cdk:bundling-stacks': [] } : {};
  const app = new App({
    outdir: scratchDir('herald-infra-out-'),
    context: {
      ...cdkJsonContext,
      ...bundling,
      // Report cdk-nag findings in the validation report instead of throwing, so tests can list them.
      [FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false,
      ...options.context,
    },
  });
  const stacks = buildApp(app, {
    sourceRoot: stubSourceRoot(m, options.bundleStub, w),
    manifest: m,
    workerManifest: w,
    ...(options.builtDashboard ? { builtDashboard: options.builtDashboard } : {}),
  });
  if (options.nag) addNagChecks(app);
  return { app, ...stacks };
}

type Json = Record<string, unknown>;

export interface PolicyStatementJson {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}

export const actionsOf = (statement: PolicyStatementJson): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

/** Every identity-policy statement attached to a function's execution role. */
export function roleStatements(stack: Stack, template: Template, fn: IFunction): PolicyStatementJson[] {
  if (!fn.role) throw new Error(`${fn.node.path} has no role`);
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnElement);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Json[];
  return policies
    .filter((policy) => {
      const roles = (policy.Properties as Json).Roles as Json[];
      return roles.some((role) => role.Ref === roleId);
    })
    .flatMap(
      (policy) => ((policy.Properties as Json).PolicyDocument as Json).Statement as PolicyStatementJson[],
    );
}

export const logicalIdOf = (stack: Stack, construct: IConstruct): string =>
  stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

export interface NagFinding {
  readonly rule: string;
  readonly severity: string;
  readonly paths: string[];
}

/** Unsuppressed cdk-nag AwsSolutions findings of a synthesised assembly, read from CDK's validation report. */
export function nagFindings(assembly: CloudAssembly): NagFinding[] {
  const report = JSON.parse(
    fs.readFileSync(path.join(assembly.directory, VALIDATION_REPORT_FILE), 'utf8'),
  ) as {
    pluginReports: {
      pluginName: string;
      violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[];
    }[];
  };
  return report.pluginReports
    .filter((plugin) => plugin.pluginName === 'AwsSolutions')
    .flatMap((plugin) => plugin.violations)
    .map((violation) => ({
      rule: violation.ruleName,
      severity: violation.severity,
      paths: violation.violatingConstructs.map((construct) => construct.constructPath),
    }));
}
