import { describe, expect, it } from 'vitest';
import { buildGrantReport, formatGrantReport, manifestGrants } from '../support/grant-report.ts';

describe('the grant usage report', () => {
  const manifest = new Map([
    ['POST /v1/posts', ['table:read', 'table:write', 'publishQueue:send'] as const],
    ['GET /v1/posts', ['table:read', 'table:write'] as const],
    ['functions/workers/publish.ts', ['table:read', 'bucket:read'] as const],
  ]);

  it('merges the processes’ records and lists, per function that ran, the grants it never used', () => {
    const report = buildGrantReport(
      [
        { functions: { 'POST /v1/posts': ['table:read'], 'GET /v1/posts': ['table:read', 'table:write'] } },
        { functions: { 'POST /v1/posts': ['table:write'], 'functions/workers/publish.ts': [] } },
      ],
      manifest,
    );
    expect(report).toEqual({
      unused: {
        'POST /v1/posts': ['publishQueue:send'],
        'functions/workers/publish.ts': ['bucket:read', 'table:read'],
      },
      used: {
        'POST /v1/posts': ['table:read', 'table:write'],
        'GET /v1/posts': ['table:read', 'table:write'],
        'functions/workers/publish.ts': [],
      },
      notRun: [],
    });
    expect(formatGrantReport(report, 'report.json')).toContain('POST /v1/posts: publishQueue:send');
  });

  it('leaves out functions that did not run (a partial run), and names them', () => {
    const report = buildGrantReport([{ functions: { 'GET /v1/posts': ['table:read'] } }], manifest);
    expect(report.unused).toEqual({ 'GET /v1/posts': ['table:write'] });
    expect(report.notRun).toEqual(['POST /v1/posts', 'functions/workers/publish.ts']);
  });

  it('knows every function of the manifest by the name the local runtime records', () => {
    const names = [...manifestGrants().keys()];
    expect(names).toEqual(
      expect.arrayContaining(['POST /v1/posts', 'GET /health', '$default', 'functions/workers/publish.ts']),
    );
  });
});
