import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import { YouTubeClient } from '../../functions/platforms/youtube/client.ts';
import type { PublishBlockInput, UploadProgress } from '../../functions/ports/network-client.ts';
import type { SimYouTubeVideo } from '../../simulators/youtube/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadLargeMedia, uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * YouTube through the HTTP API of the local runtime: a video with its title, options, subtitle
 * files and thumbnail; an upload whose connection drops mid-chunk and resumes; revise and retract;
 * what arrived read from the YouTube simulator's inspection routes.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
  ws = await freshWorkspace(rt, ['youtube']);
});
afterAll(async () => {
  await rt?.destroy();
});

const simUrl = () => rt.simulators.baseUrls.youtube as string;
const simVideos = async (): Promise<SimYouTubeVideo[]> =>
  ((await (await fetch(`${simUrl()}/_sim/youtube/videos`)).json()) as { data: SimYouTubeVideo[] }).data;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const upload = (bytes: Buffer, name: string, type: string, altText?: string) =>
  uploadMedia(rt, ws.key, bytes, name, type, altText);

/** A file over the direct-upload cap: through a presigned upload, then completed. */
const uploadLarge = (bytes: Buffer, name: string, type: string) =>
  uploadLargeMedia(rt, ws.key, bytes, name, type);

const publishNow = async (channel: Record<string, unknown>) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: { intent: 'now', channels: [{ channelId: ws.channels.youtube, ...channel }] },
  });
  expect(created.status, created.text).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

const videoIdOf = (post: any) =>
  new URL(post.channels[0].blocks[0].remoteUrl).searchParams.get('v') as string;

describe('YouTube through the API', () => {
  it('publishes a video with title, options, subtitles and thumbnail; revises and retracts it', async () => {
    const marker = `yt-full-${Date.now()}`;
    const bytes = mediaFiles.mp4(300_000);
    const video = await upload(bytes, 'clip.mp4', 'video/mp4');
    const vtt = Buffer.from('WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello\n');
    const subs = await upload(vtt, 'clip.vtt', 'text/vtt', 'en: English');
    const thumbBytes = mediaFiles.png(20_000);
    const thumb = await upload(thumbBytes, 'thumb.png', 'image/png');
    const post = await publishNow({
      title: 'Herald on YouTube',
      options: {
        privacy: 'unlisted',
        madeForKids: 'false',
        tags: ['herald', 'test'],
        categoryId: '28',
        thumbnail: thumb.id,
      },
      blocks: [{ content: `${marker} description`, mediaIds: [video.id, subs.id] }],
    });
    expect(post.status, JSON.stringify(post.channels[0])).toBe('published');
    const id = videoIdOf(post);
    expect(post.channels[0].blocks[0].remoteUrl).toBe(`https://www.youtube.com/watch?v=${id}`);
    const arrived = (await simVideos()).find((v) => v.id === id);
    expect(arrived).toMatchObject({
      title: 'Herald on YouTube',
      description: `${marker} description`,
      tags: ['herald', 'test'],
      categoryId: '28',
      privacyStatus: 'unlisted',
      madeForKids: false,
      size: bytes.length,
      sha256: sha(bytes),
      thumbnail: { size: thumbBytes.length, sha256: sha(thumbBytes), mimeType: 'image/png' },
    });
    expect(arrived?.captions).toEqual([
      expect.objectContaining({ language: 'en', name: 'English', format: 'vtt', sha256: sha(vtt) }),
    ]);

    const revised = await rt.api(`/posts/${post.id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: { channels: [{ channelId: ws.channels.youtube, blocks: [{ content: `${marker} revised` }] }] },
    });
    expect(revised.status, revised.text).toBe(200);
    expect((await simVideos()).find((v) => v.id === id)).toMatchObject({
      title: 'Herald on YouTube',
      description: `${marker} revised`,
      tags: ['herald', 'test'],
      categoryId: '28',
    });

    const retracted = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(retracted.status, retracted.text).toBe(200);
    expect(retracted.body.removed).toEqual([
      { channelId: ws.channels.youtube, platform: 'youtube', reason: null },
    ]);
    expect((await simVideos()).some((v) => v.id === id)).toBe(false);
  });

  it('resumes a large upload whose connection dropped mid-chunk, from the offset YouTube reports', async () => {
    const bytes = mediaFiles.mp4(9 * 1024 * 1024);
    const video = await uploadLarge(bytes, 'large.mp4', 'video/mp4');
    // The first 8 MiB chunk is cut after 3 MiB; YouTube keeps those.
    const drop = await fetch(`${simUrl()}/_sim/youtube/drop-next-chunk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keep: 3 * 1024 * 1024 }),
    });
    expect(drop.status).toBe(204);
    const post = await publishNow({
      title: 'Dropped and resumed',
      blocks: [{ content: `yt-resume-${Date.now()}`, mediaIds: [video.id] }],
    });
    expect(post.status, JSON.stringify(post.channels[0])).toBe('published');
    const arrived = (await simVideos()).filter((v) => v.title === 'Dropped and resumed');
    expect(arrived).toHaveLength(1);
    // 3 MiB kept, then 6 MiB (a whole 8 MiB chunk would overshoot: the rest in one final chunk).
    expect(arrived[0]).toMatchObject({ size: bytes.length, sha256: sha(bytes), chunks: 1 });
  });

  it('an upload that runs out of invocation time continues in the next one, in the same session', async () => {
    const bytes = mediaFiles.mp4(10 * 256 * 1024);
    const video = await uploadLarge(bytes, 'two-invocations.mp4', 'video/mp4');
    const created = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: [
          {
            channelId: ws.channels.youtube,
            title: 'Two invocations',
            blocks: [{ content: `yt-later-${Date.now()}`, mediaIds: [video.id] }],
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const deps = rt.container.deps;
    // The first invocation: a client with 256 KiB chunks whose time runs out once it has saved
    // progress past the first bytes; the runtime's own worker (8 MiB chunks) takes the rest.
    const small = new YouTubeClient({ baseUrl: simUrl(), timeoutMs: 5_000, chunkBytes: 256 * 1024 });
    const saves: Record<string, unknown>[] = [];
    const first = new PublishingEngine({
      ...deps,
      networks: () =>
        Object.assign(Object.create(small) as YouTubeClient, {
          publish: (input: PublishBlockInput) => {
            const deadline = new Date(Date.now() + 60_000);
            const progress = input.progress as UploadProgress;
            return small.publish({
              ...input,
              deadline,
              progress: {
                saved: progress.saved,
                save: async (state: Record<string, unknown>) => {
                  await progress.save(state);
                  saves.push(state);
                  if (Number(state.offset) > 0) deadline.setTime(Date.now());
                },
              },
            });
          },
        }),
    });
    await mutatePost(deps, created.body.id, (post) => ({ next: startRound(post, new Date()) }));
    await first.handle({ postId: created.body.id, kind: 'run', round: 1 });
    expect(saves.at(-1)).toMatchObject({ offset: 4 * 256 * 1024 });
    const post = await waitForPost(rt, created.body.id, ws.key, 60_000);
    expect(post.status, JSON.stringify(post.channels[0])).toBe('published');
    const arrived = (await simVideos()).filter((v) => v.title === 'Two invocations');
    // Four 256 KiB chunks in the first invocation, the remaining 1.5 MiB in one chunk in the next.
    expect(arrived).toHaveLength(1);
    expect(arrived[0]).toMatchObject({ id: videoIdOf(post), sha256: sha(bytes), chunks: 5 });
  });
});
