import { App, Stack, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { Grant } from '../../functions/http/routes.ts';
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
  'scheduler:manage': true,
  'tokenKey:decrypt': true,
  'tokenKey:encrypt': true,
  'webhookSecret:decrypt': true,
};

const unsuppressed = (app: App) =>
  nagFindings(app.synth()).map((f) => `${f.severity} ${f.rule} at ${f.paths.join(', ')}`);

describe('cdk-nag AwsSolutions', () => {
  it('reports an unsuppressed finding (so the checks below can fail)', () => {
    const app = new App({ context: { [FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false } });
    new Queue(new Stack(app, 'Canary'), 'PlainQueue');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
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
