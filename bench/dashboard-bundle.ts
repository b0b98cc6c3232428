/**
 * The dashboard's bundle (issue 29): `npm run bench -- dashboard-bundle` builds it with the command
 * the stack runs and reports each file's raw, gzip and Brotli size (what a browser downloads from
 * CloudFront, which compresses both ways), with the totals per kind.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { machineLine, writeSection } from './lib.ts';

const ROOT = resolve(import.meta.dirname, '..');

interface FileSize {
  name: string;
  kind: string;
  raw: number;
  gzip: number;
  brotli: number;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

/** Sizes of every file of a fresh build (the hashed names change with the sources; the kinds do not). */
export const measureDashboardBundle = async (): Promise<FileSize[]> => {
  const out = mkdtempSync(join(tmpdir(), 'herald-dashboard-bundle-'));
  try {
    await build({
      configFile: join(ROOT, 'dashboard', 'vite.config.ts'),
      build: { outDir: out, emptyOutDir: true },
      logLevel: 'error',
    });
    return filesUnder(out).map((path) => {
      const bytes = readFileSync(path);
      return {
        name: relative(out, path),
        kind: extname(path).slice(1),
        raw: bytes.length,
        gzip: gzipSync(bytes, { level: 9 }).length,
        brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
      };
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
};

export const runDashboardBundle = async () => {
  const files = await measureDashboardBundle();
  const rows = files
    .sort((a, b) => a.kind.localeCompare(b.kind) || b.raw - a.raw)
    .map((f) => `| \`${f.name}\` | ${kib(f.raw)} | ${kib(f.gzip)} | ${kib(f.brotli)} |`);
  const total = (kind: string) => {
    const of = files.filter((f) => f.kind === kind);
    const sum = (key: 'raw' | 'gzip' | 'brotli') => of.reduce((n, f) => n + f[key], 0);
    return `| all ${kind.toUpperCase()} | ${kib(sum('raw'))} | ${kib(sum('gzip'))} | ${kib(sum('brotli'))} |`;
  };
  const md = `## Dashboard bundle (issue 29)

The dashboard as the stack deploys it (\`npx vite build --config dashboard/vite.config.ts\`: Preact,
uPlot and openapi-fetch; no CSS framework, no AWS SDK), measured with
\`npm run bench -- dashboard-bundle\` (\`bench/dashboard-bundle.ts\`): raw bytes, gzip (level 9)
and Brotli (quality 11), the two encodings a browser accepts compressed. index.html is fetched on
every visit (no-cache); the hashed assets once (immutable).

| file | raw | gzip | brotli |
|---|---|---|---|
${rows.join('\n')}
${total('js')}
${total('css')}

${machineLine()}`;
  console.log(md);
  writeSection('dashboard-bundle', md);
};
