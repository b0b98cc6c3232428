/**
 * LinkedIn media benchmark: a 100 MiB video published to the LinkedIn simulator by the LinkedIn
 * client as a warm publish worker runs it (in a child process, see linkedin-media-worker.ts),
 * streamed from a presigned-URL stand-in in LinkedIn's 4 MiB parts. Reports time and peak memory against the publish worker's Lambda
 * settings. The video is written to a temporary directory at bench time and removed after.
 */
import { execFile } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { SimLinkedInMedia } from '../functions/platforms/linkedin/media-simulator.ts';
import { startLinkedInSimulator } from '../functions/platforms/linkedin/simulator.ts';
import { workers } from '../functions/workers/manifest.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { machineLine, ms, writeSection } from './lib.ts';

const MiB = 1024 * 1024;
const VIDEO_BYTES = Number(process.env.BENCH_LINKEDIN_VIDEO_MIB ?? 100) * MiB;
/** The publish worker's function memory (the stack's default; the manifest sets no other). */
const WORKER_MEMORY_MIB = 512;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] as number;

export const runLinkedInMedia = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-linkedin-'));
  const sim = await startLinkedInSimulator();
  const server = createServer((req, res) => {
    const path = join(dir, (req.url ?? '/').slice(1));
    try {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': statSync(path).size });
      createReadStream(path).pipe(res);
    } catch {
      res.writeHead(404).end();
    }
  });
  try {
    // Written at bench time, never committed: an MP4 header padded to the size.
    writeFileSync(join(dir, 'video.mp4'), mediaFiles.mp4(VIDEO_BYTES));
    writeFileSync(join(dir, 'warm.mp4'), mediaFiles.mp4(3 * MiB));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const child = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', resolve(import.meta.dirname, 'linkedin-media-worker.ts')],
      {
        env: {
          ...process.env,
          BENCH_LINKEDIN_URL: sim.url,
          BENCH_FILE_URL: `${base}/video.mp4`,
          BENCH_FILE_BYTES: String(VIDEO_BYTES),
          BENCH_WARM_URL: `${base}/warm.mp4`,
          BENCH_WARM_BYTES: String(3 * MiB),
        },
        maxBuffer: 1024 * 1024,
      },
    );
    if (child.stderr.trim()) console.error(child.stderr);
    const { runs } = JSON.parse(child.stdout) as {
      runs: { ms: number; rssBefore: number; rssPeak: number; v8Before: number; v8Peak: number }[];
    };
    const media = (
      (await (await fetch(`${sim.url}/_sim/linkedin/media`)).json()) as { data: SimLinkedInMedia[] }
    ).data;
    const uploads = media.filter((m) => m.declaredSize === VIDEO_BYTES);
    if (
      uploads.length !== runs.length ||
      uploads.some((m) => m.size !== VIDEO_BYTES || m.status !== 'AVAILABLE')
    )
      throw new Error('the LinkedIn simulator did not receive every video whole');
    const timeoutSeconds = workers.find((w) => w.queue === 'publish')?.timeoutSeconds ?? 0;
    const took = median(runs.map((r) => r.ms));
    const rssPeak = Math.max(...runs.map((r) => r.rssPeak));
    const rssGrowth = median(runs.map((r) => r.rssPeak - r.rssBefore));
    const v8Growth = median(runs.map((r) => r.v8Peak - r.v8Before));

    const md = `## LinkedIn media: a ${mib(VIDEO_BYTES)} video streamed to LinkedIn (issue 12)

Command: \`npm run bench -- linkedin-media\` (median of ${runs.length} publications after one warm-up, local LinkedIn simulator).
${machineLine()}

A warm publish worker (child process, \`--expose-gc\`) publishes a post with one ${mib(VIDEO_BYTES)} video:
the LinkedIn client registers it with the Videos API (\`initializeUpload\`), reads the file from a
presigned-URL stand-in in the 4 MiB parts LinkedIn's upload instructions give and PUTs each (raw
bytes, its ETag kept), then \`finalizeUpload\`, status polls until \`AVAILABLE\` (the simulator
processes for 0.3 s; the client polls every second), and the post. The simulator and the file
server run in the parent and are not counted.

| measure | value | worker's Lambda setting |
|---|---|---|
| time to publish (upload, processing, post) | ${ms(took)} | timeout ${timeoutSeconds} s |
| peak RSS of the whole worker process | ${mib(rssPeak)} | memory ${WORKER_MEMORY_MIB} MiB |
| peak RSS growth during the publication | ${mib(rssGrowth)} | |
| peak V8 heap + external growth (sampled, garbage not yet collected included) | ${mib(v8Growth)} | |

The RSS growth stays far below the video's size: one 4 MiB part is held at a time
(plus read buffers and garbage not yet collected), never the whole file. On the
real network the time is bound by the upload bandwidth to LinkedIn and LinkedIn's processing; a
video still processing after the client's 20 s wait is uploaded again by the retry.
`;
    writeSection('linkedin-media', md);
    console.log(md);
  } finally {
    server.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
