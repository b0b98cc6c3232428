/**
 * X media benchmark: a 100 MiB video published to the X simulator by the X client as a warm
 * publish worker runs it, streamed from a presigned-URL stand-in in 2 MiB segments (harness:
 * network-media.ts).
 */
import { DEFAULT_X_CHUNK_BYTES } from '../functions/platforms/x/media-upload.ts';
import { startXSimulator } from '../simulators/x/simulator.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { MiB, mib, runNetworkMediaBench } from './network-media.ts';

const VIDEO_BYTES = Number(process.env.BENCH_X_VIDEO_MIB ?? 100) * MiB;

export const runXMedia = () =>
  runNetworkMediaBench({
    network: 'x',
    section: 'x-media',
    videoBytes: VIDEO_BYTES,
    // An MP4 header padded to the size.
    video: (size) => mediaFiles.mp4(size),
    filePerRun: false,
    startSimulator: startXSimulator,
    verify: async (sim, runs) => {
      const uploads = sim.media().filter((m) => m.totalBytes === VIDEO_BYTES);
      if (
        uploads.length !== runs ||
        uploads.some((m) => m.receivedBytes !== VIDEO_BYTES || m.tweetIds.length !== 1)
      )
        throw new Error('the X simulator did not receive every video whole');
    },
    title: `X media: a ${mib(VIDEO_BYTES)} video streamed to X (issue 12)`,
    simulatorName: 'X',
    describe: `
A warm publish worker (child process, \`--expose-gc\`) publishes a tweet with one ${mib(VIDEO_BYTES)} video:
the X client reads the file from a presigned-URL stand-in in ${mib(DEFAULT_X_CHUNK_BYTES)} segments and sends
each as an append (base64 in JSON, as X's v2 reference documents), then finalize, STATUS polls
(the simulator's processing takes two polls of \`check_after_secs\` = 1 s), alt text, the tweet.`,
    timeCovers: 'upload, processing, tweet',
    conclude: `
One segment, its base64 text and the request body are live at a time; the rest of the growth is
segments already sent that the collector has not freed yet (the sampled V8 figure counts them),
which is why the first publication of a fresh process grows it most and later ones reuse that
memory. Either way the worker stays well within its memory. On the real network the time is bound by the upload bandwidth
to X and X's processing; a video X is still processing after the client's 20 s wait is picked up by
the retry (the upload is kept), so the worker's timeout is not the limit of a video's size.`,
  });
