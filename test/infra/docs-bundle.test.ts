import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, AssetStaging, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { publicRoutes } from '../../functions/http/routes.ts';
import { REPO_ROOT } from '../../lib/app.ts';
import { HandlerFunction } from '../../lib/constructs/handler-function.ts';

type DocsHandler = (
  event: unknown,
) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-docs-out-'));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

describe('/docs on AWS', () => {
  it('bundles the real docs handler with Swagger UI beside it, and the bundle serves every asset (well under 6 MB)', async () => {
    const route = publicRoutes.find((r) => r.path === '/docs/{asset}');
    expect(route?.assets?.length).toBeGreaterThan(0);
    const app = new App({ outdir: out });
    const stack = new Stack(app, 'Docs');
    const fn = new HandlerFunction(stack, 'Docs', {
      entry: route?.entry as string,
      sourceRoot: REPO_ROOT,
      description: 'docs',
      environment: {},
      assets: route?.assets ?? [],
    });
    app.synth();
    const staging = fn.node.findAll().find((c): c is AssetStaging => c instanceof AssetStaging);
    const dir = staging?.absoluteStagedPath as string;
    expect(fs.readdirSync(dir).sort()).toEqual(
      ['index.mjs', 'index.mjs.map', ...(route?.assets ?? []).map((a) => path.basename(a))].sort(),
    );
    const { handler } = (await import(pathToFileURL(path.join(dir, 'index.mjs')).href)) as {
      handler: DocsHandler;
    };
    const page = await handler({ pathParameters: undefined });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('/docs/swagger-ui-bundle.js');
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) {
      const res = await handler({ pathParameters: { asset } });
      expect(res.statusCode).toBe(200);
      expect(res.body.length).toBeGreaterThan(100);
      // Lambda's synchronous response limit is 6 MB, the whole JSON answer included.
      expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThan(5_000_000);
    }
  }, 120_000);
});
