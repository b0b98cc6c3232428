import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKENS } from '../../functions/ports/network-client.ts';
import type { SimThreadsPost } from '../../simulators/threads/simulator.ts';
import { CRASH_ENV, crashBetweenSendAndRecord, FAULT_ENV, runFaultMatrix } from '../support/fault-matrix.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The fault matrix on Threads: every sim token in every block position of a 3-block thread whose
 * blocks each carry an image (Threads' replies carry media), through the local runtime. Besides
 * the shared checks (nothing posted twice, the right end state), every live block is one Threads
 * post carrying its one picture, pulled once, with its alt text, and no container is published
 * twice.
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

const simPosts = async (on: TestRuntime = rt): Promise<SimThreadsPost[]> =>
  (
    (await (await fetch(`${on.simulators.baseUrls.threads}/_sim/threads/posts`)).json()) as {
      data: SimThreadsPost[];
    }
  ).data;

describe('Threads: sim tokens in every block position of a 3-block thread with an image in each block', () => {
  it(`never posts twice, and each live block carries its picture once (${SIM_TOKENS.length * 3} threads)`, async () => {
    const results = await runFaultMatrix(rt, 'threads', { mediaBlocks: [0, 1, 2], settleMs: 90_000 });
    const posts = await simPosts();
    // A container is published at most once: no two posts come from the same container.
    const containers = posts.map((p) => p.containerId);
    expect(new Set(containers).size).toBe(containers.length);

    for (const { token, position, marker, post } of results) {
      const label = `threads ${token} at block ${position + 1}`;
      const channel = post.channels[0];
      const mine = posts.filter((p) => p.text.startsWith(`${marker} `));
      for (const [i, block] of channel.blocks.entries()) {
        if (block.remoteUrl === null) continue;
        const stored = mine.filter((p) => p.permalink === block.remoteUrl);
        expect(stored, `${label}, block ${i + 1}`).toHaveLength(1);
        const [threadsPost] = stored as [SimThreadsPost];
        expect(threadsPost.text, `${label}, block ${i + 1}`).toContain(`${marker} block${i}`);
        expect(
          threadsPost.media.map((m) => ({ type: m.type, alt: m.altText, bytes: m.bytes })),
          `${label}, block ${i + 1}`,
        ).toEqual([{ type: 'IMAGE', alt: `Picture of block ${i}`, bytes: 2_000 + i }]);
        // Each reply answers the block before it.
        if (i > 0) {
          const previous = mine.find((p) => p.permalink === channel.blocks[i - 1].remoteUrl);
          expect(threadsPost.replyToId, `${label}, block ${i + 1}`).toBe(previous?.id);
        }
      }
      // Nothing carrying the marker is on Threads beyond the live blocks.
      const live = channel.blocks.filter((b: { remoteUrl: string | null }) => b.remoteUrl !== null).length;
      expect(mine.length, label).toBe(live);
    }
  }, 240_000);

  it('a worker that dies between sending the last block and recording it: found by lookup, never sent twice', async () => {
    const post = await crashBetweenSendAndRecord(crashRt, 'threads', { blocks: 2, mediaBlocks: [0, 1] });
    const stored = (await simPosts(crashRt)).filter(
      (p) => p.permalink === post.channels[0].blocks[1].remoteUrl,
    );
    expect(stored.map((p) => p.media.length)).toEqual([1]);
  }, 60_000);
});
