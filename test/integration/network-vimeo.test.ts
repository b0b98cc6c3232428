import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyVimeoFailure, trackOf, VimeoClient } from '../../functions/platforms/vimeo/client.ts';
import { VIMEO_SCOPES } from '../../functions/platforms/vimeo/oauth.ts';
import type { MediaForNetwork, UploadProgress } from '../../functions/ports/network-client.ts';
import {
  type SimVimeoVideo,
  startVimeoSimulator,
  type VimeoSimulator,
} from '../../simulators/vimeo/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simOAuthToken } from '../support/sim-oauth-token.ts';

const credentials = { accessToken: 'vimeo-token-integration', remoteAccountId: '4242' };
const CHUNK = 4_000;

let sim: VimeoSimulator;
let client: VimeoClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl = '';
const stored = new Map<string, Buffer>();
const input = blockInput(credentials);

/** A media store that serves byte ranges (206), as S3 does. */
const file = (
  name: string,
  mimeType: string,
  bytes: Buffer,
  altText: string | null = null,
): MediaForNetwork => {
  stored.set(name, bytes);
  return { mediaId: `med_${name}`, mimeType, size: bytes.length, altText, url: `${filesUrl}/${name}` };
};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const simVideos = async () =>
  ((await (await fetch(`${sim.url}/_sim/vimeo/videos`)).json()) as { data: SimVimeoVideo[] }).data;
const switches = (body: Record<string, unknown>) =>
  fetch(`${sim.url}/_sim/vimeo/switches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** An in-memory place to keep upload progress, as the engine's claim does. */
const memoryProgress = (onSave?: (state: Record<string, unknown>, count: number) => void) => {
  const saves: Record<string, unknown>[] = [];
  const progress: UploadProgress & { saves: typeof saves } = {
    saves,
    get saved() {
      return saves.at(-1) ?? null;
    },
    save: async (state) => {
      saves.push(JSON.parse(JSON.stringify(state)));
      onSave?.(state, saves.length);
    },
  };
  return progress;
};

beforeAll(async () => {
  sim = await startVimeoSimulator({ processingMs: 100, holdMs: 3_000 });
  client = new VimeoClient({
    baseUrl: sim.url,
    timeoutMs: 1_500,
    chunkBytes: CHUNK,
    pollMs: 25,
    transcodeWaitSeconds: 10,
  });
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

describe('Vimeo client against the simulator', () => {
  it('publishes a video with its name, description, privacy and an active subtitle track, waiting for transcoding', async () => {
    const bytes = randomBytes(10_500);
    const vtt = Buffer.from('WEBVTT\n\n00:00.000 --> 00:01.000\nBonjour\n');
    const progress = memoryProgress();
    const block = await client.publish(
      input('A walk in the hills', {
        title: 'Hills',
        options: { privacy: 'password', password: 'open sesame' },
        media: [file('walk.mp4', 'video/mp4', bytes), file('fr.vtt', 'text/vtt', vtt, 'fr Français')],
        progress,
      }),
    );
    const [video] = await simVideos();
    expect(video).toMatchObject({
      name: 'Hills',
      description: 'A walk in the hills',
      privacy: 'password',
      password: 'open sesame',
      size: bytes.length,
      received: bytes.length,
      sha256: sha(bytes),
      uploadStatus: 'complete',
      transcodeStatus: 'complete',
      status: 'available',
    });
    expect(video?.tracks).toEqual([
      expect.objectContaining({
        type: 'subtitles',
        language: 'fr',
        name: 'Français',
        active: true,
        sha256: sha(vtt),
      }),
    ]);
    expect(block).toEqual({
      remoteId: video?.id,
      remoteUrl: video?.link,
      meta: { uri: `/videos/${video?.id}` },
    });
    expect(sim.records()).toEqual([
      expect.objectContaining({ kind: 'post', id: video?.id, text: 'A walk in the hills' }),
    ]);
    // The session is saved right after the create, then after each chunk.
    expect(progress.saves[0]).toMatchObject({
      uri: `/videos/${video?.id}`,
      offset: 0,
      mediaId: 'med_walk.mp4',
    });
    expect(progress.saves.map((s) => s.offset).filter((o, i, all) => all.indexOf(o) === i)).toEqual([
      0, 4_000, 8_000, 10_500,
    ]);
  });

  it('takes SRT as a captions track and reads the language from the alt text', async () => {
    expect(
      trackOf({ mediaId: 'm', mimeType: 'text/vtt', size: 1, altText: 'pt-BR: Português (CC)', url: '' }),
    ).toEqual({
      language: 'pt-BR',
      name: 'Português (CC)',
      type: 'captions',
    });
    expect(trackOf({ mediaId: 'm', mimeType: 'text/vtt', size: 1, altText: null, url: '' })).toEqual({
      language: 'en',
      name: '',
      type: 'subtitles',
    });
    const srt = Buffer.from('1\n00:00:00,000 --> 00:00:01,000\nHello\n');
    await client.publish(
      input('With captions', {
        title: 'Captions',
        media: [
          file('c.mp4', 'video/mp4', randomBytes(2_000)),
          file('en.srt', 'application/x-subrip', srt, 'en captions'),
        ],
      }),
    );
    const [video] = await simVideos();
    expect(video?.tracks).toEqual([
      expect.objectContaining({
        type: 'captions',
        language: 'en',
        name: 'captions',
        active: true,
        sha256: sha(srt),
      }),
    ]);
  });

  it('resumes from the offset Vimeo reports after the connection drops in the middle of a chunk', async () => {
    const bytes = randomBytes(9_000);
    await switches({ dropAfterBytes: 1_500 });
    await client.publish(
      input('Dropped', { title: 'Dropped', media: [file('drop.mp4', 'video/mp4', bytes)] }),
    );
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({
      received: 9_000,
      sha256: sha(bytes),
      uploadStatus: 'complete',
      droppedConnections: 1,
    });
  });

  it('ends with continueLater near the deadline, then continues the saved session without a second video', async () => {
    const bytes = randomBytes(12_000);
    const deadline = new Date(Date.now() + 3_600_000);
    // After the second chunk is confirmed, the worker's time is up.
    const progress = memoryProgress((state) => {
      if (state.offset === 8_000) deadline.setTime(Date.now() + 1_000);
    });
    const media = [file('long.mp4', 'video/mp4', bytes)];
    const error = await failureOf(
      client.publish(input('Long one', { title: 'Long', media, progress, deadline })),
    );
    expect(error).toMatchObject({ kind: 'transient', details: { continueLater: true } });
    expect(progress.saved).toMatchObject({ offset: 8_000 });
    let [video] = await simVideos();
    expect(video).toMatchObject({ received: 8_000, uploadStatus: 'in_progress', status: 'uploading' });
    expect(progress.saved).toMatchObject({ subtitles: [], tracks: [] });

    const block = await client.publish(input('Long one', { title: 'Long', media, progress }));
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    [video] = videos;
    expect(video).toMatchObject({ received: 12_000, sha256: sha(bytes), uploadStatus: 'complete' });
    expect(block.remoteId).toBe(video?.id);
    expect(sim.records().filter((r) => r.kind === 'post')).toHaveLength(1);
  });

  it('ends with continueLater before creating anything when the deadline is already near', async () => {
    const error = await failureOf(
      client.publish(
        input('Too late', {
          title: 'Late',
          media: [file('late.mp4', 'video/mp4', randomBytes(1_000))],
          progress: memoryProgress(),
          deadline: new Date(Date.now() + 2_000),
        }),
      ),
    );
    expect(error.details.continueLater).toBe(true);
    expect(await simVideos()).toHaveLength(0);
  });

  it('continues an unfinished video of an earlier attempt even without saved progress', async () => {
    const bytes = randomBytes(8_000);
    const media = [file('again.mp4', 'video/mp4', bytes)];
    const deadline = new Date(Date.now() + 3_600_000);
    const first = memoryProgress((state) => {
      if (state.offset === 4_000) deadline.setTime(Date.now());
    });
    await failureOf(client.publish(input('Again', { title: 'Again', media, progress: first, deadline })));
    await client.publish(input('Again', { title: 'Again', media }));
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({ sha256: sha(bytes), uploadStatus: 'complete' });
  });

  it.each(['sim:timeout', 'sim:reset', 'sim:bad-gateway'])(
    'finds the video whose create answer was lost (%s) and uploads into it',
    async (token) => {
      const bytes = randomBytes(5_000);
      const block = await client.publish(
        input(`Lost answer ${token}`, { title: 'Lost', media: [file('lost.mp4', 'video/mp4', bytes)] }),
      );
      const videos = await simVideos();
      expect(videos).toHaveLength(1);
      expect(videos[0]).toMatchObject({ id: block.remoteId, sha256: sha(bytes), uploadStatus: 'complete' });
    },
  );

  it('classifies refusals, revoked tokens, outages, rate limits and quota', async () => {
    const media = () => [file('e.mp4', 'video/mp4', randomBytes(1_000))];
    expect(
      await failureOf(client.publish(input('no sim:fail', { title: 'F', media: media() }))),
    ).toMatchObject({
      kind: 'permanent',
      details: { status: 400 },
    });
    expect(
      await failureOf(client.publish(input('gone sim:reconnect', { title: 'R', media: media() }))),
    ).toMatchObject({ kind: 'reconnect', details: { status: 401 } });
    const revoked = new VimeoClient({ baseUrl: sim.url, timeoutMs: 1_500 });
    expect(
      await failureOf(
        revoked.publish(
          blockInput({ accessToken: 'revoked-1', remoteAccountId: '1' })('x', { title: 'x', media: media() }),
        ),
      ),
    ).toMatchObject({ kind: 'reconnect' });
    const flaky = await failureOf(client.publish(input('once sim:flaky', { title: 'Fl', media: media() })));
    expect(flaky).toMatchObject({ kind: 'transient', details: { status: 503 } });
    // Not unknown: the search after the 503 found no video, and the next attempt searches again first.
    expect(flaky.details.outcomeUnknown).toBeUndefined();
    await client.publish(input('once sim:flaky', { title: 'Fl', media: media() }));
    expect((await simVideos()).filter((v) => v.description === 'once sim:flaky')).toHaveLength(1);

    await switches({ freeSpaceBytes: 500 });
    const quota = await failureOf(client.publish(input('Big', { title: 'Big', media: media() })));
    expect(quota.kind).toBe('permanent');
    expect(quota.message).toMatch(/no upload quota or space left.*enough free space/);
    await switches({ freeSpaceBytes: null });

    sim.setRateLimited(120);
    const limited = await failureOf(client.publish(input('Later', { title: 'L', media: media() })));
    sim.setRateLimited(0);
    expect(limited).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
    expect(limited.details.retryAfterSeconds).toBeGreaterThan(100);
    expect(limited.details.retryAfterSeconds).toBeLessThanOrEqual(121);
  });

  it('reads X-RateLimit-Reset as a date and 5xx as an unknown outcome', () => {
    const now = new Date('2026-11-25T10:00:00Z');
    const limited = classifyVimeoFailure(
      {
        type: 'answer',
        status: 429,
        headers: { 'x-ratelimit-reset': '2026-11-25T10:05:00+00:00' },
        body: {},
      },
      now,
    );
    expect(limited.details).toMatchObject({ rateLimited: true, retryAfterSeconds: 300 });
    expect(
      classifyVimeoFailure({ type: 'answer', status: 500, headers: {}, body: { error: 'oops' } }, now)
        .details,
    ).toMatchObject({ outcomeUnknown: true });
  });

  it('deletes a video Vimeo cannot transcode and fails for good', async () => {
    await switches({ failTranscode: true });
    const error = await failureOf(
      client.publish(
        input('Broken', { title: 'Broken', media: [file('bad.mp4', 'video/mp4', randomBytes(1_000))] }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/could not transcode/);
    const [video] = await simVideos();
    expect(video?.deleted).toBe(true);
  });

  it('deletes the video when a later step is refused for good (a subtitle file over 5 MiB)', async () => {
    const progress = memoryProgress();
    const error = await failureOf(
      client.publish(
        input('Big subtitles', {
          title: 'Big subtitles',
          media: [
            file('v.mp4', 'video/mp4', randomBytes(1_000)),
            file('big.vtt', 'text/vtt', Buffer.alloc(5 * 1024 * 1024 + 1, 0x41)),
          ],
          progress,
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    const [video] = await simVideos();
    expect(video).toMatchObject({ deleted: true, uploadStatus: 'complete' });
    expect(progress.saved).toEqual({});
  });

  it('deletes the unfinished video of a saved session for another file (the video was replaced)', async () => {
    const deadline = new Date(Date.now() + 3_600_000);
    const progress = memoryProgress((state) => {
      if (state.offset === 4_000) deadline.setTime(Date.now());
    });
    const old = [file('old.mp4', 'video/mp4', randomBytes(8_000))];
    await failureOf(client.publish(input('Replaced', { title: 'Replaced', media: old, progress, deadline })));
    const fresh = randomBytes(3_000);
    await client.publish(
      input('Replaced', { title: 'Replaced', media: [file('new.mp4', 'video/mp4', fresh)], progress }),
    );
    const videos = await simVideos();
    expect(videos.map((v) => [v.deleted, v.size])).toEqual([
      [true, 8_000],
      [false, 3_000],
    ]);
  });

  it('starts again with a new video when the upload link is gone', async () => {
    const media = [file('gone.mp4', 'video/mp4', randomBytes(8_000))];
    const deadline = new Date(Date.now() + 3_600_000);
    const progress = memoryProgress((state) => {
      if (state.offset === 4_000) deadline.setTime(Date.now());
    });
    await failureOf(client.publish(input('Gone', { title: 'Gone', media, progress, deadline })));
    const [video] = await simVideos();
    await client.delete({ credentials, block: { remoteId: video?.id as string, remoteUrl: '', meta: {} } });
    const error = await failureOf(client.publish(input('Gone', { title: 'Gone', media, progress })));
    expect(error.kind).toBe('transient');
    expect(progress.saved).toEqual({});
    await client.publish(input('Gone', { title: 'Gone', media, progress }));
    expect((await simVideos()).filter((v) => !v.deleted)).toHaveLength(1);
  });

  it('keeps a video whose upload Vimeo completed when its link has expired since', async () => {
    const bytes = randomBytes(6_000);
    const media = [file('done.mp4', 'video/mp4', bytes)];
    const progress = memoryProgress();
    const first = await client.publish(input('Done', { title: 'Done', media, progress }));
    // As if the last chunk arrived but its answer did not: the saved offset is behind.
    await progress.save({ ...progress.saved, offset: 4_000 });
    await switches({ expireUploadLinks: true });
    const again = await client.publish(input('Done', { title: 'Done', media, progress }));
    expect(again).toEqual(first);
    const videos = await simVideos();
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({ deleted: false, sha256: sha(bytes) });
  });

  it('edits name, description and privacy, deletes (twice is fine), looks up and reads metrics', async () => {
    const sent = new Date();
    const block = await client.publish(
      input('Original text', { title: 'Original', media: [file('m.mp4', 'video/mp4', randomBytes(1_000))] }),
    );
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Original text',
        parent: null,
        since: sent,
      }),
    ).toEqual(block);
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Other text',
        parent: null,
        since: sent,
      }),
    ).toBeNull();
    // With the progress the sends saved, the video is read by its uri (whatever its text).
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Other text',
        parent: null,
        since: sent,
        saved: { uri: `/videos/${block.remoteId}` },
      }),
    ).toEqual(block);
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Original text',
        parent: null,
        since: sent,
        saved: { uri: '/videos/1' },
      }),
    ).toBeNull();
    // Its upload is complete, but a subtitle track is not done yet: the next attempt finishes it.
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Original text',
        parent: null,
        since: sent,
        saved: { uri: `/videos/${block.remoteId}`, subtitles: ['med_a.vtt'], tracks: [] },
      }),
    ).toBeNull();
    const metrics = await client.metrics({ credentials, block });
    expect(Object.keys(metrics).sort()).toEqual(['comments', 'likes', 'views']);
    expect(typeof metrics.views).toBe('number');

    await client.edit({
      credentials,
      block,
      content: 'New text',
      title: 'Renamed',
      options: { privacy: 'unlisted' },
    });
    let [video] = await simVideos();
    expect(video).toMatchObject({
      name: 'Renamed',
      description: 'New text',
      privacy: 'unlisted',
      password: null,
    });
    await client.delete({ credentials, block });
    await client.delete({ credentials, block });
    [video] = await simVideos();
    expect(video?.deleted).toBe(true);
    expect(sim.records().map((r) => r.kind)).toEqual(['post', 'edit', 'delete']);
  });

  it('requires the scope of each data route from tokens its OAuth half issued (403, error code 3200), and Herald asks for them all', async () => {
    const tokenWith = async (granted: string[]) => {
      const issued = await simOAuthToken({
        simUrl: sim.url,
        network: 'vimeo',
        authorizePath: '/oauth/authorize',
        tokenPath: '/oauth/access_token',
        scope: VIMEO_SCOPES.join(' '),
        simScopes: granted.join(' '),
      });
      // The OAuth half grants only what was asked and consented to.
      expect(issued.scope.split(' ').sort()).toEqual([...granted].sort());
      return { accessToken: issued.accessToken, remoteAccountId: 'scope-tester' };
    };
    // With every scope Herald asks for: publish, look up, read metrics, edit and delete all work.
    const full = await tokenWith(VIMEO_SCOPES);
    const sent = new Date();
    const block = await client.publish({
      ...input('Scoped', {
        title: 'Scoped',
        options: { privacy: 'nobody' },
        media: [
          file('s.mp4', 'video/mp4', randomBytes(1_000)),
          file('s.vtt', 'text/vtt', Buffer.from('WEBVTT\n'), 'en'),
        ],
      }),
      credentials: full,
    });
    expect(
      await client.lookup({
        credentials: full,
        idempotencyKey: 'k',
        content: 'Scoped',
        parent: null,
        since: sent,
      }),
    ).toEqual(block);
    await client.metrics({ credentials: full, block });
    await client.edit({ credentials: full, block, content: 'Scoped, edited', title: 'Scoped' });

    // Without `upload`: Vimeo's refusal, and the channel must be reconnected; nothing is created.
    const noUpload = await tokenWith(VIMEO_SCOPES.filter((s) => s !== 'upload'));
    const raw = await fetch(`${sim.url}/me/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${noUpload.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ upload: { approach: 'tus', size: 10 } }),
    });
    expect(raw.status).toBe(403);
    expect(await raw.json()).toMatchObject({
      error: 'Your access token does not have the "upload" scope.',
      error_code: 3200,
    });
    const refused = await failureOf(
      client.publish({
        ...input('No upload', { media: [file('n.mp4', 'video/mp4', randomBytes(500))] }),
        credentials: noUpload,
      }),
    );
    expect(refused).toMatchObject({ kind: 'reconnect', details: { status: 403 } });
    expect(refused.message).toMatch(/"upload" scope/);
    expect((await simVideos()).filter((v) => !v.deleted)).toHaveLength(1);

    // Without `private`: a private video is neither listed nor read.
    const noPrivate = await tokenWith(VIMEO_SCOPES.filter((s) => s !== 'private'));
    expect(
      await client.lookup({
        credentials: noPrivate,
        idempotencyKey: 'k',
        content: 'Scoped, edited',
        parent: null,
        since: sent,
      }),
    ).toBeNull();
    expect((await failureOf(client.metrics({ credentials: noPrivate, block }))).message).toMatch(
      /"private" scope/,
    );
    // Without `edit` or `delete`: refused, the video unchanged.
    const readOnly = await tokenWith(['public', 'private']);
    expect((await failureOf(client.edit({ credentials: readOnly, block, content: 'x' }))).kind).toBe(
      'reconnect',
    );
    expect((await failureOf(client.delete({ credentials: readOnly, block }))).kind).toBe('reconnect');
    expect((await simVideos()).find((v) => v.id === block.remoteId)).toMatchObject({
      description: 'Scoped, edited',
      deleted: false,
    });
    // Without `public`: not even /me.
    const none = await tokenWith(['upload']);
    const me = await fetch(`${sim.url}/me`, { headers: { authorization: `Bearer ${none.accessToken}` } });
    expect(me.status).toBe(403);
    await client.delete({ credentials: full, block });
  });

  it('refuses what tus refuses: a wrong offset, no Tus-Resumable, another content type', async () => {
    const created = await fetch(`${sim.url}/me/videos`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ upload: { approach: 'tus', size: 10 }, name: 'raw' }),
    });
    expect(created.status).toBe(200);
    const link = ((await created.json()) as { upload: { upload_link: string } }).upload.upload_link;
    const patch = (headers: Record<string, string>) =>
      fetch(link, { method: 'PATCH', headers, body: Buffer.alloc(4) }).then((r) => r.status);
    const tus = { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream' };
    expect(await patch({ ...tus, 'upload-offset': '3' })).toBe(409);
    expect(await patch({ 'content-type': tus['content-type'], 'upload-offset': '0' })).toBe(412);
    expect(await patch({ ...tus, 'content-type': 'application/octet-stream', 'upload-offset': '0' })).toBe(
      415,
    );
    expect(await patch({ ...tus, 'upload-offset': '0' })).toBe(204);
    const head = await fetch(link, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.headers.get('upload-offset')).toBe('4');
    expect(head.headers.get('upload-length')).toBe('10');
    expect(await patch({ ...tus, 'upload-offset': '4', 'content-length': '4' })).toBe(204);
    const over = await fetch(link, {
      method: 'PATCH',
      headers: { ...tus, 'upload-offset': '8' },
      body: Buffer.alloc(4),
    });
    expect(over.status).toBe(413);
  });
});
