/**
 * Spine benchmark: an authenticated, rate-limited GET /v1/platforms through the local HTTP
 * server, beside the bare DynamoDB call that request makes (one UpdateItem of the key's item),
 * and each function's minified bundle size and cold import time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { createDocumentClient } from '../functions/adapters/aws/dynamo/client.ts';
import { DynamoRateLimiter } from '../functions/adapters/aws/dynamo/rate-limits.ts';
import { startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import { hashSecret } from '../functions/core/auth/api-keys.ts';
import { fallbackEntry, healthRoute, routes } from '../functions/http/routes.ts';
import { workers } from '../functions/workers/manifest.ts';
import {
  type BundleFile,
  bundleShape,
  bytesOf,
  ENTRY_FILE,
  lambdaBuildOptions,
} from '../lib/bundling/options.ts';
import { machineLine, measure, ms, percentile, ratio, writeSection } from './lib.ts';

const ROOT = resolve(import.meta.dirname, '..');
const BASELINE_ENTRY = 'bench/baseline-handler.ts';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = 8;

const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 11);
/** The read-only routes of issue 16's targets. */
const READ_ROUTES = ['/v1/platforms', '/v1/channels', '/v1/tags', '/v1/usage', '/v1/posts', '/v1/posts/{id}'];

/** Minified bytes per package (`@aws-sdk/client-s3`) or, for our code, per folder (`functions/core`). */
const packageSizes = (files: readonly BundleFile[]): Map<string, number> => {
  const sizes = new Map<string, number>();
  for (const file of files) {
    for (const [path, bytes] of Object.entries(file.inputs)) {
      const pkg =
        /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, 2).join('/');
      sizes.set(pkg, (sizes.get(pkg) ?? 0) + bytes);
    }
  }
  return sizes;
};

/** A network's client module (the sandbox's is not one: it calls no network). */
const NETWORK_CLIENT = /functions\/platforms\/(?!sandbox\/)[^/]+\/client\.ts$/;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/** The largest packages of a bundle, as `name 123 KiB`. */
const topPackages = (sizes: Map<string, number>, count: number): string =>
  [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, bytes]) => `\`${name}\` ${(bytes / 1024).toFixed(0)} KiB`)
    .join(', ');

/**
 * Bundles every function as the CDK stack does (lib/bundling/options.ts: ESM, minified, node22, code
 * splitting) and measures its size and cold import: each import of the entry in a fresh node
 * process, the functions taken in turn for ROUNDS rounds so that the machine's load falls on all of
 * them alike; the median per function is reported. Sizes: the entry (`index.mjs` and the chunks it
 * imports statically: what a cold start loads), the largest part loaded later with `import()` (one
 * network's client), the two together (the most one job loads) and the whole asset.
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
  try {
    const shapes = new Map<string, ReturnType<typeof bundleShape>>();
    const outdirs = new Map<string, string>();
    for (const entry of entries) {
      const outdir = join(dir, entry.replace(/[/.]/g, '_'));
      const built = await build({ ...lambdaBuildOptions(resolve(ROOT, entry), outdir), logLevel: 'silent' });
      outdirs.set(entry, outdir);
      shapes.set(entry, bundleShape(built.metafile, outdir));
    }
    const times = new Map<string, number[]>(entries.map((entry) => [entry, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const entry of entries) {
        const file = join(outdirs.get(entry) as string, ENTRY_FILE);
        const script = `const t=performance.now();await import(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t));`;
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
      const shape = shapes.get(entry) as ReturnType<typeof bundleShape>;
      const lazy = [...shape.lazy].map(([file, parts]) => ({ file, parts, bytes: bytesOf(parts) }));
      const largestLazy = lazy.reduce<(typeof lazy)[number] | undefined>(
        (a, b) => (a === undefined || b.bytes > a.bytes ? b : a),
        undefined,
      );
      const bytes = bytesOf(shape.entry);
      return {
        entry,
        bytes,
        lazyBytes: largestLazy?.bytes ?? 0,
        lazyFile: largestLazy?.file,
        peakBytes: bytes + (largestLazy?.bytes ?? 0),
        assetBytes: bytesOf(shape.all),
        lazyCount: lazy.length,
        networkChunks: lazy.filter((part) =>
          part.parts.some((file) => Object.keys(file.inputs).some((input) => NETWORK_CLIENT.test(input))),
        ).length,
        importMs: percentile(sorted, 50),
        packages: packageSizes(shape.entry),
        peakPackages: packageSizes([...shape.entry, ...(largestLazy?.parts ?? [])]),
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

    const { environment, deps } = runtime.container;
    const table = {
      doc: createDocumentClient(
        new DynamoDBClient({ endpoint: environment.AWS_ENDPOINT_URL_DYNAMODB as string }),
      ),
      tableName: deps.table.tableName,
    };
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
    const largest = functions.reduce((a, b) => (b.peakBytes > a.peakBytes ? b : a));
    const largestEntry = functions.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const over600 = functions.filter((s) => s.peakBytes > 600 * 1024);
    const split = functions.filter((s) => s.networkChunks > 0);
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
All are bundled with the stack's options (\`lib/bundling/options.ts\`), the baseline too: the
deployed functions' credentials come from the environment only (the SDK's default provider chain
is aliased to its first link), and each network's client is a chunk of its own, loaded with
\`import()\` by the first job for that network. **Entry** is \`index.mjs\` with the chunks it imports
statically: what a cold start loads and what the cold import measures. **Largest lazy part** is the
most one \`import()\` adds (a network's client and the chunks only it needs); **entry + lazy** is the
most one job loads when it uses that network; **asset** is every file of the zip (all networks).

| function | entry | ratio | largest lazy part | entry + lazy | asset | cold import of the entry (median of ${ROUNDS}) | ratio |
|---|---|---|---|---|---|---|---|
${sizes
  .map(
    (s) =>
      `| \`${s.entry}\`${s.entry === BASELINE_ENTRY ? ' (baseline)' : ''} | ${kib(s.bytes)} | ${ratio(s.bytes, baseline.bytes)} | ${s.lazyCount > 0 ? `${kib(s.lazyBytes)} (of ${s.lazyCount})` : '-'} | ${kib(s.peakBytes)} | ${kib(s.assetBytes)} | ${ms(s.importMs)} | ${ratio(s.importMs, baseline.importMs)} |`,
  )
  .join('\n')}

- **Read routes** (GET ${READ_ROUTES.join(', ')}): ${range(
      reads.map((s) => s.bytes),
      (v) => kib(v),
    )} (${range(
      reads.map((s) => s.bytes / baseline.bytes),
      (v) => `${v.toFixed(2)}x`,
    )} the baseline); cold import ${range(
      reads.map((s) => s.importMs / baseline.importMs),
      (v) => `${v.toFixed(2)}x`,
    )} the baseline's.
- **What a read route carries** (\`${readExample?.entry}\`): ${readExample ? topPackages(readExample.packages, 10) : ''}.
- **Largest entry:** \`${largestEntry.entry}\`, ${kib(largestEntry.bytes)}: ${topPackages(largestEntry.packages, 12)}.
- **Largest:** \`${largest.entry}\`, ${kib(largest.peakBytes)} with its largest lazy part (\`${largest.lazyFile ?? 'none'}\`, ${kib(largest.lazyBytes)}): ${topPackages(largest.peakPackages, 12)}.
- **Split:** ${split.length} functions load network clients lazily, one chunk per client (${split.map((s) => `\`${s.entry}\` ${s.networkChunks}`).join(', ')}). The other lazy part of most functions is the SDK's event-stream code (\`@smithy/core\`), which esbuild splits off because the SDK imports it with \`import()\`.
- **Over 600 KiB** (entry + largest lazy part): ${over600.length} of ${functions.length} functions${over600.length > 0 ? ` (${over600.map((s) => `\`${s.entry}\` ${kib(s.peakBytes)}`).join(', ')})` : ''}.
`;
    writeSection('spine', md);
    console.log(md);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
