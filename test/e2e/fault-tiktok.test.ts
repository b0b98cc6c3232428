import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TikTokSimulator } from '../../simulators/tiktok/simulator.ts';
import {
  CRASH_ENV,
  crashBetweenSendAndRecord,
  FAULT_ENV,
  runFaultMatrix,
  uploadVideo,
} from '../support/fault-matrix.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * TikTok under the shared fault matrix, through the local runtime over HTTP: every sim token on a
 * one-video post (refusals and the 503 at the init, the lost answers on the last chunk's PUT after
 * TikTok kept it), and a worker dying between the send and the record. TikTok must hold each video
 * once: a lost answer is settled by status/fetch on the publish_id, never by a second upload.
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

const channel = { options: { privacy: 'SELF_ONLY' } };
const simVideos = async () =>
  (
    (await (await fetch(`${rt.simulators.baseUrls.tiktok}/_sim/tiktok/videos`)).json()) as {
      data: ReturnType<TikTokSimulator['videos']>;
    }
  ).data;

describe('TikTok faults', () => {
  it('every sim token ends in the right state, with no video posted twice', async () => {
    const cases = await runFaultMatrix(rt, 'tiktok', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
      channel,
    });
    const videos = await simVideos();
    for (const c of cases) {
      const mine = videos.filter((v) => v.title.includes(c.marker));
      const published = mine.filter((v) => v.status === 'PUBLISH_COMPLETE');
      // 0 duplicate videos: at most one published per post, and each has all its bytes.
      expect(published.length, `${c.token}`).toBe(c.count);
      for (const v of published) expect(v.receivedBytes, c.token).toBe(v.videoSize);
      if (c.post.status === 'published') {
        const block = c.post.channels[0].blocks[0];
        expect(block.remoteUrl, c.token).toMatch(/^https:\/\/www\.tiktok\.com\/@/);
      }
    }
  }, 120_000);

  it('a worker that dies between the send and the record never causes a second video', async () => {
    await crashBetweenSendAndRecord(crashRt, 'tiktok', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
      channel,
    });
  }, 60_000);
});
