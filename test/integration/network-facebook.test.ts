import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  classifyFacebookFailure,
  FacebookClient,
  regainSeconds,
} from '../../functions/platforms/facebook/client.ts';
import { GRAPH_VERSION } from '../../functions/platforms/facebook/oauth.ts';
import type { MediaForNetwork, RemoteBlock } from '../../functions/ports/network-client.ts';
import {
  type FacebookSimulator,
  type SimFacebookMedia,
  startFacebookSimulator,
} from '../../simulators/facebook/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

const PAGE = '104857600012345';
const credentials = { accessToken: 'fb-page-token', remoteAccountId: PAGE };
const input = blockInput(credentials);

let sim: FacebookSimulator;
let client: FacebookClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl: string;
const stored = new Map<string, Buffer>();

/** A file served like a presigned S3 GET (as `application/octet-stream`: Facebook reads the bytes). */
const file = (
  name: string,
  mimeType: string,
  bytes: Buffer,
  altText: string | null = null,
): MediaForNetwork => {
  stored.set(name, bytes);
  return { mediaId: `med_${name}`, mimeType, size: bytes.length, altText, url: `${filesUrl}/${name}` };
};

const simPosts = async () =>
  (
    (await (await fetch(`${sim.url}/_sim/facebook/posts`)).json()) as {
      data: {
        id: string;
        message: string;
        link: string | null;
        state: string;
        deleted: boolean;
        attachments: SimFacebookMedia[];
        comments: { id: string; message: string; deleted: boolean }[];
      }[];
    }
  ).data;

const graph = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  fetch(`${sim.url}/${GRAPH_VERSION}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.token ?? credentials.accessToken}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });

const unique = (label: string) => `${label} ${randomBytes(3).toString('hex')}`;

/** Waits (polling) until `done()` holds; fails after `ms`. */
const waitUntil = async (done: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

beforeAll(async () => {
  sim = await startFacebookSimulator({ holdMs: 5_000 });
  client = new FacebookClient({ baseUrl: sim.url, timeoutMs: 1_500, videoWaitMs: 3_000, videoPollMs: 50 });
  files = await startFileServer(servedFrom(stored));
  filesUrl = files.url;
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.reset();
});

/**
 * A block's progress as the engine keeps it with its claim: the last state saved, read back by the
 * next attempt (`kept.saved` is what the claim holds now).
 */
const claimProgress = () => {
  const kept: { saved: Record<string, unknown> | null } = { saved: null };
  const progress = {
    get saved() {
      return kept.saved;
    },
    save: async (state: Record<string, unknown>) => {
      kept.saved = state;
    },
  };
  return { kept, progress };
};

describe('Facebook client against the Graph API simulator: publishing', () => {
  it('posts the first block to the page feed and the others as comments on it', async () => {
    const post = await client.publish(input('Main post'));
    const one = await client.publish(input('Comment one', { parent: { block: post, root: post } }));
    const two = await client.publish(input('Comment two', { parent: { block: one, root: post } }));
    expect(post.remoteId).toMatch(new RegExp(`^${PAGE}_\\d+$`));
    expect(post).toEqual({
      remoteId: post.remoteId,
      remoteUrl: `https://www.facebook.com/${post.remoteId}`,
      meta: { postId: post.remoteId },
    });
    for (const comment of [one, two]) {
      expect(comment.meta).toEqual({ commentId: comment.remoteId, postId: post.remoteId });
      expect(comment.remoteUrl).toBe(
        `https://www.facebook.com/${post.remoteId}?comment_id=${encodeURIComponent(comment.remoteId)}`,
      );
    }
    expect(
      sim.records().map(({ kind, id, parentId, text, account }) => ({ kind, id, parentId, text, account })),
    ).toEqual([
      { kind: 'post', id: post.remoteId, parentId: null, text: 'Main post', account: PAGE },
      { kind: 'comment', id: one.remoteId, parentId: post.remoteId, text: 'Comment one', account: PAGE },
      // Both comments sit on the first post (continuation: comment), not on each other.
      { kind: 'comment', id: two.remoteId, parentId: post.remoteId, text: 'Comment two', account: PAGE },
    ]);
  });

  it('shares the link option with a text post', async () => {
    const post = await client.publish(input('Read this', { options: { link: 'https://example.com/a' } }));
    const [stored] = await simPosts();
    expect(stored).toMatchObject({ id: post.remoteId, message: 'Read this', link: 'https://example.com/a' });
  });

  it('refuses a file on a comment without calling Facebook', async () => {
    const post = await client.publish(input('Has a comment'));
    const error = await failureOf(
      client.publish(
        input('c', {
          parent: { block: post, root: post },
          media: [file('c.png', 'image/png', mediaFiles.png())],
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/comments carry text only/);
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });

  it('refuses a reel without a video without calling Facebook', async () => {
    const error = await failureOf(client.publish(input('r', { postType: 'reel' })));
    expect(error.kind).toBe('permanent');
    expect(sim.records()).toEqual([]);
  });
});

describe('Facebook media: Facebook pulls the files from their URLs', () => {
  it('posts one photo through /photos with its caption and alt text', async () => {
    const png = mediaFiles.png(5_000);
    const block = await client.publish(
      input('One picture', { media: [file('one.png', 'image/png', png, 'A red square')] }),
    );
    const [post] = await simPosts();
    expect(post).toMatchObject({ id: block.remoteId, message: 'One picture', state: 'live' });
    expect(post?.attachments).toEqual([
      expect.objectContaining({
        kind: 'photo',
        size: png.length,
        contentType: 'image/png',
        altText: 'A red square',
        published: true,
        postId: block.remoteId,
      }),
    ]);
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });

  it('posts several photos uploaded unpublished, then attached to one feed post, each once', async () => {
    const block = await client.publish(
      input('Three pictures', {
        media: [
          file('a.jpg', 'image/jpeg', mediaFiles.jpeg(2_000), 'first'),
          file('b.png', 'image/png', mediaFiles.png(3_000)),
          file('c.gif', 'image/gif', mediaFiles.gif(), 'third'),
        ],
      }),
    );
    const [post] = await simPosts();
    expect(post?.id).toBe(block.remoteId);
    expect(post?.attachments.map((m) => [m.contentType, m.altText, m.published, m.postId])).toEqual([
      ['image/jpeg', 'first', false, block.remoteId],
      ['image/png', null, false, block.remoteId],
      ['image/gif', 'third', false, block.remoteId],
    ]);
    expect(sim.media()).toHaveLength(3);
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
    // An unpublished photo is attached once: Facebook refuses it on a second post.
    const again = await graph(`/${PAGE}/feed`, {
      method: 'POST',
      body: { message: 'reuse', attached_media: [{ media_fbid: post?.attachments[0]?.id }] },
    });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { code: number } }).error.code).toBe(100);
  });

  it('refuses a photo whose URL does not answer, and posts nothing', async () => {
    const missing: MediaForNetwork = {
      mediaId: 'med_gone',
      mimeType: 'image/png',
      size: 10,
      altText: null,
      url: `${filesUrl}/not-there.png`,
    };
    const error = await failureOf(client.publish(input('Gone picture', { media: [missing] })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/\(#324\)/);
    expect(error.details.status).toBe(400);
    expect(sim.records()).toEqual([]);
    expect(await simPosts()).toEqual([]);
  });

  it('posts a video once Facebook has processed it', async () => {
    const mp4 = mediaFiles.mp4(50_000);
    const block = await client.publish(input('A clip', { media: [file('clip.mp4', 'video/mp4', mp4)] }));
    const videoId = block.meta.videoId as string;
    expect(block.remoteId).toBe(`${PAGE}_${videoId}`);
    const [post] = await simPosts();
    expect(post).toMatchObject({ id: block.remoteId, message: 'A clip', state: 'live' });
    expect(post?.attachments).toEqual([
      expect.objectContaining({ kind: 'video', status: 'ready', size: mp4.length, contentType: 'video/mp4' }),
    ]);
    // Comments go on the video post like on any other.
    const comment = await client.publish(input('about the clip', { parent: { block, root: block } }));
    expect(comment.meta.postId).toBe(block.remoteId);
  });

  it('fails for good with Facebook’s reason when the video cannot be processed', async () => {
    sim.setSwitches({ videoFails: true });
    const error = await failureOf(
      client.publish(input('Broken clip', { media: [file('bad.mp4', 'video/mp4', mediaFiles.mp4(10_000))] })),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/could not process the video: .*unsupported codec/);
    expect((await simPosts())[0]?.state).toBe('failed');
    const listed = await graph(`/${PAGE}/posts?fields=id,message`);
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('a video whose URL does not answer fails for good', async () => {
    const error = await failureOf(
      client.publish(
        input('No clip', {
          media: [
            { mediaId: 'm', mimeType: 'video/mp4', size: 1, altText: null, url: `${filesUrl}/none.mp4` },
          ],
        }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/could not be downloaded/);
  });

  it('a failure while reading a posted video’s status leaves the outcome unknown; lookup follows the saved id and finds it once processed', async () => {
    sim.setSwitches({ videoProcessingMs: 3_000 });
    const saved: Record<string, unknown>[] = [];
    const progress = { saved: null, save: async (state: Record<string, unknown>) => void saved.push(state) };
    const since = new Date();
    const publishing = failureOf(
      client.publish(
        input('Throttled clip', { media: [file('thr.mp4', 'video/mp4', mediaFiles.mp4(5_000))], progress }),
      ),
    );
    const until = Date.now() + 10_000;
    while (sim.media().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    sim.setRateLimited(600);
    const error = await publishing;
    sim.setRateLimited(0);
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBe(true);
    const videoId = sim.media()[0]?.id;
    expect(saved).toEqual([
      { product: 'video', videoId, key: 'med_thr.mp4', waitingSince: expect.any(String) },
    ]);
    const lookup = () =>
      client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Throttled clip',
        parent: null,
        since,
        saved: saved[0] as Record<string, unknown>,
      });
    // Still processing: not the published block yet; the engine looks again later.
    const early = await failureOf(lookup());
    expect(sim.media()[0]?.status).toBe('processing');
    expect(early.kind).toBe('transient');
    expect(early.message).toMatch(/still processing video/);
    await waitUntil(() => sim.media()[0]?.status === 'ready');
    const found = await lookup();
    expect(found?.remoteId).toBe(`${PAGE}_${videoId}`);
    // A withdrawn (deleted) video is not found: the block may be sent again.
    await graph(`/${videoId}`, { method: 'DELETE' });
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'x',
        parent: null,
        since,
        saved: saved[0] as Record<string, unknown>,
      }),
    ).toBeNull();
  });

  it('a feed video whose processing takes longer than one attempt is uploaded once and published once', async () => {
    sim.setSwitches({ videoProcessingMs: 1_500 });
    const slow = new FacebookClient({
      baseUrl: sim.url,
      timeoutMs: 1_500,
      videoWaitMs: 300,
      videoPollMs: 50,
    });
    const clip = file('long.mp4', 'video/mp4', mediaFiles.mp4(12_000));
    const { kept, progress } = claimProgress();
    const attempt = () => slow.publish(input('Long clip', { media: [clip], progress }));
    const first = await failureOf(attempt());
    expect(first.kind).toBe('transient');
    expect(first.details.continueLater).toBe(true);
    expect(first.details.outcomeUnknown).toBeUndefined();
    const videoId = sim.media()[0]?.id;
    expect(kept.saved).toEqual({
      product: 'video',
      videoId,
      key: 'med_long.mp4',
      waitingSince: expect.any(String),
    });
    // The engine's next invocations wait on the same video until Facebook has processed it.
    let block: RemoteBlock | null = null;
    while (!block) {
      block = await attempt().catch((e: unknown) => {
        if ((e as { details?: { continueLater?: boolean } }).details?.continueLater) return null;
        throw e;
      });
    }
    expect(block).toMatchObject({ remoteId: `${PAGE}_${videoId}`, meta: { videoId } });
    expect(sim.media().map((m) => m.id)).toEqual([videoId]);
    expect((await simPosts()).map((p) => [p.id, p.state, p.deleted])).toEqual([
      [block.remoteId, 'live', false],
    ]);
  });

  it('a feed video still processing after processingGiveUpMs is left to Facebook, which posts it: never uploaded twice', async () => {
    sim.setSwitches({ videoProcessingMs: 60_000 });
    const giving = new FacebookClient({
      baseUrl: sim.url,
      timeoutMs: 1_500,
      videoWaitMs: 100,
      videoPollMs: 50,
      processingGiveUpMs: 400,
    });
    const { progress } = claimProgress();
    const clip = file('endless.mp4', 'video/mp4', mediaFiles.mp4(5_000));
    const attempt = () => giving.publish(input('Endless clip', { media: [clip], progress }));
    let block: RemoteBlock | null = null;
    while (!block) {
      block = await attempt().catch((e: unknown) => {
        if ((e as { details?: { continueLater?: boolean } }).details?.continueLater) return null;
        throw e;
      });
    }
    const [video] = sim.media();
    expect(sim.media()).toHaveLength(1);
    expect(block).toMatchObject({ remoteId: `${PAGE}_${video?.id}`, meta: { videoId: video?.id } });
    expect((await simPosts()).map((p) => [p.state, p.deleted])).toEqual([['processing', false]]);
  });

  it('a feed video whose worker died after the upload resumes from the saved video id: never uploaded twice', async () => {
    sim.setSwitches({ videoProcessingMs: 200 });
    const clip = file('crash.mp4', 'video/mp4', mediaFiles.mp4(7_000));
    let saved: Record<string, unknown> | null = null;
    let dies = true;
    const progress = {
      get saved() {
        return saved;
      },
      save: async (state: Record<string, unknown>) => {
        saved = state;
        // The worker dies right after the save (the claim keeps what was saved).
        if (dies) throw new Error('worker died');
      },
    };
    await expect(client.publish(input('Crash clip', { media: [clip], progress }))).rejects.toThrow(
      'worker died',
    );
    dies = false;
    const block = await client.publish(input('Crash clip', { media: [clip], progress }));
    const videoId = (saved as unknown as { videoId: string }).videoId;
    expect(block.meta.videoId).toBe(videoId);
    expect(sim.media().map((m) => m.id)).toEqual([videoId]);
    expect((await simPosts()).map((p) => [p.state, p.deleted])).toEqual([['live', false]]);
  });

  it('a feed video that fails processing after a wait across attempts fails for good and is not resumed', async () => {
    sim.setSwitches({ videoProcessingMs: 600, videoFails: true });
    const slow = new FacebookClient({
      baseUrl: sim.url,
      timeoutMs: 1_500,
      videoWaitMs: 200,
      videoPollMs: 50,
    });
    const { kept, progress } = claimProgress();
    const clip = file('fails.mp4', 'video/mp4', mediaFiles.mp4(5_000));
    let error = await failureOf(slow.publish(input('Failing clip', { media: [clip], progress })));
    while (error.details.continueLater) {
      error = await failureOf(slow.publish(input('Failing clip', { media: [clip], progress })));
    }
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/unsupported codec/);
    expect(sim.media()).toHaveLength(1);
    // Nothing saved is resumed: a later round uploads afresh.
    expect(kept.saved).toEqual({});
  });

  it('withdraws a video still processing after the wait and answers transient, so the retry posts it once', async () => {
    sim.setSwitches({ videoProcessingMs: 60_000 });
    const slow = new FacebookClient({
      baseUrl: sim.url,
      timeoutMs: 1_500,
      videoWaitMs: 300,
      videoPollMs: 50,
    });
    const clip = file('slow.mp4', 'video/mp4', mediaFiles.mp4(10_000));
    const error = await failureOf(slow.publish(input('Slow clip', { media: [clip] })));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    const [withdrawn] = await simPosts();
    expect(withdrawn?.deleted).toBe(true);
    sim.setSwitches({ videoProcessingMs: 50 });
    const block = await slow.publish(input('Slow clip', { media: [clip] }));
    const live = (await simPosts()).filter((p) => !p.deleted && p.state !== 'failed');
    expect(live.map((p) => p.id)).toEqual([block.remoteId]);
  });
});

describe('Facebook reels and stories: upload sessions, the file pulled from its URL', () => {
  const progress = () => {
    const saved: Record<string, unknown>[] = [];
    return {
      saved,
      progress: {
        saved: null,
        save: async (state: Record<string, unknown>) => {
          saved.push(state);
        },
      },
    };
  };

  it('publishes a reel: start, upload by file_url, processed, then finished with its description', async () => {
    const mp4 = mediaFiles.mp4(30_000);
    const p = progress();
    const block = await client.publish(
      input('My reel', {
        postType: 'reel',
        media: [file('reel.mp4', 'video/mp4', mp4)],
        progress: p.progress,
      }),
    );
    const videoId = block.meta.videoId as string;
    expect(block).toEqual({
      remoteId: `${PAGE}_${videoId}`,
      remoteUrl: `https://www.facebook.com/reel/${videoId}`,
      meta: { postId: `${PAGE}_${videoId}`, videoId, postType: 'reel' },
    });
    // The video is saved before the finish, and marked finished after it.
    const waitingSince = expect.any(String);
    expect(p.saved).toEqual([
      { product: 'reel', videoId, key: 'med_reel.mp4', finished: false, waitingSince },
      { product: 'reel', videoId, key: 'med_reel.mp4', finished: true, waitingSince },
    ]);
    const [post] = await simPosts();
    expect(post).toMatchObject({ id: block.remoteId, message: 'My reel', state: 'live' });
    expect(post?.attachments).toEqual([
      expect.objectContaining({ kind: 'video', product: 'reel', status: 'ready', size: mp4.length }),
    ]);
    // Comments follow a reel; its words are edited as the video's description.
    await client.publish(input('on the reel', { parent: { block, root: block } }));
    await client.edit({ credentials, block, content: 'My reel, edited' });
    expect((await simPosts())[0]?.message).toBe('My reel, edited');
  });

  it('a reel reads upload_complete (processing not_started) until it is finished: Herald finishes it then, once, and it goes live once processed', async () => {
    // Graph as observed: an uploaded session video is never `ready` before `upload_phase=finish`.
    const started = (await (
      await graph(`/${PAGE}/video_reels`, { method: 'POST', body: { upload_phase: 'start' } })
    ).json()) as { video_id: string; upload_url: string };
    const pulled = await fetch(started.upload_url, {
      method: 'POST',
      headers: {
        authorization: `OAuth ${credentials.accessToken}`,
        file_url: file('probe.mp4', 'video/mp4', mediaFiles.mp4()).url,
      },
    });
    expect(pulled.status).toBe(200);
    const status = async () =>
      ((await (await graph(`/${started.video_id}?fields=status`)).json()) as { status: unknown }).status;
    expect(await status()).toEqual({
      video_status: 'upload_complete',
      uploading_phase: { status: 'complete' },
      processing_phase: { status: 'not_started' },
      publishing_phase: { status: 'not_started' },
    });
    // Herald's reel: finished on upload_complete, then followed until Facebook has published it.
    sim.setSwitches({ videoProcessingMs: 400 });
    const block = await client.publish(
      input('Finished reel', { postType: 'reel', media: [file('fin.mp4', 'video/mp4', mediaFiles.mp4())] }),
    );
    expect(sim.records().map((r) => [r.kind, r.text])).toEqual([['post', 'Finished reel']]);
    const reel = (await simPosts()).find((p) => p.id === block.remoteId);
    expect(reel).toMatchObject({ message: 'Finished reel', state: 'live' });
    expect(reel?.attachments[0]).toMatchObject({ product: 'reel', status: 'ready' });
    expect(sim.media().filter((m) => m.kind === 'video' && m.product === 'reel')).toHaveLength(2);
  });

  it('the reels cap (30 a day per page; 2 here) is a rate limit until the oldest reel leaves the 24 hours', async () => {
    sim.setSwitches({ reelsPerDay: 2, videoProcessingMs: 10 });
    const reel = (n: number) =>
      client.publish(
        input(`Reel ${n}`, { postType: 'reel', media: [file(`cap${n}.mp4`, 'video/mp4', mediaFiles.mp4())] }),
      );
    await reel(1);
    await reel(2);
    const error = await failureOf(reel(3));
    expect(error.kind).toBe('transient');
    expect(error.details.rateLimited).toBe(true);
    expect(error.details.retryAfterSeconds).toBeGreaterThan(23 * 3600);
    expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(24 * 3600);
    expect(sim.records().map((r) => r.text)).toEqual(['Reel 1', 'Reel 2']);
    // Feed posts are not reels.
    await client.publish(input('A plain post'));
  });

  it('a reel whose video cannot be processed is never published', async () => {
    sim.setSwitches({ videoFails: true });
    const error = await failureOf(
      client.publish(
        input('Bad reel', { postType: 'reel', media: [file('r2.mp4', 'video/mp4', mediaFiles.mp4())] }),
      ),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/unsupported codec/);
    // Finished, then failed in processing: Facebook never shows it.
    expect((await simPosts()).map((p) => p.state)).toEqual(['failed']);
    const listed = await graph(`/${PAGE}/posts?fields=id,message`);
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('a reel still processing after the wait continues later with its saved video: uploaded and finished once, published once', async () => {
    sim.setSwitches({ videoProcessingMs: 1_500 });
    const slow = new FacebookClient({
      baseUrl: sim.url,
      timeoutMs: 1_500,
      videoWaitMs: 300,
      videoPollMs: 50,
    });
    const clip = file('slow-reel.mp4', 'video/mp4', mediaFiles.mp4(8_000));
    const { kept, progress } = claimProgress();
    const attempt = () => slow.publish(input('Slow reel', { postType: 'reel', media: [clip], progress }));
    const error = await failureOf(attempt());
    expect(error.kind).toBe('transient');
    expect(error.details.continueLater).toBe(true);
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(kept.saved).toMatchObject({ product: 'reel', finished: true });
    // The engine's next invocations carry on with the saved video until Facebook has published it.
    let block: RemoteBlock | null = null;
    while (!block) {
      block = await attempt().catch((e: unknown) => {
        if ((e as { details?: { continueLater?: boolean } }).details?.continueLater) return null;
        throw e;
      });
    }
    expect(block.meta.videoId).toBe((kept.saved as unknown as { videoId: string }).videoId);
    expect(sim.media().filter((m) => m.kind === 'video')).toHaveLength(1);
    expect(sim.records().map((r) => [r.kind, r.text])).toEqual([['post', 'Slow reel']]);
    expect((await simPosts()).map((p) => p.state)).toEqual(['live']);
  });

  it('a reel whose finish never landed is finished on the next attempt, with the saved video', async () => {
    const clip = file('unfinished.mp4', 'video/mp4', mediaFiles.mp4(6_000));
    const { kept, progress } = claimProgress();
    // The page's feed limit refuses the finish: the uploaded video waits, saved with the claim.
    sim.setSwitches({ feedLimitMinutes: 5 });
    const error = await failureOf(
      client.publish(input('Capped reel', { postType: 'reel', media: [clip], progress })),
    );
    expect(error.details.rateLimited).toBe(true);
    expect(kept.saved).toMatchObject({ product: 'reel', finished: false });
    sim.setSwitches({ feedLimitMinutes: 0 });
    const block = await client.publish(input('Capped reel', { postType: 'reel', media: [clip], progress }));
    expect(block.meta.videoId).toBe((kept.saved as unknown as { videoId: string }).videoId);
    expect(sim.media().filter((m) => m.kind === 'video')).toHaveLength(1);
    expect(sim.records().map((r) => [r.kind, r.text])).toEqual([['post', 'Capped reel']]);
  });

  it('stops waiting for processing before the invocation’s deadline', async () => {
    sim.setSwitches({ videoProcessingMs: 60_000 });
    const patient = new FacebookClient({
      baseUrl: sim.url,
      timeoutMs: 1_000,
      videoWaitMs: 60_000,
      videoPollMs: 50,
    });
    const clip = file('deadline.mp4', 'video/mp4', mediaFiles.mp4(4_000));
    const deadline = new Date(Date.now() + 2_500);
    const saved: Record<string, unknown>[] = [];
    const progress = { saved: null, save: async (state: Record<string, unknown>) => void saved.push(state) };
    const reel = await failureOf(
      patient.publish(input('Deadline reel', { postType: 'reel', media: [clip], deadline, progress })),
    );
    expect(reel.kind).toBe('transient');
    expect(reel.details.continueLater).toBe(true);
    expect(saved.at(-1)).toMatchObject({ product: 'reel', finished: true });
    const error = await failureOf(
      patient.publish(input('Deadline video', { postType: null, media: [clip], deadline })),
    );
    expect(error.kind).toBe('transient');
    expect(error.message).toMatch(/stopped waiting/);
    expect((await simPosts()).filter((p) => !p.deleted).map((p) => [p.message, p.state])).toEqual([
      ['Deadline reel', 'processing'],
    ]);
  }, 20_000);

  it('a reel whose finish answer was lost is followed through the video id saved before it, and found once Facebook has published it', async () => {
    sim.setSwitches({ videoProcessingMs: 2_000 });
    const p = progress();
    const since = new Date();
    const error = await failureOf(
      client.publish(
        input('Lost reel sim:reset', {
          postType: 'reel',
          media: [file('lost-reel.mp4', 'video/mp4', mediaFiles.mp4())],
          progress: p.progress,
        }),
      ),
    );
    expect(error.details.outcomeUnknown).toBe(true);
    const saved = p.saved[0] as Record<string, unknown>;
    const lookup = () =>
      client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Lost reel sim:reset',
        parent: null,
        since,
        saved,
      });
    // Finished, still processing: not published yet.
    const early = await failureOf(lookup());
    expect((await simPosts()).map((post) => post.state)).toEqual(['processing']);
    expect(early.kind).toBe('transient');
    await waitUntil(async () => (await simPosts())[0]?.state === 'live');
    const found = await lookup();
    expect(found?.remoteId).toBe(`${PAGE}_${saved.videoId}`);
    expect(sim.records().map((r) => r.id)).toEqual([found?.remoteId]);
  });

  it('a video story whose finish answer was lost is not published while Facebook processes it; found once live', async () => {
    sim.setSwitches({ videoProcessingMs: 2_000 });
    // What the client did before its finish answer was lost: start, upload, save, finish.
    const start = (await (
      await graph(`/${PAGE}/video_stories`, { method: 'POST', body: { upload_phase: 'start' } })
    ).json()) as { video_id: string; upload_url: string };
    const upload = await fetch(start.upload_url, {
      method: 'POST',
      headers: {
        authorization: `OAuth ${credentials.accessToken}`,
        file_url: file('lost-story.mp4', 'video/mp4', mediaFiles.mp4(4_000)).url,
      },
    });
    expect(upload.status).toBe(200);
    const since = new Date();
    const saved = { product: 'story', videoId: start.video_id, key: 'med_lost-story.mp4', finished: false };
    const finish = await graph(`/${PAGE}/video_stories`, {
      method: 'POST',
      body: { upload_phase: 'finish', video_id: start.video_id },
    });
    expect(finish.status).toBe(200);
    const lookup = () =>
      client.lookup({ credentials, idempotencyKey: 'k', content: '', parent: null, since, saved });
    const early = await failureOf(lookup());
    expect((await simPosts()).map((post) => post.state)).toEqual(['processing']);
    expect(early.kind).toBe('transient');
    await waitUntil(async () => (await simPosts())[0]?.state === 'live');
    const found = await lookup();
    expect(found).toMatchObject({ remoteId: (await simPosts())[0]?.id, meta: { postType: 'story' } });
  });

  it('a lost video whose processing failed is not the block: the lookup finds nothing, and the next attempt on the saved video fails for good with Facebook’s reason', async () => {
    sim.setSwitches({ videoProcessingMs: 1_000, videoFails: true });
    const p = claimProgress();
    const since = new Date();
    const content = unique('failing clip');
    const media = [file('fails.mp4', 'video/mp4', mediaFiles.mp4(3_000))];
    const publishing = failureOf(client.publish(input(content, { media, progress: p.progress })));
    await waitUntil(() => sim.media().length > 0);
    // The status read after the upload is throttled: the outcome is unknown, the video id saved.
    sim.setRateLimited(600);
    const lost = await publishing;
    sim.setRateLimited(0);
    expect(lost.details.outcomeUnknown).toBe(true);
    await waitUntil(() => sim.media()[0]?.status === 'error');
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content,
        parent: null,
        since,
        saved: p.kept.saved,
      }),
    ).toBeNull();
    const again = await failureOf(client.publish(input(content, { media, progress: p.progress })));
    expect(again.kind).toBe('permanent');
    expect(again.message).toMatch(/could not process the video: .*unsupported codec/);
    expect(p.kept.saved).toEqual({});
    expect(sim.media()).toHaveLength(1);
  });

  it('a video story and a photo story (with its alt text); stories carry no text and cannot be edited', async () => {
    const video = await client.publish(
      input('', { postType: 'story', media: [file('story.mp4', 'video/mp4', mediaFiles.mp4(6_000))] }),
    );
    const photo = await client.publish(
      input('', {
        postType: 'story',
        media: [file('story.jpg', 'image/jpeg', mediaFiles.jpeg(3_000), 'Story alt')],
      }),
    );
    expect(video.meta.postType).toBe('story');
    expect(photo.meta.postType).toBe('story');
    const stories = (await (await graph(`/${PAGE}/stories`)).json()) as {
      data: { post_id: string; media_type: string; media_id: string }[];
    };
    expect(stories.data.map((s) => [s.post_id, s.media_type, s.media_id])).toEqual([
      [photo.remoteId, 'photo', photo.meta.mediaId],
      [video.remoteId, 'video', video.meta.mediaId],
    ]);
    expect(sim.media().find((m) => m.id === photo.meta.mediaId)).toMatchObject({
      altText: 'Story alt',
      product: 'story',
    });
    // Stories are not among the page's posts.
    expect(((await (await graph(`/${PAGE}/posts`)).json()) as { data: unknown[] }).data).toEqual([]);
    expect((await failureOf(client.edit({ credentials, block: photo, content: 'x' }))).kind).toBe(
      'permanent',
    );
    await client.delete({ credentials, block: photo });
    const text = await failureOf(
      client.publish(
        input('words', { postType: 'story', media: [file('s.jpg', 'image/jpeg', mediaFiles.jpeg())] }),
      ),
    );
    expect(text.kind).toBe('permanent');
    expect(text.message).toMatch(/stories carry no text/);
  });

  it('a photo story whose answer was lost is found among the page’s stories by the saved photo id', async () => {
    const p = progress();
    const story = await client.publish(
      input('', {
        postType: 'story',
        media: [file('ps.png', 'image/png', mediaFiles.png())],
        progress: p.progress,
      }),
    );
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'k',
      content: '',
      parent: null,
      since: new Date(Date.now() - 5_000),
      saved: p.saved[0] as Record<string, unknown>,
    });
    expect(found).toEqual(story);
  });
});

describe('Facebook edits and deletes', () => {
  it('edits the text of a post and of a comment', async () => {
    const post = await client.publish(input('v1'));
    const comment = await client.publish(input('c1', { parent: { block: post, root: post } }));
    await client.edit({ credentials, block: post, content: 'v2' });
    await client.edit({ credentials, block: comment, content: 'c2' });
    const [stored] = await simPosts();
    expect(stored?.message).toBe('v2');
    expect(stored?.comments.map((c) => c.message)).toEqual(['c2']);
    expect(sim.records().map(({ kind, id, text }) => [kind, id, text])).toEqual([
      ['post', post.remoteId, 'v1'],
      ['comment', comment.remoteId, 'c1'],
      ['edit', post.remoteId, 'v2'],
      ['edit', comment.remoteId, 'c2'],
    ]);
  });

  it('refuses a title or option edit without calling (remoteEdit is text only)', async () => {
    const post = await client.publish(input('t'));
    expect((await failureOf(client.edit({ credentials, block: post, content: 'x', title: 'T' }))).kind).toBe(
      'permanent',
    );
    expect(
      (
        await failureOf(
          client.edit({ credentials, block: post, content: 'x', options: { link: 'https://a.b' } }),
        )
      ).kind,
    ).toBe('permanent');
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });

  it('edited text obeys the sim tokens', async () => {
    const post = await client.publish(input('plain'));
    expect((await failureOf(client.edit({ credentials, block: post, content: 'sim:fail' }))).kind).toBe(
      'permanent',
    );
    const expired = await failureOf(client.edit({ credentials, block: post, content: 'sim:reconnect' }));
    expect(expired.kind).toBe('reconnect');
    expect(expired.details.tokenExpired).toBe(true);
  });

  it('deletes comments and posts; a second delete of the same object succeeds (already gone)', async () => {
    const post = await client.publish(input('to delete'));
    const comment = await client.publish(input('its comment', { parent: { block: post, root: post } }));
    await client.delete({ credentials, block: comment });
    await client.delete({ credentials, block: post });
    await client.delete({ credentials, block: post });
    await client.delete({ credentials, block: comment });
    expect(sim.records().map(({ kind, id }) => [kind, id])).toEqual([
      ['post', post.remoteId],
      ['comment', comment.remoteId],
      ['delete', comment.remoteId],
      ['delete', post.remoteId],
    ]);
    expect((await simPosts())[0]?.deleted).toBe(true);
  });
});

describe('Facebook errors', () => {
  it('classifies a content refusal (368) as permanent with Facebook’s message', async () => {
    const error = await failureOf(client.publish(input('bad sim:fail')));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/deemed abusive/);
    expect(sim.records()).toEqual([]);
  });

  it('sim:fail-once is refused once, then accepted', async () => {
    expect((await failureOf(client.publish(input('once sim:fail-once')))).kind).toBe('permanent');
    await client.publish(input('once sim:fail-once'));
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });

  it('a transient Graph failure (code 2, 503) is transient with the outcome unknown; the retry goes through', async () => {
    const error = await failureOf(client.publish(input('wobbly sim:flaky')));
    expect(error).toMatchObject({ kind: 'transient' });
    expect(error.details).toMatchObject({ status: 503, outcomeUnknown: true });
    await client.publish(input('wobbly sim:flaky'));
  });

  it('an expired token (190/463) asks for a refresh; a revoked one (190/458) for a reconnect', async () => {
    const expired = await failureOf(
      client.publish({ ...input('x'), credentials: { ...credentials, accessToken: 'expired-1' } }),
    );
    expect(expired.kind).toBe('reconnect');
    expect(expired.details.tokenExpired).toBe(true);
    const revoked = await failureOf(
      client.publish({ ...input('x'), credentials: { ...credentials, accessToken: 'revoked-1' } }),
    );
    expect(revoked.kind).toBe('reconnect');
    expect(revoked.details.tokenExpired).toBeUndefined();
    const comment = await failureOf(
      client.publish(
        input('c sim:reconnect', {
          parent: { block: await client.publish(input('p')), root: await client.publish(input('p2')) },
        }),
      ),
    );
    expect(comment.kind).toBe('reconnect');
  });

  it('page throttling (80001) is a rate limit lasting estimated_time_to_regain_access', async () => {
    sim.setRateLimited(300);
    const error = await failureOf(client.publish(input('throttled')));
    expect(error.kind).toBe('transient');
    expect(error.details).toMatchObject({ rateLimited: true, retryAfterSeconds: 300 });
    expect(error.details.outcomeUnknown).toBeUndefined();
    sim.setRateLimited(0);
    await client.publish(input('throttled'));
  });

  it('the page’s feed cap (341) is a rate limit until it frees; other calls still work', async () => {
    const post = await client.publish(input('before the cap'));
    sim.setSwitches({ feedLimitMinutes: 90 });
    const error = await failureOf(client.publish(input('over the cap')));
    expect(error.kind).toBe('transient');
    expect(error.message).toMatch(/\(#341\)/);
    expect(error.details).toMatchObject({ rateLimited: true, retryAfterSeconds: 90 * 60 });
    // Comments are not feed posts.
    await client.publish(input('comment', { parent: { block: post, root: post } }));
    sim.setSwitches({ feedLimitMinutes: 0 });
    await client.publish(input('over the cap'));
  });

  it('a repeated status (506) is a permanent refusal marked duplicate', async () => {
    await client.publish(input('same words'));
    const error = await failureOf(client.publish(input('same words')));
    expect(error.kind).toBe('permanent');
    expect(error.details.duplicate).toBe(true);
  });

  it('classifies Graph answers by code', () => {
    const answer = (status: number, code: number, headers: Record<string, string> = {}, extra = {}) =>
      classifyFacebookFailure({
        type: 'answer',
        status,
        headers,
        body: { error: { message: `m${code}`, type: 'OAuthException', code, fbtrace_id: 'x', ...extra } },
      });
    // The app's limit states no time: no reset is claimed (the engine's growing wait, not an hour).
    expect(answer(400, 4, { 'x-app-usage': '{"call_count":100}' }).details).toEqual({
      status: 400,
      rateLimited: true,
    });
    expect(
      answer(400, 32, { 'x-business-use-case-usage': '{"1":[{"estimated_time_to_regain_access":7}]}' })
        .details,
    ).toMatchObject({ rateLimited: true, retryAfterSeconds: 420 });
    expect(answer(400, 17).details.rateLimited).toBe(true);
    expect(answer(400, 613).details.rateLimited).toBe(true);
    expect(answer(500, 1).details.outcomeUnknown).toBe(true);
    expect(answer(400, 2, {}, { is_transient: true }).details.outcomeUnknown).toBe(true);
    expect(answer(400, 190, {}, { error_subcode: 460 }).kind).toBe('reconnect');
    expect(answer(400, 190, {}, { error_subcode: 460 }).details.tokenExpired).toBeUndefined();
    expect(answer(403, 200).kind).toBe('reconnect');
    expect(answer(400, 100).kind).toBe('permanent');
    expect(answer(400, 368).kind).toBe('permanent');
    expect(
      classifyFacebookFailure({ type: 'transport', sent: true, code: 'ECONNRESET' }).details.outcomeUnknown,
    ).toBe(true);
    expect(
      classifyFacebookFailure({ type: 'transport', sent: false, code: 'ECONNREFUSED' }).details
        .outcomeUnknown,
    ).toBeUndefined();
    expect(regainSeconds({ 'x-business-use-case-usage': 'not json' })).toBeUndefined();
  });
});

describe('Facebook lookup after a lost answer', () => {
  for (const token of ['sim:timeout', 'sim:reset', 'sim:bad-gateway'] as const) {
    it(`${token}: the post was stored, the answer lost (outcome unknown); lookup finds it`, async () => {
      const since = new Date();
      const content = unique(`lost ${token}`);
      const error = await failureOf(client.publish(input(content)));
      expect(error.kind).toBe('transient');
      expect(error.details.outcomeUnknown).toBe(true);
      const found = await client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since });
      const [stored] = sim.records();
      expect(found?.remoteId).toBe(stored?.id);
      expect(found?.meta).toEqual({ postId: stored?.id });
    });
  }

  it('finds a lost comment among the post’s comments', async () => {
    const post = await client.publish(input('root'));
    const since = new Date();
    const content = unique('lost comment sim:reset');
    const parent = { block: post, root: post };
    expect((await failureOf(client.publish(input(content, { parent })))).details.outcomeUnknown).toBe(true);
    const found = await client.lookup({ credentials, idempotencyKey: 'k', content, parent, since });
    const comment = sim.records().find((r) => r.kind === 'comment');
    expect(found).toEqual({
      remoteId: comment?.id,
      remoteUrl: `https://www.facebook.com/${post.remoteId}?comment_id=${encodeURIComponent(comment?.id ?? '')}`,
      meta: { commentId: comment?.id, postId: post.remoteId },
    });
  });

  it('finds a lost photo post by its caption', async () => {
    const since = new Date();
    const content = unique('photo sim:timeout');
    const error = await failureOf(
      client.publish(input(content, { media: [file('lost.png', 'image/png', mediaFiles.png())] })),
    );
    expect(error.details.outcomeUnknown).toBe(true);
    const found = await client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since });
    expect(found?.remoteId).toBe(sim.records()[0]?.id);
  });

  it('a lost video post found among the page’s videos while Facebook still processes it is not published until Facebook has processed it', async () => {
    sim.setSwitches({ videoProcessingMs: 2_000 });
    const since = new Date();
    const content = unique('video sim:reset');
    const error = await failureOf(
      client.publish(input(content, { media: [file('lost.mp4', 'video/mp4', mediaFiles.mp4(5_000))] })),
    );
    expect(error.details.outcomeUnknown).toBe(true);
    const [video] = sim.media();
    const listed = await graph(`/${PAGE}/posts?fields=id,message`);
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
    const lookup = () => client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since });
    // Found, but still processing: no URL yet, the engine looks again later.
    const early = await failureOf(lookup());
    expect(sim.media()[0]?.status).toBe('processing');
    expect(early.kind).toBe('transient');
    expect(early.details.outcomeUnknown).toBeUndefined();
    await waitUntil(() => sim.media()[0]?.status === 'ready');
    // Processed: the post is now among the page's posts, where the lookup finds it.
    const found = await lookup();
    expect(found).toEqual({
      remoteId: `${PAGE}_${video?.id}`,
      remoteUrl: `https://www.facebook.com/${PAGE}_${video?.id}`,
      meta: { postId: `${PAGE}_${video?.id}` },
    });
  });

  it('returns null for a block that was never stored, and ignores posts from before the send', async () => {
    const content = unique('older');
    await client.publish(input(content));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const since = new Date();
    expect(
      await client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since }),
    ).toBeNull();
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: unique('never'),
        parent: null,
        since,
      }),
    ).toBeNull();
  });
});

describe('Facebook metrics', () => {
  it('reads reactions, comments, shares, views and reach of a post, likes and replies of a comment', async () => {
    const post = await client.publish(input('measured'));
    const comment = await client.publish(input('measured comment', { parent: { block: post, root: post } }));
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const reading = await client.metrics({ credentials, block: post });
    expect(Object.keys(reading).sort()).toEqual(['comments', 'likes', 'reach', 'shares', 'views']);
    expect(reading.comments).toBeGreaterThanOrEqual(1);
    expect(reading.views).toBeGreaterThan(0);
    expect(reading.reach).toBeLessThanOrEqual(reading.views as number);
    const commentReading = await client.metrics({ credentials, block: comment });
    expect(Object.keys(commentReading).sort()).toEqual(['comments', 'likes']);
  });

  it('a deleted post has no metrics (Graph’s (#100) for a missing object is permanent)', async () => {
    const post: RemoteBlock = await client.publish(input('gone soon'));
    await client.delete({ credentials, block: post });
    expect((await failureOf(client.metrics({ credentials, block: post }))).kind).toBe('permanent');
  });

  it('the deprecated post_impressions_unique is refused as an invalid metric', async () => {
    const post = await client.publish(input('old metric'));
    const res = await graph(`/${post.remoteId}/insights?metric=post_impressions_unique`);
    expect(res.status).toBe(400);
  });
});
