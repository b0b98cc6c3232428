/**
 * CloudFormation refuses a stack of more than 500 resources. Every stack stays under 80 % of that
 * (400), today and with a dozen routes more than the manifest holds (the dashboard's management
 * API of issue 29 brings 21, which leaves the stateless stack at about 337),
 * because a route costs 4 resources (function, integration, invoke permission, route): functions
 * share one log group, and one execution role per distinct set of grants.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { costRegion, readMeasuredFigures, renderCost } from '../../bench/cost.ts';
import type { RouteDef } from '../../functions/http/routes.ts';
import { REPO_ROOT } from '../../lib/app.ts';
import { grantKey } from '../../lib/constructs/function-roles.ts';
import { buildTestApp, builtDashboardFixture, logicalIdOf, manifest, workerManifest } from './fixture.ts';

const LIMIT = 500;
const CEILING = 0.8 * LIMIT;

const resourceCount = (template: Template): number =>
  Object.keys(template.toJSON().Resources as Record<string, unknown>).length;

// With the dashboard's files deployed, as on a stage built from a repository with its sources.
const builtDashboard = builtDashboardFixture();
const built = buildTestApp({ builtDashboard });

describe('stack size', () => {
  it(`keeps every stack under ${CEILING} of CloudFormation's ${LIMIT} resources`, () => {
    for (const stack of [built.stateful, built.stateless]) {
      const count = resourceCount(Template.fromStack(stack));
      console.log(
        `${stack.stackName}: ${count} resources of ${LIMIT} (${Math.round((100 * count) / LIMIT)} %)`,
      );
      expect(count, stack.stackName).toBeLessThan(CEILING);
    }
  });

  // The headroom left for routes before the stateless stack must be split (docs/operating-on-aws.md,
  // "Stack size"): 12 routes until the comment routes of issue 31 took 3 of them and a role.
  it('adds 4 resources per route with grants another function has, and fits 10 more routes under the ceiling', () => {
    const baseline = resourceCount(Template.fromStack(built.stateless));
    // Routes like the management API's: new modules, each with grants some route already lists.
    const grantSets = manifest.routes.map((route) => route.grants);
    const extra: RouteDef[] = Array.from({ length: 10 }, (_, i) => ({
      method: 'GET',
      path: `/v1/manage/things${i}`,
      entry: `functions/http/manage/thing-${i}.ts`,
      grants: grantSets[i % grantSets.length] ?? [],
    }));
    const grown = buildTestApp({
      manifest: { ...manifest, routes: [...manifest.routes, ...extra] },
      builtDashboard,
    });
    const count = resourceCount(Template.fromStack(grown.stateless));
    console.log(`${grown.stateless.stackName} with ${extra.length} more routes: ${count} resources`);
    expect(count - baseline).toBe(4 * extra.length);
    expect(count).toBeLessThan(CEILING);
  });

  it('shares an execution role only between functions with the same grants, never with a queue worker', () => {
    const { stateless } = built;
    const template = Template.fromStack(stateless).toJSON();
    const roleOf = (fnId: string): string =>
      template.Resources[fnId].Properties.Role['Fn::GetAtt'][0] as string;
    const keysByRole = new Map<string, Set<string>>();
    const add = (fnId: string, key: string) => {
      const role = roleOf(fnId);
      keysByRole.set(role, (keysByRole.get(role) ?? new Set()).add(key));
    };
    for (const route of [
      manifest.healthRoute,
      ...(manifest.publicRoutes ?? []),
      ...manifest.routes,
      ...manifest.userRoutes,
    ]) {
      const fn = stateless.httpApi.functionsByRouteKey.get(`${route.method} ${route.path}`);
      if (!fn) throw new Error(`no function for ${route.path}`);
      add(logicalIdOf(stateless, fn), grantKey(route.grants));
    }
    for (const { def, fn } of stateless.workers.workers)
      add(logicalIdOf(stateless, fn), `worker ${def.entry}`);
    for (const [role, keys] of keysByRole) expect([...keys], role).toHaveLength(1);
    expect(keysByRole.size).toBeLessThan(manifest.routes.length);
    expect(workerManifest.workers.length).toBeGreaterThan(0);
  });

  it('sends every function’s logs to one log group with a retention period', () => {
    const template = Template.fromStack(built.stateless).toJSON();
    const groups = new Set<string>();
    for (const resource of Object.values(template.Resources) as {
      Type: string;
      Properties: { LoggingConfig?: { LogGroup: { Ref: string } } };
    }[]) {
      if (resource.Type === 'AWS::Lambda::Function') {
        groups.add(resource.Properties.LoggingConfig?.LogGroup.Ref ?? 'none');
      }
    }
    expect(groups.size).toBe(1);
    const [group] = [...groups];
    expect(template.Resources[group as string]).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      Properties: { RetentionInDays: 30 },
    });
  });

  // The cost table is computed from these templates (npm run cost), here rather than in a test file
  // of its own so that the suite synthesizes the app once for both.
  it('matches the cost table in BENCHMARKS.md, which `npm run cost` writes from these templates', () => {
    const benchmarks = readFileSync(join(REPO_ROOT, 'BENCHMARKS.md'), 'utf8');
    const stacks = [built.stateful, built.stateless].map((stack) => ({
      stackName: stack.stackName,
      template: Template.fromStack(stack).toJSON(),
    }));
    expect(costRegion(benchmarks), 'BENCHMARKS.md is stale: run `npm run cost`').toBe(
      renderCost(stacks, readMeasuredFigures(benchmarks)).trim(),
    );
  });
});
