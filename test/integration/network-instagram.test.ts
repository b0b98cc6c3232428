import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyInstagramFailure, InstagramClient } from '../../functions/platforms/instagram/client.ts';
import { INSTAGRAM_GRAPH_VERSION } from '../../functions/platforms/instagram/oauth.ts';
import type { LookupBlockInput, MediaForNetwork, RemoteBlock } from '../../functions/ports/network-client.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { type SimAttachment, startInstagramSimulator } from '../../simulators/instagram/simulator.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

/**
 * The Instagram client against the Instagram simulator: containers made from media URLs that the
 * simulator fetches (from a small local file server standing in for S3's presigned URLs),
 * processing, expiry, the 24-hour cap, comments, lookups after lost answers, and metrics.
 */

const ACCOUNT = '17841400000000001';
const credentials = { accessToken: 'ig-token-alice', remoteAccountId: ACCOUNT };
const input = blockInput(credentials);

const files: Record<string, Buffer> = {
  '/photo.jpg': mediaFiles.jpeg(40_000),
  '/photo2.jpg': mediaFiles.jpeg(30_000),
  '/clip.mp4': mediaFiles.mp4(200_000),
  '/not-a-jpeg.jpg': mediaFiles.png(10_000),
  '/not-a-video.mp4': mediaFiles.pdf(),
};
let fileServer: Server;
let filesUrl = '';
let sim: Simulator;
let client: InstagramClient;

const file = (path: string, mimeType: string, altText: string | null = null): MediaForNetwork => ({
  mediaId: `med_${path.replace(/\W/g, '')}`,
  mimeType,
  size: files[path]?.length ?? 0,
  altText,
  url: `${filesUrl}${path}?X-Amz-Signature=sim`,
});
const jpeg = (altText: string | null = null) => file('/photo.jpg', 'image/jpeg', altText);
const mp4 = () => file('/clip.mp4', 'video/mp4');

interface SimPost {
  id: string;
  productType: string;
  mediaType: string;
  caption: string;
  attachments: SimAttachment[];
  collaborators: string[];
  locationId: string | null;
  shareToFeed: boolean | null;
  comments: { id: string; text: string; deleted: boolean }[];
}
const simPosts = async (): Promise<SimPost[]> =>
  ((await (await fetch(`${sim.url}/_sim/instagram/posts`)).json()) as { data: SimPost[] }).data;
const simContainers = async (): Promise<{ id: string; statusCode: string; publishedAs: string | null }[]> =>
  ((await (await fetch(`${sim.url}/_sim/instagram/containers`)).json()) as { data: never[] }).data;
const switches = (body: Record<string, unknown>) =>
  fetch(`${sim.url}/_sim/instagram/switches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const graph = (path: string, init: RequestInit = {}, token = credentials.accessToken) =>
  fetch(`${sim.url}/${INSTAGRAM_GRAPH_VERSION}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(init.headers ?? {}),
    },
  });

const newClient = (overrides: ConstructorParameters<typeof InstagramClient>[0] = {}) =>
  new InstagramClient({
    baseUrl: sim.url,
    timeoutMs: 1_500,
    pollIntervalMs: 50,
    processingWaitMs: 10_000,
    ...overrides,
  });

beforeAll(async () => {
  fileServer = createServer((req, res) => {
    const body = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => fileServer.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`;
  sim = await startInstagramSimulator({ holdMs: 3_000, processingMs: 150 });
  client = newClient();
});
afterAll(async () => {
  await sim?.stop();
  await new Promise((resolve) => fileServer?.close(resolve));
});
beforeEach(() => sim.reset());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the engine does after a lost answer: a lookup that finds nothing before the client's
 * consistency window has passed since the send is looked up again, never sent again. The
 * simulator's lists lag behind a new post (as Instagram's replicas may): the first lookup finds
 * nothing, and the block must show up before the window closes.
 */
const lookUpLikeTheEngine = async (c: InstagramClient, block: LookupBlockInput) => {
  const windowEnd = block.since.getTime() + c.consistencyWindowSeconds * 1000;
  expect(await c.lookup(block)).toBeNull();
  // Not found, and the window still open: the engine looks again later instead of resending.
  expect(Date.now()).toBeLessThan(windowEnd);
  for (;;) {
    const found = await c.lookup(block);
    if (found) return found;
    expect(Date.now(), 'the block shows up within the consistency window').toBeLessThan(windowEnd);
    await sleep(200);
  }
};

const comment = (post: RemoteBlock, content: string) =>
  input(content, { parent: { block: post, root: post } });

describe('Instagram client against the Instagram simulator', () => {
  it('publishes an image with caption, alt text, collaborators and location, then comments on it', async () => {
    const post = await client.publish(
      input('A photo #herald', {
        media: [jpeg('A red bicycle')],
        options: { collaborators: ['ana', 'bo'], locationId: '110843418940484' },
      }),
    );
    const first = await client.publish(comment(post, 'First comment'));
    const second = await client.publish(comment(post, 'Second comment'));

    expect(post.remoteId).toMatch(/^\d{17,}$/);
    expect(post.remoteUrl).toMatch(/^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    expect(post.meta).toEqual({ kind: 'post', mediaId: post.remoteId });
    expect(first.remoteUrl).toBe(`${post.remoteUrl}c/${first.remoteId}/`);
    expect(first.meta).toEqual({ kind: 'comment', mediaId: post.remoteId });
    expect(sim.records().map(({ kind, id, parentId, text }) => ({ kind, id, parentId, text }))).toEqual([
      { kind: 'post', id: post.remoteId, parentId: null, text: 'A photo #herald' },
      { kind: 'comment', id: first.remoteId, parentId: post.remoteId, text: 'First comment' },
      { kind: 'comment', id: second.remoteId, parentId: post.remoteId, text: 'Second comment' },
    ]);
    const [stored] = await simPosts();
    expect(stored).toMatchObject({
      productType: 'FEED',
      mediaType: 'IMAGE',
      collaborators: ['ana', 'bo'],
      locationId: '110843418940484',
      attachments: [{ kind: 'image', size: files['/photo.jpg']?.length, altText: 'A red bicycle' }],
    });
    // One container, published once.
    expect((await simContainers()).map((c) => c.publishedAs)).toEqual([post.remoteId]);
  });

  it('publishes several files as one carousel (videos as VIDEO items), a video as a reel, and a story', async () => {
    const carousel = await client.publish(
      input('Carousel', { media: [jpeg('first'), file('/photo2.jpg', 'image/jpeg'), mp4()] }),
    );
    const reel = await client.publish(input('Reel', { media: [mp4()], options: { shareToFeed: 'false' } }));
    const story = await client.publish(input('', { media: [jpeg()], postType: 'story' }));
    expect(reel.remoteUrl).toMatch(/^https:\/\/www\.instagram\.com\/reel\//);
    expect((await simPosts()).map((p) => p.shareToFeed)).toEqual([null, false, null]);
    expect(story.meta.kind).toBe('story');
    const posts = await simPosts();
    expect(
      posts.map((p) => [
        p.id,
        p.productType,
        p.mediaType,
        p.attachments.map((a) => [a.kind, a.size, a.altText]),
      ]),
    ).toEqual([
      [
        carousel.remoteId,
        'FEED',
        'CAROUSEL_ALBUM',
        [
          ['image', files['/photo.jpg']?.length, 'first'],
          ['image', files['/photo2.jpg']?.length, null],
          ['video', files['/clip.mp4']?.length, null],
        ],
      ],
      [reel.remoteId, 'REELS', 'VIDEO', [['video', files['/clip.mp4']?.length, null]]],
      [story.remoteId, 'STORY', 'IMAGE', [['image', files['/photo.jpg']?.length, null]]],
    ]);
    // Three carousel items and the carousel container, all published as the one carousel.
    const containers = await simContainers();
    expect(containers.filter((c) => c.publishedAs === carousel.remoteId)).toHaveLength(4);
    expect(sim.records().filter((r) => r.kind === 'post')).toHaveLength(3);
  });

  it('refuses before any call what Instagram would refuse: no file, a PNG, two files on a reel, files on a comment', async () => {
    expect((await failureOf(client.publish(input('Text only')))).kind).toBe('permanent');
    expect(
      (await failureOf(client.publish(input('png', { media: [file('/x.png', 'image/png')] })))).message,
    ).toMatch(/JPEG/);
    expect(
      (await failureOf(client.publish(input('r', { media: [mp4(), mp4()], postType: 'reel' })))).kind,
    ).toBe('permanent');
    const post = await client.publish(input('Post', { media: [jpeg()] }));
    const error = await failureOf(client.publish({ ...comment(post, 'c'), media: [jpeg()] }));
    expect(error.message).toMatch(/comments carry text only/);
    expect(sim.records()).toHaveLength(1);
  });

  it('an image URL that does not answer 200, or bytes that are not a JPEG: Instagram’s permanent refusal, nothing posted', async () => {
    const missing = await failureOf(
      client.publish(input('Gone', { media: [file('/gone.jpg', 'image/jpeg')] })),
    );
    expect(missing.kind).toBe('permanent');
    expect(missing.message).toMatch(/could not be fetched.*9004\/2207052/);
    const png = await failureOf(
      client.publish(input('Fake', { media: [file('/not-a-jpeg.jpg', 'image/jpeg')] })),
    );
    expect(png.kind).toBe('permanent');
    expect(png.message).toMatch(/2207005/);
    expect(sim.records()).toEqual([]);
  });

  it('a video that fails processing is a permanent refusal with Instagram’s reason; the container stays unpublished', async () => {
    const error = await failureOf(
      client.publish(input('Bad video', { media: [file('/not-a-video.mp4', 'video/mp4')] })),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(
      /could not process the media: Error: The video format is not supported.*2207026/,
    );
    const gone = await failureOf(
      client.publish(input('Gone video', { media: [file('/gone.mp4', 'video/mp4')] })),
    );
    expect(gone.message).toMatch(/2207052/);
    expect((await simContainers()).map((c) => c.statusCode)).toEqual(['ERROR', 'ERROR']);
    expect(sim.records()).toEqual([]);
  });

  it('processing longer than the bound is transient; the retry makes a new container and posts once', async () => {
    await switches({ processingMs: 2_000 });
    const slow = newClient({ processingWaitMs: 300 });
    const block = input('Slow', { media: [mp4()] });
    const error = await failureOf(slow.publish(block));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(sim.records()).toEqual([]);
    await switches({ processingMs: 50 });
    const post = await slow.publish(block);
    const containers = await simContainers();
    expect(containers).toHaveLength(2);
    expect(containers.filter((c) => c.publishedAs === post.remoteId)).toHaveLength(1);
    expect(sim.records()).toHaveLength(1);
  });

  it('with saved progress, processing past the deadline continues later on the same container', async () => {
    await switches({ processingMs: 1_500 });
    let saved: Record<string, unknown> | null = null;
    const saves: Record<string, unknown>[] = [];
    const progress = {
      get saved() {
        return saved;
      },
      save: async (state: Record<string, unknown>) => {
        saved = state;
        saves.push(state);
      },
    };
    const block = input('Reel later', { media: [mp4()], postType: 'reel' });
    const slow = newClient({ processingWaitMs: 200 });
    const error = await failureOf(slow.publish({ ...block, progress }));
    expect(error).toMatchObject({ kind: 'transient', details: { continueLater: true } });
    const [container] = await simContainers();
    expect(saved).toEqual({ creationId: container?.id, key: `reel,${mp4().mediaId}` });
    // The next invocation (another client: another worker) polls the saved container until it is done.
    const post = await newClient().publish({ ...block, progress });
    const containers = await simContainers();
    expect(containers).toHaveLength(1);
    expect(containers[0]?.publishedAs).toBe(post.remoteId);
    // A deadline close ahead stops the wait in time too.
    sim.reset();
    saved = null;
    await switches({ processingMs: 3_000 });
    const near = await failureOf(
      newClient().publish({ ...block, progress, deadline: new Date(Date.now() + 5_500) }),
    );
    expect(near.details.continueLater).toBe(true);
    // A container an earlier attempt published is never published again: the outcome is looked up.
    await switches({ processingMs: 10 });
    const first = await newClient().publish({ ...block, progress });
    saved = { creationId: (await simContainers())[0]?.id, key: `reel,${mp4().mediaId}` };
    const again = await failureOf(newClient().publish({ ...block, progress }));
    expect(again.details.outcomeUnknown).toBe(true);
    expect(sim.records().map((r) => r.id)).toEqual([first.remoteId]);
  });

  it('a failed saved container is dropped: the next attempt makes a new one', async () => {
    let saved: Record<string, unknown> | null = null;
    const progress = {
      get saved() {
        return saved;
      },
      save: async (state: Record<string, unknown>) => {
        saved = state;
      },
    };
    const bad = input('Bad', { media: [file('/not-a-video.mp4', 'video/mp4')] });
    expect((await failureOf(client.publish({ ...bad, progress }))).kind).toBe('permanent');
    expect(saved).toEqual({});
  });

  it('an expired container is replaced by a new one, and the post goes out once', async () => {
    await switches({ processingMs: 1_500 });
    const publishing = client.publish(input('Expiring', { media: [jpeg()] }));
    const deadline = Date.now() + 10_000;
    while ((await simContainers()).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect((await switches({ expireContainers: true, processingMs: 50 })).status).toBe(204);
    const post = await publishing;
    const containers = await simContainers();
    expect(containers.map((c) => c.statusCode)).toEqual(['EXPIRED', 'PUBLISHED']);
    expect(containers[1]?.publishedAs).toBe(post.remoteId);
    expect(sim.records()).toHaveLength(1);
  });

  it('the simulator answers publishing an unfinished, expired or missing container as Instagram does', async () => {
    await switches({ processingMs: 5_000 });
    const made = await graph(`/${ACCOUNT}/media`, {
      method: 'POST',
      body: JSON.stringify({ image_url: jpeg().url, caption: 'x' }),
    });
    const { id } = (await made.json()) as { id: string };
    const publish = () =>
      graph(`/${ACCOUNT}/media_publish`, { method: 'POST', body: JSON.stringify({ creation_id: id }) });
    const notReady = await publish();
    expect(notReady.status).toBe(400);
    expect(await notReady.json()).toMatchObject({ error: { code: 9007, error_subcode: 2207027 } });
    await switches({ expireContainers: true });
    expect(await (await graph(`/${id}?fields=status_code`)).json()).toEqual({ id, status_code: 'EXPIRED' });
    expect(await (await publish()).json()).toMatchObject({ error: { code: -2, error_subcode: 2207020 } });
    const missing = await graph(`/${ACCOUNT}/media_publish`, {
      method: 'POST',
      body: JSON.stringify({ creation_id: '1' }),
    });
    expect(await missing.json()).toMatchObject({ error: { code: 9007 } });
    expect(sim.records()).toEqual([]);
  });

  it('the rolling 24-hour cap: checked before any container, waiting until the oldest post leaves the window', async () => {
    // The wait is read from the media list's timestamps: here the list shows posts at once.
    const capped = await startInstagramSimulator({ publishLimit: 2, processingMs: 20, listLagMs: 0 });
    try {
      const c = new InstagramClient({ baseUrl: capped.url, timeoutMs: 1_500, pollIntervalMs: 20 });
      await c.publish(input('one', { media: [jpeg()] }));
      await c.publish(input('two', { media: [jpeg()] }));
      const error = await failureOf(c.publish(input('three', { media: [jpeg()] })));
      expect(error.kind).toBe('transient');
      expect(error.details.rateLimited).toBe(true);
      expect(error.details.retryAfterSeconds).toBeGreaterThan(86_400 - 120);
      expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(86_400);
      expect(capped.records()).toHaveLength(2);
      const limit = await fetch(
        `${capped.url}/${INSTAGRAM_GRAPH_VERSION}/${ACCOUNT}/content_publishing_limit?fields=quota_usage,config`,
        {
          headers: { authorization: `Bearer ${credentials.accessToken}` },
        },
      );
      expect(await limit.json()).toEqual({
        data: [{ quota_usage: 2, config: { quota_total: 2, quota_duration: 86400 } }],
      });
    } finally {
      await capped.stop();
    }
    // Two posts racing for the last slot: both pass the check, Instagram refuses the second at
    // media_publish (9/2207042), and the wait runs until the post that took the slot is 24 h old.
    const racing = await startInstagramSimulator({ publishLimit: 1, processingMs: 300, listLagMs: 0 });
    try {
      const c = new InstagramClient({ baseUrl: racing.url, timeoutMs: 1_500, pollIntervalMs: 20 });
      const outcomes = await Promise.allSettled([
        c.publish(input('left', { media: [jpeg()] })),
        c.publish(input('right', { media: [jpeg()] })),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason.message).toMatch(/9\/2207042/);
      expect(refused.reason.details).toMatchObject({ rateLimited: true });
      expect(refused.reason.details.retryAfterSeconds).toBeGreaterThan(86_400 - 120);
      expect(racing.records()).toHaveLength(1);
    } finally {
      await racing.stop();
    }
    // The switch spends the cap of every account.
    await switches({ capFullForSeconds: 600 });
    const spent = await failureOf(client.publish(input('capped', { media: [jpeg()] })));
    expect(spent.details).toMatchObject({ rateLimited: true });
    expect(await simContainers()).toEqual([]);
  });

  it('without the quota in content_publishing_limit, the cap is taken as 50 posts per 24 hours (the documented limit)', async () => {
    // "An Instagram professional account can only publish 50 posts within a 24 hour moving period"
    // (IG User Media Publish reference). The wait after a cap refusal is read from the 50th newest post.
    const quiet = await startInstagramSimulator({ processingMs: 0, listLagMs: 0, reportsQuotaConfig: false });
    try {
      const c = new InstagramClient({ baseUrl: quiet.url, timeoutMs: 1_500, pollIntervalMs: 20 });
      for (let n = 0; n < 50; n++) await c.publish(input(`cap ${n}`, { media: [jpeg()] }));
      const error = await failureOf(c.publish(input('one too many', { media: [jpeg()] })));
      expect(error.message).toMatch(/9\/2207042/);
      expect(error.details.rateLimited).toBe(true);
      // Until the first of the 50 is a day old, not Instagram's generic hour.
      expect(error.details.retryAfterSeconds).toBeGreaterThan(86_400 - 120);
      expect(quiet.records()).toHaveLength(50);
    } finally {
      await quiet.stop();
    }
  });

  it('media_publish’s cap refusal (9/2207042) and the throttle (80002 with X-Business-Use-Case-Usage) are rate limits', async () => {
    const cap = classifyInstagramFailure({
      type: 'answer',
      status: 400,
      headers: {},
      body: { error: { message: 'You reached maximum number of posts', code: 9, error_subcode: 2207042 } },
    });
    expect([cap.kind, cap.details.rateLimited]).toEqual(['transient', true]);
    sim.setRateLimited(150);
    const throttled = await failureOf(client.publish(input('Throttled', { media: [jpeg()] })));
    expect(throttled).toMatchObject({
      kind: 'transient',
      details: { rateLimited: true, retryAfterSeconds: 180 },
    });
    expect(sim.records()).toEqual([]);
  });

  it('tokens: expired (190/463) is refreshable, revoked is a reconnect', async () => {
    const expired = await failureOf(
      client.publish({
        ...input('x', { media: [jpeg()] }),
        credentials: { ...credentials, accessToken: 'expired-1' },
      }),
    );
    expect(expired).toMatchObject({ kind: 'reconnect', details: { tokenExpired: true } });
    const revoked = await failureOf(
      client.publish({
        ...input('x', { media: [jpeg()] }),
        credentials: { ...credentials, accessToken: 'revoked-1' },
      }),
    );
    expect(revoked.kind).toBe('reconnect');
    expect(revoked.details.tokenExpired).toBeUndefined();
  });

  it('sim:fail is Instagram’s permanent refusal, sim:flaky a 503 (outcome unknown, then not found), sim:reconnect an expired token', async () => {
    const fail = await failureOf(client.publish(input('No sim:fail', { media: [jpeg()] })));
    expect(fail.kind).toBe('permanent');
    expect(fail.message).toMatch(/restrict certain activity.*4\/2207051/);
    const flakyBlock = input('Wobbly sim:flaky', { media: [jpeg()] });
    const since = new Date();
    const flaky = await failureOf(client.publish(flakyBlock));
    expect(flaky.details).toMatchObject({ status: 503, outcomeUnknown: true });
    expect(await client.lookup({ ...flakyBlock, since })).toBeNull();
    await client.publish(flakyBlock);
    const reconnect = await failureOf(client.publish(input('sim:reconnect', { media: [jpeg()] })));
    expect(reconnect).toMatchObject({ kind: 'reconnect', details: { tokenExpired: true } });
    const post = await client.publish(input('Fine', { media: [jpeg()] }));
    expect((await failureOf(client.publish(comment(post, 'sim:fail')))).kind).toBe('permanent');
    expect(sim.records().map((r) => r.text)).toEqual(['Wobbly sim:flaky', 'Fine']);
  });

  for (const token of ['sim:timeout', 'sim:reset', 'sim:bad-gateway']) {
    it(`${token}: the post and a comment are stored, the answer lost; the lists lag, and lookup finds each within the consistency window (never resent)`, async () => {
      const quick = newClient({ timeoutMs: 700 });
      const block = input(`Lost ${token}`, { media: [jpeg()] });
      const since = new Date();
      const error = await failureOf(quick.publish(block));
      expect(error).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
      const found = await lookUpLikeTheEngine(quick, { ...block, since });
      const [stored] = sim.records();
      expect(found?.remoteId).toBe(stored?.id);
      expect(found?.remoteUrl).toMatch(/^https:\/\/www\.instagram\.com\/p\//);

      const post = found as RemoteBlock;
      const commentBlock = comment(post, `Comment ${token}`);
      const commentSince = new Date();
      expect((await failureOf(quick.publish(commentBlock))).details.outcomeUnknown).toBe(true);
      const foundComment = await lookUpLikeTheEngine(quick, { ...commentBlock, since: commentSince });
      expect(foundComment?.remoteId).toBe(sim.records()[1]?.id);
      expect(foundComment?.meta.kind).toBe('comment');
      expect(sim.records()).toHaveLength(2);
    });
  }

  it('lookup does not adopt an older post or comment with the same text, nor one that was never made', async () => {
    const post = await client.publish(input('Same text', { media: [jpeg()] }));
    await client.publish(comment(post, 'Same comment'));
    const later = new Date(Date.now() + 2_000);
    expect(await client.lookup({ ...input('Same text'), since: later })).toBeNull();
    expect(await client.lookup({ ...comment(post, 'Same comment'), since: later })).toBeNull();
    expect(await client.lookup({ ...input('Never sent'), since: new Date(Date.now() - 60_000) })).toBeNull();
  });

  it('a story takes no text; one sent by this client is found by lookup (stories have no caption to match)', async () => {
    const worded = await failureOf(
      client.publish(input('Story text', { media: [jpeg()], postType: 'story' })),
    );
    expect(worded.message).toMatch(/stories carry no caption/);
    const block = input('', { media: [jpeg()], postType: 'story' });
    const since = new Date();
    const story = await client.publish(block);
    const found = await lookUpLikeTheEngine(client, { ...block, since });
    expect(found).toMatchObject({ remoteId: story.remoteId, meta: { kind: 'story' } });
    // Another client (another process) cannot tell this story from any other.
    expect(await newClient().lookup({ ...block, since })).toBeNull();
    expect(sim.records()).toHaveLength(1);
  });

  it('no caption or comment edits; posts cannot be deleted with Instagram Login; comments can, twice without error', async () => {
    const post = await client.publish(input('Keep', { media: [jpeg()] }));
    const c = await client.publish(comment(post, 'Remove me'));
    expect((await failureOf(client.edit({ credentials, block: post, content: 'new' }))).kind).toBe(
      'permanent',
    );
    expect((await failureOf(client.edit({ credentials, block: c, content: 'new' }))).kind).toBe('permanent');
    expect((await failureOf(client.delete({ credentials, block: post }))).message).toMatch(/cannot|does not/);
    await client.delete({ credentials, block: c });
    await client.delete({ credentials, block: c });
    expect(sim.records().map((r) => [r.kind, r.id])).toEqual([
      ['post', post.remoteId],
      ['comment', c.remoteId],
      ['delete', c.remoteId],
    ]);
    // The API itself refuses deleting a post, as Graph refuses an unsupported delete.
    const raw = await graph(`/${post.remoteId}`, { method: 'DELETE' });
    expect(await raw.json()).toMatchObject({ error: { code: 100, error_subcode: 33 } });
  });

  it('metrics: insights for a post under the stable names, likes for a comment', async () => {
    const post = await client.publish(input('Counted', { media: [jpeg()] }));
    const c = await client.publish(comment(post, 'A comment'));
    await new Promise((r) => setTimeout(r, 1_100));
    const reading = await client.metrics({ credentials, block: post });
    expect(Object.keys(reading).sort()).toEqual(['comments', 'likes', 'reach', 'saves', 'shares', 'views']);
    expect(reading.comments).toBe(1);
    expect(reading.views).toBeGreaterThan(0);
    const commentReading = await client.metrics({ credentials, block: c });
    expect(Object.keys(commentReading)).toEqual(['likes']);
  });
});
