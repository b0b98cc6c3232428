import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedditClient } from '../../functions/platforms/reddit/client.ts';
import { classifyApiErrors, waitInMessage } from '../../functions/platforms/reddit/http.ts';
import { REDDIT_SCOPES } from '../../functions/platforms/reddit/oauth.ts';
import type { MediaForNetwork, PublishBlockInput } from '../../functions/ports/network-client.ts';
import type { OutboundPolicy } from '../../functions/ports/outbound.ts';
import { systemResolver } from '../../functions/shared/address-policy.ts';
import { type RedditSimulator, startRedditSimulator } from '../../simulators/reddit/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simOAuthToken } from '../support/sim-oauth-token.ts';

const credentials = { accessToken: 'rd-token-alice', remoteAccountId: 'alice' };
const LOCAL_OUTBOUND: OutboundPolicy = { resolve: systemResolver, allowLoopback: () => true };
const FLAIR = 'a6b2c1de-0000-4000-8000-00000000f1a1';

let sim: RedditSimulator;
let client: RedditClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl = '';
const stored = new Map<string, Buffer>();
const block = blockInput(credentials);
const first = (content: string, overrides: Partial<PublishBlockInput> = {}) =>
  block(content, { title: 'A title', options: { subreddit: 'heraldtest' }, ...overrides });

const file = (name: string, mimeType: string, bytes: Buffer): MediaForNetwork => {
  stored.set(name, bytes);
  return { mediaId: `med_${name}`, mimeType, size: bytes.length, altText: null, url: `${filesUrl}/${name}` };
};
const me = async (token = credentials.accessToken) =>
  (
    (await (
      await fetch(`${sim.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { name: string }
  ).name;

/** An in-memory place to keep a block's saved progress, as the engine's claim does. */
const memoryProgress = () => {
  let saved: Record<string, unknown> | null = null;
  return {
    get saved() {
      return saved;
    },
    save: async (state: Record<string, unknown>) => {
      saved = JSON.parse(JSON.stringify(state));
    },
  };
};

beforeAll(async () => {
  sim = await startRedditSimulator({ holdMs: 2_000, switches: { processingMs: 100 } });
  client = new RedditClient({
    baseUrl: sim.url,
    timeoutMs: 500,
    mediaWaitMs: 1_500,
    pollIntervalMs: 50,
    // The simulator's media socket is plain ws:// on loopback, as the local runtime allows.
    outbound: LOCAL_OUTBOUND,
  });
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

describe('Reddit client against the Reddit simulator', () => {
  it('submits a text post with its options and comments on it for the later blocks', async () => {
    const post = await client.publish(
      first('Body of the post', {
        title: 'Hello Reddit',
        options: {
          subreddit: 'r/heraldtest',
          flairId: FLAIR,
          flairText: 'News',
          nsfw: 'true',
          spoiler: 'true',
        },
      }),
    );
    const one = await client.publish(block('Comment one', { parent: { block: post, root: post } }));
    const two = await client.publish(block('Comment two', { parent: { block: one, root: post } }));

    expect(post.remoteId).toMatch(/^t3_[0-9a-z]+$/);
    expect(post.remoteUrl).toMatch(
      /^https:\/\/www\.reddit\.com\/r\/heraldtest\/comments\/[0-9a-z]+\/hello_reddit\/$/,
    );
    expect(post.meta).toEqual({ kind: 'self' });
    expect(one.remoteId).toMatch(/^t1_/);
    expect(one.remoteUrl).toBe(`${post.remoteUrl}${one.remoteId.slice(3)}/`);
    expect(one.meta).toEqual({ kind: 'comment', postName: post.remoteId });

    const [stored] = sim.posts();
    expect(stored).toMatchObject({
      name: post.remoteId,
      kind: 'self',
      subreddit: 'heraldtest',
      title: 'Hello Reddit',
      selftext: 'Body of the post',
      flairId: FLAIR,
      flairText: 'News',
      nsfw: true,
      spoiler: true,
      author: await me(),
    });
    // Every comment hangs off the first post, whatever block came before it.
    expect(stored?.comments.map((c) => [c.name, c.linkId, c.body])).toEqual([
      [one.remoteId, post.remoteId, 'Comment one'],
      [two.remoteId, post.remoteId, 'Comment two'],
    ]);
    expect(sim.records().map((r) => [r.kind, r.id, r.rootId])).toEqual([
      ['post', post.remoteId, null],
      ['comment', one.remoteId, post.remoteId],
      ['comment', two.remoteId, post.remoteId],
    ]);
  });

  it('submits a link post with its text; its text cannot be edited; a link with files is refused', async () => {
    const options = { subreddit: 'heraldtest', link: 'https://example.com/article' };
    const post = await client.publish(first('Worth reading', { options }));
    expect(post.meta).toEqual({ kind: 'link' });
    expect(sim.posts()[0]).toMatchObject({
      name: post.remoteId,
      kind: 'link',
      url: 'https://example.com/article',
      selftext: 'Worth reading',
    });
    const refused = await failureOf(client.edit({ credentials, block: post, content: 'x' }));
    expect(refused.message).toMatch(/not a link, image, gallery or video post's/);
    const png = file('l.png', 'image/png', mediaFiles.png(3_000));
    expect((await failureOf(client.publish(first('x', { options, media: [png] })))).message).toMatch(
      /link post carries no files/,
    );
    // Found by lookup like any submission.
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'k',
      content: 'Worth reading',
      parent: null,
      since: new Date(Date.now() - 1_000),
    });
    expect(found).toMatchObject({ remoteId: post.remoteId, meta: { kind: 'link' } });
  });

  it('uploads an image through the asset lease and finds the media post in the listing', async () => {
    const bytes = mediaFiles.png(50_000);
    const post = await client.publish(first('Look at this', { media: [file('a.png', 'image/png', bytes)] }));
    expect(post.remoteId).toMatch(/^t3_/);
    expect(post.meta).toEqual({ kind: 'image' });
    const [asset] = sim.media();
    expect(asset).toMatchObject({
      mimetype: 'image/png',
      uploadedBytes: bytes.length,
      filepath: 'med_a.png.png',
    });
    const [stored] = sim.posts();
    expect(stored).toMatchObject({
      name: post.remoteId,
      kind: 'image',
      url: asset?.location,
      selftext: 'Look at this',
      assetIds: [asset?.assetId],
    });
  });

  it('posts 2 to 20 images as a gallery, alt text as captions (cut to 180 characters)', async () => {
    const a = { ...file('g1.png', 'image/png', mediaFiles.png(4_000)), altText: 'First picture' };
    const b = { ...file('g2.jpg', 'image/jpeg', mediaFiles.jpeg(5_000)), altText: 'x'.repeat(200) };
    const post = await client.publish(
      first('Two pictures', { media: [a, b], options: { subreddit: 'heraldtest', nsfw: 'true' } }),
    );
    expect(post.meta).toEqual({ kind: 'gallery' });
    const [stored] = sim.posts();
    expect(post.remoteId).toBe(stored?.name);
    expect(post.remoteUrl).toBe(`https://www.reddit.com/gallery/${stored?.id}`);
    const assets = sim.media();
    expect(assets.map((x) => [x.mimetype, x.uploadedBytes])).toEqual([
      ['image/png', 4_000],
      ['image/jpeg', 5_000],
    ]);
    expect(stored).toMatchObject({ kind: 'gallery', selftext: 'Two pictures', nsfw: true });
    expect(stored?.assetIds).toEqual(assets.map((x) => x.assetId));
    expect(stored?.captions[assets[0]?.assetId as string]).toBe('First picture');
    expect([...(stored?.captions[assets[1]?.assetId as string] ?? '')]).toHaveLength(180);
    // Found by lookup too, like any submission.
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'k',
      content: 'Two pictures',
      parent: null,
      since: new Date(Date.now() - 1_000),
    });
    expect(found).toMatchObject({ remoteId: post.remoteId, meta: { kind: 'gallery' } });
    expect((await failureOf(client.edit({ credentials, block: post, content: 'x' }))).kind).toBe('permanent');
  });

  it('uploads a video with a poster image, as Reddit requires', async () => {
    const bytes = mediaFiles.mp4(80_000);
    const post = await client.publish(first('A clip', { media: [file('v.mp4', 'video/mp4', bytes)] }));
    expect(post.meta).toEqual({ kind: 'video' });
    const assets = sim.media();
    expect(assets.map((a) => [a.mimetype, a.uploadedBytes])).toEqual([
      ['video/mp4', bytes.length],
      ['image/png', expect.any(Number)],
    ]);
    expect(sim.posts()[0]).toMatchObject({
      kind: 'video',
      url: assets[0]?.location,
      videoPosterUrl: assets[1]?.location,
    });
  });

  it('refuses files on comments, several files, and a post without subreddit or title', async () => {
    const post = await client.publish(first('Parent'));
    const png = file('c.png', 'image/png', mediaFiles.png(3_000));
    const onComment = await failureOf(
      client.publish(block('with file', { media: [png], parent: { block: post, root: post } })),
    );
    expect(onComment.kind).toBe('permanent');
    expect(onComment.message).toMatch(/text only/);
    const mp4 = file('c.mp4', 'video/mp4', mediaFiles.mp4(3_000));
    expect((await failureOf(client.publish(first('two', { media: [mp4, png] })))).message).toMatch(
      /goes alone/,
    );
    expect((await failureOf(client.publish(first('x', { options: {} })))).message).toMatch(/subreddit/);
    expect((await failureOf(client.publish(first('x', { title: null })))).message).toMatch(/title/);
    expect(sim.posts()).toHaveLength(1);
  });

  it('edits a text post and a comment, refuses to edit a media post, and deletes', async () => {
    const post = await client.publish(first('Before'));
    const comment = await client.publish(block('Comment before', { parent: { block: post, root: post } }));
    await client.edit({ credentials, block: post, content: 'After' });
    await client.edit({ credentials, block: comment, content: 'Comment after' });
    expect(sim.posts()[0]?.selftext).toBe('After');
    expect(sim.posts()[0]?.comments[0]?.body).toBe('Comment after');

    const image = await client.publish(
      first('Picture', { media: [file('e.png', 'image/png', mediaFiles.png(3_000))] }),
    );
    const refused = await failureOf(client.edit({ credentials, block: image, content: 'new' }));
    expect(refused.kind).toBe('permanent');
    expect(refused.message).toMatch(/only a text post's or a comment's text/);

    await client.delete({ credentials, block: comment });
    await client.delete({ credentials, block: post });
    // Already gone: Reddit answers 200, so a retried delete succeeds.
    await client.delete({ credentials, block: post });
    expect(sim.posts().find((p) => p.name === post.remoteId)?.deleted).toBe(true);
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'delete')
        .map((r) => r.id),
    ).toEqual([comment.remoteId, post.remoteId]);
  });

  it('classifies refusals Reddit answers inside HTTP 200', async () => {
    const fail = await failureOf(client.publish(first('nope sim:fail')));
    expect(fail).toMatchObject({ kind: 'permanent', details: { status: 200 } });
    expect(fail.message).toMatch(/SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING/);

    const missing = await failureOf(client.publish(first('x', { options: { subreddit: 'doesnotexist42' } })));
    expect(missing.kind).toBe('permanent');
    expect(missing.message).toMatch(/SUBREDDIT_NOEXIST/);

    const flair = await failureOf(client.publish(first('x', { options: { subreddit: 'flairreqsub' } })));
    expect(flair.message).toMatch(/SUBMIT_VALIDATION_FLAIR_REQUIRED/);
    const badFlair = await failureOf(
      client.publish(first('x', { options: { subreddit: 'heraldtest', flairId: 'nope' } })),
    );
    expect(badFlair.message).toMatch(/BAD_FLAIR_TEMPLATE_ID/);
    const noSelf = await failureOf(client.publish(first('x', { options: { subreddit: 'noselfhere' } })));
    expect(noSelf.message).toMatch(/NO_SELFS/);
    const long = await failureOf(client.publish(first('x', { title: 't'.repeat(301) })));
    expect(long.message).toMatch(/TOO_LONG/);
    expect(sim.posts()).toHaveLength(0);

    expect(
      classifyApiErrors([['ALREADY_SUB', 'that link has already been submitted', 'url']], {}),
    ).toMatchObject({
      kind: 'permanent',
      details: { duplicate: true },
    });
    expect(classifyApiErrors([['USER_REQUIRED', 'Please log in to do that.', '']], {})).toMatchObject({
      kind: 'reconnect',
      details: { tokenExpired: true },
    });
  });

  it("waits out the account's posting limit (RATELIMIT) and the API's 429 window", async () => {
    sim.setSwitches({ postLimitSeconds: 450 });
    const limited = await failureOf(client.publish(first('too often')));
    expect(limited.kind).toBe('transient');
    expect(limited.details.rateLimited).toBe(true);
    expect(limited.details.retryAfterSeconds).toBeGreaterThan(400);
    expect(limited.details.retryAfterSeconds).toBeLessThanOrEqual(450);
    expect(limited.message).toMatch(/Take a break for 8 minutes/);
    expect(waitInMessage('you are doing that too much. try again in 6 minutes.')).toBe(360);
    expect(waitInMessage('try again in 9 seconds.')).toBe(9);
    sim.setSwitches({ postLimitSeconds: 0 });

    sim.setRateLimited(120);
    const window = await failureOf(client.publish(first('rate')));
    expect(window).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
    expect(window.details.retryAfterSeconds).toBeGreaterThan(100);
    expect(window.details.retryAfterSeconds).toBeLessThanOrEqual(120);
    sim.setRateLimited(0);
    expect(sim.posts()).toHaveLength(0);
  });

  it('sends rate-limit headers and requires a User-Agent', async () => {
    const ok = await fetch(`${sim.url}/api/info?id=t3_x`, {
      headers: { authorization: 'Bearer t', 'user-agent': 'server:test:1.0 (by /u/test)' },
    });
    expect(ok.status).toBe(200);
    expect(Number(ok.headers.get('x-ratelimit-used'))).toBe(1);
    expect(Number(ok.headers.get('x-ratelimit-remaining'))).toBe(999);
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    const bare = await fetch(`${sim.url}/api/info?id=t3_x`, { headers: { authorization: 'Bearer t' } });
    expect(bare.status).toBe(429);
  });

  it('asks for a refresh on 401, for expired and revoked tokens alike', async () => {
    for (const accessToken of ['expired-token', 'revoked-token']) {
      const error = await failureOf(
        client.publish(first('x', { credentials: { accessToken, remoteAccountId: 'a' } })),
      );
      expect(error).toMatchObject({ kind: 'reconnect', details: { status: 401, tokenExpired: true } });
    }
    const reconnect = await failureOf(client.publish(first('x sim:reconnect')));
    expect(reconnect).toMatchObject({ kind: 'reconnect', details: { tokenExpired: true } });
  });

  it('treats a 503 and lost answers as outcome-unknown and finds the stored block by lookup', async () => {
    const flaky = await failureOf(client.publish(first('wobbly sim:flaky')));
    expect(flaky).toMatchObject({ kind: 'transient', details: { status: 503, outcomeUnknown: true } });

    for (const token of ['sim:timeout', 'sim:reset', 'sim:bad-gateway']) {
      const since = new Date();
      const content = `lost ${token}`;
      const lost = await failureOf(client.publish(first(content)));
      expect(lost, token).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
      const stored = sim.records().filter((r) => r.text === content);
      expect(stored).toHaveLength(1);
      const found = await client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since });
      expect(found?.remoteId, token).toBe(stored[0]?.id);

      const parent = { block: found!, root: found! };
      const reply = `reply ${token}`;
      await failureOf(client.publish(block(reply, { parent })));
      const comment = await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: reply,
        parent,
        since,
      });
      expect(comment?.remoteId).toBe(sim.records().find((r) => r.text === reply)?.id);
    }
    // Text that was never posted, and a post from before `since`, are not found.
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'never sent',
        parent: null,
        since: new Date(),
      }),
    ).toBeNull();
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'lost sim:timeout',
        parent: null,
        since: new Date(Date.now() + 60_000),
      }),
    ).toBeNull();
  });

  it("fails for good a media post whose socket says processing failed (Reddit made none); without the socket's word, outcome-unknown", async () => {
    sim.setSwitches({ mediaFails: true });
    const since = new Date();
    const failed = await failureOf(
      client.publish(first('broken media', { media: [file('f.png', 'image/png', mediaFiles.png(3_000))] })),
    );
    expect(failed).toMatchObject({ kind: 'permanent' });
    expect(failed.details.outcomeUnknown).toBeUndefined();
    expect(failed.message).toMatch(/could not process the image/);
    expect(
      await client.lookup({ credentials, idempotencyKey: 'k', content: 'broken media', parent: null, since }),
    ).toBeNull();
    // The socket closes without a word: the listing never shows the post, the outcome stays unknown.
    sim.setSwitches({ socket: 'close' });
    const unknown = await failureOf(
      client.publish(first('broken media', { media: [file('f.png', 'image/png', mediaFiles.png(3_000))] })),
    );
    expect(unknown).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    expect(unknown.message).toMatch(/has not shown it yet .*closed without a message/);
  });

  it('reports a media post whose read-back fails as outcome-unknown (it was sent), and finds it by lookup', async () => {
    // Without the socket's word the listing is read, and that read fails.
    sim.setSwitches({ listingFailures: 1, socket: 'close' });
    const since = new Date();
    const error = await failureOf(
      client.publish(
        first('sent, then unreadable', { media: [file('r.png', 'image/png', mediaFiles.png(3_000))] }),
      ),
    );
    expect(error).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    expect(error.message).toMatch(/reading it back failed/);
    expect(sim.posts()).toHaveLength(1);
    // The post shows once processed: the lookup finds it then.
    const lookup = () =>
      client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'sent, then unreadable',
        parent: null,
        since,
      });
    await expect.poll(async () => (await lookup())?.remoteId, { timeout: 10_000 }).toBe(sim.posts()[0]?.name);
  });

  it("learns a media post's id from its socket, though the listing shows it late and its body re-rendered", async () => {
    // Reddit re-renders a media post's body: a bare link and a line break come back changed.
    const body = 'Line one\nsee https://example.com/a_b';
    sim.setSwitches({ listingLagMs: 600_000 });
    const progress = memoryProgress();
    const post = await client.publish(
      first(body, { media: [file('s.png', 'image/png', mediaFiles.png(3_000))], progress }),
    );
    const [stored] = sim.posts();
    expect(stored?.selftext).toBe('Line one\n\nsee [https://example.com/a_b](https://example.com/a_b)');
    expect(stored?.sentText).toBe(body);
    expect(post).toEqual({
      remoteId: stored?.name,
      remoteUrl: expect.stringContaining(`/comments/${stored?.id}/`),
      meta: { kind: 'image' },
    });
    expect(sim.socketConnections()).toBe(1);
    // The socket's address is saved with the claim before waiting on it.
    expect(progress.saved).toEqual({
      reddit: {
        websocketUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/rte_images\//),
        kind: 'image',
      },
    });
  });

  it('matches the re-rendered body in the listing when the socket closes or is refused without a word', async () => {
    const body = 'First line\nhttps://example.com/x and more';
    for (const socket of ['close', 'refuse'] as const) {
      sim.reset();
      sim.setSwitches({ socket });
      const post = await client.publish(
        first(body, { media: [file('c.png', 'image/png', mediaFiles.png(3_000))] }),
      );
      const [stored] = sim.posts();
      expect(stored?.selftext, socket).not.toBe(body);
      expect(post.remoteId, socket).toBe(stored?.name);
    }
  });

  it('never contacts a socket host the address policy refuses (ws:// outside the local runtime); the listing is the fallback', async () => {
    const strict = new RedditClient({
      baseUrl: sim.url,
      timeoutMs: 500,
      mediaWaitMs: 1_500,
      pollIntervalMs: 50,
    });
    const post = await strict.publish(
      first('Strict', { media: [file('p.png', 'image/png', mediaFiles.png(3_000))] }),
    );
    expect(post.remoteId).toBe(sim.posts()[0]?.name);
    expect(sim.socketConnections()).toBe(0);
  });

  it('a media post still processing after the wait is outcome-unknown; lookups ask the saved socket, never answer "not found" meanwhile, then find it', async () => {
    const quick = new RedditClient({
      baseUrl: sim.url,
      timeoutMs: 500,
      mediaWaitMs: 700,
      pollIntervalMs: 50,
      outbound: LOCAL_OUTBOUND,
    });
    sim.setSwitches({ processingMs: 2_500 });
    const since = new Date();
    const progress = memoryProgress();
    const error = await failureOf(
      quick.publish(
        first('Slow video', { media: [file('slow.mp4', 'video/mp4', mediaFiles.mp4(5_000))], progress }),
      ),
    );
    expect(error).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    expect(error.message).toMatch(/still processing/);
    const lookup = () =>
      quick.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Slow video',
        parent: null,
        since,
        saved: progress.saved,
      });
    const early = await failureOf(lookup());
    expect(early.kind).toBe('transient');
    expect(early.message).toMatch(/still processing/);
    let found = null;
    for (let i = 0; i < 10 && !found; i += 1) found = await lookup().catch(() => null);
    expect(found).toMatchObject({ remoteId: sim.posts()[0]?.name, meta: { kind: 'video' } });
    expect(sim.posts()).toHaveLength(1);
  });

  it("requires each data route's scope from tokens its OAuth half issued (403 insufficient_scope), and Herald asks for them all", async () => {
    const tokenWith = async (granted: string[]) => {
      const issued = await simOAuthToken({
        simUrl: sim.url,
        network: 'reddit',
        authorizePath: '/api/v1/authorize',
        tokenPath: '/api/v1/access_token',
        scope: REDDIT_SCOPES.join(' '),
        simScopes: granted.join(' '),
        user: 'scopetester',
        extra: { duration: 'permanent' },
      });
      expect(issued.scope.split(' ').sort()).toEqual([...granted].sort());
      return { accessToken: issued.accessToken, remoteAccountId: 'scopetester' };
    };
    // With every scope Herald asks for: post, comment, look up, read metrics, edit and delete.
    const full = await tokenWith(REDDIT_SCOPES);
    const since = new Date();
    const post = await client.publish({ ...first('Scoped body'), credentials: full });
    const reply = await client.publish({
      ...block('Scoped comment', { parent: { block: post, root: post } }),
      credentials: full,
    });
    expect(
      await client.lookup({
        credentials: full,
        idempotencyKey: 'k',
        content: 'Scoped body',
        parent: null,
        since,
      }),
    ).toMatchObject({ remoteId: post.remoteId });
    await client.metrics({ credentials: full, block: post });
    await client.edit({ credentials: full, block: reply, content: 'Scoped comment, edited' });
    const image = await client.publish({
      ...first('Scoped image', { media: [file('scoped.png', 'image/png', mediaFiles.png(2_000))] }),
      credentials: full,
    });
    expect(image.meta).toEqual({ kind: 'image' });

    // Reddit's refusal: 403 with the www-authenticate header prawcore reads.
    const noSubmit = await tokenWith(REDDIT_SCOPES.filter((s) => s !== 'submit'));
    const raw = await fetch(`${sim.url}/api/submit`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${noSubmit.accessToken}`,
        'user-agent': 'test:herald:1.0 (scopes)',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ api_type: 'json', sr: 'heraldtest', kind: 'self', title: 't', text: 'x' }),
    });
    expect(raw.status).toBe(403);
    expect(raw.headers.get('www-authenticate')).toBe('Bearer realm="reddit", error="insufficient_scope"');
    const refused = await failureOf(client.publish({ ...first('Not sent'), credentials: noSubmit }));
    expect(refused).toMatchObject({ kind: 'reconnect', details: { status: 403 } });
    expect(refused.message).toMatch(/insufficient_scope/);
    expect(sim.posts().filter((p) => p.selftext === 'Not sent')).toEqual([]);
    // Each other scope guards its routes.
    const without = async (scope: string) => tokenWith(REDDIT_SCOPES.filter((s) => s !== scope));
    const lookupFails = await failureOf(
      client.lookup({
        credentials: await without('history'),
        idempotencyKey: 'k',
        content: 'x',
        parent: null,
        since,
      }),
    );
    expect(lookupFails.kind).toBe('reconnect');
    const noRead = await without('read');
    expect((await failureOf(client.metrics({ credentials: noRead, block: post }))).kind).toBe('reconnect');
    const noEdit = await without('edit');
    expect((await failureOf(client.delete({ credentials: noEdit, block: reply }))).kind).toBe('reconnect');
    expect((await failureOf(client.edit({ credentials: noEdit, block: post, content: 'x' }))).kind).toBe(
      'reconnect',
    );
    const noIdentity = await without('identity');
    const me = await fetch(`${sim.url}/api/v1/me`, {
      headers: { authorization: `Bearer ${noIdentity.accessToken}` },
    });
    expect(me.status).toBe(403);
    expect(sim.posts().find((p) => p.name === post.remoteId)?.comments[0]).toMatchObject({
      body: 'Scoped comment, edited',
      deleted: false,
    });
  });

  it('refuses a file that is not the size Herald stored', async () => {
    const media = file('short.png', 'image/png', mediaFiles.png(3_000));
    const error = await failureOf(client.publish(first('x', { media: [{ ...media, size: 5_000 }] })));
    expect(error.kind).toBe('permanent');
    expect(sim.posts()).toHaveLength(0);
  });

  it('reads score and comment counts from /api/info', async () => {
    const post = await client.publish(first('Metrics'));
    const comment = await client.publish(block('c', { parent: { block: post, root: post } }));
    const reading = await client.metrics({ credentials, block: post });
    expect(Object.keys(reading).sort()).toEqual(['comments', 'likes']);
    expect(reading.comments).toBeGreaterThanOrEqual(1);
    const onComment = await client.metrics({ credentials, block: comment });
    expect(Object.keys(onComment)).toEqual(['likes']);
    await client.delete({ credentials, block: post });
    expect((await failureOf(client.metrics({ credentials, block: post }))).kind).toBe('permanent');
  });
});
