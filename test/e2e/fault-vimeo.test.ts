import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKENS } from '../../functions/ports/network-client.ts';
import type { SimVimeoVideo } from '../../simulators/vimeo/simulator.ts';
import {
  CRASH_ENV,
  crashBetweenSendAndRecord,
  FAULT_ENV,
  runFaultMatrix,
  uploadVideo,
} from '../support/fault-matrix.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The fault matrix on Vimeo: each sim token on the one block (a small MP4), through the local
 * runtime over HTTP. Vimeo's video exists from its create call on, so a lost create answer must be
 * found (never a second video), and every video of a published post must hold its whole file.
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

const channel = { title: 'Fault run', options: { privacy: 'anybody' } };
const simVideos = async (on: TestRuntime = rt): Promise<SimVimeoVideo[]> =>
  (
    (await (await fetch(`${on.simulators.baseUrls.vimeo}/_sim/vimeo/videos`)).json()) as {
      data: SimVimeoVideo[];
    }
  ).data;

describe('Vimeo under faults', () => {
  it(`never creates a second video and ends in the right state (${SIM_TOKENS.length} posts)`, async () => {
    const results = await runFaultMatrix(rt, 'vimeo', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
      channel,
    });
    const videos = await simVideos();
    for (const { token, marker, post } of results) {
      const mine = videos.filter((v) => v.description.startsWith(marker) && !v.deleted);
      expect(mine.length, `${token}: ${mine.length} videos`).toBeLessThanOrEqual(1);
      if (post.status === 'published') {
        expect(mine[0], token).toMatchObject({ uploadStatus: 'complete', size: 2_000, received: 2_000 });
        expect(post.channels[0].blocks[0].remoteUrl, token).toBe(mine[0]?.link);
      }
    }
  });

  it('a worker that dies between sending the video and recording it: the next finds it', async () => {
    const post = await crashBetweenSendAndRecord(crashRt, 'vimeo', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
      channel,
    });
    const marker = post.channels[0].blocks[0].content;
    const mine = (await simVideos(crashRt)).filter((v) => v.description === marker);
    expect(mine).toHaveLength(1);
    expect(post.channels[0].blocks[0].remoteUrl).toBe(mine[0]?.link);
  });
});
