import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimAttachment } from '../../simulators/instagram/simulator.ts';
import {
  CRASH_ENV,
  crashBetweenSendAndRecord,
  FAULT_ENV,
  type FaultCase,
  runFaultMatrix,
} from '../support/fault-matrix.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The fault matrix on Instagram: every sim token in every block of a post with an image and two
 * comments, through the local runtime. Besides the shared checks (nothing posted twice, the right
 * end state), the image must arrive once, on one post, with its alt text, and no container may be
 * published twice.
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
  caption: string;
  attachments: SimAttachment[];
  comments: { text: string; deleted: boolean }[];
}
const simUrl = (on: TestRuntime = rt) => on.simulators.baseUrls.instagram as string;
const simPosts = async (on: TestRuntime = rt): Promise<SimPost[]> =>
  ((await (await fetch(`${simUrl(on)}/_sim/instagram/posts`)).json()) as { data: SimPost[] }).data;
const simContainers = async (): Promise<
  { id: string; publishedAs: string | null; carouselItem: boolean }[]
> => ((await (await fetch(`${simUrl()}/_sim/instagram/containers`)).json()) as { data: never[] }).data;

const expectImageOnce = (posts: SimPost[], c: FaultCase) => {
  const label = `instagram ${c.token} at block ${c.position + 1}`;
  const carrying = posts.filter((p) => p.caption.includes(c.marker));
  if (c.count === 0) {
    expect(carrying, label).toEqual([]);
    return;
  }
  expect(carrying, label).toHaveLength(1);
  expect(
    carrying[0]?.attachments.map((a) => [a.kind, a.size, a.altText]),
    label,
  ).toEqual([['image', 2_000, 'Picture of block 0']]);
  expect(
    carrying[0]?.comments.map((comment) => comment.text),
    label,
  ).toEqual(
    Array.from({ length: c.count - 1 }, (_, i) => expect.stringContaining(`${c.marker} block${i + 1}`)),
  );
};

describe('Instagram fault matrix', () => {
  it('every sim token in every block: no duplicate, the right end state, the image attached once', async () => {
    const cases = await runFaultMatrix(rt, 'instagram', {
      blocks: 3,
      mediaBlocks: [0],
      imageType: 'image/jpeg',
      settleMs: 120_000,
    });
    expect(cases).toHaveLength(21);
    const posts = await simPosts();
    for (const c of cases) expectImageOnce(posts, c);
    // A container is published at most once, and only as the post it made.
    const published = (await simContainers()).filter((c) => c.publishedAs !== null && !c.carouselItem);
    expect(new Set(published.map((c) => c.publishedAs)).size).toBe(published.length);
  }, 300_000);

  it('a worker dying between sending the last comment and recording it: the comment is found, not sent again', async () => {
    const post = await crashBetweenSendAndRecord(crashRt, 'instagram', {
      blocks: 2,
      mediaBlocks: [0],
      imageType: 'image/jpeg',
    });
    const [first] = post.channels[0].blocks;
    const stored = (await simPosts(crashRt)).find(
      (p) => first.remoteUrl && p.caption === post.channels[0].blocks[0].content,
    );
    expect(stored?.comments).toHaveLength(1);
  }, 120_000);
});
