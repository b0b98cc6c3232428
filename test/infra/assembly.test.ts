/**
 * What the deploy rehearsal reads from a synthesized assembly (functions/adapters/local/assembly.ts),
 * on the stacks the app really builds (without bundling): every function with its asset, handler,
 * timeout and role statements, every route to its function, each queue worker's event source
 * mapping and its queue's visibility timeout and redrive policy.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CloudAssemblyModel,
  readCloudAssembly,
  referencedResource,
} from '../../functions/adapters/local/assembly.ts';
import { ENV } from '../../functions/shared/env.ts';
import { workers } from '../../functions/workers/manifest.ts';
import { MAX_RECEIVE_COUNT, VISIBILITY_TIMEOUT_FACTOR, WORKER_TIMEOUT } from '../../lib/constructs/queues.ts';
import { buildTestApp, builtDashboardFixture, manifest } from './fixture.ts';

let model: CloudAssemblyModel;

beforeAll(() => {
  const { app } = buildTestApp({
    context: { 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true },
    // With the dashboard's deployment: CDK's deploy-time function is not one the rehearsal hosts.
    builtDashboard: builtDashboardFixture(),
  });
  model = readCloudAssembly(app.synth().directory);
}, 120_000);

describe('the rehearsal reads the cloud assembly', () => {
  it('finds every function with its asset folder, handler, timeout and role statements', () => {
    // One function per route, but for the routes that share one (the /docs page and its assets).
    const routeFunctions = new Set(model.routes.map((route) => route.functionId));
    expect(model.functions.size).toBe(routeFunctions.size + workers.length);
    for (const fn of model.functions.values()) {
      // Without bundling (as here) the asset is the staged source; `npm run rehearse` reads bundles.
      expect(fn.assetDir.startsWith(model.directory), fn.assetDir).toBe(true);
      expect(fn.handler).toBe('index.handler');
      expect(fn.runtime).toBe('nodejs22.x');
      expect(fn.timeoutSeconds).toBeGreaterThan(0);
      // At least X-Ray's statement: every role has its own policy.
      expect(fn.statements.length, fn.path).toBeGreaterThan(0);
    }
  });

  it('maps every route key to the function its integration invokes', () => {
    const keys = model.routes.map((route) => route.routeKey).sort();
    expect(keys).toHaveLength(
      manifest.routes.length + manifest.userRoutes.length + (manifest.publicRoutes ?? []).length + 2,
    );
    expect(keys).toContain('POST /v1/posts');
    expect(keys).toContain('$default');
    expect(new Set(keys).size).toBe(keys.length);
    const create = model.routes.find((route) => route.routeKey === 'POST /v1/posts');
    expect(model.functions.get(create?.functionId ?? '')?.path).toMatch(/\/Http\/PostsCreate\/Resource$/);
  });

  it("reads each worker's event source mapping and its queue's visibility timeout and redrive policy", () => {
    expect(model.eventSources).toHaveLength(workers.length);
    for (const mapping of model.eventSources) {
      const fn = model.functions.get(mapping.functionId);
      expect(fn?.path).toMatch(/\/Workers\/\w+Worker\/Resource$/);
      expect(mapping.batchSize).toBe(10);
      expect(mapping.maxConcurrency).toBe(20);
      expect(mapping.reportBatchItemFailures).toBe(true);
      const queue = referencedResource(model, fn?.stack ?? '', mapping.eventSourceArn);
      const settings = model.queues.find((q) => q.stack === queue?.stack && q.logicalId === queue?.logicalId);
      expect(settings?.visibilityTimeoutSeconds).toBe(WORKER_TIMEOUT.toSeconds() * VISIBILITY_TIMEOUT_FACTOR);
      expect(settings?.redrive?.maxReceiveCount).toBe(MAX_RECEIVE_COUNT);
    }
  });

  it('follows the functions’ environment to the resources it names (how local names are bound)', () => {
    const fn = [...model.functions.values()][0];
    for (const variable of [ENV.tableName, ENV.mediaBucket, ENV.publishQueueUrl, ENV.tokenKmsKeyId]) {
      expect(referencedResource(model, fn?.stack ?? '', fn?.environment[variable]), variable).not.toBeNull();
    }
  });
});
