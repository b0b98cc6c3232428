import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { healthRoute, publicRoutes, routes, userRoutes } from '../../functions/http/routes.ts';
import { operations } from '../../functions/openapi/operations.ts';
import { renderClientTypes, renderDocument } from '../../functions/openapi/render.ts';

const root = join(import.meta.dirname, '..', '..');
const rendered = renderDocument();
const document = JSON.parse(rendered) as { paths: Record<string, Record<string, unknown>> };

describe('the OpenAPI document', () => {
  it('is committed as generated: run `npm run openapi` after changing a route or a schema', async () => {
    expect(readFileSync(join(root, 'openapi.json'), 'utf8')).toBe(rendered);
    expect(readFileSync(join(root, 'client', 'schema.d.ts'), 'utf8')).toBe(await renderClientTypes());
  });

  it('documents every route of the manifest, and nothing else', () => {
    const manifest = [healthRoute, ...publicRoutes, ...routes, ...userRoutes]
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(manifest);
    expect(Object.keys(operations).sort()).toEqual(manifest);
  });

  it('passes the Redocly linter (recommended rules) with no errors and no warnings', async () => {
    // /health, /docs and /v1/openapi.json take no input and need no key: they have no 4xx answer.
    // The OAuth callback answers only a redirect (302) on success: the 2xx rule is replaced by the
    // check below, which allows exactly that one exception.
    const config = await createConfig({
      extends: ['recommended'],
      rules: { 'operation-4xx-response': 'off', 'operation-2xx-response': 'off' },
    });
    const without2xx = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { responses: Record<string, unknown> }>)
        .filter(([, op]) => !Object.keys(op.responses).some((status) => /^2\d\d$/.test(status)))
        .map(([method, op]) => ({
          route: `${method.toUpperCase()} ${path}`,
          statuses: Object.keys(op.responses),
        })),
    );
    expect(without2xx.map((r) => r.route)).toEqual(['GET /v1/channels/callback']);
    expect(without2xx[0]?.statuses).toContain('302');
    const problems = await lintFromString({ source: rendered, absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
    const warnings = problems.filter((p) => p.severity === 'warn');
    expect(warnings.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });
});
