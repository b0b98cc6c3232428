/**
 * Child process of the LinkedIn media benchmark (run with --expose-gc): plays one warm publish
 * worker sending a video to LinkedIn. The parent runs the LinkedIn simulator and a file server
 * standing in for S3's presigned URL, so their memory is not counted here. The LinkedIn client
 * streams the file from the URL in LinkedIn's 4 MiB parts (initializeUpload, a PUT per part,
 * finalizeUpload, status polls, then the post).
 *
 * Peak RSS is the kernel's high-water mark (`VmHWM`), reset before the publication through
 * /proc/self/clear_refs; V8 heap + external memory is sampled every millisecond.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { LinkedInClient } from '../functions/platforms/linkedin/client.ts';

const linkedInUrl = process.env.BENCH_LINKEDIN_URL as string;
const fileUrl = process.env.BENCH_FILE_URL as string;
const fileBytes = Number(process.env.BENCH_FILE_BYTES);
const warmUrl = process.env.BENCH_WARM_URL as string;
const warmBytes = Number(process.env.BENCH_WARM_BYTES);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

// The worker's own network timeout (NETWORK_TIMEOUT_MS default) and the client's defaults.
const client = new LinkedInClient('linkedin', { baseUrl: linkedInUrl, timeoutMs: 10_000 });
const credentials = { accessToken: 'bench-token', remoteAccountId: 'bench42' };
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
for (let i = 0; i < 2; i++) {
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
  await publish(fileUrl, fileBytes);
  const elapsed = performance.now() - t0;
  clearInterval(sampler);
  v8Peak = Math.max(v8Peak, v8Now());
  runs.push({ ms: elapsed, rssBefore, rssPeak: hwmBytes(), v8Before, v8Peak });
}
process.stdout.write(JSON.stringify({ runs }));
process.exit(0);
