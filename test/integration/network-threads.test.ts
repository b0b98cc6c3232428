import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  classifyThreadsFailure,
  parseGraphTime,
  ThreadsClient,
} from '../../functions/platforms/threads/client.ts';
import { THREADS_SCOPES, threadsAuth } from '../../functions/platforms/threads/oauth.ts';
import type { MediaForNetwork, RemoteBlock } from '../../functions/ports/network-client.ts';
import { SIM_DEFAULT_REDIRECT_URI } from '../../simulators/framework/oauth.ts';
import {
  graphTimestamp,
  type SimThreadsPost,
  startThreadsSimulator,
  type ThreadsSimulator,
} from '../../simulators/threads/simulator.ts';
import { startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

/** The Threads client against the Threads simulator, media pulled from a local file server. */

const credentials = { accessToken: 'th-token-alice', remoteAccountId: '17841400000000001' };
const input = blockInput(credentials);

let sim: ThreadsSimulator;
let client: ThreadsClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl: string;

const FILES: Record<string, { type: string; bytes: Buffer }> = {
  'a.png': { type: 'image/png', bytes: mediaFiles.png(3_000) },
  'b.jpg': { type: 'image/jpeg', bytes: mediaFiles.jpeg(4_000) },
  'c.mp4': { type: 'video/mp4', bytes: mediaFiles.mp4(50_000) },
};

const media = (name: string, altText: string | null = null): MediaForNetwork => {
  const file = FILES[name];
  return {
    mediaId: `med_${name}`,
    mimeType: file?.type ?? 'image/png',
    size: file?.bytes.length ?? 0,
    altText,
    url: `${filesUrl}/${name}`,
  };
};

/** Upload progress kept in memory, as the engine keeps it with the block's claim. */
const memoryProgress = () => {
  const progress = {
    saved: null as Record<string, unknown> | null,
    saves: 0,
    save: async (state: Record<string, unknown>) => {
      progress.saved = state;
      progress.saves += 1;
    },
  };
  return progress;
};

const simPosts = async (): Promise<SimThreadsPost[]> =>
  ((await (await fetch(`${sim.url}/_sim/threads/posts`)).json()) as { data: SimThreadsPost[] }).data;
const parentOf = (block: RemoteBlock, root: RemoteBlock = block) => ({ block, root });

beforeAll(async () => {
  files = await startFileServer((name) => FILES[name]);
  filesUrl = files.url;
  sim = await startThreadsSimulator({ holdMs: 2_000 });
  client = new ThreadsClient({
    baseUrl: sim.url,
    timeoutMs: 1_000,
    pollIntervalMs: 50,
    processingWaitMs: 5_000,
  });
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.reset();
});

describe('Threads client against the Threads simulator', () => {
  it('publishes a text post and replies to it, each reply to the previous block', async () => {
    const first = await client.publish(
      input('Hello Threads', { options: { replyControl: 'mentioned_only' } }),
    );
    const second = await client.publish(input('Second', { parent: parentOf(first) }));
    const third = await client.publish(input('Third', { parent: parentOf(second, first) }));

    expect(first.remoteId).toMatch(/^\d{17,}$/);
    const posts = await simPosts();
    expect(first.remoteUrl).toBe(posts[0]?.permalink);
    expect(first.remoteUrl).toMatch(/^https:\/\/www\.threads\.net\/@sim_[0-9a-f]{8}\/post\/[A-Za-z0-9_-]+$/);
    expect(posts.map((p) => [p.id, p.text, p.replyToId, p.rootId, p.replyControl])).toEqual([
      [first.remoteId, 'Hello Threads', null, null, 'mentioned_only'],
      [second.remoteId, 'Second', first.remoteId, first.remoteId, 'everyone'],
      [third.remoteId, 'Third', second.remoteId, first.remoteId, 'everyone'],
    ]);
    expect(
      sim.records().map(({ kind, id, parentId, rootId, text, account }) => ({
        kind,
        id,
        parentId,
        rootId,
        text,
        account,
      })),
    ).toEqual([
      {
        kind: 'post',
        id: first.remoteId,
        parentId: null,
        rootId: null,
        text: 'Hello Threads',
        account: credentials.remoteAccountId,
      },
      {
        kind: 'reply',
        id: second.remoteId,
        parentId: first.remoteId,
        rootId: first.remoteId,
        text: 'Second',
        account: credentials.remoteAccountId,
      },
      {
        kind: 'reply',
        id: third.remoteId,
        parentId: second.remoteId,
        rootId: first.remoteId,
        text: 'Third',
        account: credentials.remoteAccountId,
      },
    ]);
  });

  it('sends a link attachment on a text post, and refuses it beside files before sending anything', async () => {
    await client.publish(input('Read this', { options: { linkAttachment: 'https://example.com/a' } }));
    expect((await simPosts())[0]?.linkAttachment).toBe('https://example.com/a');
    const refused = await failureOf(
      client.publish(
        input('Both', { media: [media('a.png')], options: { linkAttachment: 'https://example.com/a' } }),
      ),
    );
    expect(refused.kind).toBe('permanent');
    expect(refused.message).toMatch(/link attachment/);
    expect(await simPosts()).toHaveLength(1);
  });

  it('publishes an image, a video and a carousel, pulled by Threads from their URLs with alt text; replies carry media too', async () => {
    const image = await client.publish(input('One image', { media: [media('a.png', 'A red square')] }));
    const video = await client.publish(
      input('A video', { media: [media('c.mp4', 'A clip')], parent: parentOf(image) }),
    );
    const carousel = await client.publish(
      input('Three files', {
        media: [media('a.png', 'First'), media('b.jpg', 'Second'), media('c.mp4')],
        parent: parentOf(video, image),
      }),
    );
    const posts = await simPosts();
    const byId = new Map(posts.map((p) => [p.id, p]));
    expect(byId.get(image.remoteId)).toMatchObject({
      mediaType: 'IMAGE',
      media: [
        {
          type: 'IMAGE',
          url: `${filesUrl}/a.png`,
          altText: 'A red square',
          bytes: 3_000,
          contentType: 'image/png',
        },
      ],
    });
    expect(byId.get(video.remoteId)).toMatchObject({
      mediaType: 'VIDEO',
      replyToId: image.remoteId,
      media: [{ type: 'VIDEO', altText: 'A clip', bytes: 50_000 }],
    });
    expect(byId.get(carousel.remoteId)).toMatchObject({
      mediaType: 'CAROUSEL_ALBUM',
      replyToId: video.remoteId,
    });
    expect(byId.get(carousel.remoteId)?.media.map((m) => [m.type, m.altText, m.bytes])).toEqual([
      ['IMAGE', 'First', 3_000],
      ['IMAGE', 'Second', 4_000],
      ['VIDEO', null, 50_000],
    ]);
    // Every file once: no post carries a file twice, and nothing else was posted.
    expect(posts).toHaveLength(3);
  });

  it('an image URL that does not answer 200 is refused when the container is made (permanent; nothing posted)', async () => {
    const error = await failureOf(client.publish(input('Missing', { media: [media('nope.png')] })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/Media download has failed.*code 1\/2207052/);
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(await simPosts()).toEqual([]);
  });

  it("a video that fails processing is permanent with Threads' reason; one that cannot be fetched too", async () => {
    sim.setSwitches({ videoFailure: 'INVALID_FRAME_RATE' });
    const bad = await failureOf(client.publish(input('Bad video', { media: [media('c.mp4')] })));
    expect(bad).toMatchObject({
      kind: 'permanent',
      message: 'Threads could not process the media (INVALID_FRAME_RATE)',
    });
    sim.setSwitches({ videoFailure: null });
    const missing = await failureOf(
      client.publish(input('Gone video', { media: [{ ...media('c.mp4'), url: `${filesUrl}/gone.mp4` }] })),
    );
    expect(missing.message).toBe('Threads could not process the media (FAILED_DOWNLOADING_VIDEO)');
    expect(await simPosts()).toEqual([]);
  });

  it('processing longer than the bounded wait is transient, and nothing is posted; the retry makes a new container', async () => {
    sim.setSwitches({ videoProcessingMs: 3_000 });
    const impatient = new ThreadsClient({
      baseUrl: sim.url,
      timeoutMs: 1_000,
      pollIntervalMs: 50,
      processingWaitMs: 400,
    });
    const error = await failureOf(impatient.publish(input('Slow video', { media: [media('c.mp4')] })));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(error.message).toMatch(/still processing/);
    sim.setSwitches({ videoProcessingMs: 100 });
    await impatient.publish(input('Slow video', { media: [media('c.mp4')] }));
    const containers = (await (await fetch(`${sim.url}/_sim/threads/containers`)).json()) as {
      data: { status: string }[];
    };
    // The first container is never published (it expires unused); the retry's is.
    expect(containers.data.map((c) => c.status).sort()).toEqual(['IN_PROGRESS', 'PUBLISHED']);
    expect(await simPosts()).toHaveLength(1);
  });

  it('with saved progress, a video still processing is waited for by the next call (continueLater), never fetched twice', async () => {
    sim.setSwitches({ videoProcessingMs: 1_500 });
    const impatient = new ThreadsClient({
      baseUrl: sim.url,
      timeoutMs: 1_000,
      pollIntervalMs: 50,
      processingWaitMs: 300,
    });
    const progress = memoryProgress();
    const block = input('Long video', { media: [media('c.mp4', 'Alt')], progress });
    const first = await failureOf(impatient.publish(block));
    expect(first).toMatchObject({ kind: 'transient', details: { continueLater: true } });
    expect(progress.saves).toBeGreaterThan(0);
    let remote: RemoteBlock | null = null;
    for (let i = 0; i < 40 && !remote; i++) {
      remote = await impatient.publish(block).catch((error) => {
        expect(error.details.continueLater).toBe(true);
        return null;
      });
    }
    const containers = (await (await fetch(`${sim.url}/_sim/threads/containers`)).json()) as {
      data: unknown[];
    };
    // One container, waited for across the calls, then published.
    expect(containers.data).toHaveLength(1);
    expect((await simPosts()).map((p) => [p.id, p.media.length])).toEqual([[remote?.remoteId, 1]]);

    // Its container published, a later call with the same progress does not post again: outcome unknown, looked up.
    const again = await failureOf(impatient.publish(block));
    expect(again).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    // Changed content makes new containers rather than publishing the saved one.
    sim.setSwitches({ videoProcessingMs: 50 });
    await impatient.publish({ ...block, content: 'Other text' });
    expect(await simPosts()).toHaveLength(2);
  });

  it('a carousel resumes from its saved items', async () => {
    sim.setSwitches({ videoProcessingMs: 1_200 });
    const impatient = new ThreadsClient({
      baseUrl: sim.url,
      timeoutMs: 1_000,
      pollIntervalMs: 50,
      processingWaitMs: 300,
    });
    const progress = memoryProgress();
    const block = input('Carousel', { media: [media('a.png'), media('c.mp4')], progress });
    let remote: RemoteBlock | null = null;
    for (let i = 0; i < 40 && !remote; i++) {
      remote = await impatient.publish(block).catch((error) => {
        expect(error.details.continueLater).toBe(true);
        return null;
      });
    }
    const containers = (await (await fetch(`${sim.url}/_sim/threads/containers`)).json()) as {
      data: unknown[];
    };
    expect(containers.data).toHaveLength(3);
    expect((await simPosts()).map((p) => p.media.length)).toEqual([2]);
  });

  it('an expired container is made again and published once', async () => {
    // Containers live 0 ms: the first one has expired by its first status poll... so does every one.
    sim.setSwitches({ containerLifetimeMs: 0 });
    const error = await failureOf(client.publish(input('Never ready')));
    expect(error).toMatchObject({ kind: 'transient', message: expect.stringMatching(/expire twice/) });
    const containers = (await (await fetch(`${sim.url}/_sim/threads/containers`)).json()) as {
      data: unknown[];
    };
    expect(containers.data).toHaveLength(2);
    sim.setSwitches({ containerLifetimeMs: 86_400_000 });
    await client.publish(input('Ready now'));
    expect((await simPosts()).map((p) => p.text)).toEqual(['Ready now']);
  });

  it('publishing a container still in progress is refused as Threads does (code 24/4279009): transient, not unknown', async () => {
    sim.setSwitches({ videoProcessingMs: 5_000 });
    const made = await fetch(`${sim.url}/v1.0/${credentials.remoteAccountId}/threads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ media_type: 'VIDEO', video_url: `${filesUrl}/c.mp4` }),
    });
    const { id } = (await made.json()) as { id: string };
    const res = await fetch(
      `${sim.url}/v1.0/${credentials.remoteAccountId}/threads_publish?creation_id=${id}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${credentials.accessToken}` },
      },
    );
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ error: { code: 24, error_subcode: 4279009, type: 'THApiException' } });
    const error = classifyThreadsFailure({ type: 'answer', status: 400, headers: {}, body });
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
  });

  it('maps the sim tokens: refusals when the container is made, lost answers after the post is stored', async () => {
    const fail = await failureOf(client.publish(input('No sim:fail')));
    expect(fail).toMatchObject({ kind: 'permanent', details: { status: 400 } });
    expect(fail.message).toMatch(/Community Guidelines/);

    const flaky = await failureOf(client.publish(input('Maybe sim:flaky')));
    // The container was not made: nothing can have been posted.
    expect(flaky).toMatchObject({ kind: 'transient', details: { status: 503 } });
    expect(flaky.details.outcomeUnknown).toBeUndefined();
    await client.publish(input('Maybe sim:flaky'));

    const reconnect = await failureOf(client.publish(input('Token sim:reconnect')));
    expect(reconnect).toMatchObject({ kind: 'reconnect', details: { tokenExpired: true } });

    const once = await failureOf(client.publish(input('Once sim:fail-once')));
    expect(once.kind).toBe('permanent');
    await client.publish(input('Once sim:fail-once'));

    for (const token of ['sim:timeout', 'sim:reset', 'sim:bad-gateway']) {
      const lost = await failureOf(client.publish(input(`Lost ${token}`)));
      expect(lost).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    }
    expect(sim.records().map((r) => r.text)).toEqual([
      'Maybe sim:flaky',
      'Once sim:fail-once',
      'Lost sim:timeout',
      'Lost sim:reset',
      'Lost sim:bad-gateway',
    ]);
  });

  it('looks up a post and a reply whose publish answer was lost; finds nothing for text not posted or posted before `since`', async () => {
    const since = new Date(Date.now() - 1_000);
    const post = input('Lost post sim:timeout');
    expect((await failureOf(client.publish(post))).details.outcomeUnknown).toBe(true);
    const stored = sim.records()[0];
    const found = await client.lookup({
      credentials,
      idempotencyKey: post.idempotencyKey,
      content: post.content,
      parent: null,
      since,
    });
    expect(found?.remoteId).toBe(stored?.id);
    expect(found?.remoteUrl).toMatch(/^https:\/\/www\.threads\.net\/@/);

    const root = found as RemoteBlock;
    const reply = input('Lost reply sim:bad-gateway', { parent: parentOf(root) });
    expect((await failureOf(client.publish(reply))).details.outcomeUnknown).toBe(true);
    // The same text replying to another post is not this block.
    const other = await client.publish(input('Other root'));
    const foundReply = await client.lookup({
      credentials,
      idempotencyKey: reply.idempotencyKey,
      content: reply.content,
      parent: reply.parent,
      since,
    });
    expect(foundReply?.remoteId).toBe(sim.records()[1]?.id);
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: reply.content,
        parent: parentOf(other),
        since,
      }),
    ).toBeNull();
    expect(
      await client.lookup({ credentials, idempotencyKey: 'k', content: 'Never sent', parent: null, since }),
    ).toBeNull();
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: post.content,
        parent: null,
        since: new Date(Date.now() + 5_000),
      }),
    ).toBeNull();
    expect(client.consistencyWindowSeconds).toBeGreaterThan(0);
  });

  it("a reply whose answer was lost is found with a token from Herald's connect flow (threads_read_replies); without it the lookup asks for a reconnect", async () => {
    const auth = threadsAuth({ baseUrls: { threads: sim.url }, timeoutMs: 5_000 });
    const app = { clientId: 'herald-sim-threads', clientSecret: 'herald-sim-secret-threads' };
    /** A token granted through the simulator's consent: Herald's scopes, or the ones given. */
    const grant = async (user: string, scopes?: string[]) => {
      const url = new URL(
        (auth.authorizeUrl as NonNullable<typeof auth.authorizeUrl>)({
          app,
          redirectUri: SIM_DEFAULT_REDIRECT_URI,
          state: 's',
          codeChallenge: null,
        }),
      );
      url.searchParams.set('sim_user', user);
      if (scopes) url.searchParams.set('scope', scopes.join(','));
      const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') as string);
      const tokens = await (auth.exchangeCode as NonNullable<typeof auth.exchangeCode>)({
        app,
        code: back.searchParams.get('code') as string,
        redirectUri: SIM_DEFAULT_REDIRECT_URI,
        codeVerifier: null,
      });
      const { remoteAccountId } = await auth.identify({ app, tokens });
      return { accessToken: tokens.accessToken, remoteAccountId };
    };
    const lostReply = async (creds: { accessToken: string; remoteAccountId: string }, text: string) => {
      const since = new Date(Date.now() - 1_000);
      const root = await client.publish(input(`${text} root`, { credentials: creds }));
      const reply = input(`${text} reply sim:bad-gateway`, { credentials: creds, parent: parentOf(root) });
      expect((await failureOf(client.publish(reply))).details.outcomeUnknown).toBe(true);
      return { ...reply, since };
    };

    const connected = await grant('replies-reader');
    const reply = await lostReply(connected, 'Connected now');
    const found = await client.lookup(reply);
    const stored = (await simPosts()).filter((p) => p.text === reply.content);
    expect(stored).toHaveLength(1);
    expect(found?.remoteId).toBe(stored[0]?.id);

    // A channel connected before Herald asked for threads_read_replies: the replies lookup is
    // refused (Graph's code 10) and the channel must be reconnected, saying why.
    const older = await grant(
      'older-channel',
      THREADS_SCOPES.filter((s) => s !== 'threads_read_replies'),
    );
    const olderReply = await lostReply(older, 'Connected before');
    const refused = await failureOf(client.lookup(olderReply));
    expect(refused.kind).toBe('reconnect');
    expect(refused.message).toMatch(/threads_read_replies/);
    expect(refused.message).toMatch(/reconnect/i);
    // Its posts are still looked up as before.
    expect(
      await client.lookup({ ...olderReply, content: 'Connected before root', parent: null }),
    ).not.toBeNull();
  });

  it('the 24-hour post cap: refused as rateLimited, waiting until the oldest post leaves the window; replies have their own cap', async () => {
    sim.setSwitches({ postQuota: 2, replyQuota: 1 });
    const first = await client.publish(input('Cap one'));
    await client.publish(input('Cap two'));
    const capped = await failureOf(client.publish(input('Cap three')));
    expect(capped).toMatchObject({ kind: 'transient', details: { rateLimited: true, status: 400 } });
    const oldest = Date.parse((await simPosts())[0]?.timestamp as string);
    const expected = (oldest + 86_400_000 - Date.now()) / 1000;
    expect(capped.details.retryAfterSeconds).toBeGreaterThan(expected - 5);
    expect(capped.details.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil(expected) + 1);

    await client.publish(input('Reply one', { parent: parentOf(first) }));
    const replyCapped = await failureOf(client.publish(input('Reply two', { parent: parentOf(first) })));
    expect(replyCapped.details.rateLimited).toBe(true);
    expect(replyCapped.details.retryAfterSeconds).toBeGreaterThan(86_000);

    const limit = await fetch(
      `${sim.url}/v1.0/${credentials.remoteAccountId}/threads_publishing_limit?fields=quota_usage,config,reply_quota_usage,reply_config`,
      { headers: { authorization: `Bearer ${credentials.accessToken}` } },
    );
    expect(await limit.json()).toEqual({
      data: [
        {
          quota_usage: 2,
          config: { quota_total: 2, quota_duration: 86400 },
          reply_quota_usage: 1,
          reply_config: { quota_total: 1, quota_duration: 86400 },
        },
      ],
    });
    expect((await simPosts()).map((p) => p.text)).toEqual(['Cap one', 'Cap two', 'Reply one']);
  });

  it("Graph throttling (code 4) is rateLimited with Meta's estimated time to regain access", async () => {
    sim.setRateLimited(120);
    const error = await failureOf(client.publish(input('Throttled')));
    expect(error).toMatchObject({
      kind: 'transient',
      details: { rateLimited: true, retryAfterSeconds: 120 },
    });
    sim.setRateLimited(0);
    const bare = classifyThreadsFailure({
      type: 'answer',
      status: 400,
      headers: {},
      body: { error: { message: 'User request limit reached', code: 17 } },
    });
    // No time stated: no reset claimed (the engine's growing wait, not a fixed 10 minutes).
    expect(bare.details).toMatchObject({ rateLimited: true });
    expect(bare.details.retryAfterSeconds).toBeUndefined();
  });

  it('expired, revoked and missing tokens', async () => {
    const expired = await failureOf(
      client.publish(input('x', { credentials: { ...credentials, accessToken: 'expired-1' } })),
    );
    expect(expired).toMatchObject({ kind: 'reconnect', details: { tokenExpired: true } });
    const revoked = await failureOf(
      client.publish(input('x', { credentials: { ...credentials, accessToken: 'revoked-1' } })),
    );
    expect(revoked.kind).toBe('reconnect');
    expect(revoked.details.tokenExpired).toBeUndefined();
  });

  it("a token Threads issued acts for its own user only: another user's id in the path is refused", async () => {
    const app = { clientId: 'herald-sim-threads', clientSecret: 'herald-sim-secret-threads' };
    // The preset app's registered callback: the simulator refuses any other, as Threads does.
    const redirect = SIM_DEFAULT_REDIRECT_URI;
    const consent = await fetch(
      `${sim.url}/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(redirect)}&scope=threads_basic,threads_content_publish&response_type=code&state=s&sim_user=owner`,
      { redirect: 'manual' },
    );
    const code = new URL(consent.headers.get('location') as string).searchParams.get('code') as string;
    const token = await fetch(`${sim.url}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: app.clientId,
        client_secret: app.clientSecret,
        grant_type: 'authorization_code',
        redirect_uri: redirect,
        code,
      }),
    });
    const { access_token: accessToken, user_id: userId } = (await token.json()) as {
      access_token: string;
      user_id: string;
    };
    const own = await client.publish(
      input('Mine', { credentials: { accessToken, remoteAccountId: userId } }),
    );
    expect(own.remoteId).toMatch(/^\d+$/);
    const other = await failureOf(
      client.publish(
        input('Not mine', { credentials: { accessToken, remoteAccountId: '17841400000000999' } }),
      ),
    );
    expect(other).toMatchObject({ kind: 'permanent', details: { status: 400 } });
    expect(other.message).toMatch(/does not exist.*code 100\/33/);
    expect((await simPosts()).map((p) => [p.text, p.userId])).toEqual([['Mine', userId]]);
  });

  it('refuses edits clearly; deletes posts and replies, a second delete being fine', async () => {
    const post = await client.publish(input('To delete'));
    const reply = await client.publish(input('Reply to delete', { parent: parentOf(post) }));
    const edit = await failureOf(client.edit({ credentials, block: post, content: 'changed' }));
    expect(edit).toMatchObject({
      kind: 'permanent',
      message: 'Threads does not let a published post be edited.',
    });
    await client.delete({ credentials, block: reply });
    await client.delete({ credentials, block: post });
    await client.delete({ credentials, block: post });
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'delete')
        .map((r) => r.id),
    ).toEqual([reply.remoteId, post.remoteId]);
    expect((await simPosts()).every((p) => p.deleted)).toBe(true);
  });

  it('reads metrics under the stable names', async () => {
    const post = await client.publish(input('Measured'));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const reading = await client.metrics({ credentials, block: post });
    expect(Object.keys(reading).sort()).toEqual([
      'comments',
      'likes',
      'quotes',
      'reposts',
      'shares',
      'views',
    ]);
    expect(reading.views).toBeGreaterThan(0);
    await client.delete({ credentials, block: post });
    const gone = await failureOf(client.metrics({ credentials, block: post }));
    expect(gone.kind).toBe('permanent');
  });

  it('refuses text over 500 characters counting emoji as their UTF-8 bytes; parses Graph times', async () => {
    const ok = `${'a'.repeat(496)}😀`;
    await client.publish(input(ok));
    const long = await failureOf(client.publish(input(`${'a'.repeat(497)}😀`)));
    expect(long.kind).toBe('permanent');
    expect(long.message).toMatch(/at most 500/);
    expect(parseGraphTime(graphTimestamp(new Date('2026-01-02T03:04:05Z')))).toBe(
      Date.parse('2026-01-02T03:04:05Z'),
    );
  });
});
