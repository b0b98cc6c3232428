import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRedditAsset, SimRedditPost } from '../../simulators/reddit/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Reddit through the HTTP API of the local runtime: posts created, revised and retracted over
 * HTTP, and what arrived at the Reddit simulator read from its inspection routes.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
const FLAIR = 'a6b2c1de-0000-4000-8000-00000000f1a1';

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
  ws = await freshWorkspace(rt, ['reddit']);
});
afterAll(async () => {
  await rt?.destroy();
});

const simUrl = () => rt.simulators.baseUrls.reddit as string;
const simPosts = async (): Promise<SimRedditPost[]> =>
  ((await (await fetch(`${simUrl()}/_sim/reddit/posts`)).json()) as { data: SimRedditPost[] }).data;
const simMedia = async (): Promise<SimRedditAsset[]> =>
  ((await (await fetch(`${simUrl()}/_sim/reddit/media`)).json()) as { data: SimRedditAsset[] }).data;
const simPostAt = async (remoteUrl: string) => {
  const id = /\/comments\/([0-9a-z]+)\//.exec(remoteUrl)?.[1];
  return (await simPosts()).find((post) => post.id === id);
};

const upload = (bytes: Buffer, name: string, type: string) => uploadMedia(rt, ws.key, bytes, name, type);

const create = (channel: Record<string, unknown>) =>
  rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [
        {
          channelId: ws.channels.reddit,
          title: 'Herald on Reddit',
          options: { subreddit: 'heraldtest' },
          ...channel,
        },
      ],
    },
  });

const publish = async (channel: Record<string, unknown>) => {
  const created = await create(channel);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as string, post: await waitForPost(rt, created.body.id, ws.key, 60_000) };
};

describe('Reddit through the local runtime', () => {
  it('publishes a text post with flair and its extra blocks as comments, revises the texts and retracts', async () => {
    const { id, post } = await publish({
      title: 'A thread from Herald',
      options: { subreddit: 'heraldtest', flairId: FLAIR, nsfw: 'false', spoiler: 'true' },
      blocks: [{ content: 'The post body' }, { content: 'First comment' }, { content: 'Second comment' }],
    });
    expect(post.status, JSON.stringify(post)).toBe('published');
    const channel = post.channels[0];
    expect(channel.remoteUrl).toMatch(
      /^https:\/\/www\.reddit\.com\/r\/heraldtest\/comments\/[0-9a-z]+\/a_thread_from_herald\/$/,
    );
    const stored = await simPostAt(channel.remoteUrl);
    expect(stored).toMatchObject({
      kind: 'self',
      title: 'A thread from Herald',
      selftext: 'The post body',
      subreddit: 'heraldtest',
      flairId: FLAIR,
      nsfw: false,
      spoiler: true,
    });
    expect(stored?.comments.map((c) => c.body)).toEqual(['First comment', 'Second comment']);
    expect(channel.blocks.map((b: { remoteUrl: string }) => b.remoteUrl)).toEqual([
      channel.remoteUrl,
      `${channel.remoteUrl}${stored?.comments[0]?.id}/`,
      `${channel.remoteUrl}${stored?.comments[1]?.id}/`,
    ]);

    const revised = await rt.api(`/posts/${id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: {
        channels: [
          {
            channelId: ws.channels.reddit,
            blocks: [
              { content: 'The edited body' },
              { content: 'First comment' },
              { content: 'Edited comment' },
            ],
          },
        ],
      },
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(200);
    expect(revised.body.revised).toEqual([
      { channelId: ws.channels.reddit, platform: 'reddit', reason: null, blocks: [0, 2] },
    ]);
    const edited = await simPostAt(channel.remoteUrl);
    expect(edited?.selftext).toBe('The edited body');
    expect(edited?.comments.map((c) => c.body)).toEqual(['First comment', 'Edited comment']);

    const retract = await rt.api(`/posts/${id}/retract`, { method: 'POST', key: ws.key });
    expect(retract.status, JSON.stringify(retract.body)).toBe(200);
    expect(retract.body.removed).toEqual([
      { channelId: ws.channels.reddit, platform: 'reddit', reason: null },
    ]);
    const gone = await simPostAt(channel.remoteUrl);
    expect(gone?.deleted).toBe(true);
    expect(gone?.comments.every((c) => c.deleted)).toBe(true);
  }, 90_000);

  it('publishes an image post through the media upload; its text cannot be revised', async () => {
    const png = mediaFiles.png(40_000);
    const media = await upload(png, 'photo.png', 'image/png');
    const { id, post } = await publish({
      blocks: [{ content: 'A picture', mediaIds: [media.id] }, { content: 'About the picture' }],
    });
    expect(post.status, JSON.stringify(post)).toBe('published');
    const stored = await simPostAt(post.channels[0].remoteUrl);
    const assets = (await simMedia()).filter((asset) => stored?.assetIds.includes(asset.assetId));
    expect(assets).toHaveLength(1);
    expect(assets[0]).toMatchObject({ mimetype: 'image/png', uploadedBytes: png.length });
    expect(stored).toMatchObject({ kind: 'image', url: assets[0]?.location, selftext: 'A picture' });
    expect(stored?.comments.map((c) => c.body)).toEqual(['About the picture']);

    const revised = await rt.api(`/posts/${id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: {
        channels: [
          {
            channelId: ws.channels.reddit,
            blocks: [{ content: 'Another caption' }, { content: 'About the picture' }],
          },
        ],
      },
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(200);
    expect(revised.body.revised).toEqual([]);
    expect(revised.body.unchanged).toEqual([
      {
        channelId: ws.channels.reddit,
        platform: 'reddit',
        reason: expect.stringMatching(/only a text post's or a comment's text/),
      },
    ]);
    expect((await simPostAt(post.channels[0].remoteUrl))?.selftext).toBe('A picture');
  }, 90_000);

  it('publishes several images as a gallery with their alt text as captions', async () => {
    const one = await upload(mediaFiles.png(3_100), 'one.png', 'image/png');
    const two = await upload(mediaFiles.jpeg(3_200), 'two.jpg', 'image/jpeg');
    const { post } = await publish({
      blocks: [
        {
          content: 'Two pictures',
          mediaIds: [one.id, two.id],
          mediaAltText: { [one.id]: 'A red square', [two.id]: 'A blue square' },
        },
      ],
    });
    expect(post.status, JSON.stringify(post)).toBe('published');
    expect(post.channels[0].remoteUrl).toMatch(/^https:\/\/www\.reddit\.com\/gallery\/[0-9a-z]+$/);
    const id = /\/gallery\/([0-9a-z]+)$/.exec(post.channels[0].remoteUrl)?.[1];
    const stored = (await simPosts()).find((p) => p.id === id);
    const assets = await simMedia();
    expect(stored).toMatchObject({ kind: 'gallery', selftext: 'Two pictures' });
    expect(stored?.assetIds.map((a) => assets.find((x) => x.assetId === a)?.uploadedBytes)).toEqual([
      3_100, 3_200,
    ]);
    expect(stored?.assetIds.map((a) => stored.captions[a])).toEqual(['A red square', 'A blue square']);
  }, 90_000);

  it("fails the channel with Reddit's own refusal", async () => {
    const { post } = await publish({
      options: { subreddit: 'doesnotexist_here' },
      blocks: [{ content: 'Nowhere to go' }],
    });
    expect(post.status).toBe('failed');
    expect(post.channels[0].error).toMatch(/SUBREDDIT_NOEXIST/);
  }, 90_000);

  it('refuses before saving what Reddit cannot take: no title, no subreddit, files on a comment, two files', async () => {
    const png = await upload(mediaFiles.png(3_000), 'p.png', 'image/png');
    const before = await simPosts();
    const noTitle = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'now',
        channels: [
          { channelId: ws.channels.reddit, options: { subreddit: 'x_y' }, blocks: [{ content: 'x' }] },
        ],
      },
    });
    expect(noTitle.status).toBe(422);
    const noSubreddit = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'now',
        channels: [{ channelId: ws.channels.reddit, title: 't', blocks: [{ content: 'x' }] }],
      },
    });
    expect(noSubreddit.status).toBe(422);
    const onComment = await create({ blocks: [{ content: 'a' }, { content: 'b', mediaIds: [png.id] }] });
    expect(onComment.status).toBe(422);
    const video = await upload(mediaFiles.mp4(3_001), 'q.mp4', 'video/mp4');
    const withVideo = await create({ blocks: [{ content: 'a', mediaIds: [png.id, video.id] }] });
    expect(withVideo.status).toBe(422);
    expect(await simPosts()).toEqual(before);
  });

  it('GET /platforms says what the Reddit client does', async () => {
    const platforms = await rt.api('/platforms', { key: ws.key });
    const reddit = platforms.body.data.find((p: { id: string }) => p.id === 'reddit');
    expect(reddit.limits).toMatchObject({
      maxLength: 10000,
      continuation: 'comment',
      continuationTextOnly: true,
      title: { required: true, maxLength: 300 },
      remoteEdit: ['text'],
      supportsRemoteDelete: true,
      maxMedia: 20,
      soleMediaTypes: ['video/mp4', 'video/quicktime'],
      acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'video/quicktime'],
    });
    expect(reddit.limits.options.map((o: { key: string }) => o.key)).toEqual([
      'subreddit',
      'flairId',
      'flairText',
      'nsfw',
      'spoiler',
      'link',
    ]);
    expect(reddit.supportsMetrics).toBe(true);
  });
});
