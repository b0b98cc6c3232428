import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FacebookClient } from '../../functions/platforms/facebook/client.ts';
import type { SimFacebookMedia } from '../../simulators/facebook/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { useNetworks } from '../support/interleave.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Facebook Pages through the HTTP API of the local runtime: posts created over HTTP, published by
 * the Graph API client to the Facebook simulator, and what arrived read over HTTP from the
 * simulator's inspection routes (the page id is the channel's remote account).
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await startTestRuntime({
    // Metrics on a fast cadence (an hour is 0.1 s), read by the Facebook client from the simulator.
    env: {
      PUBLISH_RETRY_BASE_SECONDS: '0.2',
      METRICS_TIME_SCALE: '36000',
      METRICS_SWEEP_INTERVAL_SECONDS: '0.5',
    },
  });
  ws = await freshWorkspace(rt, ['facebook']);
});
afterAll(async () => {
  await rt?.destroy();
});

interface SimPost {
  id: string;
  pageId: string;
  message: string;
  link: string | null;
  state: string;
  deleted: boolean;
  attachments: SimFacebookMedia[];
  comments: { id: string; message: string; deleted: boolean }[];
}

const simUrl = () => rt.simulators.baseUrls.facebook as string;
const simPosts = async (): Promise<SimPost[]> =>
  ((await (await fetch(`${simUrl()}/_sim/facebook/posts`)).json()) as { data: SimPost[] }).data;
const simPost = async (id: string) => (await simPosts()).find((post) => post.id === id);
const postIdOf = (remoteUrl: string) => /facebook\.com\/([^/?]+)/.exec(remoteUrl)?.[1] as string;

const upload = (bytes: Buffer, name: string, type: string, altText?: string) =>
  uploadMedia(rt, ws.key, bytes, name, type, altText);

const publishNow = async (
  blocks: { content: string; mediaIds?: string[]; mediaAltText?: Record<string, string> }[],
  options?: Record<string, string>,
) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [{ channelId: ws.channels.facebook, blocks, ...(options ? { options } : {}) }],
    },
  });
  expect(created.status).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

describe('Facebook Pages through the API', { timeout: 90_000 }, () => {
  it('publishes a text post with a link, and the extra blocks as comments on it', async () => {
    const marker = `fb-text-${Date.now()}`;
    const post = await publishNow(
      [
        { content: `${marker} post` },
        { content: `${marker} first comment` },
        { content: `${marker} second` },
      ],
      { link: 'https://example.com/read' },
    );
    expect(post.status).toBe('published');
    const [first, one, two] = post.channels[0].blocks;
    const postId = postIdOf(first.remoteUrl);
    expect(postId.startsWith(`acct_${ws.workspaceId.slice(3, 13)}_facebook_`)).toBe(true);
    const arrived = await simPost(postId);
    expect(arrived).toMatchObject({
      message: `${marker} post`,
      link: 'https://example.com/read',
      state: 'live',
    });
    expect(arrived?.comments.map((c) => c.message)).toEqual([`${marker} first comment`, `${marker} second`]);
    expect(one.remoteUrl).toContain(`${postId}?comment_id=`);
    expect(two.remoteUrl).toContain(`${postId}?comment_id=`);
  });

  it('publishes photos with their alt texts, each attached once, then a text-only comment', async () => {
    const marker = `fb-photos-${Date.now()}`;
    const a = await upload(mediaFiles.png(40_000), 'a.png', 'image/png', 'Alt from the file');
    const b = await upload(mediaFiles.jpeg(30_000), 'b.jpg', 'image/jpeg');
    const post = await publishNow([
      { content: `${marker} 1/2`, mediaIds: [a.id, b.id], mediaAltText: { [b.id]: 'Alt from the block' } },
      { content: `${marker} 2/2` },
    ]);
    expect(post.status).toBe('published');
    const arrived = await simPost(postIdOf(post.channels[0].blocks[0].remoteUrl));
    expect(arrived?.message).toBe(`${marker} 1/2`);
    expect(arrived?.attachments.map((m) => [m.kind, m.size, m.altText, m.postId])).toEqual([
      ['photo', a.size, 'Alt from the file', arrived?.id],
      ['photo', b.size, 'Alt from the block', arrived?.id],
    ]);
    expect(arrived?.comments.map((c) => c.message)).toEqual([`${marker} 2/2`]);
  });

  it('publishes one photo through /photos and one video once Facebook has processed it', async () => {
    const marker = `fb-single-${Date.now()}`;
    const photo = await upload(mediaFiles.jpeg(20_000), 'one.jpg', 'image/jpeg', 'One photo');
    const video = await upload(mediaFiles.mp4(200_000), 'clip.mp4', 'video/mp4');
    const photoPost = await publishNow([{ content: `${marker} photo`, mediaIds: [photo.id] }]);
    const videoPost = await publishNow([{ content: `${marker} video`, mediaIds: [video.id] }]);
    const withPhoto = await simPost(postIdOf(photoPost.channels[0].blocks[0].remoteUrl));
    expect(withPhoto?.attachments).toEqual([
      expect.objectContaining({ kind: 'photo', published: true, altText: 'One photo', size: photo.size }),
    ]);
    const withVideo = await simPost(postIdOf(videoPost.channels[0].blocks[0].remoteUrl));
    expect(withVideo).toMatchObject({ message: `${marker} video`, state: 'live' });
    expect(withVideo?.attachments).toEqual([
      expect.objectContaining({ kind: 'video', status: 'ready', size: video.size }),
    ]);
  });

  it('a video that processes longer than one attempt is uploaded once and published once (waited for across invocations)', async () => {
    // The runtime's worker with a Facebook client that waits 0.4 s per invocation (20 s in production).
    const real = rt.container.deps.networks;
    const restore = useNetworks(rt, (platform, mode) =>
      platform === 'facebook' && mode === 'live'
        ? new FacebookClient({ baseUrl: simUrl(), timeoutMs: 1_000, videoWaitMs: 400, videoPollMs: 50 })
        : real(platform, mode),
    );
    const switches = (body: Record<string, unknown>) =>
      fetch(`${simUrl()}/_sim/facebook/switches`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      await switches({ videoProcessingMs: 2_500 });
      const marker = `fb-long-${Date.now()}`;
      const video = await upload(mediaFiles.mp4(60_000), 'long.mp4', 'video/mp4');
      const post = await publishNow([{ content: `${marker} long video`, mediaIds: [video.id] }]);
      expect(post.status).toBe('published');
      const mine = (await simPosts()).filter((p) => p.message === `${marker} long video`);
      expect(mine.map((p) => [p.state, p.deleted])).toEqual([['live', false]]);
      expect(postIdOf(post.channels[0].blocks[0].remoteUrl)).toBe(mine[0]?.id);
      const media = (await (await fetch(`${simUrl()}/_sim/facebook/media`)).json()) as {
        data: SimFacebookMedia[];
      };
      expect(
        media.data.filter((m) => m.sourceUrl.includes(video.id) || m.postId === mine[0]?.id),
      ).toHaveLength(1);
    } finally {
      await switches({ videoProcessingMs: 300 });
      restore();
    }
  });

  it('a video post whose answer was lost is published only once Facebook has processed it (the lookup follows it, never publishes it early)', async () => {
    const switches = (body: Record<string, unknown>) =>
      fetch(`${simUrl()}/_sim/facebook/switches`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      await switches({ videoProcessingMs: 3_000 });
      const marker = `fb-lost-video-${Date.now()}`;
      const video = await upload(mediaFiles.mp4(50_000), 'lost.mp4', 'video/mp4');
      const created = await rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: {
          intent: 'now',
          channels: [
            {
              channelId: ws.channels.facebook,
              blocks: [{ content: `${marker} sim:reset`, mediaIds: [video.id] }],
            },
          ],
        },
      });
      expect(created.status).toBe(201);
      // Herald's status is read before the simulator's: a post Herald calls published while
      // Facebook still processes its video was published early.
      const deadline = Date.now() + 60_000;
      let sawProcessing = false;
      for (;;) {
        const post = (await rt.api(`/posts/${created.body.id}`, { key: ws.key })).body;
        const mine = (await simPosts()).filter((p) => p.message === `${marker} sim:reset`);
        if (mine[0]?.state === 'processing') sawProcessing = true;
        if (post.status === 'published') {
          expect(mine.map((p) => p.state)).toEqual(['live']);
          expect(postIdOf(post.channels[0].blocks[0].remoteUrl)).toBe(mine[0]?.id);
          break;
        }
        expect(post.status).not.toBe('failed');
        if (Date.now() > deadline) throw new Error(`Not published: ${JSON.stringify(post)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // The lookup met the video while it processed (the case under test), and it was posted once.
      expect(sawProcessing).toBe(true);
      const media = (await (await fetch(`${simUrl()}/_sim/facebook/media`)).json()) as {
        data: SimFacebookMedia[];
      };
      expect(media.data.filter((m) => m.sourceUrl.includes(video.id))).toHaveLength(1);
    } finally {
      await switches({ videoProcessingMs: 300 });
    }
  });

  it('publishes a reel with a comment, and a photo story, through their upload flows', async () => {
    const marker = `fb-reel-${Date.now()}`;
    const clip = await upload(mediaFiles.mp4(120_000), 'reel.mp4', 'video/mp4');
    const picture = await upload(mediaFiles.png(9_000), 'story.png', 'image/png', 'Story picture');
    const create = async (postType: string, blocks: unknown[]) => {
      const created = await rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: { intent: 'now', channels: [{ channelId: ws.channels.facebook, postType, blocks }] },
      });
      expect(created.status, created.text).toBe(201);
      return waitForPost(rt, created.body.id, ws.key, 60_000);
    };
    const reel = await create('reel', [
      { content: `${marker} reel`, mediaIds: [clip.id] },
      { content: `${marker} under the reel` },
    ]);
    expect(reel.status).toBe('published');
    const videoId = /\/reel\/(\d+)$/.exec(reel.channels[0].blocks[0].remoteUrl)?.[1];
    const reelPost = (await simPosts()).find((p) => p.attachments[0]?.id === videoId);
    expect(reelPost).toMatchObject({ message: `${marker} reel`, state: 'live' });
    expect(reelPost?.attachments[0]).toMatchObject({ product: 'reel', size: clip.size, status: 'ready' });
    expect(reelPost?.comments.map((c) => c.message)).toEqual([`${marker} under the reel`]);

    const story = await create('story', [{ content: '', mediaIds: [picture.id] }]);
    expect(story.status).toBe('published');
    const storyPost = await simPost(postIdOf(story.channels[0].blocks[0].remoteUrl));
    expect(storyPost?.attachments).toEqual([
      expect.objectContaining({
        kind: 'photo',
        product: 'story',
        altText: 'Story picture',
        size: picture.size,
      }),
    ]);
  });

  it('revises the words of a live post and of its comment', async () => {
    const marker = `fb-revise-${Date.now()}`;
    const post = await publishNow([{ content: `${marker} before` }, { content: `${marker} comment` }]);
    const res = await rt.api(`/posts/${post.id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: {
        channels: [
          {
            channelId: ws.channels.facebook,
            blocks: [{ content: `${marker} after` }, { content: `${marker} comment, edited` }],
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.revised).toEqual([
      { channelId: ws.channels.facebook, platform: 'facebook', reason: null, blocks: [0, 1] },
    ]);
    const arrived = await simPost(postIdOf(post.channels[0].blocks[0].remoteUrl));
    expect(arrived?.message).toBe(`${marker} after`);
    expect(arrived?.comments.map((c) => c.message)).toEqual([`${marker} comment, edited`]);
  });

  it('retracts a live post: its comment and the post are deleted on Facebook', async () => {
    const marker = `fb-retract-${Date.now()}`;
    const post = await publishNow([{ content: `${marker} post` }, { content: `${marker} comment` }]);
    const postId = postIdOf(post.channels[0].blocks[0].remoteUrl);
    const res = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(res.status).toBe(200);
    expect(res.body.removed).toEqual([
      { channelId: ws.channels.facebook, platform: 'facebook', reason: null },
    ]);
    expect(res.body.remaining).toEqual([]);
    expect((await simPost(postId))?.deleted).toBe(true);
    const deletes = (rt.simulators.byPlatform.get('facebook')?.records() ?? []).filter(
      (r) => r.kind === 'delete' && (r.id === postId || r.parentId === postId),
    );
    expect(deletes.length).toBeGreaterThanOrEqual(1);
  });

  it('fails the channel with Facebook’s refusal (sim:fail) and posts nothing', async () => {
    const marker = `fb-refused-${Date.now()}`;
    const post = await publishNow([{ content: `${marker} sim:fail` }]);
    expect(post.status).toBe('failed');
    expect(post.channels[0].error).toMatch(/deemed abusive/);
    expect((await simPosts()).filter((p) => p.message.startsWith(marker))).toEqual([]);
  });

  it('reads a live post’s metrics from Facebook: reactions, comments, shares, views and reach', async () => {
    const post = await publishNow([{ content: `fb-metrics-${Date.now()}` }, { content: 'a comment' }]);
    expect(post.status).toBe('published');
    const deadline = Date.now() + 60_000;
    let channel: any;
    for (;;) {
      const res = await rt.api(`/posts/${post.id}/metrics`, { key: ws.key });
      expect(res.status).toBe(200);
      channel = res.body.channels[0];
      if (channel.readings.filter((r: any) => r.status === 'ok').length >= 2) break;
      if (Date.now() > deadline) throw new Error(`No Facebook metrics: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(channel).toMatchObject({ platform: 'facebook', metricsStatus: 'available' });
    expect(Object.keys(channel.latest.metrics).sort()).toEqual([
      'comments',
      'likes',
      'reach',
      'shares',
      'views',
    ]);
    expect(channel.latest.metrics.comments).toBeGreaterThanOrEqual(1);
  });

  it('GET /platforms says what the client does for Facebook', async () => {
    const res = await rt.api('/platforms', { key: ws.key });
    expect(res.status).toBe(200);
    const facebook = (res.body.data as any[]).find((p) => p.id === 'facebook');
    expect(facebook.postTypes.map((t: any) => t.key)).toEqual(['post', 'reel', 'story']);
    expect(facebook.supportsMetrics).toBe(true);
    expect(facebook.limits).toMatchObject({
      maxBlocks: 3,
      continuation: 'comment',
      continuationTextOnly: true,
      remoteEdit: ['text'],
      supportsRemoteDelete: true,
      maxMedia: 10,
      acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'video/quicktime'],
      soleMediaTypes: ['video/mp4', 'video/quicktime'],
      title: null,
    });
    expect(facebook.limits.options.map((o: any) => o.key)).toEqual(['link']);
  });
});
