/**
 * The harness of the network media benchmarks (x-media, linkedin-media, bluesky-media, tiktok-media,
 * youtube-media, vimeo-media): a large
 * video published by one network client as a warm publish worker runs it, in a child process
 * (network-media-worker.ts) so that only the worker's memory is measured. The parent runs the
 * network's simulator and a file server standing in for S3's presigned URLs; the videos are written
 * to a temporary directory at bench time and removed after. Reports time and peak memory against
 * the publish worker's Lambda settings.
 */
import { execFile } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { workers } from '../functions/workers/manifest.ts';
import { machineLine, ms, writeSection } from './lib.ts';
import type { MediaNetwork, VideoRun } from './network-media-worker.ts';

export const MiB = 1024 * 1024;
/** The publish worker's function memory (the stack's default; the manifest sets no other). */
const WORKER_MEMORY_MIB = 512;
const RUNS = 2;
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] as number;

export interface NetworkMediaBench<S extends { url: string; stop(): Promise<void> }> {
  network: MediaNetwork;
  /** The BENCHMARKS.md section and the `npm run bench` suite name. */
  section: string;
  videoBytes: number;
  /** The bytes of the video of run `i` (`'warm'`: the warm-up's 3 MiB one). */
  video: (size: number, run: number | 'warm') => Uint8Array;
  /** One file per run (the network dedupes identical uploads) or one file for every run. */
  filePerRun: boolean;
  startSimulator: () => Promise<S>;
  /** Throws unless the simulator received every run's video whole. */
  verify: (sim: S, runs: number) => Promise<void>;
  /** Markdown: the section's title, then what a publication does, then what the figures mean. */
  title: string;
  simulatorName: string;
  describe: string;
  /** What the publication's time covers, e.g. "upload, processing, tweet". */
  timeCovers: string;
  conclude: string;
}

export const runNetworkMediaBench = async <S extends { url: string; stop(): Promise<void> }>(
  bench: NetworkMediaBench<S>,
) => {
  const dir = mkdtempSync(join(tmpdir(), `herald-bench-${bench.network}-`));
  const sim = await bench.startSimulator();
  const server = createServer((req, res) => {
    const path = join(dir, (req.url ?? '/').slice(1));
    try {
      const size = statSync(path).size;
      // Byte ranges (`bytes=N-`), as S3 serves them: resumable uploads read from an offset.
      const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
      res.writeHead(start > 0 ? 206 : 200, {
        'content-type': 'video/mp4',
        'content-length': size - start,
        ...(start > 0 ? { 'content-range': `bytes ${start}-${size - 1}/${size}` } : {}),
      });
      createReadStream(path, { start }).pipe(res);
    } catch {
      res.writeHead(404).end();
    }
  });
  try {
    // Written at bench time, never committed.
    const names = Array.from({ length: RUNS }, (_, i) => (bench.filePerRun ? `video${i}.mp4` : 'video.mp4'));
    for (const [i, name] of [...new Set(names)].entries())
      writeFileSync(join(dir, name), bench.video(bench.videoBytes, i));
    writeFileSync(join(dir, 'warm.mp4'), bench.video(3 * MiB, 'warm'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const child = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', resolve(import.meta.dirname, 'network-media-worker.ts')],
      {
        env: {
          ...process.env,
          BENCH_NETWORK: bench.network,
          BENCH_NETWORK_URL: sim.url,
          BENCH_FILE_URLS: names.map((name) => `${base}/${name}`).join(','),
          BENCH_FILE_BYTES: String(bench.videoBytes),
          BENCH_WARM_URL: `${base}/warm.mp4`,
          BENCH_WARM_BYTES: String(3 * MiB),
        },
        maxBuffer: 1024 * 1024,
      },
    );
    if (child.stderr.trim()) console.error(child.stderr);
    const { runs } = JSON.parse(child.stdout) as { runs: VideoRun[] };
    await bench.verify(sim, runs.length);
    const timeoutSeconds = workers.find((w) => w.queue === 'publish')?.timeoutSeconds ?? 0;
    const took = median(runs.map((r) => r.ms));
    const rssPeak = Math.max(...runs.map((r) => r.rssPeak));
    // The largest of the runs: the first publication grows the process, later ones reuse that memory.
    const rssGrowth = Math.max(...runs.map((r) => r.rssPeak - r.rssBefore));
    const v8Growth = Math.max(...runs.map((r) => r.v8Peak - r.v8Before));
    const rssGrowthMedian = median(runs.map((r) => r.rssPeak - r.rssBefore));

    const md = `## ${bench.title}

Command: \`npm run bench -- ${bench.section}\` (median of ${runs.length} publications after one warm-up, local ${bench.simulatorName} simulator).
${machineLine()}

${bench.describe.trim()}
The simulator and the file server run in the parent and are not counted.

| measure | value | worker's Lambda setting |
|---|---|---|
| time to publish (${bench.timeCovers}) | ${ms(took)} | timeout ${timeoutSeconds} s |
| peak RSS of the whole worker process | ${mib(rssPeak)} | memory ${WORKER_MEMORY_MIB} MiB |
| peak RSS growth during a publication (largest of the runs) | ${mib(rssGrowth)} | |
| peak RSS growth during a publication (median run) | ${mib(rssGrowthMedian)} | |
| peak V8 heap + external growth (largest of the runs, sampled, garbage not yet collected included) | ${mib(v8Growth)} | |

${bench.conclude.trim()}
`;
    writeSection(bench.section, md);
    console.log(md);
  } finally {
    server.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
