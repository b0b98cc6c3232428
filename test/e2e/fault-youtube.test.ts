import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKENS } from '../../functions/ports/network-client.ts';
import type { SimYouTubeVideo } from '../../simulators/youtube/simulator.ts';
import {
  CRASH_ENV,
  crashBetweenSendAndRecord,
  FAULT_ENV,
  runFaultMatrix,
  uploadVideo,
} from '../support/fault-matrix.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The fault matrix on YouTube through the local runtime: every sim token on a one-video post (the
 * tokens act when the upload session opens; the lost answers hit the chunk that completes the
 * video), and a worker that dies between the upload and its record. YouTube must hold each video
 * once, whole.
 */

let rt: TestRuntime;
/** The crash scenarios' runtime: a short lease to wait out. */
let crashRt: TestRuntime;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: FAULT_ENV });
  crashRt = await sharedTestRuntime({ env: CRASH_ENV });
});
afterAll(async () => {
  await rt?.destroy();
});

const channel = { title: 'Fault matrix', options: { privacy: 'unlisted', tags: ['fault'] } };
const simVideos = async (on: TestRuntime = rt): Promise<SimYouTubeVideo[]> =>
  (
    (await (await fetch(`${on.simulators.baseUrls.youtube}/_sim/youtube/videos`)).json()) as {
      data: SimYouTubeVideo[];
    }
  ).data;

describe('YouTube under faults', () => {
  it(`every sim token ends in the right state with no duplicate video (${SIM_TOKENS.length} posts)`, async () => {
    const cases = await runFaultMatrix(rt, 'youtube', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
      channel,
    });
    const videos = await simVideos();
    for (const c of cases) {
      const mine = videos.filter((v) => v.description.includes(c.marker));
      expect(mine.length, `${c.token}`).toBe(c.count);
      for (const v of mine) {
        // The small MP4 arrived whole (2000 bytes), with the channel's title and options.
        expect(v, c.token).toMatchObject({
          size: 2_000,
          title: 'Fault matrix',
          privacyStatus: 'unlisted',
          tags: ['fault'],
        });
        expect(c.post.channels[0].blocks[0].remoteUrl, c.token).toBe(
          `https://www.youtube.com/watch?v=${v.id}`,
        );
      }
    }
  });

  it('a worker that dies between the upload and its record: the video is found, not uploaded again', async () => {
    const post = await crashBetweenSendAndRecord(crashRt, 'youtube', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
      channel,
    });
    const id = new URL(post.channels[0].blocks[0].remoteUrl).searchParams.get('v');
    expect((await simVideos(crashRt)).filter((v) => v.id === id)).toHaveLength(1);
  });
});
