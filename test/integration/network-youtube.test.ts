import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HttpFailure } from '../../functions/platforms/network-http.ts';
import {
  classifyYouTubeFailure,
  secondsToPacificMidnight,
  YouTubeClient,
  type YouTubeClientOptions,
} from '../../functions/platforms/youtube/client.ts';
import { StateKeeper, stateOf, uploadFrom } from '../../functions/platforms/youtube/upload.ts';
import type {
  MediaForNetwork,
  PublishBlockInput,
  UploadProgress,
} from '../../functions/ports/network-client.ts';
import {
  type SimYouTubeVideo,
  startYouTubeSimulator,
  type YouTubeSimulator,
} from '../../simulators/youtube/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

const KIB256 = 256 * 1024;
const credentials = { accessToken: 'yt-token-integration', remoteAccountId: 'UCintegration' };
const input = blockInput(credentials);

let sim: YouTubeSimulator;
let client: YouTubeClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl = '';
const stored = new Map<string, Buffer>();

const clientWith = (options: YouTubeClientOptions = {}) =>
  new YouTubeClient({ baseUrl: sim.url, timeoutMs: 2_000, chunkBytes: KIB256, pollMs: 20, ...options });

const file = (
  name: string,
  mimeType: string,
  bytes: Buffer,
  altText: string | null = null,
): MediaForNetwork => {
  stored.set(name, bytes);
  return { mediaId: `med_${name}`, mimeType, size: bytes.length, altText, url: `${filesUrl}/${name}` };
};
const video = (name: string, size: number) => {
  const bytes = Buffer.concat([mediaFiles.mp4(64), randomBytes(size - 64)]);
  return { bytes, media: file(name, 'video/mp4', bytes) };
};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const simVideos = async () =>
  ((await (await fetch(`${sim.url}/_sim/youtube/videos`)).json()) as { data: SimYouTubeVideo[] }).data;

/** An in-memory claim: what the engine keeps for a block between invocations. */
const memoryProgress = (
  saved: Record<string, unknown> | null = null,
  onSave?: (s: Record<string, unknown>) => void,
) => {
  const saves: Record<string, unknown>[] = [];
  const progress: UploadProgress & { saves: typeof saves; last(): Record<string, unknown> | null } = {
    saved,
    saves,
    save: async (state) => {
      saves.push(structuredClone(state));
      onSave?.(state);
    },
    last: () => saves.at(-1) ?? saved,
  };
  return progress;
};

const videoInput = (content: string, media: MediaForNetwork[], overrides: Partial<PublishBlockInput> = {}) =>
  input(content, { media, title: 'A title', ...overrides });

beforeAll(async () => {
  sim = await startYouTubeSimulator({ processingMs: 100 });
  client = clientWith();
  // Stands in for S3's presigned URLs, byte ranges included (a resumed upload reads from its offset).
  files = await startFileServer(servedFrom(stored), { ranges: true });
  filesUrl = files.url;
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.reset();
});

describe('YouTube publishing against the simulator', () => {
  it('uploads a video in 256 KiB chunks with its snippet and status, and waits for processing', async () => {
    const { bytes, media } = video('a.mp4', 3 * KIB256 + 1234);
    const block = await client.publish(
      videoInput('The description #one', [media], {
        title: 'My video',
        options: { privacy: 'unlisted', madeForKids: 'true', tags: ['alpha', 'beta'], categoryId: '27' },
      }),
    );
    const [stored] = await simVideos();
    expect(stored).toMatchObject({
      id: block.remoteId,
      title: 'My video',
      description: 'The description #one',
      tags: ['alpha', 'beta'],
      categoryId: '27',
      privacyStatus: 'unlisted',
      madeForKids: true,
      size: bytes.length,
      sha256: sha(bytes),
      chunks: 4,
      processingStatus: 'succeeded',
      uploadStatus: 'processed',
    });
    expect(block.remoteUrl).toBe(`https://www.youtube.com/watch?v=${block.remoteId}`);
    expect(block.meta.videoId).toBe(block.remoteId);
  });

  it('sends the subtitle files as caption tracks and the thumbnail option with thumbnails.set', async () => {
    const { media } = video('b.mp4', KIB256 + 10);
    const vtt = Buffer.from('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nBonjour\n');
    const srt = Buffer.from('1\n00:00:00,000 --> 00:00:01,000\nHallo\n');
    const png = mediaFiles.png(5_000);
    const block = await client.publish(
      videoInput(
        'With extras',
        [media, file('b.vtt', 'text/vtt', vtt, 'fr: Français'), file('b.srt', 'application/x-subrip', srt)],
        {
          options: { captionLanguage: 'de' },
          optionMedia: { thumbnail: file('thumb.png', 'image/png', png) },
        },
      ),
    );
    const [stored] = await simVideos();
    expect(stored?.id).toBe(block.remoteId);
    expect(stored?.captions).toEqual([
      expect.objectContaining({ language: 'fr', name: 'Français', format: 'vtt', sha256: sha(vtt) }),
      expect.objectContaining({ language: 'de', name: 'Subtitles 2', format: 'srt', sha256: sha(srt) }),
    ]);
    expect(stored?.thumbnail).toEqual({ size: png.length, sha256: sha(png), mimeType: 'image/png' });
    expect(Object.keys(block.meta).filter((k) => k !== 'videoId' && k !== 'channelId')).toEqual([]);
  });

  it('a refused thumbnail (too large for YouTube) is noted on the block; the video stands', async () => {
    const { media } = video('c.mp4', KIB256);
    const big = Buffer.concat([mediaFiles.jpeg(), randomBytes(2 * 1024 * 1024 + 10)]);
    const block = await client.publish(
      videoInput('Big thumb', [media], { optionMedia: { thumbnail: file('big.jpg', 'image/jpeg', big) } }),
    );
    expect(block.meta.thumbnail).toMatch(/refused: .*2 MB/);
    expect((await simVideos()).length).toBe(1);
  });

  it('resumes from the offset the session reports after the connection drops mid-chunk', async () => {
    const { bytes, media } = video('d.mp4', 4 * KIB256 + 99);
    sim.dropNextChunk(100_000);
    const block = await client.publish(videoInput('Dropped once', [media]));
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({ id: block.remoteId, size: bytes.length, sha256: sha(bytes) });
    // The first chunk was cut after 100,000 bytes, which YouTube kept: the upload went on from
    // byte 100,000 in four whole chunks (from byte 0 it would have taken five), in the same session.
    expect(videos[0]?.chunks).toBe(4);
  });

  it('near the deadline it saves the session and continues later; the next attempt finishes the same upload', async () => {
    const { bytes, media } = video('e.mp4', 10 * KIB256);
    let now = Date.now();
    const deadline = new Date(now + 60_000);
    const first = memoryProgress(null, (state) => {
      // After four chunks the invocation runs out of time.
      if (Number(state.offset) >= 4 * KIB256) now = deadline.getTime() - 5_000;
    });
    const timed = clientWith({ now: () => now });
    const error = await failureOf(
      timed.publish(videoInput('Two invocations', [media], { progress: first, deadline })),
    );
    expect(error).toMatchObject({ kind: 'transient', details: { continueLater: true } });
    expect(await simVideos()).toHaveLength(0);
    const saved = first.last() as Record<string, unknown>;
    expect(saved).toMatchObject({ network: 'youtube', offset: 4 * KIB256, mediaId: media.mediaId });
    expect(String(saved.session)).toContain('upload_id=');

    const second = memoryProgress(saved);
    const block = await client.publish(videoInput('Two invocations', [media], { progress: second }));
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    // Only the six missing chunks were sent in the second attempt: the same session, no new video.
    expect(videos[0]).toMatchObject({ id: block.remoteId, sha256: sha(bytes), chunks: 10 });
    expect(stateOf(second.last())).toMatchObject({ videoId: block.remoteId, session: saved.session });
  });

  it('a saved session that already completed gives its video (a lost final answer), not a second upload', async () => {
    const { media } = video('f.mp4', KIB256 + 5);
    const progress = memoryProgress();
    const block = await client.publish(videoInput('Completed once', [media], { progress }));
    const {
      videoId: _v,
      uploadedAt: _u,
      ...beforeVideo
    } = progress.saves.find((s) => s.offset === 0) as Record<string, unknown>;
    const again = await client.publish(
      videoInput('Completed once', [media], { progress: memoryProgress(beforeVideo) }),
    );
    expect(again.remoteId).toBe(block.remoteId);
    expect(await simVideos()).toHaveLength(1);
    // The engine's lookup with the same saved state finds it too.
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'k',
      content: 'Completed once',
      parent: null,
      since: new Date(Date.now() - 60_000),
      saved: beforeVideo,
    });
    expect(found?.remoteId).toBe(block.remoteId);
  });

  it('a chunk refused for its range (the session moved on) continues from the offset the session reports', async () => {
    const { bytes, media } = video('s.mp4', 3 * KIB256);
    const progress = memoryProgress();
    const deadline = new Date(Date.now() - 1);
    // The session opens, then the attempt stops before its first chunk.
    await failureOf(client.publish(videoInput('Moved on', [media], { progress, deadline })));
    const session = String(progress.last()?.session);
    // Another sender's chunk lands in the session meanwhile.
    const put = await fetch(session, {
      method: 'PUT',
      headers: { 'content-range': `bytes 0-${KIB256 - 1}/${bytes.length}` },
      body: bytes.subarray(0, KIB256),
    });
    expect(put.status).toBe(308);
    const keeper = new StateKeeper(undefined, {});
    const deps = {
      credentials,
      timeoutMs: 2_000,
      chunkBytes: KIB256,
      classify: (f: HttpFailure) => classifyYouTubeFailure(f),
      reserveMs: 0,
      now: Date.now,
      sleep: async () => {},
    };
    // Sent from byte 0 as if nothing were stored: refused (400), then resumed from byte 262,144.
    const done = (await uploadFrom(deps, keeper, session, media, 0)) as { id: string };
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({ id: done.id, sha256: sha(bytes), chunks: 3 });
  });

  it('a saved session that expired is replaced by a new one', async () => {
    const { media } = video('g.mp4', KIB256);
    const stale = {
      network: 'youtube',
      session: `${sim.url}/upload/youtube/v3/videos?uploadType=resumable&upload_id=gone`,
      mediaId: media.mediaId,
      size: media.size,
      offset: 0,
    };
    const block = await client.publish(
      videoInput('Stale session', [media], { progress: memoryProgress(stale) }),
    );
    expect((await simVideos()).map((v) => v.id)).toEqual([block.remoteId]);
  });

  it.each(['sim:timeout', 'sim:reset', 'sim:bad-gateway'])(
    'a lost answer to the completing chunk (%s) is settled by the session status query: one video',
    async (token) => {
      const { media } = video(`h-${token}.mp4`, KIB256 + 1);
      const block = await clientWith({ timeoutMs: 800 }).publish(videoInput(`Lost ${token}`, [media]));
      const videos = await simVideos();
      expect(videos.map((v) => v.id)).toEqual([block.remoteId]);
    },
  );

  it('lookup finds a video in the uploads playlist by its description since the send', async () => {
    const { media } = video('i.mp4', KIB256);
    const since = new Date();
    const block = await client.publish(videoInput('Find me in the playlist', [media]));
    const look = (content: string, at: Date) =>
      client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since: at });
    expect((await look('Find me in the playlist', since))?.remoteId).toBe(block.remoteId);
    expect(await look('Another text', since)).toBeNull();
    expect(await look('Find me in the playlist', new Date(Date.now() + 3_600_000))).toBeNull();
  });

  it('a video whose processing fails is a permanent error with the reason', async () => {
    const { media } = video('j.mp4', KIB256);
    sim.failNextProcessing('failed');
    const error = await failureOf(client.publish(videoInput('Broken', [media])));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/could not process.*codec/);
    sim.failNextProcessing('rejected');
    const rejected = await failureOf(client.publish(videoInput('Seen before', [media])));
    expect(rejected).toMatchObject({ kind: 'permanent' });
    expect(rejected.message).toMatch(/rejected the video \(duplicate\)/);
  });

  it('a long processing continues in the next attempt without a second upload', async () => {
    const slow = await startYouTubeSimulator({ processingMs: 1_500 });
    try {
      const { media } = video('k.mp4', KIB256);
      let now = Date.now();
      const deadline = new Date(now + 11_000);
      const progress = memoryProgress(null, (state) => {
        if (state.videoId) now = deadline.getTime() - 9_000;
      });
      const timed = new YouTubeClient({
        baseUrl: slow.url,
        timeoutMs: 2_000,
        chunkBytes: KIB256,
        pollMs: 20,
        now: () => now,
      });
      const error = await failureOf(
        timed.publish(videoInput('Slow processing', [media], { progress, deadline })),
      );
      expect(error).toMatchObject({ details: { continueLater: true } });
      const saved = progress.last() as Record<string, unknown>;
      expect(saved.videoId).toBeTruthy();
      const block = await new YouTubeClient({
        baseUrl: slow.url,
        timeoutMs: 2_000,
        pollMs: 50,
        processingWaitSeconds: 10,
      }).publish(videoInput('Slow processing', [media], { progress: memoryProgress(saved) }));
      expect(block.remoteId).toBe(saved.videoId);
      expect(slow.videos()).toHaveLength(1);
      expect(slow.videos()[0]?.processingStatus).toBe('succeeded');
    } finally {
      await slow.stop();
    }
  });

  it('a long processing wait keeps saving, which extends the block lease', async () => {
    const slow = await startYouTubeSimulator({ processingMs: 600 });
    try {
      const { media } = video('t.mp4', KIB256);
      let now = Date.now();
      const progress = memoryProgress();
      const patient = new YouTubeClient({
        baseUrl: slow.url,
        timeoutMs: 2_000,
        chunkBytes: KIB256,
        pollMs: 50,
        processingWaitSeconds: 600,
        now: () => now,
        // Each poll counts as three seconds of the worker's time.
        sleep: async (ms) => {
          now += 3_000;
          await new Promise((r) => setTimeout(r, ms));
        },
      });
      await patient.publish(videoInput('Patient', [media], { progress }));
      const afterUpload = progress.saves.findIndex((s) => s.videoId);
      expect(afterUpload).toBeGreaterThanOrEqual(0);
      expect(progress.saves.length - afterUpload - 1).toBeGreaterThanOrEqual(1);
    } finally {
      await slow.stop();
    }
  });

  it('edits the video sending the whole snippet back (tags kept) and deletes it', async () => {
    const { media } = video('l.mp4', KIB256);
    const block = await client.publish(
      videoInput('Before', [media], { options: { tags: ['keep'], categoryId: '10', privacy: 'private' } }),
    );
    await client.edit({ credentials, block, content: 'After', title: 'New title' });
    expect((await simVideos())[0]).toMatchObject({
      title: 'New title',
      description: 'After',
      tags: ['keep'],
      categoryId: '10',
      privacyStatus: 'private',
    });
    await client.edit({
      credentials,
      block,
      content: 'After 2',
      options: { privacy: 'public', madeForKids: 'true' },
    });
    expect((await simVideos())[0]).toMatchObject({
      title: 'New title',
      privacyStatus: 'public',
      madeForKids: true,
    });
    await client.delete({ credentials, block });
    expect(await simVideos()).toHaveLength(0);
    // Deleted already: nothing left to do.
    await client.delete({ credentials, block });
    const gone = await failureOf(client.edit({ credentials, block, content: 'x' }));
    expect(gone.kind).toBe('permanent');
  });

  it('reads views, likes and comments from statistics', async () => {
    const { media } = video('m.mp4', KIB256);
    const block = await client.publish(videoInput('Counted', [media]));
    // Untouched, the simulator's counts grow with the video's age.
    const early = await client.metrics({ credentials, block });
    expect(Object.keys(early).sort()).toEqual(['comments', 'likes', 'views']);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await client.metrics({ credentials, block })).views as number).toBeGreaterThanOrEqual(
      early.views as number,
    );
    await fetch(`${sim.url}/_sim/youtube/statistics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: block.remoteId,
        viewCount: 120,
        likeCount: 7,
        commentCount: 3,
        favoriteCount: 0,
      }),
    });
    expect(await client.metrics({ credentials, block })).toEqual({ views: 120, likes: 7, comments: 3 });
  });
});

describe('YouTube errors', () => {
  it('needs exactly one video and a title', async () => {
    expect((await failureOf(client.publish(input('no video', { title: 'T' })))).kind).toBe('permanent');
    const { media } = video('n.mp4', KIB256);
    expect((await failureOf(client.publish(input('no title', { media: [media] })))).message).toMatch(/title/);
    expect(await simVideos()).toHaveLength(0);
  });

  it('a refused description, an invalid category: permanent with the reason', async () => {
    const { media } = video('o.mp4', KIB256);
    const refused = await failureOf(client.publish(videoInput('Nope sim:fail', [media])));
    expect(refused).toMatchObject({ kind: 'permanent', details: { status: 400 } });
    expect(refused.message).toMatch(/invalidDescription/);
    const category = await failureOf(
      client.publish(videoInput('Cat', [media], { options: { categoryId: '999' } })),
    );
    expect(category.message).toMatch(/invalidCategoryId/);
    expect(await simVideos()).toHaveLength(0);
  });

  it('an outage opening the session is transient and not an unknown outcome (no video can exist)', async () => {
    const { media } = video('p.mp4', KIB256);
    const flaky = await failureOf(client.publish(videoInput('Flaky sim:flaky', [media])));
    expect(flaky).toMatchObject({ kind: 'transient', details: { status: 503 } });
    expect(flaky.details.outcomeUnknown).toBeUndefined();
  });

  it('an invalid token is a reconnect the token service refreshes first', async () => {
    const { media } = video('q.mp4', KIB256);
    const error = await failureOf(
      client.publish({
        ...videoInput('x', [media]),
        credentials: { ...credentials, accessToken: 'expired-1' },
      }),
    );
    expect(error).toMatchObject({ kind: 'reconnect', details: { status: 401, tokenExpired: true } });
  });

  it('the daily quota is a rate limit until midnight Pacific time; the short rate limit waits a minute', async () => {
    const { media } = video('r.mp4', KIB256);
    sim.setQuotaExceeded(true);
    const quota = await failureOf(client.publish(videoInput('Quota', [media])));
    expect(quota).toMatchObject({ kind: 'transient', details: { status: 403, rateLimited: true } });
    const wait = quota.details.retryAfterSeconds as number;
    expect(Math.abs(wait - secondsToPacificMidnight(new Date()))).toBeLessThan(30);
    sim.setQuotaExceeded(false);
    sim.setRateLimited(30);
    const limited = await failureOf(client.publish(videoInput('Limited', [media])));
    expect(limited).toMatchObject({ details: { rateLimited: true, retryAfterSeconds: 60 } });
    sim.setRateLimited(0);
    const upload = classifyYouTubeFailure({
      type: 'answer',
      status: 403,
      headers: {},
      body: {
        error: { code: 403, message: 'Too many uploads', errors: [{ reason: 'uploadLimitExceeded' }] },
      },
    });
    expect(upload).toMatchObject({
      kind: 'transient',
      details: { rateLimited: true, retryAfterSeconds: 86_400 },
    });
  });

  it('midnight Pacific follows daylight saving time', () => {
    // 04:00 PST → 20 h; 05:00 PDT → 19 h; 01:00 PST on the day DST starts (23-hour day) → 22 h.
    expect(secondsToPacificMidnight(new Date('2026-01-15T12:00:00Z'))).toBe(20 * 3600);
    expect(secondsToPacificMidnight(new Date('2026-07-01T12:00:00Z'))).toBe(19 * 3600);
    expect(secondsToPacificMidnight(new Date('2026-03-08T09:00:00Z'))).toBe(22 * 3600);
    // 01:00 PDT on the day DST ends (25-hour day) → 24 h.
    expect(secondsToPacificMidnight(new Date('2026-11-01T08:00:00Z'))).toBe(24 * 3600);
  });
});

describe('the YouTube simulator protocol', () => {
  const open = async (size: number) => {
    const res = await fetch(`${sim.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer proto',
        'content-type': 'application/json',
        'x-upload-content-length': String(size),
        'x-upload-content-type': 'video/mp4',
      },
      body: JSON.stringify({ snippet: { title: 'Proto', description: 'p' }, status: {} }),
    });
    expect(res.status).toBe(200);
    return res.headers.get('location') as string;
  };
  const put = (session: string, range: string, body: Buffer) =>
    fetch(session, { method: 'PUT', headers: { 'content-range': range }, body });

  it('refuses chunks that are not 256 KiB multiples or start elsewhere than the stored offset', async () => {
    const session = await open(3 * KIB256);
    const status = await put(session, `bytes */${3 * KIB256}`, Buffer.alloc(0));
    expect(status.status).toBe(308);
    expect(status.headers.get('range')).toBeNull();
    expect((await put(session, `bytes 0-99999/${3 * KIB256}`, Buffer.alloc(100_000))).status).toBe(400);
    const ok = await put(session, `bytes 0-${KIB256 - 1}/${3 * KIB256}`, Buffer.alloc(KIB256));
    expect(ok.status).toBe(308);
    expect(ok.headers.get('range')).toBe(`bytes=0-${KIB256 - 1}`);
    expect(
      (await put(session, `bytes ${2 * KIB256}-${3 * KIB256 - 1}/${3 * KIB256}`, Buffer.alloc(KIB256)))
        .status,
    ).toBe(400);
    const gone = await put(`${session.split('upload_id=')[0]}upload_id=nope`, `bytes */1`, Buffer.alloc(0));
    expect(gone.status).toBe(404);
  });
});
