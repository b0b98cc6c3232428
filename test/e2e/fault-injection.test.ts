import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import type { SimStoredRecord, StoredBlob } from '../../functions/platforms/bluesky/simulator.ts';
import type { SimLinkedInMedia } from '../../functions/platforms/linkedin/media-simulator.ts';
import type { SimPostContent } from '../../functions/platforms/linkedin/simulator.ts';
import type { SimMedia } from '../../functions/platforms/x/media-simulator.ts';
import { type NetworkClient, SIM_TOKENS } from '../../functions/ports/network-client.ts';
import { getDeps } from '../../functions/runtime/container.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { eventsOfPost } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
const LEASE_SECONDS = 7;

beforeAll(async () => {
  rt = await startTestRuntime({
    // The lease must outlast a network request (timeout), or a live request could look abandoned.
    // X's timeline lags 3 s behind a stored tweet (the simulator's default): its window must be longer.
    env: {
      // Generous for a loaded machine: a request that times out is an unknown outcome, looked up
      // before anything is sent again.
      NETWORK_TIMEOUT_MS: '3000',
      PUBLISH_RETRY_BASE_SECONDS: '0.2',
      PUBLISH_LEASE_SECONDS: String(LEASE_SECONDS),
      X_CONSISTENCY_WINDOW_SECONDS: '5',
    },
  });
});
afterAll(async () => {
  await rt?.destroy();
});

const posted = (platform: string, marker: string) =>
  (rt.simulators.byPlatform.get(platform as never)?.records() ?? []).filter(
    (r) => r.kind !== 'edit' && r.kind !== 'delete' && r.text?.includes(marker),
  );
const noDuplicates = (platform: string, marker: string) => {
  const texts = posted(platform, marker).map((r) => r.text);
  expect(new Set(texts).size).toBe(texts.length);
  return texts.length;
};

const NETWORKS = ['x', 'bluesky', 'linkedin'] as const;
/**
 * Networks whose threads carry an image in every block (uploaded to the network before each
 * block's post, so a fault after the upload must neither lose the media nor post twice). Bluesky
 * joins when its client uploads media. LinkedIn's comments carry text only: its threads carry an
 * image on the first block (the post).
 */
const MEDIA_NETWORKS: readonly string[] = ['x', 'bluesky'];
const mediaBlocksOf = (network: string): number[] =>
  MEDIA_NETWORKS.includes(network) ? [0, 1, 2] : network === 'linkedin' ? [0] : [];

const uploadImage = async (key: string, i: number) => {
  const form = new FormData();
  form.set('file', new Blob([mediaFiles.png(2_000 + i)], { type: 'image/png' }), `block${i}.png`);
  form.set('altText', `Picture of block ${i}`);
  const res = await fetch(`${rt.url}/v1/media`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
};
const xMedia = async (): Promise<SimMedia[]> =>
  ((await (await fetch(`${rt.simulators.baseUrls.x}/_sim/x/media`)).json()) as { data: SimMedia[] }).data;
// Every sim token the simulators know.
const TOKENS = SIM_TOKENS;

describe('sim tokens in every block position of a 3-block thread', () => {
  const cases = NETWORKS.flatMap((network) =>
    TOKENS.flatMap((token) => [0, 1, 2].map((position) => ({ network, token, position }))),
  );

  it(`never posts twice and ends in the right state (${cases.length} threads)`, async () => {
    const results = await Promise.all(
      cases.map(async ({ network, token, position }) => {
        // A workspace each: a reconnect marks its channel, which must not spill into other cases.
        const ws = await freshWorkspace([network]);
        const marker = `${network}-${token}-${position}-${Math.random().toString(36).slice(2, 8)}`;
        const withMedia = mediaBlocksOf(network);
        const blocks = await Promise.all(
          [0, 1, 2].map(async (i) => ({
            content: `${marker} block${i}${i === position ? ` ${token}` : ''}`,
            ...(withMedia.includes(i) ? { mediaIds: [await uploadImage(ws.key, i)] } : {}),
          })),
        );
        const created = await rt.api('/posts', {
          method: 'POST',
          key: ws.key,
          body: { intent: 'now', channels: [{ channelId: ws.channels[network], blocks }] },
        });
        expect(created.status).toBe(201);
        // Generous: 63 threads at once, the X and Bluesky ones each uploading three files, on a shared 2-core machine.
        let post = await waitForPost(rt, created.body.id, ws.key, 60_000).catch((e) => {
          throw new Error(`${network} ${token} at ${position}: ${e.message}`);
        });
        const firstRound = post;
        if (token === 'sim:fail-once') {
          await rt.api(`/posts/${post.id}/publish`, { method: 'POST', key: ws.key });
          post = await waitForPost(rt, post.id, ws.key, 60_000);
        }
        return {
          network,
          token,
          position,
          marker,
          ws,
          firstRound,
          post,
          events: await eventsOfPost(post.id),
        };
      }),
    );

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
    for (const { network, token, position, marker, ws, firstRound, post, events } of results) {
      const label = `${network} ${token} at block ${position + 1}`;
      const count = noDuplicates(network, marker);
      const channel = post.channels[0];
      const live = channel.blocks.filter((b: any) => b.remoteUrl !== null).length;
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
      switch (token) {
        case 'sim:fail':
        case 'sim:reconnect':
          expect(post.status, label).toBe(position === 0 ? 'failed' : 'partially_published');
          expect(channel.status, label).toBe('failed');
          expect(live, label).toBe(position);
          expect(count, label).toBe(position);
          expect(events.at(-1)?.type, label).toBe(position === 0 ? 'post.failed' : 'post.partially_failed');
          if (token === 'sim:reconnect') {
            expect(channel.error, label).toMatch(/reconnect/);
            const channels = await rt.api('/channels', { key: ws.key });
            expect(channels.body.data[0].status, label).toBe('needs_reconnect');
            expect(
              events.some((e) => e.type === 'channel.needs_reconnect'),
              label,
            ).toBe(true);
          }
          break;
        case 'sim:fail-once':
          expect(firstRound.status, label).toBe(position === 0 ? 'failed' : 'partially_published');
          expect(post.status, label).toBe('published');
          expect(count, label).toBe(3);
          break;
        case 'sim:flaky':
          // Looked up (nothing there after the consistency window), then sent again.
          expect(post.status, label).toBe('published');
          expect(count, label).toBe(3);
          break;
        case 'sim:timeout':
        case 'sim:reset':
        case 'sim:bad-gateway':
          // The network was asked whether it had the block: it had, so it is recorded, not resent
          // (a LinkedIn member post cannot be listed: the resend is refused as DUPLICATE_POST
          // naming the post, which is adopted).
          expect(post.status, label).toBe('published');
          expect(count, label).toBe(3);
          break;
      }
    }
  }, 240_000);
});

describe('at-least-once delivery', () => {
  it('publishes once when every message arrives three times, concurrently', async () => {
    const ws = await freshWorkspace(['x', 'bluesky', 'linkedin']);
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
    const deps = getDeps();
    await Promise.all([deps.queue().sendPublish(job), deps.queue().sendPublish(job)]);
    // Two more deliveries handled by other "instances" at the same time.
    await Promise.all([new PublishingEngine(deps).handle(job), new PublishingEngine(deps).handle(job)]);
    const post = await waitForPost(rt, created.body.id, ws.key);
    expect(post.status).toBe('published');
    for (const n of NETWORKS) expect(noDuplicates(n, marker)).toBe(3);
    expect((await eventsOfPost(post.id)).filter((e) => e.type === 'post.published')).toHaveLength(3);
  });

  it.each(['x', 'bluesky', 'linkedin'] as const)(
    'a worker that dies between the send and the record on %s never causes a second send',
    async (network) => {
      const ws = await freshWorkspace([network]);
      const marker = `crash-${network}-${Date.now()}`;
      const created = await rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: {
          intent: 'draft',
          channels: [
            {
              channelId: ws.channels[network],
              blocks: [{ content: `${marker} 1` }, { content: `${marker} 2` }],
            },
          ],
        },
      });
      const postId = created.body.id;
      // The first worker sends block 2 and dies before recording it (its promise never settles).
      const deps = getDeps();
      let sentSecond = false;
      const dying = new PublishingEngine({
        ...deps,
        networks: (platform, mode) => {
          const real = deps.networks(platform, mode);
          const wrapped: NetworkClient = Object.create(real);
          wrapped.publish = async (input) => {
            const remote = await real.publish(input);
            if (input.content.endsWith(' 2')) {
              sentSecond = true;
              return new Promise(() => undefined);
            }
            return remote;
          };
          return wrapped;
        },
      });
      // Start the round without a queue message: only the dying worker runs it.
      await mutatePost(deps, postId, (post) => ({ next: startRound(post, new Date()) }));
      void dying.handle({ postId, kind: 'run', round: 1 });
      const deadline = Date.now() + 10_000;
      while (!sentSecond && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      // After the lease, a healthy worker takes over.
      await new Promise((r) => setTimeout(r, LEASE_SECONDS * 1000 + 500));
      await new PublishingEngine(deps).handle({ postId, kind: 'run', round: 1 });
      const post = await waitForPost(rt, postId, ws.key);
      expect(sentSecond).toBe(true);
      expect(noDuplicates(network, marker)).toBe(2);
      // The healthy worker asked the network (LinkedIn: the post's comments), found the block and recorded it.
      expect(post.status).toBe('published');
      expect(post.channels[0].blocks[1].remoteUrl).not.toBeNull();
    },
    30_000,
  );
});
