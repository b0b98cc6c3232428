/**
 * YouTube media benchmark: a 100 MiB video published to the YouTube simulator by the YouTube
 * client as a warm publish worker runs it, streamed from a presigned-URL stand-in in 8 MiB chunks
 * of the resumable upload protocol (harness: network-media.ts).
 */
import { startYouTubeSimulator } from '../simulators/youtube/simulator.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { MiB, mib, runNetworkMediaBench } from './network-media.ts';

const VIDEO_BYTES = Number(process.env.BENCH_YOUTUBE_VIDEO_MIB ?? 100) * MiB;

export const runYouTubeMedia = () =>
  runNetworkMediaBench({
    network: 'youtube',
    section: 'youtube-media',
    videoBytes: VIDEO_BYTES,
    // An MP4 header padded to the size.
    video: (size) => mediaFiles.mp4(size),
    filePerRun: false,
    startSimulator: () => startYouTubeSimulator(),
    verify: async (sim, runs) => {
      const uploads = sim.videos().filter((v) => v.size === VIDEO_BYTES);
      if (uploads.length !== runs || uploads.some((v) => v.processingStatus !== 'succeeded'))
        throw new Error('the YouTube simulator did not receive every video whole');
    },
    title: `YouTube media: a ${mib(VIDEO_BYTES)} video streamed to YouTube (issue 15)`,
    simulatorName: 'YouTube',
    describe: `
A warm publish worker (child process, \`--expose-gc\`) publishes one ${mib(VIDEO_BYTES)} video: the
YouTube client opens a resumable upload session (\`POST /upload/youtube/v3/videos?uploadType=resumable\`
with the snippet and status), reads the file from a presigned-URL stand-in in 8 MiB chunks and PUTs
each with its \`Content-Range\` (answered \`308\` with the stored range, the last one with the video),
saving the session and offset every few chunks, then polls \`videos.list\` until processing succeeded
(the simulator processes for 0.3 s; the client polls every 2 s).`,
    timeCovers: 'upload, processing',
    conclude: `
The RSS growth stays far below the video's size: one 8 MiB chunk is held at a time (plus read
buffers and garbage not yet collected), never the whole file. On the real network the time is bound
by the upload bandwidth to YouTube; a publish that nears the worker's deadline saves the session and
offset and continues in the next invocation, and a processing longer than the attempt is waited for
in the next ones (up to 15 minutes after the upload).`,
  });
