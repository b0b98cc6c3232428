import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlueskySimulator } from '../../simulators/bluesky/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Bluesky through HTTP on the local runtime: a thread with images (uploaded to the PDS simulator as
 * blobs, alt text and aspect ratio arriving in the records), rich text, the 2,000,000-byte image
 * limit and the 3000-byte text cap refused before saving, and a 500 after the PDS stored a block
 * published once.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await sharedTestRuntime();
  ws = await freshWorkspace(rt, ['bluesky']);
});
afterAll(async () => {
  await rt?.destroy();
});

const sim = () => rt.simulators.byPlatform.get('bluesky') as BlueskySimulator;

const upload = (bytes: Buffer, name: string, type: string) => uploadMedia(rt, ws.key, bytes, name, type);

/** A PNG whose header says width × height. */
const pngOf = (width: number, height: number, size?: number) => {
  const png = Buffer.from(mediaFiles.png(size));
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return png;
};

/** `https://bsky.app/profile/<did>/post/<rkey>` → `at://<did>/app.bsky.feed.post/<rkey>`. */
const uriOf = (remoteUrl: string) => {
  const match = /^https:\/\/bsky\.app\/profile\/([^/]+)\/post\/([^/]+)$/.exec(remoteUrl);
  expect(match).not.toBeNull();
  return `at://${match?.[1]}/app.bsky.feed.post/${match?.[2]}`;
};

const recordOf = async (uri: string) => {
  const [, , repo, collection, rkey] = uri.split('/');
  const res = await fetch(
    `${sim().url}/xrpc/com.atproto.repo.getRecord?${new URLSearchParams({ repo: repo as string, collection: collection as string, rkey: rkey as string })}`,
  );
  return ((await res.json()) as { value: Record<string, any> }).value;
};

describe('Bluesky through HTTP', () => {
  it('publishes a thread with images: blobs uploaded, alt text and aspect ratio in each record, rich text', async () => {
    const wide = await upload(pngOf(1200, 600), 'wide.png', 'image/png');
    const tall = await upload(pngOf(300, 900), 'tall.png', 'image/png');
    const marker = `bsky-media-${Date.now()}`;
    const created = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'now',
        channels: [
          {
            channelId: ws.channels.bluesky,
            blocks: [
              {
                content: `${marker} one #herald with @bob.bsky.social`,
                mediaIds: [wide.id, tall.id],
                mediaAltText: { [wide.id]: 'A wide chart' },
              },
              {
                content: `${marker} two see example.com`,
                mediaIds: [tall.id],
                mediaAltText: { [tall.id]: 'Tall' },
              },
            ],
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const post = await waitForPost(rt, created.body.id, ws.key, 40_000);
    expect(post.status).toBe('published');
    const uris: string[] = post.channels[0].blocks.map((b: { remoteUrl: string }) => uriOf(b.remoteUrl));
    expect(uris).toHaveLength(2);

    const first = await recordOf(uris[0] as string);
    const second = await recordOf(uris[1] as string);
    expect(first.embed.images.map((i: any) => [i.alt, i.aspectRatio, i.image.mimeType])).toEqual([
      ['A wide chart', { width: 1200, height: 600 }, 'image/png'],
      ['', { width: 300, height: 900 }, 'image/png'],
    ]);
    expect(second.embed.images.map((i: any) => [i.alt, i.aspectRatio])).toEqual([
      ['Tall', { width: 300, height: 900 }],
    ]);
    expect(second.reply.root.uri).toBe(uris[0]);
    expect(second.reply.parent.uri).toBe(uris[0]);
    expect(first.facets.map((f: any) => f.features[0].$type)).toEqual([
      'app.bsky.richtext.facet#tag',
      'app.bsky.richtext.facet#mention',
    ]);
    expect(second.facets[0].features[0]).toEqual({
      $type: 'app.bsky.richtext.facet#link',
      uri: 'https://example.com',
    });
    // Every blob the records reference was uploaded to the PDS.
    const cids = new Set(
      sim()
        .blobs()
        .map((b) => b.cid),
    );
    for (const image of [...first.embed.images, ...second.embed.images])
      expect(cids.has(image.image.ref.$link)).toBe(true);
  }, 60_000);

  it('publishes an MP4 through the video service with its alt text; a video beside an image is refused before saving', async () => {
    const video = await upload(mediaFiles.mp4(8192), 'clip.mp4', 'video/mp4');
    const image = await upload(pngOf(10, 10), 'i.png', 'image/png');
    const mixed = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: [
          { channelId: ws.channels.bluesky, blocks: [{ content: 'mixed', mediaIds: [video.id, image.id] }] },
        ],
      },
    });
    expect({ status: mixed.status, code: mixed.body.error?.code }).toEqual({
      status: 422,
      code: 'too_many_media',
    });

    const created = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'now',
        channels: [
          {
            channelId: ws.channels.bluesky,
            blocks: [
              {
                content: `video-${Date.now()}`,
                mediaIds: [video.id],
                mediaAltText: { [video.id]: 'A clip' },
              },
            ],
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const post = await waitForPost(rt, created.body.id, ws.key, 40_000);
    expect(post.status).toBe('published');
    const record = await recordOf(uriOf(post.channels[0].blocks[0].remoteUrl));
    expect(record.embed).toMatchObject({
      $type: 'app.bsky.embed.video',
      video: { $type: 'blob', mimeType: 'video/mp4', size: 8192 },
      alt: 'A clip',
    });
  }, 60_000);

  it('GET /platforms says what Bluesky takes; an image over 2,000,000 bytes and text over 3000 bytes are refused before saving', async () => {
    const platforms = await rt.api('/platforms', { key: ws.key });
    const bluesky = platforms.body.data.find((p: { id: string }) => p.id === 'bluesky');
    expect(bluesky.limits).toMatchObject({
      maxLength: 300,
      maxBytes: 3000,
      acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'video/mp4'],
      maxMediaBytes: { 'image/jpeg': 2_000_000, 'image/png': 2_000_000 },
    });

    const big = await upload(pngOf(10, 10, 2_000_001), 'big.png', 'image/png');
    const refused = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: 'big', mediaIds: [big.id] }] }],
      },
    });
    expect({
      status: refused.status,
      code: refused.body.error?.code,
      field: refused.body.error?.field,
    }).toEqual({
      status: 422,
      code: 'media_too_large',
      field: 'channels[0].blocks[0].mediaIds[0]',
    });

    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'; // 25 bytes, one grapheme
    const long = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: family.repeat(121) }] }],
      },
    });
    expect({ status: long.status, code: long.body.error?.code }).toEqual({
      status: 422,
      code: 'content_too_long',
    });
    expect(long.body.error.message).toContain('3000 bytes');
  });

  it('a 500 after the PDS stored the block: read by its key, published once', async () => {
    const marker = `bsky-500-${Date.now()}`;
    sim().failAfterStore(1);
    const created = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'now',
        channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `${marker} once` }] }],
      },
    });
    const post = await waitForPost(rt, created.body.id, ws.key, 40_000);
    expect(post.status).toBe('published');
    const stored = sim()
      .records()
      .filter((r) => r.text?.includes(marker));
    expect(stored).toHaveLength(1);
    expect(uriOf(post.channels[0].blocks[0].remoteUrl)).toBe(stored[0]?.id);
  }, 60_000);
});
