/**
 * Child process of the Bluesky media benchmark (run with --expose-gc): plays one warm publish
 * worker sending a video to Bluesky. The parent runs the Bluesky simulator (PDS and video service)
 * and a file server standing in for S3's presigned URL, so their memory is not counted here. The
 * Bluesky client asks the PDS for a service-auth token, streams the file from the URL to the video
 * service's `uploadVideo` in 1 MiB chunks, polls the job until the blob is ready, then creates the
 * post embedding it.
 *
 * Peak RSS is the kernel's high-water mark (`VmHWM`), reset before the publication through
 * /proc/self/clear_refs; V8 heap + external memory is sampled every millisecond.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { BlueskyClient } from '../functions/platforms/bluesky/client.ts';

const blueskyUrl = process.env.BENCH_BLUESKY_URL as string;
const fileUrls = (process.env.BENCH_FILE_URLS as string).split(',');
const fileBytes = Number(process.env.BENCH_FILE_BYTES);
const warmUrl = process.env.BENCH_WARM_URL as string;
const warmBytes = Number(process.env.BENCH_WARM_BYTES);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

// The worker's own network timeout (NETWORK_TIMEOUT_MS default) and the client's defaults.
const client = new BlueskyClient({ baseUrl: blueskyUrl, timeoutMs: 10_000 });
const credentials = { accessToken: 'bench-token', remoteAccountId: 'did:plc:benchbenchbenchbench' };
const publish = (url: string, size: number) =>
  client.publish({
    credentials,
    content: `bench video ${randomUUID()}`,
    media: [
      { mediaId: `med_${randomUUID()}`, mimeType: 'video/mp4', size, altText: 'A benchmark video', url },
    ],
    title: null,
    postType: null,
    options: {},
    parent: null,
    idempotencyKey: randomUUID(),
    round: 1,
  });

const hwmBytes = () =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;

// Warm up: modules, sockets, as in an instance that published before.
await publish(warmUrl, warmBytes);

const runs: { ms: number; rssBefore: number; rssPeak: number; v8Before: number; v8Peak: number }[] = [];
// A different file each run: the video service answers an identical upload with its earlier job.
for (const url of fileUrls) {
  gc();
  gc();
  await new Promise((r) => setTimeout(r, 50));
  const v8Now = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const rssBefore = process.memoryUsage().rss;
  const v8Before = v8Now();
  let v8Peak = v8Before;
  const sampler = setInterval(() => {
    v8Peak = Math.max(v8Peak, v8Now());
  }, 1);
  writeFileSync('/proc/self/clear_refs', '5');
  const t0 = performance.now();
  await publish(url, fileBytes);
  const elapsed = performance.now() - t0;
  clearInterval(sampler);
  v8Peak = Math.max(v8Peak, v8Now());
  runs.push({ ms: elapsed, rssBefore, rssPeak: hwmBytes(), v8Before, v8Peak });
}
process.stdout.write(JSON.stringify({ runs }));
process.exit(0);
