/**
 * LinkedIn media benchmark: a 100 MiB video published to the LinkedIn simulator by the LinkedIn
 * client as a warm publish worker runs it, streamed from a presigned-URL stand-in in LinkedIn's
 * 4 MiB parts (harness: network-media.ts).
 */
import type { SimLinkedInMedia } from '../simulators/linkedin/media.ts';
import { startLinkedInSimulator } from '../simulators/linkedin/simulator.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { MiB, mib, runNetworkMediaBench } from './network-media.ts';

const VIDEO_BYTES = Number(process.env.BENCH_LINKEDIN_VIDEO_MIB ?? 100) * MiB;

export const runLinkedInMedia = () =>
  runNetworkMediaBench({
    network: 'linkedin',
    section: 'linkedin-media',
    videoBytes: VIDEO_BYTES,
    // An MP4 header padded to the size.
    video: (size) => mediaFiles.mp4(size),
    filePerRun: false,
    startSimulator: startLinkedInSimulator,
    verify: async (sim, runs) => {
      const media = (
        (await (await fetch(`${sim.url}/_sim/linkedin/media`)).json()) as { data: SimLinkedInMedia[] }
      ).data;
      const uploads = media.filter((m) => m.declaredSize === VIDEO_BYTES);
      if (uploads.length !== runs || uploads.some((m) => m.size !== VIDEO_BYTES || m.status !== 'AVAILABLE'))
        throw new Error('the LinkedIn simulator did not receive every video whole');
    },
    title: `LinkedIn media: a ${mib(VIDEO_BYTES)} video streamed to LinkedIn (issue 12)`,
    simulatorName: 'LinkedIn',
    describe: `
A warm publish worker (child process, \`--expose-gc\`) publishes a post with one ${mib(VIDEO_BYTES)} video:
the LinkedIn client registers it with the Videos API (\`initializeUpload\`), reads the file from a
presigned-URL stand-in in the 4 MiB parts LinkedIn's upload instructions give and PUTs each (raw
bytes, its ETag kept), then \`finalizeUpload\`, status polls until \`AVAILABLE\` (the simulator
processes for 0.3 s; the client polls every second), and the post.`,
    timeCovers: 'upload, processing, post',
    conclude: `
The RSS growth stays far below the video's size: one 4 MiB part is held at a time
(plus read buffers and garbage not yet collected), never the whole file. On the
real network the time is bound by the upload bandwidth to LinkedIn and LinkedIn's processing; a
video still processing after the client's 20 s wait is uploaded again by the retry.`,
  });
