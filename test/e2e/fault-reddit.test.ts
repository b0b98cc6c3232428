import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKENS } from '../../functions/ports/network-client.ts';
import type { SimRedditAsset, SimRedditPost } from '../../simulators/reddit/simulator.ts';
import { CRASH_ENV, crashBetweenSendAndRecord, FAULT_ENV, runFaultMatrix } from '../support/fault-matrix.ts';
import { sharedTestRuntime, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The fault matrix on Reddit: every sim token in every block of a 3-block thread (an image post,
 * then two comments), all at once through the local runtime. Besides the shared checks (no block
 * twice, the right end state), each live post carries its one image, uploaded once for it.
 */

let rt: TestRuntime;
/** The crash scenarios' runtime: a short lease to wait out. */
let crashRt: TestRuntime;
const channel = { title: 'Fault matrix', options: { subreddit: 'heraldtest' } };

beforeAll(async () => {
  rt = await startTestRuntime({
    // The simulator's listings show a media post once processed (200 ms): a short window suffices.
    env: { ...FAULT_ENV, REDDIT_CONSISTENCY_WINDOW_SECONDS: '3' },
  });
  crashRt = await sharedTestRuntime({ env: CRASH_ENV });
});
afterAll(async () => {
  await rt?.destroy();
});

const simGet = async <T>(path: string): Promise<T> =>
  ((await (await fetch(`${rt.simulators.baseUrls.reddit}${path}`)).json()) as { data: T }).data;

describe('Reddit: sim tokens in every block position of a 3-block thread', () => {
  it(`never posts twice, ends in the right state and attaches each image once (${SIM_TOKENS.length * 3} threads)`, async () => {
    const results = await runFaultMatrix(rt, 'reddit', { mediaBlocks: [0], channel, settleMs: 90_000 });
    const posts = await simGet<SimRedditPost[]>('/_sim/reddit/posts');
    const assets = await simGet<SimRedditAsset[]>('/_sim/reddit/media');
    for (const { token, position, marker, post } of results) {
      const label = `reddit ${token} at block ${position + 1}`;
      const live = posts.filter((p) => !p.deleted && p.selftext.startsWith(`${marker} block0`));
      const first = post.channels[0].blocks[0];
      if (first.remoteUrl === null) {
        expect(live, label).toHaveLength(0);
        continue;
      }
      expect(live, label).toHaveLength(1);
      const [stored] = live;
      expect(first.remoteUrl, label).toContain(`/comments/${stored?.id}/`);
      expect(stored?.kind, label).toBe('image');
      expect(stored?.assetIds, label).toHaveLength(1);
      const asset = assets.find((a) => a.assetId === stored?.assetIds[0]);
      expect(asset?.uploadedBytes, label).toBe(2_000);
      expect(stored?.url, label).toBe(asset?.location);
      // The comments hang off the post itself.
      const comments = stored?.comments.filter((c) => !c.deleted).map((c) => c.body.split(' ')[1]);
      expect(comments, label).toEqual(
        post.channels[0].blocks
          .slice(1)
          .flatMap((b: { remoteUrl: string | null }, i: number) => (b.remoteUrl ? [`block${i + 1}`] : [])),
      );
    }
  }, 240_000);

  it('a worker that dies between the send and the record never causes a second send (comment, then image post)', async () => {
    await crashBetweenSendAndRecord(crashRt, 'reddit', { channel });
    await crashBetweenSendAndRecord(crashRt, 'reddit', { channel, blocks: 1, mediaBlocks: [0] });
  }, 90_000);
});
