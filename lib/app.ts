import { fileURLToPath } from 'node:url';
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import * as manifest from '../functions/http/routes.ts';
import * as workerManifest from '../functions/workers/manifest.ts';
import type { RouteManifest } from './constructs/http-api.ts';
import type { WorkerManifest } from './constructs/workers.ts';
import { ReportedNagPack } from './nag-report.ts';
import { StatefulStack } from './stateful-stack.ts';
import { StatelessStack } from './stateless-stack.ts';

/** The repository root (handler entries in the manifest are relative to it). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface BuildAppOptions {
  /** Overrides for tests; by default everything comes from CDK context and the route and worker manifests. */
  readonly sourceRoot?: string;
  readonly manifest?: RouteManifest;
  readonly workerManifest?: WorkerManifest;
  /** A dashboard already built (a folder with index.html), deployed instead of building `dashboard/`. */
  readonly builtDashboard?: string;
}

export interface HeraldStacks {
  readonly stage: string;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
}

const positiveInteger = (app: App, key: string, fallback: number): number => {
  const raw: unknown = app.node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`Context ${key} must be a positive integer, got ${raw}`);
  return value;
};

/** Context `publicBaseUrl`: an https origin (a custom domain in front of the API), or nothing. */
const publicBaseUrl = (app: App): string | undefined => {
  const raw: unknown = app.node.tryGetContext('publicBaseUrl');
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = String(raw).replace(/\/+$/, '');
  if (!URL.canParse(text) || new URL(text).protocol !== 'https:' || new URL(text).origin !== text) {
    throw new Error(
      `Context publicBaseUrl must be an https origin such as https://api.example.com, got ${raw}`,
    );
  }
  return text;
};

/**
 * Builds both stacks into `app`. Context: `stage` (default `dev`), `rateLimitPerMinute` (300),
 * `apiRateLimit` / `apiBurstLimit` (stage throttling, 100 / 200), `keylessRateLimit` /
 * `keylessBurstLimit` (each key-less route's throttling, 10 / 20), `alarmEmail` (optional),
 * `publicBaseUrl` (optional: the API's custom domain, the base of the OAuth callback).
 */
export function buildApp(app: App, options: BuildAppOptions = {}): HeraldStacks {
  // Feature flags this app relies on, unless cdk.json (or -c) already says otherwise:
  // server access logs are delivered through a bucket policy, not the legacy log-delivery ACL;
  // cross-stack references stay CloudFormation exports, so the stateful stack cannot drop a
  // value the stateless stack still uses.
  const flags: Record<string, unknown> = {
    '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
    '@aws-cdk/core:defaultCrossStackReferences': 'strong',
    // A validation report with acknowledged findings counts only errors as failures; this keeps
    // an open cdk-nag warning failing the synth too, as cdk-nag alone would.
    '@aws-cdk/core:strictCfnValidateErrors': true,
  };
  for (const [flag, value] of Object.entries(flags)) {
    if (app.node.tryGetContext(flag) === undefined) app.node.setContext(flag, value);
  }

  const stage = String(app.node.tryGetContext('stage') ?? 'dev');
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage))
    throw new Error(`Context stage must be lower-case kebab, got ${stage}`);
  const alarmEmail: unknown = app.node.tryGetContext('alarmEmail');
  const customDomain = publicBaseUrl(app);

  const stateful = new StatefulStack(app, `Herald-Stateful-${stage}`, {
    stackName: `Herald-Stateful-${stage}`,
    description: `Herald ${stage}: table, media bucket, queues, token key, schedule group, user pool (retained)`,
    stage,
  });
  const stateless = new StatelessStack(app, `Herald-Stateless-${stage}`, {
    stackName: `Herald-Stateless-${stage}`,
    description: `Herald ${stage}: HTTP API, functions, queue workers, alarms, dashboard hosting`,
    stateful,
    manifest: options.manifest ?? manifest,
    workerManifest: options.workerManifest ?? workerManifest,
    sourceRoot: options.sourceRoot ?? REPO_ROOT,
    rateLimitPerMinute: positiveInteger(app, 'rateLimitPerMinute', 300),
    apiThrottle: {
      rateLimit: positiveInteger(app, 'apiRateLimit', 100),
      burstLimit: positiveInteger(app, 'apiBurstLimit', 200),
    },
    keylessThrottle: {
      rateLimit: positiveInteger(app, 'keylessRateLimit', 10),
      burstLimit: positiveInteger(app, 'keylessBurstLimit', 20),
    },
    ...(typeof alarmEmail === 'string' && alarmEmail !== '' ? { alarmEmail } : {}),
    ...(customDomain ? { publicBaseUrl: customDomain } : {}),
    ...(options.builtDashboard ? { builtDashboard: options.builtDashboard } : {}),
  });
  return { stage, stateful, stateless };
}

/**
 * cdk-nag's rule packs (AwsSolutions), run by every synth. `cdk.out/validation-report.json` names
 * each pack with its conclusion, what it checked, and every acknowledged finding with its reason.
 */
export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new ReportedNagPack(new AwsSolutionsChecks(app)));
}
