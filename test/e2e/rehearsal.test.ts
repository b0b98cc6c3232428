/**
 * The deploy rehearsal's guard (npm run rehearse, functions/adapters/local/assembly-runtime.ts):
 * bundles of a really synthesized assembly run under the IAM statements of their template, so a
 * statement missing from the template refuses the call the bundle makes, with AWS's own error.
 * Synthesizes only the tag routes (bundled for real), to stay quick; `npm run rehearse` runs the
 * whole assembly through the README's flows.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CloudAssemblyModel, TemplateStatement } from '../../functions/adapters/local/assembly.ts';
import { type LocalRuntime, startLocalRuntime } from '../../functions/adapters/local/runtime.ts';
import * as routeManifest from '../../functions/http/routes.ts';
import { buildApp, REPO_ROOT } from '../../lib/app.ts';

const TAG_ROUTES = routeManifest.routes.filter((route) => route.path === '/v1/tags');

let scratch: string;
let assembly: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'herald-rehearsal-test-'));
  assembly = join(scratch, 'cdk.out');
  // As the CLI runs bin/app.ts: cdk.json's context, and the asset metadata that names each asset folder.
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: object };
  const app = new App({
    outdir: assembly,
    context: {
      ...cdkJson.context,
      'aws:cdk:enable-asset-metadata': true,
      'aws:cdk:enable-path-metadata': true,
    },
  });
  buildApp(app, {
    sourceRoot: REPO_ROOT,
    manifest: { ...routeManifest, routes: TAG_ROUTES, publicRoutes: [] },
    workerManifest: { workers: [] },
  });
  app.synth();
}, 240_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The statements of the function of `POST /v1/tags` that allow `action`. */
const statementsAllowing = (model: CloudAssemblyModel, action: string): TemplateStatement[] => {
  const route = model.routes.find((r) => r.routeKey === 'POST /v1/tags');
  const fn = route ? model.functions.get(route.functionId) : undefined;
  if (!fn) throw new Error('no function for POST /v1/tags');
  return fn.statements.filter((s) => [s.Action].flat().includes(action));
};

const startRehearsal = async (edit?: (model: CloudAssemblyModel) => void) => {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const rt = await startLocalRuntime({
    dataDir,
    port: 0,
    dynamoEndpoint: inject('dynamoEndpoint'),
    tableName: `herald-rehearsal-${process.pid}-${Date.now()}`,
    assembly: { directory: assembly, ...(edit ? { edit } : {}) },
  });
  return { rt };
};

const createTag = (rt: LocalRuntime, name: string) =>
  fetch(`${rt.baseUrl}/tags`, {
    method: 'POST',
    headers: { 'x-api-key': rt.seed.keys.live, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });

describe('the deploy rehearsal runs bundles under the template’s IAM statements', () => {
  it('serves the routes from their bundles when the template allows their calls', async () => {
    const { rt } = await startRehearsal();
    try {
      const created = await createTag(rt, 'Rehearsed');
      expect(created.status, await created.clone().text()).toBe(201);
      const listed = await fetch(`${rt.baseUrl}/tags`, { headers: { 'x-api-key': rt.seed.keys.live } });
      expect(listed.status).toBe(200);
      expect(rt.assembly?.refusals).toEqual([]);
      expect(((await listed.json()) as { data: { name: string }[] }).data.map((t) => t.name)).toContain(
        'Rehearsed',
      );
    } finally {
      await rt.stop();
    }
  }, 180_000);

  it('refuses the call a removed statement allowed, and only that one', async () => {
    let removed = 0;
    const { rt } = await startRehearsal((model) => {
      for (const statement of statementsAllowing(model, 'dynamodb:PutItem')) {
        for (const fn of model.functions.values()) {
          const index = fn.statements.indexOf(statement);
          if (index >= 0) {
            fn.statements.splice(index, 1);
            removed++;
          }
        }
      }
    });
    try {
      expect(removed).toBe(1);
      // Reading still works: only the write statement went.
      const listed = await fetch(`${rt.baseUrl}/tags`, { headers: { 'x-api-key': rt.seed.keys.live } });
      expect(listed.status).toBe(200);
      // The bundle's write is refused as IAM would refuse it, and the function fails (API Gateway's 500).
      const created = await createTag(rt, 'Refused');
      expect(created.status).toBe(500);
      // Its first table write (the key's request count) is the one refused, each time it is tried.
      const refusals = rt.assembly?.refusals ?? [];
      expect(refusals.length).toBeGreaterThan(0);
      for (const refusal of refusals) {
        expect(refusal).toMatch(
          /^Herald-Stateless-dev\/Http\/TagsCreate\/Resource: dynamodb:(PutItem|UpdateItem) on arn:aws:dynamodb:us-east-1:000000000000:table\/herald-rehearsal-\d+-\d+$/,
        );
      }
      const after = (await (
        await fetch(`${rt.baseUrl}/tags`, { headers: { 'x-api-key': rt.seed.keys.live } })
      ).json()) as { data: { name: string }[] };
      expect(after.data.map((t) => t.name)).not.toContain('Refused');
    } finally {
      await rt.stop();
    }
  }, 180_000);
});
