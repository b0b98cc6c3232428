import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyTikTokFailure, postIdsOf, TikTokClient } from '../../functions/platforms/tiktok/client.ts';
import type { MediaForNetwork, UploadProgress } from '../../functions/ports/network-client.ts';
import { startTikTokSimulator, type TikTokSimulator } from '../../simulators/tiktok/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { blockInput, failureOf } from '../support/network.ts';

const MiB = 1024 * 1024;
/** The smallest chunk TikTok takes: a 12 MiB video goes as a 5 MiB and a 7 MiB chunk. */
const CHUNK = 5 * MiB;

let sim: TikTokSimulator;
let client: TikTokClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl = '';
const stored = new Map<string, Buffer>();
/** Byte offsets the media store was read from (a resumed upload reads from its offset). */
const reads: number[] = [];

const credentials = () => ({
  accessToken: `tt-${randomBytes(6).toString('hex')}`,
  remoteAccountId: 'creator-1',
});
const video = (bytes: Buffer, mimeType = 'video/mp4'): MediaForNetwork => {
  const name = `v${randomBytes(6).toString('hex')}.mp4`;
  stored.set(name, bytes);
  return { mediaId: `med_${name}`, mimeType, size: bytes.length, altText: null, url: `${filesUrl}/${name}` };
};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const simVideos = async () =>
  (
    (await (await fetch(`${sim.url}/_sim/tiktok/videos`)).json()) as {
      data: ReturnType<TikTokSimulator['videos']>;
    }
  ).data;
const simPost = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** An in-memory UploadProgress, as the engine keeps it with the block's claim. */
const memoryProgress = (onSave?: (state: Record<string, unknown>) => void) => {
  const progress = {
    saved: null as Record<string, unknown> | null,
    saves: [] as Record<string, unknown>[],
    async save(state: Record<string, unknown>) {
      progress.saved = structuredClone(state);
      progress.saves.push(progress.saved);
      onSave?.(state);
    },
  };
  return progress satisfies UploadProgress;
};

const publish = (
  content: string,
  media: MediaForNetwork,
  overrides: Parameters<ReturnType<typeof blockInput>>[1] = {},
  as = credentials(),
) =>
  client.publish(
    blockInput(as)(content, { media: [media], options: { privacy: 'PUBLIC_TO_EVERYONE' }, ...overrides }),
  );

beforeAll(async () => {
  sim = await startTikTokSimulator({ processingMs: 100, holdMs: 1_000 });
  client = new TikTokClient({
    baseUrl: sim.url,
    timeoutMs: 3_000,
    chunkBytes: CHUNK,
    pollMs: 30,
    maxProcessingSeconds: 10,
  });
  files = await startFileServer(servedFrom(stored), { ranges: true, onRead: (start) => reads.push(start) });
  filesUrl = files.url;
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.reset();
  reads.length = 0;
});

describe('TikTok client against the simulator', () => {
  it('posts a video in TikTok-sized chunks with its caption and options, and waits until it is published', async () => {
    const bytes = randomBytes(12 * MiB + 123);
    const block = await publish('Sunset timelapse #nature', video(bytes), {
      options: { privacy: 'PUBLIC_TO_EVERYONE', disableDuet: 'true', disableStitch: 'false' },
    });
    const [stored] = await simVideos();
    expect(stored).toMatchObject({
      title: 'Sunset timelapse #nature',
      privacyLevel: 'PUBLIC_TO_EVERYONE',
      disableComment: false,
      disableDuet: true,
      disableStitch: false,
      source: 'FILE_UPLOAD',
      videoSize: bytes.length,
      chunkSize: CHUNK,
      // floor(12 MiB / 5 MiB): the last chunk takes the trailing bytes.
      totalChunkCount: 2,
      receivedBytes: bytes.length,
      sha256: sha(bytes),
      mimeType: 'video/mp4',
      status: 'PUBLISH_COMPLETE',
    });
    expect(block.remoteId).toBe(stored?.videoId);
    expect(block.remoteUrl).toMatch(
      new RegExp(`^https://www\\.tiktok\\.com/@sim_\\w+/video/${stored?.videoId}$`),
    );
    expect(block.meta.publishId).toBe(stored?.publishId);
    expect(sim.records()).toMatchObject([
      { kind: 'post', id: stored?.videoId, text: 'Sunset timelapse #nature' },
    ]);
    // One read of the media file serves every chunk.
    expect(reads).toEqual([0]);
  });

  it('sends a video under 5 MB whole, in one chunk; a private video has no public id, so the block is the publish id', async () => {
    const bytes = randomBytes(300_000);
    const as = credentials();
    const block = await publish(
      'Small one',
      video(bytes, 'video/quicktime'),
      { options: { privacy: 'SELF_ONLY' } },
      as,
    );
    const [stored] = await simVideos();
    expect(stored).toMatchObject({
      chunkSize: bytes.length,
      totalChunkCount: 1,
      sha256: sha(bytes),
      status: 'PUBLISH_COMPLETE',
    });
    expect(block.remoteId).toBe(stored?.publishId);
    expect(block.remoteUrl).toMatch(/^https:\/\/www\.tiktok\.com\/@sim_\w+$/);
    expect(await client.metrics({ credentials: as, block })).toEqual({});
  });

  it('the simulator refuses chunk plans TikTok refuses, and chunks out of order', async () => {
    const token = credentials().accessToken;
    const init = (source: Record<string, unknown>) =>
      fetch(`${sim.url}/v2/post/publish/video/init/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          post_info: { title: 'x', privacy_level: 'SELF_ONLY' },
          source_info: { source: 'FILE_UPLOAD', ...source },
        }),
      });
    for (const source of [
      { video_size: 3 * MiB, chunk_size: MiB, total_chunk_count: 3 }, // under 5 MB: whole
      { video_size: 20 * MiB, chunk_size: 4 * MiB, total_chunk_count: 5 }, // chunk under 5 MB
      { video_size: 20 * MiB, chunk_size: 6 * MiB, total_chunk_count: 4 }, // not floor(20 / 6) = 3
      { video_size: 100 * MiB, chunk_size: 100 * MiB, total_chunk_count: 1 }, // over 64 MB whole
    ]) {
      const res = await init(source);
      expect(res.status, JSON.stringify(source)).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_params');
    }
    const ok = await init({ video_size: 12 * MiB, chunk_size: CHUNK, total_chunk_count: 2 });
    const { data } = (await ok.json()) as { data: { upload_url: string } };
    // The second chunk before the first: 400.
    const outOfOrder = await fetch(data.upload_url, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', 'content-range': `bytes ${CHUNK}-${12 * MiB - 1}/${12 * MiB}` },
      body: Buffer.alloc(12 * MiB - CHUNK),
    });
    expect(outOfOrder.status).toBe(400);
  });

  it('resumes from the offset TikTok reports after the connection drops in the middle of a chunk', async () => {
    const bytes = randomBytes(17 * MiB);
    await simPost('/_sim/tiktok/switches', { dropChunk: { index: 1, afterBytes: 2 * MiB } });
    const progress = memoryProgress();
    await publish('Dropped half-way', video(bytes), { progress });
    const [stored] = await simVideos();
    expect(stored).toMatchObject({
      totalChunkCount: 3,
      receivedBytes: bytes.length,
      sha256: sha(bytes),
      interruptions: 1,
    });
    expect(stored?.droppedBytes).toBe(2 * MiB);
    // Read again from the second chunk's first byte (TikTok's uploaded_bytes), not from 0.
    expect(reads).toEqual([0, CHUNK]);
    expect(progress.saves.map((s) => s.offset)).toEqual([0, CHUNK, CHUNK, 2 * CHUNK, 17 * MiB]);
    expect(await simVideos()).toHaveLength(1);
  });

  it('a chunk answered 500 is sent again after asking TikTok where the upload stands', async () => {
    const bytes = randomBytes(11 * MiB);
    await simPost('/_sim/tiktok/switches', { failChunkOnce: 0 });
    await publish('Server hiccup', video(bytes));
    expect(await simVideos()).toMatchObject([
      { sha256: sha(bytes), interruptions: 1, status: 'PUBLISH_COMPLETE' },
    ]);
  });

  it('near the deadline it saves the session and continues later; the next attempt continues it without a second video', async () => {
    const bytes = randomBytes(16 * MiB);
    const media = video(bytes);
    const deadline = new Date(Date.now() + 600_000);
    const first = memoryProgress((state) => {
      // After the first chunk the worker's time runs out.
      if (state.offset === CHUNK) deadline.setTime(Date.now());
    });
    const as = credentials();
    const input = blockInput(as)('Long upload', {
      media: [media],
      options: { privacy: 'SELF_ONLY' },
      progress: first,
      deadline,
    });
    const later = await failureOf(client.publish(input));
    expect(later).toMatchObject({ kind: 'transient', details: { continueLater: true } });
    expect(later.details.outcomeUnknown).toBeUndefined();
    expect(await simVideos()).toMatchObject([{ receivedBytes: CHUNK, status: 'PROCESSING_UPLOAD' }]);
    expect(sim.records()).toEqual([]);

    // The next invocation gets what was saved.
    const second = memoryProgress();
    second.saved = first.saved;
    const block = await client.publish({
      ...input,
      progress: second,
      deadline: new Date(Date.now() + 600_000),
    });
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({
      receivedBytes: bytes.length,
      sha256: sha(bytes),
      status: 'PUBLISH_COMPLETE',
    });
    expect(block.meta.publishId).toBe(videos[0]?.publishId);
    expect(reads).toEqual([0, CHUNK]);
  });

  it('a saved session whose upload URL has expired starts a new upload (the old one posts nothing)', async () => {
    const bytes = randomBytes(11 * MiB);
    const media = video(bytes);
    const deadline = new Date(Date.now() + 600_000);
    const first = memoryProgress((state) => {
      if (state.offset === CHUNK) deadline.setTime(Date.now());
    });
    const input = blockInput(credentials())('Expired session', {
      media: [media],
      options: { privacy: 'SELF_ONLY' },
      progress: first,
      deadline,
    });
    await failureOf(client.publish(input));
    const second = memoryProgress();
    second.saved = { ...first.saved, uploadUrlExpiresAt: new Date(Date.now() - 1000).toISOString() };
    await client.publish({ ...input, progress: second, deadline: new Date(Date.now() + 600_000) });
    const videos = await simVideos();
    expect(videos.map((v) => v.status)).toEqual(['PROCESSING_UPLOAD', 'PUBLISH_COMPLETE']);
    expect(sim.records()).toHaveLength(1);
  });

  it('a saved unfinished session TikTok no longer knows starts a new upload', async () => {
    const bytes = randomBytes(50_000);
    const media = video(bytes);
    const progress = memoryProgress();
    progress.saved = {
      publishId: 'v_pub_file~v2-1.forgotten',
      uploadUrl: `${sim.url}/nowhere`,
      uploadUrlExpiresAt: new Date(Date.now() + 600_000).toISOString(),
      mediaId: media.mediaId,
      videoSize: bytes.length,
      chunkSize: bytes.length,
      totalChunkCount: 1,
      offset: 0,
      phase: 'upload',
      username: 'someone',
    };
    await publish('Forgotten session', media, { progress });
    expect(await simVideos()).toMatchObject([{ title: 'Forgotten session', status: 'PUBLISH_COMPLETE' }]);
  });

  it('processing that outlasts the bound continues later; the next attempt only reads the status', async () => {
    const slow = await startTikTokSimulator({ processingMs: 1_500 });
    try {
      const impatient = new TikTokClient({
        baseUrl: slow.url,
        timeoutMs: 3_000,
        pollMs: 30,
        maxProcessingSeconds: 0.2,
      });
      const progress = memoryProgress();
      const input = blockInput(credentials())('Slow processing', {
        media: [video(randomBytes(200_000))],
        options: { privacy: 'SELF_ONLY' },
        progress,
      });
      expect(await failureOf(impatient.publish(input))).toMatchObject({ details: { continueLater: true } });
      expect(progress.saved).toMatchObject({ phase: 'processing' });
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      const next = memoryProgress();
      next.saved = progress.saved;
      const block = await impatient.publish({ ...input, progress: next });
      expect(slow.videos()).toHaveLength(1);
      expect(block.meta.publishId).toBe(slow.videos()[0]?.publishId);
    } finally {
      await slow.stop();
    }
  });

  it('a video still processing after the give-up time is recorded by its publish_id; metrics find its video id later', async () => {
    const slow = await startTikTokSimulator({ processingMs: 1_500 });
    try {
      const c = new TikTokClient({
        baseUrl: slow.url,
        timeoutMs: 3_000,
        pollMs: 30,
        maxProcessingSeconds: 0.1,
        processingGiveUpSeconds: 0.3,
      });
      const as = credentials();
      const progress = memoryProgress();
      const input = blockInput(as)('Moderated', {
        media: [video(randomBytes(100_000))],
        options: { privacy: 'PUBLIC_TO_EVERYONE' },
        progress,
      });
      expect(await failureOf(c.publish(input))).toMatchObject({ details: { continueLater: true } });
      await new Promise((resolve) => setTimeout(resolve, 400));
      const next = memoryProgress();
      next.saved = progress.saved;
      const block = await c.publish({ ...input, progress: next });
      const [held] = slow.videos();
      expect(block).toMatchObject({ remoteId: held?.publishId, meta: { publishId: held?.publishId } });
      expect(block.meta.videoId).toBeUndefined();
      expect(await c.metrics({ credentials: as, block })).toEqual({});
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      const reading = await c.metrics({ credentials: as, block });
      expect(Object.keys(reading).sort()).toEqual(['comments', 'likes', 'shares', 'views']);
    } finally {
      await slow.stop();
    }
  });

  it.each(['sim:timeout', 'sim:reset', 'sim:bad-gateway'])(
    'a lost answer to the last chunk (%s) is settled by status/fetch: one video, published',
    async (token) => {
      const bytes = randomBytes(400_000);
      const block = await publish(`Lost answer ${token}`, video(bytes));
      const videos = await simVideos();
      expect(videos).toHaveLength(1);
      expect(videos[0]).toMatchObject({ status: 'PUBLISH_COMPLETE', sha256: sha(bytes) });
      expect(block.remoteId).toBe(videos[0]?.videoId);
    },
  );

  it('checks the channel options against creator_info before anything is sent', async () => {
    await simPost('/_sim/tiktok/creator', { privateAccount: true, commentDisabled: true });
    const media = video(randomBytes(1_000));
    const notOffered = await failureOf(publish('Public please', media));
    expect(notOffered.kind).toBe('permanent');
    expect(notOffered.message).toMatch(/does not offer privacy PUBLIC_TO_EVERYONE.*FOLLOWER_OF_CREATOR/);
    const comments = await failureOf(
      publish('Comments on', media, { options: { privacy: 'SELF_ONLY', disableComment: 'false' } }),
    );
    expect(comments.kind).toBe('permanent');
    expect(comments.message).toMatch(/comments turned off/);
    expect(await simVideos()).toEqual([]);
    // Left unset, comments follow the creator's setting.
    await publish('Comments unset', media, { options: { privacy: 'FOLLOWER_OF_CREATOR' } });
    expect(await simVideos()).toMatchObject([{ disableComment: true, privacyLevel: 'FOLLOWER_OF_CREATOR' }]);
    const missing = await failureOf(publish('No privacy', media, { options: {} }));
    expect(missing.message).toMatch(/privacy/);
  });

  it('an unaudited app may only post SELF_ONLY, and the error says so', async () => {
    await simPost('/_sim/tiktok/switches', { audited: false });
    const refused = await failureOf(publish('Public from an unaudited app', video(randomBytes(1_000))));
    expect(refused).toMatchObject({ kind: 'permanent', details: { status: 403 } });
    expect(refused.message).toMatch(/not audited.*SELF_ONLY/);
    await publish('Private is fine', video(randomBytes(1_000)), { options: { privacy: 'SELF_ONLY' } });
    expect(await simVideos()).toHaveLength(1);
  });

  it('6 inits a minute per token: the 7th is a rate limit, with no attempt spent', async () => {
    const as = credentials();
    for (let i = 0; i < 6; i++)
      await publish(`Burst ${i}`, video(randomBytes(1_000)), { options: { privacy: 'SELF_ONLY' } }, as);
    const limited = await failureOf(publish('Burst 7', video(randomBytes(1_000)), {}, as));
    expect(limited).toMatchObject({
      kind: 'transient',
      details: { status: 429, rateLimited: true, retryAfterSeconds: 60 },
    });
    expect(limited.details.outcomeUnknown).toBeUndefined();
    // Another account's token is not limited.
    await publish('Other creator', video(randomBytes(1_000)));
  });

  it("the creator's daily cap waits like a rate limit", async () => {
    const capped = await startTikTokSimulator({ dailyPostCap: 1, processingMs: 10 });
    try {
      const c = new TikTokClient({ baseUrl: capped.url, timeoutMs: 3_000, pollMs: 20 });
      const as = credentials();
      const input = blockInput(as)('Daily', {
        media: [video(randomBytes(1_000))],
        options: { privacy: 'SELF_ONLY' },
      });
      await c.publish(input);
      const error = await failureOf(c.publish({ ...input, idempotencyKey: 'another' }));
      expect(error).toMatchObject({
        kind: 'transient',
        details: { status: 403, rateLimited: true, retryAfterSeconds: 3600 },
      });
      expect(error.message).toMatch(/daily posting cap/);
    } finally {
      await capped.stop();
    }
  });

  it('token errors: an expired token reconnects after a refresh; sim tokens refuse or fail once', async () => {
    const media = video(randomBytes(1_000));
    const expired = await failureOf(
      client.publish(
        blockInput({ accessToken: 'expired-token', remoteAccountId: 'c' })('x', {
          media: [media],
          options: { privacy: 'SELF_ONLY' },
        }),
      ),
    );
    expect(expired).toMatchObject({ kind: 'reconnect', details: { status: 401, tokenExpired: true } });
    const refused = await failureOf(publish('Nope sim:fail', media));
    expect(refused).toMatchObject({ kind: 'permanent', details: { status: 403 } });
    expect(refused.message).toMatch(/spam_risk_text/);
    const as = credentials();
    const flaky = await failureOf(publish('Once sim:flaky', media, {}, as));
    // The init failed: no upload began, so nothing can have been posted.
    expect(flaky).toMatchObject({ kind: 'transient', details: { status: 503 } });
    expect(flaky.details.outcomeUnknown).toBeUndefined();
    await publish('Once sim:flaky', media, {}, as);
    expect(await simVideos()).toHaveLength(1);
  });

  it('a video TikTok fails in processing is a permanent refusal with its fail_reason', async () => {
    await simPost('/_sim/tiktok/switches', { failProcessing: 'file_format_check_failed' });
    const failed = await failureOf(publish('Bad file', video(randomBytes(2_000))));
    expect(failed.kind).toBe('permanent');
    expect(failed.message).toMatch(/file_format_check_failed/);
    expect(sim.records()).toEqual([]);
  });

  it('lookup reads the saved publish_id: published, not uploaded (null), or unknown without it', async () => {
    const as = credentials();
    const progress = memoryProgress();
    const input = blockInput(as)('Looked up', {
      media: [video(randomBytes(3_000))],
      options: { privacy: 'PUBLIC_TO_EVERYONE' },
      progress,
    });
    const block = await client.publish(input);
    const lookup = (saved?: Record<string, unknown> | null) =>
      new TikTokClient({ baseUrl: sim.url, timeoutMs: 3_000 }).lookup({
        credentials: as,
        idempotencyKey: input.idempotencyKey,
        content: input.content,
        parent: null,
        since: new Date(Date.now() - 60_000),
        ...(saved !== undefined ? { saved } : {}),
      });
    expect(await lookup(progress.saved)).toEqual(block);
    // Nothing saved: the session is saved before the first byte, so nothing was uploaded.
    expect(await lookup(null)).toBeNull();
    expect((await failureOf(lookup())).kind).toBe('permanent');
    // The same client remembers the session it ran.
    expect(
      await client.lookup({
        credentials: as,
        idempotencyKey: input.idempotencyKey,
        content: 'x',
        parent: null,
        since: new Date(),
      }),
    ).toEqual(block);
  });

  it('a half-uploaded session looks up as not posted', async () => {
    const deadline = new Date(Date.now() + 600_000);
    const progress = memoryProgress((state) => {
      if (state.offset === CHUNK) deadline.setTime(Date.now());
    });
    const as = credentials();
    const input = blockInput(as)('Half', {
      media: [video(randomBytes(11 * MiB))],
      options: { privacy: 'SELF_ONLY' },
      progress,
      deadline,
    });
    await failureOf(client.publish(input));
    const found = await new TikTokClient({ baseUrl: sim.url, timeoutMs: 3_000 }).lookup({
      credentials: as,
      idempotencyKey: input.idempotencyKey,
      content: input.content,
      parent: null,
      since: new Date(),
      saved: progress.saved,
    });
    expect(found).toBeNull();
  });

  it('no edit, no delete: both refused', async () => {
    const block = { remoteId: '1', remoteUrl: 'https://www.tiktok.com/@a/video/1', meta: {} };
    expect((await failureOf(client.edit({ credentials: credentials(), block, content: 'x' }))).kind).toBe(
      'permanent',
    );
    expect((await failureOf(client.delete({ credentials: credentials(), block }))).kind).toBe('permanent');
  });

  it('metrics: views, likes, comments and shares from video/query', async () => {
    const as = credentials();
    const block = await publish('Counted', video(randomBytes(2_000)), {}, as);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const reading = await client.metrics({ credentials: as, block });
    expect(Object.keys(reading).sort()).toEqual(['comments', 'likes', 'shares', 'views']);
    expect(reading.views).toBeGreaterThan(0);
    const gone = { ...block, remoteId: '7000000000000000001', meta: { videoId: '7000000000000000001' } };
    expect((await failureOf(client.metrics({ credentials: as, block: gone }))).kind).toBe('permanent');
  });

  it('does not take a reply, several files or a non-video', async () => {
    const as = credentials();
    const media = video(randomBytes(1_000));
    expect(
      (
        await failureOf(
          client.publish(blockInput(as)('x', { media: [media, media], options: { privacy: 'SELF_ONLY' } })),
        )
      ).kind,
    ).toBe('permanent');
    expect(
      (
        await failureOf(
          client.publish(
            blockInput(as)('x', {
              media: [{ ...media, mimeType: 'image/png' }],
              options: { privacy: 'SELF_ONLY' },
            }),
          ),
        )
      ).message,
    ).toMatch(/MP4/);
  });
});

describe('TikTok error classification (TikTok v2 error table)', () => {
  const answer = (status: number, code: string, headers: Record<string, string> = {}) =>
    classifyTikTokFailure({
      type: 'answer',
      status,
      headers,
      body: { error: { code, message: 'm', log_id: 'l' } },
    });

  it('maps each error to what the engine must do', () => {
    expect(answer(401, 'access_token_invalid')).toMatchObject({
      kind: 'reconnect',
      details: { tokenExpired: true },
    });
    const scope = answer(401, 'scope_not_authorized');
    expect(scope.kind).toBe('reconnect');
    expect(scope.details.tokenExpired).toBeUndefined();
    expect(scope.message).toMatch(/video\.publish/);
    expect(answer(429, 'rate_limit_exceeded', { 'retry-after': '17' })).toMatchObject({
      kind: 'transient',
      details: { rateLimited: true, retryAfterSeconds: 17 },
    });
    expect(answer(500, 'internal_error')).toMatchObject({
      kind: 'transient',
      details: { outcomeUnknown: true },
    });
    expect(answer(403, 'reached_active_user_cap').message).toMatch(/5 posting accounts a day/);
    expect(answer(403, 'spam_risk_user_banned_from_posting').kind).toBe('permanent');
    expect(answer(403, 'url_ownership_unverified').kind).toBe('permanent');
    expect(answer(400, 'privacy_level_option_mismatch').kind).toBe('permanent');
    expect(
      classifyTikTokFailure({ type: 'transport', sent: true, code: 'ECONNRESET' }).details.outcomeUnknown,
    ).toBe(true);
  });

  it('reads 19-digit post ids as written, numbers or strings', () => {
    expect(
      postIdsOf('{"data":{"publicaly_available_post_id":[7300000000000000123, "7300000000000000456"]}}'),
    ).toEqual(['7300000000000000123', '7300000000000000456']);
    expect(postIdsOf('{"data":{"publicaly_available_post_id":[]}}')).toEqual([]);
  });

  it('the simulator refuses PULL_FROM_URL from a domain the app has not verified', async () => {
    const res = await fetch(`${sim.url}/v2/post/publish/video/init/`, {
      method: 'POST',
      headers: { authorization: 'Bearer pull-token', 'content-type': 'application/json' },
      body: JSON.stringify({
        post_info: { title: 'pulled', privacy_level: 'SELF_ONLY' },
        source_info: {
          source: 'PULL_FROM_URL',
          video_url: 'https://bucket.s3.amazonaws.com/v.mp4?X-Amz-Signature=x',
        },
      }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('url_ownership_unverified');
  });
});
