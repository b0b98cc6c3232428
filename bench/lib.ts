import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';

export const percentile = (sorted: number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
};

export interface LatencyStats {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  perSecond: number;
}

/** Runs `task` `count` times with `concurrency` in flight; latencies in ms, throughput over wall time. */
export const measure = async (count: number, concurrency: number, task: (i: number) => Promise<void>) => {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await task(i);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const wall = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    count,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    perSecond: (count / wall) * 1000,
  } satisfies LatencyStats;
};

export const ms = (value: number) => `${value.toFixed(2)} ms`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

export const machineLine = () =>
  `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`;

const FILE = resolve(import.meta.dirname, '..', 'BENCHMARKS.md');
const HEADER = `# Benchmarks

Produced by \`npm run bench\` (all suites) or \`npm run bench -- <suite>\`; each suite rewrites its own
section. These machines are shared and noisy: compare the ratios measured within one run, not
absolute numbers across runs.
`;

/** Replaces (or appends) the section of one suite in BENCHMARKS.md. */
export const writeSection = (suite: string, markdown: string): void => {
  const start = `<!-- bench:${suite}:start -->`;
  const end = `<!-- bench:${suite}:end -->`;
  const current = existsSync(FILE) ? readFileSync(FILE, 'utf8') : HEADER;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? `${current.slice(0, from)}${block}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(FILE, next);
};

/** AWS list prices (us-east-1), kept with their sources in `bench/prices.ts`. */
export { PRICES } from './prices.ts';

/** Dollars, with four decimals below a cent. */
export const usd = (value: number) => (value < 0.01 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`);
