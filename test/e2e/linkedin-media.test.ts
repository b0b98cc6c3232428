import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimLinkedInMedia } from '../../simulators/linkedin/media.ts';
import type { SimCommentContent, SimPostContent } from '../../simulators/linkedin/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadLargeMedia, uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Media to LinkedIn through the HTTP API of the local runtime: files uploaded to Herald, a post
 * created with them, and what arrived at the LinkedIn simulator read over HTTP from its
 * inspection routes.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
  ws = await freshWorkspace(rt, ['linkedin']);
});
afterAll(async () => {
  await rt?.destroy();
});

const simUrl = () => rt.simulators.baseUrls.linkedin as string;
const simMedia = async (): Promise<SimLinkedInMedia[]> =>
  ((await (await fetch(`${simUrl()}/_sim/linkedin/media`)).json()) as { data: SimLinkedInMedia[] }).data;
const simPost = async (urn: string) =>
  (
    (await (await fetch(`${simUrl()}/_sim/linkedin/posts`)).json()) as {
      data: {
        urn: string;
        text: string;
        content: SimPostContent | null;
        comments: { urn: string; text: string; content: SimCommentContent | null }[];
      }[];
    }
  ).data.find((post) => post.urn === urn);
const urnOf = (remoteUrl: string) => /\/feed\/update\/([^/]+)\/$/.exec(remoteUrl)?.[1] as string;

const upload = (bytes: Buffer, name: string, type: string, altText?: string) =>
  uploadMedia(rt, ws.key, bytes, name, type, altText);

/** A file over the direct-upload cap: through a presigned upload, then completed. */
const uploadLarge = (bytes: Buffer, name: string, type: string) =>
  uploadLargeMedia(rt, ws.key, bytes, name, type);

const publishNow = async (
  blocks: { content: string; mediaIds: string[]; mediaAltText?: Record<string, string> }[],
) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: { intent: 'now', channels: [{ channelId: ws.channels.linkedin, blocks }] },
  });
  expect(created.status).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

describe('media to LinkedIn through the API', () => {
  it('publishes a post with images as multiImage, alt texts arriving, and a comment after it', async () => {
    const marker = `li-images-${Date.now()}`;
    const a = await upload(mediaFiles.png(40_000), 'a.png', 'image/png', 'Alt from the file');
    const b = await upload(mediaFiles.jpeg(30_000), 'b.jpg', 'image/jpeg');
    const post = await publishNow([
      { content: `${marker} 1/2`, mediaIds: [a.id, b.id], mediaAltText: { [b.id]: 'Alt from the block' } },
      { content: `${marker} 2/2`, mediaIds: [] },
    ]);
    expect(post.status).toBe('published');
    const urn = urnOf(post.channels[0].blocks[0].remoteUrl);
    const arrived = await simPost(urn);
    const media = await simMedia();
    const ids = arrived?.content && 'multiImage' in arrived.content ? arrived.content.multiImage.images : [];
    expect(ids.map((image) => image.altText)).toEqual(['Alt from the file', 'Alt from the block']);
    const files = ids.map((image) => media.find((m) => m.urn === image.id));
    expect(files.map((f) => [f?.kind, f?.size, f?.status])).toEqual([
      ['image', a.size, 'AVAILABLE'],
      ['image', b.size, 'AVAILABLE'],
    ]);
    expect(post.channels[0].blocks[1].remoteUrl).toContain(
      encodeURIComponent('urn:li:comment:(urn:li:activity:'),
    );
  });

  it('publishes a video uploaded in LinkedIn’s 4 MiB parts, finalized, then posted', async () => {
    const video = await uploadLarge(mediaFiles.mp4(5_000_000), 'clip.mp4', 'video/mp4');
    const post = await publishNow([{ content: `li-video-${Date.now()}`, mediaIds: [video.id] }]);
    expect(post.status).toBe('published');
    const arrived = await simPost(urnOf(post.channels[0].blocks[0].remoteUrl));
    const id = arrived?.content && 'media' in arrived.content ? arrived.content.media.id : '';
    const file = (await simMedia()).find((m) => m.urn === id);
    expect(file).toMatchObject({ kind: 'video', size: video.size, status: 'AVAILABLE' });
    expect(file?.parts.map((p) => p.lastByte - p.firstByte + 1)).toEqual([
      4 * 1024 * 1024,
      video.size - 4 * 1024 * 1024,
    ]);
  });

  it('publishes a thread whose second block carries an image: the comment shows it', async () => {
    const marker = `li-comment-image-${Date.now()}`;
    const picture = await upload(mediaFiles.png(20_000), 'comment.png', 'image/png');
    const post = await publishNow([
      { content: `${marker} 1/3`, mediaIds: [] },
      { content: `${marker} 2/3`, mediaIds: [picture.id] },
      { content: `${marker} 3/3`, mediaIds: [] },
    ]);
    expect(post.status).toBe('published');
    const arrived = await simPost(urnOf(post.channels[0].blocks[0].remoteUrl));
    const file = (await simMedia()).find((m) => m.kind === 'image' && m.size === picture.size);
    expect(file).toMatchObject({ status: 'AVAILABLE' });
    expect(
      arrived?.comments
        .map((comment) => [comment.text, comment.content])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      [`${marker} 2/3`, [{ entity: { image: file?.urn } }]],
      [`${marker} 3/3`, null],
    ]);
  });

  it('refuses two files or a video on a later block before saving (422, the spec media codes)', async () => {
    const a = await upload(mediaFiles.png(5_000), 'a2.png', 'image/png');
    const b = await upload(mediaFiles.jpeg(5_000), 'b2.jpg', 'image/jpeg');
    const create = (mediaIds: string[]) =>
      rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: {
          intent: 'draft',
          channels: [
            {
              channelId: ws.channels.linkedin,
              blocks: [{ content: 'first' }, { content: 'second', mediaIds }],
            },
          ],
        },
      });
    const two = await create([a.id, b.id]);
    expect(two.status).toBe(422);
    expect(two.body.error).toMatchObject({ code: 'too_many_media', field: 'channels[0].blocks[1].mediaIds' });
    const video = await uploadLarge(mediaFiles.mp4(1_000_000), 'c2.mp4', 'video/mp4');
    const withVideo = await create([video.id]);
    expect(withVideo.status).toBe(422);
    expect(withVideo.body.error).toMatchObject({
      code: 'media_type_not_accepted',
      field: 'channels[0].blocks[1].mediaIds[0]',
    });
  });
});
