/**
 * Child process of the network media benchmarks (run with --expose-gc, started by
 * network-media.ts): plays one warm publish worker sending a video to one network's simulator. The
 * parent runs the simulator and a file server standing in for S3's presigned URLs, so their memory
 * is not counted here. Prints `{ runs }`: each publication's time and memory.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { BlueskyClient } from '../functions/platforms/bluesky/client.ts';
import { LinkedInClient } from '../functions/platforms/linkedin/client.ts';
import { TikTokClient } from '../functions/platforms/tiktok/client.ts';
import { VimeoClient } from '../functions/platforms/vimeo/client.ts';
import { XClient } from '../functions/platforms/x/client.ts';
import { YouTubeClient } from '../functions/platforms/youtube/client.ts';
import type { NetworkClient } from '../functions/ports/network-client.ts';

export type MediaNetwork = 'x' | 'linkedin' | 'bluesky' | 'tiktok' | 'youtube' | 'vimeo';
export interface VideoRun {
  ms: number;
  rssBefore: number;
  rssPeak: number;
  v8Before: number;
  v8Peak: number;
}

// The worker's own network timeout (NETWORK_TIMEOUT_MS default) and the clients' defaults.
const clients: Record<
  MediaNetwork,
  (baseUrl: string) => {
    client: NetworkClient;
    remoteAccountId: string;
    options?: Record<string, string>;
    title?: string;
  }
> = {
  x: (baseUrl) => ({ client: new XClient({ baseUrl, timeoutMs: 10_000 }), remoteAccountId: 'bench' }),
  linkedin: (baseUrl) => ({
    client: new LinkedInClient('linkedin', { baseUrl, timeoutMs: 10_000 }),
    remoteAccountId: 'bench42',
  }),
  bluesky: (baseUrl) => ({
    client: new BlueskyClient({ baseUrl, timeoutMs: 10_000 }),
    remoteAccountId: 'did:plc:benchbenchbenchbench',
  }),
  tiktok: (baseUrl) => ({
    client: new TikTokClient({ baseUrl, timeoutMs: 10_000 }),
    remoteAccountId: 'bench-creator',
    // TikTok needs the privacy level of every post.
    options: { privacy: 'SELF_ONLY' },
  }),
  // A YouTube video needs a title.
  youtube: (baseUrl) => ({
    client: new YouTubeClient({ baseUrl, timeoutMs: 10_000 }),
    remoteAccountId: 'UCbench',
    title: 'Benchmark video',
  }),
  vimeo: (baseUrl) => ({
    client: new VimeoClient({ baseUrl, timeoutMs: 10_000 }),
    remoteAccountId: '4242',
  }),
};

// Run directly by the parent only (importing this module for its types runs nothing).
if (process.env.BENCH_NETWORK) {
  const {
    client,
    remoteAccountId,
    options = {},
    title,
  } = clients[process.env.BENCH_NETWORK as MediaNetwork](process.env.BENCH_NETWORK_URL as string);
  const fileUrls = (process.env.BENCH_FILE_URLS as string).split(',');
  const fileBytes = Number(process.env.BENCH_FILE_BYTES);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');

  const credentials = { accessToken: 'bench-token', remoteAccountId };
  const publish = (url: string, size: number) =>
    client.publish({
      credentials,
      content: `bench video ${randomUUID()}`,
      media: [
        { mediaId: `med_${randomUUID()}`, mimeType: 'video/mp4', size, altText: 'A benchmark video', url },
      ],
      title: title ?? null,
      postType: null,
      options,
      parent: null,
      idempotencyKey: randomUUID(),
      round: 1,
    });

  const hwmBytes = () =>
    Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
  const v8Now = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };

  // Warm up: modules, sockets, as in an instance that published before.
  await publish(process.env.BENCH_WARM_URL as string, Number(process.env.BENCH_WARM_BYTES));

  const runs: VideoRun[] = [];
  for (const url of fileUrls) {
    gc();
    gc();
    await new Promise((r) => setTimeout(r, 50));
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
}
