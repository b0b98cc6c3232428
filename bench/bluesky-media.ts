/**
 * Bluesky media benchmark: a 100 MB video (100,000,000 bytes, the most `app.bsky.embed.video`
 * takes) published to the Bluesky simulator by the Bluesky client as a warm publish worker runs it,
 * streamed from a presigned-URL stand-in to the video service (harness: network-media.ts).
 */
import {
  type SimStoredRecord,
  startBlueskySimulator,
  VIDEO_MAX_BYTES,
} from '../simulators/bluesky/simulator.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { mib, runNetworkMediaBench } from './network-media.ts';

const VIDEO_BYTES = Number(process.env.BENCH_BLUESKY_VIDEO_BYTES ?? VIDEO_MAX_BYTES);

export const runBlueskyMedia = () =>
  runNetworkMediaBench({
    network: 'bluesky',
    section: 'bluesky-media',
    videoBytes: VIDEO_BYTES,
    // An MP4 header padded to the size; the last byte differs per file (the video service answers an
    // identical upload with its earlier job).
    video: (size, run) => {
      const bytes = mediaFiles.mp4(size);
      bytes[bytes.length - 1] = run === 'warm' ? 9 : run;
      return bytes;
    },
    filePerRun: true,
    startSimulator: startBlueskySimulator,
    verify: async (sim, runs) => {
      // Every post embeds its whole video (the blob the video service made of the bytes it received).
      const records = (
        (await (await fetch(`${sim.url}/_sim/bluesky/records`)).json()) as { data: SimStoredRecord[] }
      ).data;
      const embedded = records.filter((r) => {
        const embed = r.value.embed as { $type?: string; video?: { size?: number } } | undefined;
        return embed?.$type === 'app.bsky.embed.video' && embed.video?.size === VIDEO_BYTES;
      });
      if (embedded.length !== runs)
        throw new Error('the Bluesky simulator did not receive every video whole');
    },
    title: `Bluesky media: a ${VIDEO_BYTES.toLocaleString('en-US')}-byte (${mib(VIDEO_BYTES)}) video streamed to Bluesky's video service (issue 12)`,
    simulatorName: 'Bluesky',
    describe: `
The video is the largest \`app.bsky.embed.video\` takes (lexicon \`maxSize\` 100,000,000 bytes).
A warm publish worker (child process, \`--expose-gc\`) publishes a post with it: the Bluesky client
asks the PDS for a service-auth token (\`getServiceAuth\`, \`lxm\` \`com.atproto.repo.uploadBlob\`),
streams the file from a presigned-URL stand-in to the video service's \`uploadVideo\` as one request
body read in 1 MiB chunks, polls \`getJobStatus\` until the blob is ready (the simulator completes a
job on the second poll; the client polls every 2 s), then creates the post embedding the blob.`,
    timeCovers: 'upload, processing, post',
    conclude: `
The client never concatenates the video: 1 MiB chunks go from the download to one upload request
sent with node:http and its backpressure (the next chunk is read when the socket has taken the
last), so the growth stays far below the video's size. With Node 20's \`fetch\` and a streamed
body the same publication grew the worker by about the video's size (110 MiB), which is why the
client does not use it for this one large body. About 2 s of the time is the status polling. On
the real network the time is bound by the upload bandwidth to the video service and its
processing; a video still processing after the client's wait is tried again later.`,
  });
