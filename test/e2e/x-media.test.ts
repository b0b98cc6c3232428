import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SimMedia } from '../../simulators/x/media.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Media to X through the HTTP API of the local runtime: files uploaded to Herald, a post created
 * with them, and what arrived at the X simulator read from its inspection routes over HTTP.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await startTestRuntime({
    env: { PUBLISH_RETRY_BASE_SECONDS: '0.2', X_CONSISTENCY_WINDOW_SECONDS: '5' },
  });
  ws = await freshWorkspace(rt, ['x']);
});
afterAll(async () => {
  await rt?.destroy();
});
beforeEach(async () => {
  await fetch(`${simUrl()}/_sim/x/switches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ failAppendAt: null, processingFails: false }),
  });
});

const simUrl = () => rt.simulators.baseUrls.x as string;
const simMedia = async (): Promise<SimMedia[]> =>
  ((await (await fetch(`${simUrl()}/_sim/x/media`)).json()) as { data: SimMedia[] }).data;
const switches = async (body: Record<string, unknown>) => {
  const res = await fetch(`${simUrl()}/_sim/x/switches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(204);
};
const tweetIdOf = (remoteUrl: string) => /\/status\/(\d+)$/.exec(remoteUrl)?.[1] as string;

const upload = (bytes: Buffer, name: string, type: string, altText?: string) =>
  uploadMedia(rt, ws.key, bytes, name, type, altText);

const publishNow = async (
  blocks: { content: string; mediaIds: string[]; mediaAltText?: Record<string, string> }[],
) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: { intent: 'now', channels: [{ channelId: ws.channels.x, blocks }] },
  });
  expect(created.status).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

describe('media to X through the API', () => {
  it('publishes a thread with images, each alt text arriving through X media metadata', async () => {
    const marker = `images-${Date.now()}`;
    const a = await upload(mediaFiles.png(40_000), 'a.png', 'image/png', 'Alt from the file');
    const b = await upload(mediaFiles.jpeg(30_000), 'b.jpg', 'image/jpeg');
    const c = await upload(mediaFiles.webp(20_000), 'c.webp', 'image/webp', 'Overridden by the block');
    const post = await publishNow([
      { content: `${marker} 1/2`, mediaIds: [a.id, b.id], mediaAltText: { [b.id]: 'Alt from the block' } },
      { content: `${marker} 2/2`, mediaIds: [c.id], mediaAltText: { [c.id]: 'Block alt wins' } },
    ]);
    expect(post.status).toBe('published');
    const [first, second] = post.channels[0].blocks.map((block: { remoteUrl: string }) =>
      tweetIdOf(block.remoteUrl),
    );
    const arrived = (await simMedia()).filter(
      (m) => m.tweetIds.includes(first) || m.tweetIds.includes(second),
    );
    expect(
      arrived.map(({ category, totalBytes, receivedBytes, state, altText, tweetIds }) => ({
        category,
        totalBytes,
        receivedBytes,
        state,
        altText,
        tweetIds,
      })),
    ).toEqual([
      {
        category: 'tweet_image',
        totalBytes: a.size,
        receivedBytes: a.size,
        state: 'succeeded',
        altText: 'Alt from the file',
        tweetIds: [first],
      },
      {
        category: 'tweet_image',
        totalBytes: b.size,
        receivedBytes: b.size,
        state: 'succeeded',
        altText: 'Alt from the block',
        tweetIds: [first],
      },
      {
        category: 'tweet_image',
        totalBytes: c.size,
        receivedBytes: c.size,
        state: 'succeeded',
        altText: 'Block alt wins',
        tweetIds: [second],
      },
    ]);
    // The second tweet replies to the first.
    const records = rt.simulators.byPlatform.get('x')?.records() ?? [];
    expect(records.find((r) => r.id === second)?.parentId).toBe(first);
  });

  it('publishes a video: uploaded in segments, processed, then tweeted', async () => {
    const video = await upload(mediaFiles.mp4(3_000_000), 'clip.mp4', 'video/mp4', 'A short clip');
    const post = await publishNow([{ content: `video-${Date.now()}`, mediaIds: [video.id] }]);
    expect(post.status).toBe('published');
    const tweet = tweetIdOf(post.channels[0].blocks[0].remoteUrl);
    const [arrived] = (await simMedia()).filter((m) => m.tweetIds.includes(tweet));
    expect(arrived).toMatchObject({
      category: 'tweet_video',
      mediaType: 'video/mp4',
      totalBytes: video.size,
      receivedBytes: video.size,
      // 2 MiB segments.
      segments: 2,
      state: 'succeeded',
      altText: 'A short clip',
    });
  });

  it('an upload failing half-way is started again from the first byte; the post has its media, once', async () => {
    const marker = `halfway-${Date.now()}`;
    const video = await upload(mediaFiles.mp4(2_500_000), 'half.mp4', 'video/mp4');
    await switches({ failAppendAt: 1 });
    const post = await publishNow([{ content: marker, mediaIds: [video.id] }]);
    expect(post.status).toBe('published');
    const tweet = tweetIdOf(post.channels[0].blocks[0].remoteUrl);
    const mine = (await simMedia()).filter((m) => m.totalBytes === video.size);
    const attached = mine.filter((m) => m.tweetIds.length > 0);
    expect(attached).toEqual([expect.objectContaining({ receivedBytes: video.size, tweetIds: [tweet] })]);
    expect(mine.some((m) => !m.finalized && m.segments === 1)).toBe(true);
    const tweets = (rt.simulators.byPlatform.get('x')?.records() ?? []).filter((r) => r.text === marker);
    expect(tweets).toHaveLength(1);
  });

  it('a video X cannot process fails the channel with X’s reason and sends no tweet', async () => {
    const marker = `unprocessable-${Date.now()}`;
    const video = await upload(mediaFiles.mp4(10_000), 'bad.mp4', 'video/mp4');
    await switches({ processingFails: true });
    const post = await publishNow([{ content: marker, mediaIds: [video.id] }]);
    expect(post.status).toBe('failed');
    expect(post.channels[0].error).toMatch(/Unsupported video format/);
    expect((rt.simulators.byPlatform.get('x')?.records() ?? []).filter((r) => r.text === marker)).toEqual([]);
  });
});
