/**
 * TikTok media benchmark: a 100 MiB video published to the TikTok simulator by the TikTok client
 * as a warm publish worker runs it: FILE_UPLOAD in TikTok-sized chunks, each streamed from a
 * presigned-URL stand-in to the upload URL (harness: network-media.ts).
 */

import { TIKTOK_CHUNK_BYTES } from '../functions/platforms/tiktok/upload.ts';
import { startTikTokSimulator, type TikTokSimulator } from '../simulators/tiktok/simulator.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { MiB, mib, runNetworkMediaBench } from './network-media.ts';

const VIDEO_BYTES = Number(process.env.BENCH_TIKTOK_VIDEO_BYTES ?? 100 * MiB);

export const runTikTokMedia = () =>
  runNetworkMediaBench<TikTokSimulator>({
    network: 'tiktok',
    section: 'tiktok-media',
    videoBytes: VIDEO_BYTES,
    video: (size) => mediaFiles.mp4(size),
    filePerRun: false,
    startSimulator: () => startTikTokSimulator(),
    verify: async (sim, runs) => {
      const whole = sim
        .videos()
        .filter(
          (v) =>
            v.videoSize === VIDEO_BYTES && v.receivedBytes === VIDEO_BYTES && v.status === 'PUBLISH_COMPLETE',
        );
      if (whole.length !== runs) throw new Error('the TikTok simulator did not receive every video whole');
    },
    title: `TikTok media: a ${mib(VIDEO_BYTES)} video streamed to TikTok in chunks (issue 15)`,
    simulatorName: 'TikTok',
    describe: `
A warm publish worker (child process, \`--expose-gc\`) publishes a SELF_ONLY post with one
${mib(VIDEO_BYTES)} video: the TikTok client reads \`creator_info\`, inits a FILE_UPLOAD
(\`chunk_size\` ${mib(TIKTOK_CHUNK_BYTES)}, \`total_chunk_count\` ${Math.floor(VIDEO_BYTES / TIKTOK_CHUNK_BYTES)}), PUTs each chunk with
its \`Content-Range\` to the upload URL, streamed from one read of the presigned-URL stand-in
(256 KiB at a time, node:http with backpressure; with the engine's \`progress\` it also saves the
session after each chunk, which the bench leaves out), then polls
\`status/fetch\` until \`PUBLISH_COMPLETE\` (the simulator processes for 300 ms; the client polls
every 2 s).`,
    timeCovers: 'creator_info, init, chunks, processing',
    conclude: `
No chunk is held whole: each is a run of 256 KiB reads handed to the socket as it drains. What the
worker grows by is reads already sent that the collector has not freed yet (the sampled V8 figure
counts them), so the first publication of a fresh process grows it most; either way far below the
video's size and the worker's memory. About 2 s of the time is the status polling. On the real
network the time is bound by the upload bandwidth; an upload that would outlast the worker's
invocation saves its session and continues in the next one from the offset TikTok reports,
without a second video.`,
  });
