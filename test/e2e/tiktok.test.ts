import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkClient, UploadProgress } from '../../functions/ports/network-client.ts';
import type { TikTokSimulator } from '../../simulators/tiktok/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { useNetworks } from '../support/interleave.ts';
import { mediaFiles } from '../support/media-files.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * TikTok through the HTTP API of the local runtime: a video uploaded to Herald (presigned upload
 * for a large one), a post with TikTok's options, and what reached the TikTok simulator read from
 * its inspection routes: TikTok-sized chunks, creator_info checks, a dropped chunk resumed.
 */

const MiB = 1024 * 1024;
let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
  ws = await freshWorkspace(rt, ['tiktok']);
});
afterAll(async () => {
  await rt?.destroy();
});
beforeEach(async () => {
  await sim('/_sim/tiktok/creator', {
    privateAccount: false,
    commentDisabled: false,
    duetDisabled: false,
    stitchDisabled: false,
  });
});

const simUrl = () => rt.simulators.baseUrls.tiktok as string;
const sim = (path: string, body: unknown) =>
  fetch(`${simUrl()}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const simVideos = async () =>
  (
    (await (await fetch(`${simUrl()}/_sim/tiktok/videos`)).json()) as {
      data: ReturnType<TikTokSimulator['videos']>;
    }
  ).data;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A video through a presigned upload (over the direct-upload cap), completed. */
const uploadVideo = async (bytes: Buffer, name = 'clip.mp4') => {
  const start = await rt.api('/media/uploads', {
    method: 'POST',
    key: ws.key,
    body: { fileName: name, mimeType: 'video/mp4', size: bytes.length },
  });
  expect(start.status, start.text).toBe(201);
  const put = await fetch(start.body.upload.url, {
    method: 'PUT',
    headers: start.body.upload.headers,
    body: bytes,
  });
  expect(put.status).toBe(200);
  const done = await rt.api(`/media/${start.body.media.id}/complete`, { method: 'POST', key: ws.key });
  expect(done.status, done.text).toBe(200);
  return done.body.id as string;
};

const publishNow = async (content: string, mediaId: string, options: Record<string, string>) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [{ channelId: ws.channels.tiktok, options, blocks: [{ content, mediaIds: [mediaId] }] }],
    },
  });
  expect(created.status, created.text).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 90_000);
};

describe('TikTok through the local runtime', () => {
  it('publishes a 21 MiB video in TikTok-sized chunks with its caption and options', async () => {
    const bytes = mediaFiles.mp4(21 * MiB);
    const mediaId = await uploadVideo(bytes);
    const post = await publishNow('Harbour at dawn #sea', mediaId, {
      privacy: 'PUBLIC_TO_EVERYONE',
      disableDuet: 'true',
    });
    expect(post.status).toBe('published');
    const video = (await simVideos()).find((v) => v.title === 'Harbour at dawn #sea');
    expect(video).toMatchObject({
      privacyLevel: 'PUBLIC_TO_EVERYONE',
      disableDuet: true,
      disableComment: false,
      videoSize: bytes.length,
      chunkSize: 10 * MiB,
      totalChunkCount: 2,
      receivedBytes: bytes.length,
      sha256: sha(bytes),
      status: 'PUBLISH_COMPLETE',
    });
    expect(post.channels[0].blocks[0].remoteUrl).toBe(
      `${post.channels[0].blocks[0].remoteUrl.split('/video/')[0]}/video/${video?.videoId}`,
    );
  }, 120_000);

  it("refuses options the creator does not allow, with TikTok's reason, before any upload", async () => {
    await sim('/_sim/tiktok/creator', { privateAccount: true, stitchDisabled: true });
    const mediaId = await uploadVideo(mediaFiles.mp4(40_000), 'small.mp4');
    const before = (await simVideos()).length;
    const publicPost = await publishNow('Public on a private account', mediaId, {
      privacy: 'PUBLIC_TO_EVERYONE',
    });
    expect(publicPost.status).toBe('failed');
    expect(publicPost.channels[0].error).toMatch(/does not offer privacy PUBLIC_TO_EVERYONE/);
    const stitch = await publishNow('Stitches on', mediaId, { privacy: 'SELF_ONLY', disableStitch: 'false' });
    expect(stitch.status).toBe('failed');
    expect(stitch.channels[0].error).toMatch(/stitches turned off/);
    expect((await simVideos()).length).toBe(before);
    // Unset, stitches follow the creator: off.
    const ok = await publishNow('Private, stitches as the creator has them', mediaId, {
      privacy: 'FOLLOWER_OF_CREATOR',
    });
    expect(ok.status).toBe('published');
    expect((await simVideos()).at(-1)).toMatchObject({
      disableStitch: true,
      privacyLevel: 'FOLLOWER_OF_CREATOR',
    });
  }, 120_000);

  it('an unaudited app: a public video fails saying TikTok allows only private videos', async () => {
    await sim('/_sim/tiktok/switches', { audited: false });
    try {
      const mediaId = await uploadVideo(mediaFiles.mp4(30_000), 'unaudited.mp4');
      const post = await publishNow('From an unaudited app', mediaId, { privacy: 'PUBLIC_TO_EVERYONE' });
      expect(post.status).toBe('failed');
      expect(post.channels[0].error).toMatch(/not audited.*SELF_ONLY/);
    } finally {
      await sim('/_sim/tiktok/switches', { audited: true });
    }
  }, 60_000);

  it('resumes from the offset TikTok reports when the connection drops in the middle of a chunk: one video', async () => {
    const bytes = mediaFiles.mp4(21 * MiB + 5);
    const mediaId = await uploadVideo(bytes, 'dropped.mp4');
    await sim('/_sim/tiktok/switches', { dropChunk: { index: 1, afterBytes: 3 * MiB } });
    const post = await publishNow('Dropped and resumed', mediaId, { privacy: 'SELF_ONLY' });
    expect(post.status).toBe('published');
    const videos = (await simVideos()).filter((v) => v.title === 'Dropped and resumed');
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({
      interruptions: 1,
      droppedBytes: 3 * MiB,
      sha256: sha(bytes),
      status: 'PUBLISH_COMPLETE',
    });
  }, 120_000);

  it("an upload that outlasts the worker's invocation continues in the next one: one session, one video, no attempt spent", async () => {
    const bytes = mediaFiles.mp4(21 * MiB + 7);
    const mediaId = await uploadVideo(bytes, 'long.mp4');
    const deps = rt.container.deps;
    const real = deps.networks;
    /** Each call's saved offset as it began, and whether it was cut short. */
    const calls: { savedOffset: number | null; cut: boolean }[] = [];
    const restore = useNetworks(rt, (platform, mode) => {
      const client = real(platform, mode);
      if (platform !== 'tiktok' || mode !== 'live') return client;
      const wrapped: NetworkClient = Object.create(client);
      wrapped.publish = (input) => {
        const progress = input.progress as UploadProgress;
        const call = { savedOffset: (progress.saved?.offset as number | undefined) ?? null, cut: false };
        calls.push(call);
        // The first invocation's time runs out once its first chunk is in.
        const deadline = new Date(Date.now() + 600_000);
        return client.publish({
          ...input,
          deadline,
          progress: {
            get saved() {
              return progress.saved;
            },
            save: async (state) => {
              await progress.save(state);
              if (calls.length === 1 && (state.offset as number) > 0 && !call.cut) {
                call.cut = true;
                deadline.setTime(Date.now());
              }
            },
          },
        });
      };
      return wrapped;
    });
    try {
      const post = await publishNow('Two invocations', mediaId, { privacy: 'SELF_ONLY' });
      expect(post.status).toBe('published');
      expect(calls.map((c) => c.savedOffset)).toEqual([null, 10 * MiB]);
      expect(calls[0]?.cut).toBe(true);
      const videos = (await simVideos()).filter((v) => v.title === 'Two invocations');
      expect(videos).toHaveLength(1);
      expect(videos[0]).toMatchObject({ interruptions: 0, sha256: sha(bytes), status: 'PUBLISH_COMPLETE' });
      // No attempt spent on the continuation (the stored channel counts them).
      const stored = await deps.posts.get(post.id);
      expect(stored?.channels[0]?.attempts ?? 0).toBe(0);
    } finally {
      restore();
    }
  }, 120_000);

  it('TikTok posts cannot be edited or retracted: both leave the video as it is', async () => {
    const mediaId = await uploadVideo(mediaFiles.mp4(20_000), 'final.mp4');
    const post = await publishNow('Final words', mediaId, { privacy: 'SELF_ONLY' });
    expect(post.status).toBe('published');
    const revised = await rt.api(`/posts/${post.id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: { channels: [{ channelId: ws.channels.tiktok, blocks: [{ content: 'Changed words' }] }] },
    });
    expect(revised.status, revised.text).toBe(200);
    expect(revised.body.revised).toEqual([]);
    expect(revised.body.unchanged[0].reason).toMatch(/TikTok does not allow edits/);
    const retracted = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(retracted.status, retracted.text).toBe(200);
    expect(retracted.body.removed).toEqual([]);
    expect(retracted.body.remaining).toHaveLength(1);
    expect((await simVideos()).filter((v) => v.title === 'Final words')).toMatchObject([
      { status: 'PUBLISH_COMPLETE' },
    ]);
  }, 60_000);
});
