import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimAttachment } from '../../simulators/instagram/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Instagram through the HTTP API of the local runtime: files uploaded to Herald, posts published
 * to the Instagram simulator (which fetches each file from its presigned URL, as Instagram does),
 * and what arrived read from the simulator's inspection routes.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
  ws = await freshWorkspace(rt, ['instagram']);
});
afterAll(async () => {
  await rt?.destroy();
});

interface SimPost {
  id: string;
  permalink: string;
  productType: string;
  mediaType: string;
  caption: string;
  attachments: SimAttachment[];
  collaborators: string[];
  shareToFeed: boolean | null;
  comments: { id: string; text: string; deleted: boolean }[];
}
const simUrl = () => rt.simulators.baseUrls.instagram as string;
/** What the simulator holds for a published block, found by the permalink Herald reports. */
const simPost = async (block: { remoteUrl: string }) =>
  ((await (await fetch(`${simUrl()}/_sim/instagram/posts`)).json()) as { data: SimPost[] }).data.find(
    (post) => post.permalink === block.remoteUrl,
  );

const upload = (bytes: Buffer, name: string, type: string, altText?: string) =>
  uploadMedia(rt, ws.key, bytes, name, type, altText);

const create = (channel: Record<string, unknown>, intent = 'now') =>
  rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: { intent, channels: [{ channelId: ws.channels.instagram, ...channel }] },
  });

const publishNow = async (channel: Record<string, unknown>) => {
  const created = await create(channel);
  expect(created.status).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

describe('Instagram through the API', () => {
  it('a post needs a file: text alone is refused before saving, and files on a comment too', async () => {
    const text = await create({ blocks: [{ content: 'Just words' }] });
    expect([text.status, text.body.error?.code]).toEqual([422, 'media_required']);
    const photo = await upload(mediaFiles.jpeg(5_000), 'p.jpg', 'image/jpeg');
    const commentWithFile = await create({
      blocks: [
        { content: 'Post', mediaIds: [photo.id] },
        { content: 'Comment', mediaIds: [photo.id] },
      ],
    });
    expect(commentWithFile.status).toBe(422);
    expect(commentWithFile.body.error?.field).toBe('channels[0].blocks[1].mediaIds');
  });

  it('publishes a photo with its alt text and collaborators, then the other blocks as comments', async () => {
    const marker = `ig-photo-${Date.now()}`;
    const photo = await upload(mediaFiles.jpeg(40_000), 'a.jpg', 'image/jpeg', 'A red bicycle');
    const post = await publishNow({
      options: { collaborators: ['ana'] },
      blocks: [
        { content: `${marker} #herald`, mediaIds: [photo.id] },
        { content: `${marker} first comment` },
        { content: `${marker} second comment` },
      ],
    });
    expect(post.status).toBe('published');
    const [first, c1, c2] = post.channels[0].blocks;
    expect(first.remoteUrl).toMatch(/^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    expect(c1.remoteUrl).toMatch(new RegExp(`^${first.remoteUrl}c/\\d+/$`));
    const arrived = await simPost(first);
    expect(arrived).toMatchObject({
      productType: 'FEED',
      mediaType: 'IMAGE',
      caption: `${marker} #herald`,
      collaborators: ['ana'],
      attachments: [{ kind: 'image', size: photo.size, altText: 'A red bicycle' }],
    });
    expect(arrived?.comments.map((c) => [`${first.remoteUrl}c/${c.id}/`, c.text])).toEqual([
      [c1.remoteUrl, `${marker} first comment`],
      [c2.remoteUrl, `${marker} second comment`],
    ]);
  });

  it('publishes several files as one carousel, a video as a reel, a file as a story', async () => {
    const a = await upload(mediaFiles.jpeg(20_000), 'a.jpg', 'image/jpeg');
    const b = await upload(mediaFiles.jpeg(25_000), 'b.jpg', 'image/jpeg');
    const clip = await upload(mediaFiles.mp4(150_000), 'clip.mp4', 'video/mp4');
    const carousel = await publishNow({
      blocks: [
        { content: `carousel ${Date.now()}`, mediaIds: [a.id, b.id, clip.id], mediaAltText: { [b.id]: 'B' } },
      ],
    });
    expect(carousel.status).toBe('published');
    const album = await simPost(carousel.channels[0].blocks[0]);
    expect(album?.mediaType).toBe('CAROUSEL_ALBUM');
    expect(album?.attachments.map((f) => [f.kind, f.size, f.altText])).toEqual([
      ['image', a.size, null],
      ['image', b.size, 'B'],
      ['video', clip.size, null],
    ]);

    const reel = await publishNow({
      postType: 'reel',
      options: { shareToFeed: 'false' },
      blocks: [{ content: `reel ${Date.now()}`, mediaIds: [clip.id] }],
    });
    expect(reel.status).toBe('published');
    expect(await simPost(reel.channels[0].blocks[0])).toMatchObject({
      productType: 'REELS',
      shareToFeed: false,
      attachments: [{ kind: 'video', size: clip.size }],
    });

    const story = await publishNow({ postType: 'story', blocks: [{ content: '', mediaIds: [a.id] }] });
    expect(story.status).toBe('published');
    expect((await simPost(story.channels[0].blocks[0]))?.productType).toBe('STORY');
  });

  it('a story with text is refused before saving: Instagram stories have no caption', async () => {
    const photo = await upload(mediaFiles.jpeg(6_000), 's.jpg', 'image/jpeg');
    const story = await create({
      postType: 'story',
      blocks: [{ content: 'Words on a story', mediaIds: [photo.id] }],
    });
    expect([story.status, story.body.error?.code, story.body.error?.field]).toEqual([
      422,
      'content_too_long',
      'channels[0].blocks[0].content',
    ]);
    expect(story.body.error?.message).toMatch(/no caption/);
  });

  it('no edits and no removal after publication: revise and retract leave the post, saying why', async () => {
    const photo = await upload(mediaFiles.jpeg(8_000), 'k.jpg', 'image/jpeg');
    const post = await publishNow({ blocks: [{ content: 'Keep me', mediaIds: [photo.id] }] });
    const revise = await rt.api(`/posts/${post.id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: { channels: [{ channelId: ws.channels.instagram, blocks: [{ content: 'Changed' }] }] },
    });
    expect(revise.status).toBe(200);
    expect(revise.body.unchanged).toEqual([
      {
        channelId: ws.channels.instagram,
        platform: 'instagram',
        reason: 'Instagram does not allow edits after publication.',
      },
    ]);
    const retract = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(retract.body.remaining).toEqual([
      {
        channelId: ws.channels.instagram,
        platform: 'instagram',
        reason: 'Instagram does not allow removing a post after publication.',
      },
    ]);
    const records = rt.simulators.byPlatform.get('instagram')?.records() ?? [];
    expect(records.filter((r) => r.kind === 'edit' || r.kind === 'delete')).toEqual([]);
    expect((await simPost(post.channels[0].blocks[0]))?.caption).toBe('Keep me');
  });

  it('GET /platforms says what the Instagram client does', async () => {
    const platforms = await rt.api('/platforms', { key: ws.key });
    const instagram = platforms.body.data.find((p: { id: string }) => p.id === 'instagram');
    expect(instagram.limits).toMatchObject({
      maxLength: 2200,
      maxBlocks: 3,
      continuation: 'comment',
      continuationTextOnly: true,
      remoteEdit: null,
      supportsRemoteDelete: false,
      acceptedMimeTypes: ['image/jpeg', 'video/mp4', 'video/quicktime'],
      maxMedia: 10,
      maxMediaBytes: { 'image/jpeg': 8 * 1024 * 1024 },
      requiresMedia: true,
    });
    expect(instagram.limits.options.map((o: { key: string }) => o.key)).toEqual([
      'shareToFeed',
      'collaborators',
      'locationId',
    ]);
    expect(instagram.postTypes.map((t: { key: string }) => t.key)).toEqual(['post', 'reel', 'story']);
  });
});
