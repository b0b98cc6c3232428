import fs from 'node:fs';
import path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import {
  type CloudAssembly,
  FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT,
  VALIDATION_REPORT_FILE,
} from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import type { Grant } from '../../functions/http/routes.ts';
import { addNagChecks } from '../../lib/app.ts';
import { QUEUE_NAMES } from '../../lib/constructs/queues.ts';
import { buildTestApp, manifest, nagFindings, workerManifest } from './fixture.ts';

// Typed as a record so a new kind of grant fails to compile here until it is covered.
const everyGrant: Record<Grant, true> = {
  'table:read': true,
  'table:write': true,
  'bucket:read': true,
  'bucket:write': true,
  'bucket:list': true,
  'publishQueue:send': true,
  'eventQueue:send': true,
  'deliveryQueue:send': true,
  'metricsQueue:send': true,
  'scheduler:manage': true,
  'table:countRequests': true,
  'table:connectStates': true,
  'channelToken:decrypt': true,
  'channelToken:encrypt': true,
  'connectGrant:decrypt': true,
  'connectGrant:encrypt': true,
  'webhookSecret:decrypt': true,
  'webhookSecret:encrypt': true,
  'appSecrets:read': true,
};

const unsuppressed = (app: App) =>
  nagFindings(app.synth()).map((f) => `${f.severity} ${f.rule} at ${f.paths.join(', ')}`);

interface PackReport {
  pluginName: string;
  pluginVersion?: string;
  conclusion: 'success' | 'failure';
  metadata?: Record<string, string>;
  violations: { ruleName: string; severity: string }[];
  suppressedViolations?: {
    ruleName: string;
    reason: string;
    acknowledgedAt: string;
    violatingConstructs: { constructPath: string }[];
  }[];
}

/** The packs listed in `cdk.out/validation-report.json`, as a reader of that file sees them. */
const packReports = (assembly: CloudAssembly): PackReport[] =>
  (
    JSON.parse(fs.readFileSync(path.join(assembly.directory, VALIDATION_REPORT_FILE), 'utf8')) as {
      pluginReports: PackReport[];
    }
  ).pluginReports;

describe('the cdk-nag validation report', () => {
  it('names the AwsSolutions pack, its conclusion, what it checked and every acknowledged finding with its reason', () => {
    const reports = packReports(buildTestApp({ nag: true }).app.synth());
    const pack = reports.find((r) => r.pluginName === 'AwsSolutions');
    expect(pack, JSON.stringify(reports)).toBeDefined();
    expect(pack?.conclusion).toBe('success');
    expect(pack?.pluginVersion).toMatch(/^3\.\d+\.\d+$/);
    expect(Number(pack?.metadata?.rulesChecked)).toBeGreaterThan(20);
    expect(Number(pack?.metadata?.resourcesChecked)).toBeGreaterThan(50);
    expect(pack?.metadata?.openFindings).toBe('0');
    expect(pack?.violations).toEqual([]);
    const suppressed = pack?.suppressedViolations ?? [];
    expect(suppressed.length).toBeGreaterThan(0);
    for (const finding of suppressed) {
      expect(finding.reason.length, finding.ruleName).toBeGreaterThan(20);
      expect(finding.violatingConstructs.length).toBeGreaterThan(0);
      for (const construct of finding.violatingConstructs)
        expect(construct.constructPath.startsWith(finding.acknowledgedAt)).toBe(true);
    }
    const apiAuth = suppressed.find((f) => f.ruleName.endsWith('AwsSolutions-APIG4'));
    expect(apiAuth?.reason).toMatch(/API key/);
    expect(apiAuth?.acknowledgedAt).toBe('Herald-Stateless-dev/Http/Api');
  }, 120_000);

  it('lists an open finding as a violation and an acknowledged one as suppressed, and concludes failure', () => {
    const app = new App({ context: { [FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false } });
    const queue = new Queue(new Stack(app, 'Canary'), 'PlainQueue');
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'The canary needs no dead-letter queue.',
    });
    addNagChecks(app);
    const pack = packReports(app.synth()).find((r) => r.pluginName === 'AwsSolutions');
    expect(pack?.conclusion).toBe('failure');
    expect(pack?.violations.map((v) => v.ruleName)).toContain('AwsSolutions-SQS4');
    expect(pack?.violations.map((v) => v.ruleName)).not.toContain('AwsSolutions-SQS3');
    expect(pack?.suppressedViolations?.map((v) => [v.ruleName, v.reason, v.acknowledgedAt])).toEqual([
      ['Annotation::AwsSolutions-SQS3', 'The canary needs no dead-letter queue.', 'Canary/PlainQueue'],
    ]);
  });

  it('fails the synth on an open warning, as cdk-nag alone does, even beside acknowledged findings', () => {
    const { app, stateful } = buildTestApp({
      nag: true,
      context: { [FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: true },
    });
    // A table without point-in-time recovery: AwsSolutions-DDB3, a warning-level rule.
    new Table(stateful, 'CanaryTable', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
    expect(() => app.synth()).toThrow(/AwsSolutions-DDB3/);
  }, 120_000);
});

describe('cdk-nag AwsSolutions', () => {
  it('reports an unsuppressed finding (so the checks below can fail)', () => {
    const app = new App({ context: { [FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false } });
    new Queue(new Stack(app, 'Canary'), 'PlainQueue');
    addNagChecks(app);
    const rules = nagFindings(app.synth())
      .filter((f) => f.severity === 'error')
      .map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });

  it('finds no unsuppressed error or warning in either stack', () => {
    expect(unsuppressed(buildTestApp({ nag: true }).app)).toEqual([]);
  });

  it('stays clean when routes use every kind of grant (their wildcards are acknowledged where they arise)', () => {
    const grants = Object.keys(everyGrant) as Grant[];
    const app = buildTestApp({
      nag: true,
      context: { stage: 'qa' },
      manifest: {
        ...manifest,
        routes: [
          ...manifest.routes,
          { method: 'POST', path: '/v1/everything', entry: 'functions/http/everything.ts', grants },
        ],
      },
    }).app;
    expect(unsuppressed(app)).toEqual([]);
  });

  it('stays clean with a worker on every queue using every kind of grant', () => {
    const grants = Object.keys(everyGrant) as Grant[];
    const app = buildTestApp({
      nag: true,
      context: { stage: 'qa' },
      workerManifest: {
        workers: [
          ...workerManifest.workers,
          ...QUEUE_NAMES.map((queue) => ({
            queue,
            entry: `functions/workers/every-${queue}.ts`,
            batchSize: 50,
            grants,
            timeoutSeconds: 60,
          })),
        ],
      },
    }).app;
    expect(unsuppressed(app)).toEqual([]);
  });
});
