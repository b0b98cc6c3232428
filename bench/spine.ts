/**
 * Spine benchmark: an authenticated, rate-limited GET /v1/platforms through the local HTTP
 * server, beside the bare DynamoDB call that request makes (one UpdateItem of the key's item),
 * and each function's minified bundle size and cold import time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { createDocumentClient } from '../functions/adapters/aws/dynamo/client.ts';
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

const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 11);
/** The read-only routes of issue 16's targets. */
const READ_ROUTES = ['/v1/platforms', '/v1/channels', '/v1/tags', '/v1/usage', '/v1/posts', '/v1/posts/{id}'];

/** Minified bytes per package (`@aws-sdk/client-s3`) or, for our code, per folder (`functions/core`). */
const packageSizes = (inputs: Record<string, { bytesInOutput: number }>): Map<string, number> => {
  const sizes = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, 2).join('/');
    sizes.set(pkg, (sizes.get(pkg) ?? 0) + bytesInOutput);
  }
  return sizes;
};

/** The largest packages of a bundle, as `name 123 KiB`. */
const topPackages = (sizes: Map<string, number>, count: number): string =>
  [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, bytes]) => `\`${name}\` ${(bytes / 1024).toFixed(0)} KiB`)
    .join(', ');

/**
 * Bundles every function like the CDK stack does (ESM, minified, node22) and measures its size and
 * cold import: each import in a fresh node process, the functions taken in turn for ROUNDS rounds so
 * that the machine's load falls on all of them alike; the median per function is reported.
 */
const bundles = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bundles-'));
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
  const parts = new Map<string, Map<string, number>>();
  try {
    const outfiles = new Map<string, string>();
    for (const entry of entries) {
      const outfile = join(dir, `${entry.replace(/[/.]/g, '_')}.mjs`);
      const built = await build({
        entryPoints: [resolve(ROOT, entry)],
        bundle: true,
        minify: true,
        platform: 'node',
        target: 'node22',
        format: 'esm',
        mainFields: ['module', 'main'],
        outfile,
        logLevel: 'silent',
        metafile: true,
        banner: {
          js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        },
      });
      outfiles.set(entry, outfile);
      parts.set(entry, packageSizes(Object.values(built.metafile.outputs)[0]?.inputs ?? {}));
    }
    const times = new Map<string, number[]>(entries.map((entry) => [entry, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const entry of entries) {
        const script = `const t=performance.now();await import(${JSON.stringify(outfiles.get(entry))});process.stdout.write(String(performance.now()-t));`;
        writeFileSync(join(dir, 'probe.mjs'), script);
        const out = execFileSync(process.execPath, [join(dir, 'probe.mjs')], {
          env: { ...process.env, AWS_REGION: 'us-east-1', POWERTOOLS_METRICS_DISABLED: 'true' },
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        times.get(entry)?.push(Number(out.toString()));
      }
    }
    return entries.map((entry) => {
      const sorted = [...(times.get(entry) ?? [])].sort((a, b) => a - b);
      return {
        entry,
        bytes: statSync(outfiles.get(entry) as string).size,
        importMs: percentile(sorted, 50),
        packages: parts.get(entry) ?? new Map<string, number>(),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
    // What the request does in DynamoDB: one UpdateItem of the key's item finds the key and counts it.
    const bare = async () => {
      if (!(await limiter.hitKey(hash, new Date()))) throw new Error('the key is unknown');
    };
    for (let i = 0; i < 200; i++) await bare();
    const dynamo = await measure(REQUESTS, CONCURRENCY, bare);
    const sizes = await bundles();
    const baseline = sizes[0] as (typeof sizes)[number];
    const readEntries = new Set(
      routes.filter((r) => r.method === 'GET' && READ_ROUTES.includes(r.path)).map((r) => r.entry),
    );
    const reads = sizes.filter((s) => readEntries.has(s.entry));
    const functions = sizes.slice(1);
    const range = (values: number[], format: (v: number) => string) =>
      `${format(Math.min(...values))} to ${format(Math.max(...values))}`;
    const largest = functions.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const over600 = functions.filter((s) => s.bytes > 600 * 1024);
    const readExample = reads.find((s) => s.entry.endsWith('posts/list.ts')) ?? reads[0];

    const md = `## Spine: auth + rate limit + GET /v1/platforms (issue 2)

Command: \`npm run bench -- spine\` (${REQUESTS} requests, ${CONCURRENCY} in flight, after 200 warm-up).
${machineLine()}

| path | p50 | p99 | requests/s |
|---|---|---|---|
| GET /v1/platforms through the local HTTP server | ${ms(http.p50)} | ${ms(http.p99)} | ${http.perSecond.toFixed(0)} |
| the bare DynamoDB call it makes (one UpdateItem of the key's item: find and count) | ${ms(dynamo.p50)} | ${ms(dynamo.p99)} | ${dynamo.perSecond.toFixed(0)} |
| ratio (HTTP / bare) | ${ratio(http.p50, dynamo.p50)} | ${ratio(http.p99, dynamo.p99)} | ${ratio(dynamo.perSecond, http.perSecond)} slower |

The ratio is the cost of everything besides the DynamoDB round trip: the HTTP server, the API
Gateway event, middy with Powertools, zod-free JSON of 12 platforms. (Until issue 16 a request made
two calls: a GetItem of the key and an UpdateItem of a separate rate-limit item.)

### Function bundles (esbuild, ESM, minified, as deployed)

Every function (routes and queue workers) beside the baseline: a bare handler that imports only
the DynamoDB document client (\`${BASELINE_ENTRY}\`); the ratios are to its size and cold import.

| function | minified size | ratio | cold import (median of ${ROUNDS}) | ratio |
|---|---|---|---|---|
${sizes
  .map(
    (s) =>
      `| \`${s.entry}\`${s.entry === BASELINE_ENTRY ? ' (baseline)' : ''} | ${(s.bytes / 1024).toFixed(0)} KiB | ${ratio(s.bytes, baseline.bytes)} | ${ms(s.importMs)} | ${ratio(s.importMs, baseline.importMs)} |`,
  )
  .join('\n')}

- **Read routes** (GET ${READ_ROUTES.join(', ')}): ${range(
      reads.map((s) => s.bytes),
      (v) => `${(v / 1024).toFixed(0)} KiB`,
    )} (${range(
      reads.map((s) => s.bytes / baseline.bytes),
      (v) => `${v.toFixed(2)}x`,
    )} the baseline); cold import ${range(
      reads.map((s) => s.importMs / baseline.importMs),
      (v) => `${v.toFixed(2)}x`,
    )} the baseline's.
- **What a read route carries** (\`${readExample?.entry}\`): ${readExample ? topPackages(readExample.packages, 10) : ''}.
- **Largest:** \`${largest.entry}\`, ${(largest.bytes / 1024).toFixed(0)} KiB: ${topPackages(largest.packages, 12)}.
- **Over 600 KiB:** ${over600.length} of ${functions.length} functions.
`;
    writeSection('spine', md);
    console.log(md);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
