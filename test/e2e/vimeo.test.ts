import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VimeoClient } from '../../functions/platforms/vimeo/client.ts';
import type { NetworkClient, PublishBlockInput } from '../../functions/ports/network-client.ts';
import type { SimVimeoVideo } from '../../simulators/vimeo/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { useNetworks } from '../support/interleave.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadLargeMedia, uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Vimeo through the HTTP API of the local runtime: a video uploaded to Herald (presigned upload),
 * a subtitle file, a post with a title and privacy, and what arrived at the Vimeo simulator read
 * from its inspection routes; a dropped connection during the tus upload; revise and retract.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await startTestRuntime({
    env: {
      PUBLISH_RETRY_BASE_SECONDS: '0.2',
      METRICS_TIME_SCALE: '36000',
      METRICS_SWEEP_INTERVAL_SECONDS: '0.2',
    },
  });
  ws = await freshWorkspace(rt, ['vimeo']);
});
afterAll(async () => {
  await rt?.destroy();
});

const simUrl = () => rt.simulators.baseUrls.vimeo as string;
const simVideos = async (): Promise<SimVimeoVideo[]> =>
  ((await (await fetch(`${simUrl()}/_sim/vimeo/videos`)).json()) as { data: SimVimeoVideo[] }).data;
const switches = async (body: Record<string, unknown>) => {
  const res = await fetch(`${simUrl()}/_sim/vimeo/switches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(204);
};
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
    body: { intent: 'now', channels: [{ channelId: ws.channels.vimeo, ...channel }] },
  });
  expect(created.status, created.text).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 90_000);
};

describe('Vimeo through the API', () => {
  it('publishes a video with its title, privacy and a subtitle track, then revises and retracts it', async () => {
    const marker = `vimeo-e2e-${Date.now()}`;
    const bytes = mediaFiles.mp4(5_000_000);
    const video = await uploadLarge(bytes, 'clip.mp4', 'video/mp4');
    const subtitles = await upload(mediaFiles.vtt(), 'de.vtt', 'text/vtt', 'de Deutsch');
    const post = await publishNow({
      title: 'A clip with subtitles',
      options: { privacy: 'unlisted' },
      blocks: [{ content: `${marker} the description`, mediaIds: [video.id, subtitles.id] }],
    });
    expect(post.status, JSON.stringify(post.channels[0])).toBe('published');
    const block = post.channels[0].blocks[0];
    const arrived = (await simVideos()).find((v) => v.description === `${marker} the description`);
    expect(arrived).toMatchObject({
      name: 'A clip with subtitles',
      privacy: 'unlisted',
      size: video.size,
      received: video.size,
      sha256: sha(bytes),
      uploadStatus: 'complete',
    });
    expect(block.remoteUrl).toBe(arrived?.link);
    expect(arrived?.tracks).toEqual([
      expect.objectContaining({
        language: 'de',
        name: 'Deutsch',
        type: 'subtitles',
        active: true,
        sha256: sha(mediaFiles.vtt()),
      }),
    ]);

    const revised = await rt.api(`/posts/${post.id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: { channels: [{ channelId: ws.channels.vimeo, blocks: [{ content: `${marker} revised` }] }] },
    });
    expect(revised.status, revised.text).toBe(200);
    expect(revised.body.revised).toHaveLength(1);
    expect((await simVideos()).find((v) => v.id === arrived?.id)?.description).toBe(`${marker} revised`);

    const retracted = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(retracted.status, retracted.text).toBe(200);
    expect((await simVideos()).find((v) => v.id === arrived?.id)?.deleted).toBe(true);
  });

  it('reads the video’s plays, likes and comments on the metrics cadence', async () => {
    const video = await upload(mediaFiles.mp4(4_000), 'm.mp4', 'video/mp4');
    const post = await publishNow({
      title: 'Watched',
      blocks: [{ content: `vimeo-metrics-${Date.now()}`, mediaIds: [video.id] }],
    });
    expect(post.status).toBe('published');
    const deadline = Date.now() + 60_000;
    let channel: any;
    for (;;) {
      const res = await rt.api(`/posts/${post.id}/metrics`, { key: ws.key });
      expect(res.status).toBe(200);
      channel = res.body.channels[0];
      if (channel.readings.some((r: any) => r.status === 'ok')) break;
      if (Date.now() > deadline) throw new Error(`no metrics: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(channel.platform).toBe('vimeo');
    expect(Object.keys(channel.latest.metrics).sort()).toEqual(['comments', 'likes', 'views']);
  });

  it('resumes the upload from the offset Vimeo reports after the connection drops mid-upload', async () => {
    const marker = `vimeo-drop-${Date.now()}`;
    const bytes = mediaFiles.mp4(3_000_000);
    const video = await uploadLarge(bytes, 'drop.mp4', 'video/mp4');
    await switches({ dropAfterBytes: 1_000_000 });
    const post = await publishNow({
      title: 'Dropped once',
      blocks: [{ content: marker, mediaIds: [video.id] }],
    });
    expect(post.status, JSON.stringify(post.channels[0])).toBe('published');
    const mine = (await simVideos()).filter((v) => v.description === marker);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ received: video.size, sha256: sha(bytes), droppedConnections: 1 });
  });

  it('continues the upload across worker invocations: the saved tus offset, one video, no attempt spent', async () => {
    const marker = `vimeo-invocations-${Date.now()}`;
    const bytes = mediaFiles.mp4(5 * 1024 * 1024);
    const video = await uploadLarge(bytes, 'long.mp4', 'video/mp4');
    // The real Vimeo client with 1 MiB chunks, whose invocation ends after two chunks: each call
    // gets the worker's deadline, which is brought forward once it has sent two.
    const real = new VimeoClient({ baseUrl: simUrl(), timeoutMs: 5_000, chunkBytes: 1024 * 1024 });
    const calls: (Record<string, unknown> | null)[] = [];
    const client: NetworkClient = Object.create(real);
    client.publish = (input: PublishBlockInput) => {
      calls.push(input.progress?.saved ?? null);
      expect(input.deadline).toBeInstanceOf(Date);
      const deadline = new Date(input.deadline as Date);
      let chunks = 0;
      const progress = input.progress && {
        get saved() {
          return input.progress?.saved ?? null;
        },
        save: async (state: Record<string, unknown>) => {
          await input.progress?.save(state);
          if ((state.offset as number) > 0 && ++chunks === 2) deadline.setTime(Date.now());
        },
      };
      return real.publish({ ...input, deadline, ...(progress ? { progress } : {}) });
    };
    const deps = rt.container.deps;
    const networks = deps.networks;
    const restore = useNetworks(rt, (platform, mode) =>
      platform === 'vimeo' && mode === 'live' ? client : networks(platform, mode),
    );
    try {
      const post = await publishNow({
        title: 'Long upload',
        blocks: [{ content: marker, mediaIds: [video.id] }],
      });
      expect(post.status, JSON.stringify(post.channels[0])).toBe('published');
      const stored = await deps.posts.get(post.id);
      expect(stored?.channels[0]?.attempts ?? 0).toBe(0);
    } finally {
      restore();
    }
    const mine = (await simVideos()).filter((v) => v.description === marker);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ received: video.size, sha256: sha(bytes), uploadStatus: 'complete' });
    // Three invocations: 2 + 2 + 1 chunks, each starting from the offset the previous one saved.
    expect(calls.map((saved) => (saved as { offset?: number } | null)?.offset ?? null)).toEqual([
      null,
      2 * 1024 * 1024,
      4 * 1024 * 1024,
    ]);
  });
});
