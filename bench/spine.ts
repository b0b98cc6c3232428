/**
 * Spine benchmark: an authenticated, rate-limited GET /v1/platforms through the local HTTP
 * server, beside the bare DynamoDB calls that request makes (GetItem of the key, UpdateItem of
 * the rate window), and each function's minified bundle size and cold import time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { build } from 'esbuild';
import { createDocumentClient } from '../functions/adapters/aws/dynamo/client.ts';
import { keys } from '../functions/adapters/aws/dynamo/keys.ts';
import { DynamoRateLimiter } from '../functions/adapters/aws/dynamo/rate-limits.ts';
import { startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import { hashSecret } from '../functions/core/auth/api-keys.ts';
import { fallbackEntry, healthRoute, routes } from '../functions/http/routes.ts';
import { workers } from '../functions/workers/manifest.ts';
import { machineLine, measure, ms, percentile, ratio, writeSection } from './lib.ts';

const ROOT = resolve(import.meta.dirname, '..');
const BASELINE_ENTRY = 'bench/baseline-handler.ts';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = 8;

/** Bundles like the CDK stack does (ESM, minified, node22) and measures size and import time. */
const bundles = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bundles-'));
  const rows: { entry: string; bytes: number; importMs: number }[] = [];
  // The baseline first: a handler importing only the DynamoDB document client.
  const entries = [
    BASELINE_ENTRY,
    ...new Set([
      ...routes.map((r) => r.entry),
      fallbackEntry,
      healthRoute.entry,
      ...workers.map((w) => w.entry),
    ]),
  ];
  try {
    for (const entry of entries) {
      const outfile = join(dir, `${entry.replace(/[/.]/g, '_')}.mjs`);
      await build({
        entryPoints: [resolve(ROOT, entry)],
        bundle: true,
        minify: true,
        platform: 'node',
        target: 'node22',
        format: 'esm',
        mainFields: ['module', 'main'],
        outfile,
        logLevel: 'silent',
        banner: {
          js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        },
      });
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const script = `const t=performance.now();await import(${JSON.stringify(outfile)});process.stdout.write(String(performance.now()-t));`;
        writeFileSync(join(dir, 'probe.mjs'), script);
        const out = execFileSync(process.execPath, [join(dir, 'probe.mjs')], {
          env: { ...process.env, AWS_REGION: 'us-east-1', POWERTOOLS_METRICS_DISABLED: 'true' },
        });
        times.push(Number(out.toString()));
      }
      times.sort((a, b) => a - b);
      rows.push({ entry, bytes: statSync(outfile).size, importMs: percentile(times, 50) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
};

export const runSpine = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  const runtime = await startLocalRuntime({ dataDir, port: 0, fresh: true, rateLimitPerMinute: 10_000_000 });
  try {
    const key = runtime.seed.keys.live;
    const url = `${runtime.baseUrl}/platforms`;
    const call = async () => {
      const res = await fetch(url, { headers: { 'x-api-key': key } });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 200; i++) await call();
    const http = await measure(REQUESTS, CONCURRENCY, call);

    const table = { doc: createDocumentClient(), tableName: process.env.TABLE_NAME as string };
    const limiter = new DynamoRateLimiter(table, 10_000_000);
    const hash = hashSecret(key);
    const bare = async () => {
      await table.doc.send(new GetCommand({ TableName: table.tableName, Key: keys.apiKey(hash) }));
      await limiter.hit('bench:bare', new Date());
    };
    for (let i = 0; i < 200; i++) await bare();
    const dynamo = await measure(REQUESTS, CONCURRENCY, bare);
    const sizes = await bundles();
    const baseline = sizes[0] as (typeof sizes)[number];

    const md = `## Spine: auth + rate limit + GET /v1/platforms (issue 2)

Command: \`npm run bench -- spine\` (${REQUESTS} requests, ${CONCURRENCY} in flight, after 200 warm-up).
${machineLine()}

| path | p50 | p99 | requests/s |
|---|---|---|---|
| GET /v1/platforms through the local HTTP server | ${ms(http.p50)} | ${ms(http.p99)} | ${http.perSecond.toFixed(0)} |
| bare DynamoDB calls it makes (GetItem key + UpdateItem rate window) | ${ms(dynamo.p50)} | ${ms(dynamo.p99)} | ${dynamo.perSecond.toFixed(0)} |
| ratio (HTTP / bare) | ${ratio(http.p50, dynamo.p50)} | ${ratio(http.p99, dynamo.p99)} | ${ratio(dynamo.perSecond, http.perSecond)} slower |

The ratio is the cost of everything besides the two DynamoDB round trips: the HTTP server, the
API Gateway event, middy with Powertools, zod-free JSON of 12 platforms.

### Function bundles (esbuild, ESM, minified, as deployed)

Every function (routes and queue workers) beside the baseline: a bare handler that imports only
the DynamoDB document client (\`${BASELINE_ENTRY}\`); the ratios are to its size and cold import.

| function | minified size | ratio | cold import (median of 5) | ratio |
|---|---|---|---|---|
${sizes
  .map(
    (s) =>
      `| \`${s.entry}\`${s.entry === BASELINE_ENTRY ? ' (baseline)' : ''} | ${(s.bytes / 1024).toFixed(0)} KiB | ${ratio(s.bytes, baseline.bytes)} | ${ms(s.importMs)} | ${ratio(s.importMs, baseline.importMs)} |`,
  )
  .join('\n')}
`;
    writeSection('spine', md);
    console.log(md);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
