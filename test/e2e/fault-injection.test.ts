import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishingEngine } from '../../functions/core/publishing/engine.ts';
import { SIM_TOKENS } from '../../functions/ports/network-client.ts';
import type { SimStoredRecord, StoredBlob } from '../../simulators/bluesky/simulator.ts';
import type { SimLinkedInMedia } from '../../simulators/linkedin/media.ts';
import type { SimPostContent } from '../../simulators/linkedin/simulator.ts';
import type { SimMedia } from '../../simulators/x/media.ts';
import { freshWorkspace } from '../support/accounts.ts';
import {
  CRASH_ENV,
  crashBetweenSendAndRecord,
  FAULT_ENV,
  noDuplicates,
  runFaultMatrix,
} from '../support/fault-matrix.ts';
import { eventsOfPost } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
/** The crash scenarios' runtime: a short lease to wait out. */
let crashRt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({
    // X's timeline lags 3 s behind a stored tweet (the simulator's default): its window must be longer.
    env: { ...FAULT_ENV, X_CONSISTENCY_WINDOW_SECONDS: '5' },
  });
  crashRt = await sharedTestRuntime({ env: CRASH_ENV });
});
afterAll(async () => {
  await rt?.destroy();
});

const NETWORKS = ['x', 'bluesky', 'linkedin'] as const;
/**
 * Networks whose threads carry an image in every block (uploaded to the network before each
 * block's post, so a fault after the upload must neither lose the media nor post twice).
 * LinkedIn's comments carry text only: its threads carry an image on the first block (the post).
 */
const MEDIA_NETWORKS: readonly string[] = ['x', 'bluesky'];
const mediaBlocksOf = (network: string): number[] =>
  MEDIA_NETWORKS.includes(network) ? [0, 1, 2] : network === 'linkedin' ? [0] : [];

const xMedia = async (): Promise<SimMedia[]> =>
  ((await (await fetch(`${rt.simulators.baseUrls.x}/_sim/x/media`)).json()) as { data: SimMedia[] }).data;

describe('sim tokens in every block position of a 3-block thread', () => {
  it(`never posts twice and ends in the right state (${NETWORKS.length * SIM_TOKENS.length * 3} threads)`, async () => {
    const results = (
      await Promise.all(
        NETWORKS.map((network) => runFaultMatrix(rt, network, { mediaBlocks: mediaBlocksOf(network) })),
      )
    ).flat();

    const uploads = await xMedia();
    const bskyBase = rt.simulators.baseUrls.bluesky as string;
    const bskyRecords = (
      (await (await fetch(`${bskyBase}/_sim/bluesky/records`)).json()) as { data: SimStoredRecord[] }
    ).data;
    const bskyBlobs = (
      (await (await fetch(`${bskyBase}/_sim/bluesky/blobs`)).json()) as { data: StoredBlob[] }
    ).data;
    const liBase = rt.simulators.baseUrls.linkedin as string;
    const liMedia = (
      (await (await fetch(`${liBase}/_sim/linkedin/media`)).json()) as { data: SimLinkedInMedia[] }
    ).data;
    const liPosts = (
      (await (await fetch(`${liBase}/_sim/linkedin/posts`)).json()) as {
        data: { urn: string; content: SimPostContent | null }[];
      }
    ).data;
    for (const { network, token, position, marker, post } of results) {
      const label = `${network} ${token} at block ${position + 1}`;
      const channel = post.channels[0];
      if (network === 'bluesky') {
        // Every live block's record embeds its one picture: the uploaded blob, with its alt text.
        for (const [i, block] of channel.blocks.entries()) {
          if (block.remoteUrl === null) continue;
          const [, repo, rkey] = /\/profile\/([^/]+)\/post\/([^/]+)$/.exec(block.remoteUrl) ?? [];
          const record = bskyRecords.find((r) => r.uri === `at://${repo}/app.bsky.feed.post/${rkey}`);
          expect(String(record?.value.text), `${label}, block ${i + 1}`).toContain(`${marker} block${i}`);
          const embed = record?.value.embed as
            | { $type: string; images: { alt: string; image: { ref: { $link: string }; size: number } }[] }
            | undefined;
          expect(embed?.$type, `${label}, block ${i + 1}`).toBe('app.bsky.embed.images');
          expect(
            (embed?.images ?? []).map((img) => ({
              alt: img.alt,
              size: img.image.size,
              // Identical bytes uploaded by other accounts share the CID: the sizes, once each.
              uploaded: [
                ...new Set(bskyBlobs.filter((b) => b.cid === img.image.ref.$link).map((b) => b.size)),
              ],
            })),
            `${label}, block ${i + 1}`,
          ).toEqual([{ alt: `Picture of block ${i}`, size: 2_000 + i, uploaded: [2_000 + i] }]);
        }
      }
      if (network === 'x') {
        // Every live block carries its one picture, complete and with its alt text; no upload is on two tweets.
        for (const [i, block] of channel.blocks.entries()) {
          if (block.remoteUrl === null) continue;
          const tweet = /\/status\/(\d+)$/.exec(block.remoteUrl)?.[1] as string;
          const attached = uploads.filter((m) => m.tweetIds.includes(tweet));
          expect(
            attached.map((m) => ({ bytes: m.receivedBytes, alt: m.altText, tweets: m.tweetIds.length })),
            `${label}, block ${i + 1}`,
          ).toEqual([{ bytes: 2_000 + i, alt: `Picture of block ${i}`, tweets: 1 }]);
        }
      }
      if (network === 'linkedin' && channel.blocks[0].remoteUrl !== null) {
        // The post carries its one picture, AVAILABLE and with its alt text.
        const urn = /\/feed\/update\/([^/]+)\/$/.exec(channel.blocks[0].remoteUrl)?.[1];
        const content = liPosts.find((p) => p.urn === urn)?.content;
        const media = content && 'media' in content ? content.media : null;
        const file = liMedia.find((m) => m.urn === media?.id);
        expect({ alt: media?.altText, bytes: file?.size, status: file?.status }, label).toEqual({
          alt: 'Picture of block 0',
          bytes: 2_000,
          status: 'AVAILABLE',
        });
      }
    }
  }, 240_000);
});

describe('at-least-once delivery', () => {
  it('publishes once when every message arrives three times, concurrently', async () => {
    const ws = await freshWorkspace(rt, ['x', 'bluesky', 'linkedin'], 'live', { keepEvents: true });
    const marker = `dup-${Date.now()}`;
    const created = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: NETWORKS.map((n) => ({
          channelId: ws.channels[n],
          blocks: [
            { content: `${marker} ${n} 1` },
            { content: `${marker} ${n} 2` },
            { content: `${marker} ${n} 3` },
          ],
        })),
      },
    });
    const started = await rt.api(`/posts/${created.body.id}/publish`, { method: 'POST', key: ws.key });
    const job = { postId: created.body.id, kind: 'run' as const, round: started.body.round ?? 1 };
    const deps = rt.container.deps;
    await Promise.all([deps.queue().sendPublish(job), deps.queue().sendPublish(job)]);
    // Two more deliveries handled by other "instances" at the same time.
    await Promise.all([new PublishingEngine(deps).handle(job), new PublishingEngine(deps).handle(job)]);
    const post = await waitForPost(rt, created.body.id, ws.key);
    expect(post.status).toBe('published');
    for (const n of NETWORKS) expect(noDuplicates(rt, n, marker)).toBe(3);
    expect((await eventsOfPost(rt, post.id)).filter((e) => e.type === 'post.published')).toHaveLength(3);
  });

  it.each(NETWORKS)(
    'a worker that dies between the send and the record on %s never causes a second send',
    async (network) => {
      // The healthy worker asks the network (LinkedIn: the post's comments), finds the block and records it.
      await crashBetweenSendAndRecord(crashRt, network);
    },
    45_000,
  );
});
