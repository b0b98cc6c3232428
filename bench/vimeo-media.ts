/**
 * Vimeo media benchmark: a 100 MiB video published to the Vimeo simulator by the Vimeo client as a
 * warm publish worker runs it: created with `POST /me/videos`, then sent by tus in 16 MiB PATCH
 * requests, each a byte range streamed from a presigned-URL stand-in (harness: network-media.ts).
 */
import { startVimeoSimulator } from '../simulators/vimeo/simulator.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { MiB, mib, runNetworkMediaBench } from './network-media.ts';

const VIDEO_BYTES = Number(process.env.BENCH_VIMEO_VIDEO_MIB ?? 100) * MiB;

export const runVimeoMedia = () =>
  runNetworkMediaBench({
    network: 'vimeo',
    section: 'vimeo-media',
    videoBytes: VIDEO_BYTES,
    // An MP4 header padded to the size.
    video: (size) => mediaFiles.mp4(size),
    filePerRun: false,
    startSimulator: () => startVimeoSimulator(),
    verify: async (sim, runs) => {
      const whole = sim
        .videos()
        .filter((v) => v.size === VIDEO_BYTES && v.received === VIDEO_BYTES && v.uploadStatus === 'complete');
      if (whole.length !== runs) throw new Error('the Vimeo simulator did not receive every video whole');
    },
    title: `Vimeo media: a ${mib(VIDEO_BYTES)} video uploaded to Vimeo by tus (issue 15)`,
    simulatorName: 'Vimeo',
    describe: `
A warm publish worker (child process, \`--expose-gc\`) publishes one ${mib(VIDEO_BYTES)} video: the
Vimeo client searches the account's newest videos for an unfinished upload of the block, creates the
video (\`POST /me/videos\`, tus approach), sends it in 16 MiB tus \`PATCH\` requests (each a byte range
read from a presigned-URL stand-in in 256 KiB reads, with backpressure), then polls
\`transcode.status\` until \`complete\` (the simulator transcodes for 0.3 s; the client polls every 2 s).`,
    timeCovers: 'search, create, upload, transcoding',
    conclude: `
The RSS growth stays far below the video's size: a chunk is never buffered, only the 256 KiB reads
in flight. On the real network the time is bound by the upload bandwidth to Vimeo; a publication
that would outlast the worker saves the tus offset with the block's claim and continues in the next
invocation (\`continueLater\`).`,
  });
