import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKENS } from '../../functions/ports/network-client.ts';
import type { SimFacebookMedia } from '../../simulators/facebook/simulator.ts';
import {
  CRASH_ENV,
  crashBetweenSendAndRecord,
  FAULT_ENV,
  runFaultMatrix,
  uploadVideo,
} from '../support/fault-matrix.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The fault matrix on Facebook Pages (the shared harness: every sim token in every block of a
 * 3-block thread, no block posted twice, the right end state), with an image on the first block
 * (comments carry text only): every live post carries its one photo, with its alt text, and no
 * photo is on two posts or left attached to nothing that went live.
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

interface SimPost {
  id: string;
  message: string;
  state: string;
  deleted: boolean;
  attachments: SimFacebookMedia[];
}

const simPosts = async (): Promise<SimPost[]> =>
  (
    (await (await fetch(`${rt.simulators.baseUrls.facebook}/_sim/facebook/posts`)).json()) as {
      data: SimPost[];
    }
  ).data;
const simMedia = async (on: TestRuntime = rt): Promise<SimFacebookMedia[]> =>
  (
    (await (await fetch(`${on.simulators.baseUrls.facebook}/_sim/facebook/media`)).json()) as {
      data: SimFacebookMedia[];
    }
  ).data;
const postIdOf = (remoteUrl: string) => /facebook\.com\/([^/?]+)/.exec(remoteUrl)?.[1] as string;

describe('Facebook: sim tokens in every block position of a 3-block thread', () => {
  it(`never posts twice, ends in the right state, and attaches each photo once (${SIM_TOKENS.length * 3} threads)`, async () => {
    const results = await runFaultMatrix(rt, 'facebook', { mediaBlocks: [0] });
    const posts = await simPosts();
    const media = await simMedia();
    for (const { token, position, marker, post } of results) {
      const label = `facebook ${token} at block ${position + 1}`;
      const first = post.channels[0].blocks[0];
      const mine = posts.filter((p) => p.message.startsWith(`${marker} block0`));
      // At most one post of the thread's first block reached the page.
      expect(mine.length, label).toBeLessThanOrEqual(1);
      if (first.remoteUrl === null) {
        expect(mine, label).toEqual([]);
        continue;
      }
      const stored = posts.find((p) => p.id === postIdOf(first.remoteUrl));
      expect(stored?.message, label).toBe(`${marker} block0${position === 0 ? ` ${token}` : ''}`);
      expect(
        stored?.attachments.map((m) => ({ kind: m.kind, size: m.size, alt: m.altText, postId: m.postId })),
        label,
      ).toEqual([{ kind: 'photo', size: 2_000, alt: 'Picture of block 0', postId: stored?.id }]);
      // The photo is on no other post.
      const photoId = stored?.attachments[0]?.id;
      expect(
        media.filter((m) => m.id === photoId && m.postId !== stored?.id),
        label,
      ).toEqual([]);
    }
  }, 240_000);
});

describe('Facebook: a worker that dies between the send and the record', () => {
  it('never causes a second send of a comment', async () => {
    // The healthy worker reads the post's comments, finds the last block and records it.
    await crashBetweenSendAndRecord(crashRt, 'facebook', { blocks: 2 });
  }, 45_000);

  it('never causes a second send of a video post (found among the page’s videos)', async () => {
    const post = await crashBetweenSendAndRecord(crashRt, 'facebook', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
    });
    const videos = (await simMedia(crashRt)).filter(
      (m) => m.kind === 'video' && m.postId === postIdOf(post.channels[0].blocks[0].remoteUrl),
    );
    expect(videos).toHaveLength(1);
  }, 45_000);
});
