import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simPinterestBoards } from '../../simulators/pinterest/oauth.ts';
import { type SimPin, simPinterestUserFor } from '../../simulators/pinterest/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Pinterest through the HTTP API of the local runtime: pins made on the Pinterest simulator from
 * posts with files, what arrived there read over HTTP from its inspection routes, edits (revise)
 * and deletes (retract), and GET /platforms' rules for Pinterest.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
let board = '';

beforeAll(async () => {
  rt = await startTestRuntime({
    env: {
      PUBLISH_RETRY_BASE_SECONDS: '0.2',
      METRICS_TIME_SCALE: '36000',
      METRICS_SWEEP_INTERVAL_SECONDS: '0.2',
    },
  });
  ws = await freshWorkspace(rt, ['pinterest']);
  // freshWorkspace connects the channel with this token; the simulator derives the user's boards from it.
  board = (simPinterestBoards(simPinterestUserFor(`token-${ws.workspaceId}`).id)[0] as { id: string }).id;
});
afterAll(async () => {
  await rt?.destroy();
});

const simUrl = () => rt.simulators.baseUrls.pinterest as string;
const simPin = async (id: string): Promise<SimPin | undefined> =>
  ((await (await fetch(`${simUrl()}/_sim/pinterest/pins`)).json()) as { data: SimPin[] }).data.find(
    (pin) => pin.id === id,
  );
const pinIdOf = (remoteUrl: string) => /\/pin\/(\d+)\/$/.exec(remoteUrl)?.[1] as string;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const upload = (bytes: Buffer, name: string, type: string, altText?: string) =>
  uploadMedia(rt, ws.key, bytes, name, type, altText);

const publishNow = async (channel: Record<string, unknown>) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: { intent: 'now', channels: [{ channelId: ws.channels.pinterest, ...channel }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

describe('Pinterest through the API', () => {
  it('pins an image with its title, link and alt text on the chosen board', async () => {
    const bytes = mediaFiles.png(30_000);
    const image = await upload(bytes, 'a.png', 'image/png', 'A red square');
    const text = `pin-image-${Date.now()}`;
    const post = await publishNow({
      title: 'Red square',
      options: { boardId: board, link: 'https://example.com/red' },
      blocks: [{ content: text, mediaIds: [image.id] }],
    });
    expect(post.status, JSON.stringify(post.channels[0])).toBe('published');
    const remoteUrl = post.channels[0].blocks[0].remoteUrl as string;
    expect(remoteUrl).toMatch(/^https:\/\/www\.pinterest\.com\/pin\/\d+\/$/);
    expect(await simPin(pinIdOf(remoteUrl))).toMatchObject({
      boardId: board,
      title: 'Red square',
      description: text,
      link: 'https://example.com/red',
      altText: 'A red square',
      media: {
        type: 'image',
        images: [{ size: bytes.length, sha256: sha(bytes), contentType: 'image/png' }],
      },
    });
  });

  it('pins a carousel of images, and a video with its cover image uploaded through Pinterest’s S3 form', async () => {
    const [a, b] = [mediaFiles.jpeg(10_000), mediaFiles.png(12_000)];
    const carousel = await publishNow({
      options: { boardId: board },
      blocks: [
        {
          content: `pin-carousel-${Date.now()}`,
          mediaIds: [(await upload(a, 'a.jpg', 'image/jpeg')).id, (await upload(b, 'b.png', 'image/png')).id],
        },
      ],
    });
    expect(carousel.status).toBe('published');
    const pin = await simPin(pinIdOf(carousel.channels[0].blocks[0].remoteUrl));
    expect(pin?.media.type === 'multiple_images' ? pin.media.images.map((i) => i.sha256) : []).toEqual([
      sha(a),
      sha(b),
    ]);

    const video = mediaFiles.mp4(200_000);
    const cover = mediaFiles.jpeg(8_000);
    const coverId = (await upload(cover, 'cover.jpg', 'image/jpeg')).id;
    const film = await publishNow({
      options: { boardId: board, coverImage: coverId },
      blocks: [
        { content: `pin-video-${Date.now()}`, mediaIds: [(await upload(video, 'v.mp4', 'video/mp4')).id] },
      ],
    });
    expect(film.status, JSON.stringify(film.channels[0])).toBe('published');
    const videoPin = await simPin(pinIdOf(film.channels[0].blocks[0].remoteUrl));
    expect(videoPin?.media).toMatchObject({ type: 'video', cover: { sha256: sha(cover) } });
    const media = (
      (await (await fetch(`${simUrl()}/_sim/pinterest/media`)).json()) as {
        data: { mediaId: string; size: number; sha256: string; status: string }[];
      }
    ).data;
    expect(
      media.find((m) => videoPin?.media.type === 'video' && m.mediaId === videoPin.media.mediaId),
    ).toMatchObject({
      size: video.length,
      sha256: sha(video),
      status: 'succeeded',
    });
  }, 60_000);

  it('refuses a second block (Pinterest has no comments) and a post without the board before saving', async () => {
    const image = await upload(mediaFiles.png(), 'c.png', 'image/png');
    const twoBlocks = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: [
          {
            channelId: ws.channels.pinterest,
            options: { boardId: board },
            blocks: [{ content: 'one', mediaIds: [image.id] }, { content: 'two' }],
          },
        ],
      },
    });
    expect(twoBlocks.status).toBe(422);
    const noBoard = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: [{ channelId: ws.channels.pinterest, blocks: [{ content: 'x', mediaIds: [image.id] }] }],
      },
    });
    expect(noBoard.status).toBe(422);
    expect(noBoard.body.error.field).toContain('boardId');
  });

  it('fails the channel with Pinterest’s message for a board that is not the account’s', async () => {
    const image = await upload(mediaFiles.png(), 'd.png', 'image/png');
    const post = await publishNow({
      options: { boardId: '424242' },
      blocks: [{ content: `pin-no-board-${Date.now()}`, mediaIds: [image.id] }],
    });
    expect(post.status).toBe('failed');
    expect(post.channels[0].error).toContain('Board not found');
  });

  it('revises the pin’s description and retracts it', async () => {
    const image = await upload(mediaFiles.png(), 'e.png', 'image/png');
    const text = `pin-revise-${Date.now()}`;
    const post = await publishNow({
      options: { boardId: board },
      blocks: [{ content: text, mediaIds: [image.id] }],
    });
    expect(post.status).toBe('published');
    const id = pinIdOf(post.channels[0].blocks[0].remoteUrl);
    const revised = await rt.api(`/posts/${post.id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: { channels: [{ channelId: ws.channels.pinterest, blocks: [{ content: `${text} (edited)` }] }] },
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(200);
    expect(revised.body.revised).toEqual([
      { channelId: ws.channels.pinterest, platform: 'pinterest', reason: null, blocks: [0] },
    ]);
    expect((await simPin(id))?.description).toBe(`${text} (edited)`);

    const retract = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(retract.status, JSON.stringify(retract.body)).toBe(200);
    expect(retract.body.removed).toEqual([
      { channelId: ws.channels.pinterest, platform: 'pinterest', reason: null },
    ]);
    expect((await simPin(id))?.deleted).toBe(true);
  });

  it('reads the pin’s analytics on the metrics cadence: impressions, saves and clicks', async () => {
    const image = await upload(mediaFiles.png(), 'm.png', 'image/png');
    const post = await publishNow({
      options: { boardId: board },
      blocks: [{ content: `pin-metrics-${Date.now()}`, mediaIds: [image.id] }],
    });
    expect(post.status).toBe('published');
    const deadline = Date.now() + 60_000;
    let channel: any;
    for (;;) {
      const res = await rt.api(`/posts/${post.id}/metrics`, { key: ws.key });
      expect(res.status).toBe(200);
      channel = res.body.channels[0];
      if (channel.readings.some((r: { status: string }) => r.status === 'ok')) break;
      if (Date.now() > deadline) throw new Error(`No reading: ${JSON.stringify(res.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(channel).toMatchObject({ platform: 'pinterest', metricsStatus: 'available' });
    expect(Object.keys(channel.latest.metrics).sort()).toEqual(['clicks', 'impressions', 'saves']);
  }, 90_000);

  it('GET /platforms says what the Pinterest client does', async () => {
    const platforms = await rt.api('/platforms', { key: ws.key });
    const pinterest = platforms.body.data.find((p: { id: string }) => p.id === 'pinterest');
    expect(pinterest.limits).toMatchObject({
      maxLength: 800,
      maxBlocks: 1,
      continuation: null,
      title: { required: false, maxLength: 100 },
      remoteEdit: ['text', 'title', 'options'],
      supportsRemoteDelete: true,
      acceptedMimeTypes: [
        'image/jpeg',
        'image/png',
        'image/webp',
        'image/gif',
        'video/mp4',
        'video/quicktime',
      ],
      maxMedia: 5,
      maxMediaBytes: { 'image/jpeg': 20_000_000, 'image/png': 20_000_000 },
      soleMediaTypes: ['video/mp4', 'video/quicktime'],
      requiresMedia: true,
    });
    expect(
      pinterest.limits.options.map((o: { key: string; required: boolean }) => [o.key, o.required]),
    ).toEqual([
      ['boardId', true],
      ['link', false],
      ['altText', false],
      ['coverImage', false],
    ]);
    expect(pinterest.postTypes).toEqual([]);
    expect(pinterest.supportsMetrics).toBe(true);
  });
});
