import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { XClient } from '../../functions/platforms/x/client.ts';
import type { MediaForNetwork, RemoteBlock } from '../../functions/ports/network-client.ts';
import { startXSimulator, type XSimulator, xUserForToken } from '../../simulators/x/simulator.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

const TOKEN = 'x-token-alice';
const credentials = { accessToken: TOKEN, remoteAccountId: 'alice' };

let sim: XSimulator;
let client: XClient;

const input = blockInput(credentials);

const getJson = async (path: string, token = TOKEN) => {
  const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

/** A stand-in for S3's presigned URLs: serves files put in `files` and counts the GETs. */
const files = new Map<string, Buffer>();
let fileServer: Server;
let fileBase: string;
const fileReads: string[] = [];
const mediaFile = (
  name: string,
  mimeType: string,
  bytes: Buffer,
  altText: string | null = null,
): MediaForNetwork => {
  files.set(name, bytes);
  return { mediaId: `med_${name}`, mimeType, size: bytes.length, altText, url: `${fileBase}/${name}` };
};
/** Polls STATUS without waiting check_after_secs on real time. */
const noWait = async () => {};

beforeAll(async () => {
  // No timeline lag here: the lag has its own test below.
  sim = await startXSimulator({ timelineLagMs: 0 });
  client = new XClient({
    baseUrl: sim.url,
    timeoutMs: 300,
    media: { chunkBytes: 256 * 1024, sleep: noWait },
  });
  fileServer = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    fileReads.push(name);
    const bytes = files.get(name);
    if (!bytes) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => fileServer.listen(0, '127.0.0.1', resolve));
  fileBase = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sim?.stop();
  await new Promise((resolve) => fileServer?.close(resolve));
});
beforeEach(() => {
  sim.reset();
  fileReads.length = 0;
});

describe('X client against the X simulator', () => {
  it('posts a 3-block thread, each block replying to the previous one', async () => {
    const first = await client.publish(input('Thread 1/3', { options: { replySettings: 'following' } }));
    const second = await client.publish(input('Thread 2/3', { parent: { block: first, root: first } }));
    const third = await client.publish(input('Thread 3/3', { parent: { block: second, root: first } }));

    for (const block of [first, second, third]) {
      expect(block.remoteId).toMatch(/^\d{15,20}$/);
      expect(block.remoteUrl).toBe(`https://x.com/alice/status/${block.remoteId}`);
    }
    const userId = xUserForToken(TOKEN).id;
    const records = sim.records();
    expect(
      records.map(({ kind, id, parentId, rootId, text, account }) => ({
        kind,
        id,
        parentId,
        rootId,
        text,
        account,
      })),
    ).toEqual([
      { kind: 'post', id: first.remoteId, parentId: null, rootId: null, text: 'Thread 1/3', account: userId },
      {
        kind: 'reply',
        id: second.remoteId,
        parentId: first.remoteId,
        rootId: first.remoteId,
        text: 'Thread 2/3',
        account: userId,
      },
      {
        kind: 'reply',
        id: third.remoteId,
        parentId: second.remoteId,
        rootId: first.remoteId,
        text: 'Thread 3/3',
        account: userId,
      },
    ]);
    expect(Number.isNaN(Date.parse(records[0]?.at ?? ''))).toBe(false);

    // The same log over HTTP, as the local runtime and other tools read it.
    const overHttp = await fetch(`${sim.url}/_sim/records`);
    expect(((await overHttp.json()) as { data: unknown }).data).toEqual(records);

    // reply_settings went with the first block only.
    const head = await getJson(`/2/tweets/${first.remoteId}?tweet.fields=reply_settings,conversation_id`);
    expect(head.body.data).toMatchObject({ reply_settings: 'following', conversation_id: first.remoteId });
    const tail = await getJson(`/2/tweets/${third.remoteId}?tweet.fields=reply_settings,conversation_id`);
    expect(tail.body.data).toMatchObject({ reply_settings: 'everyone', conversation_id: first.remoteId });
  });

  it('refuses edits without calling X', async () => {
    const block = await client.publish(input('Cannot be edited'));
    const error = await failureOf(client.edit({ credentials, block, content: 'Edited' }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('X does not allow edits');
    expect(sim.records().map((record) => record.kind)).toEqual(['post']);
  });

  it('deletes a tweet, and deleting it again is not an error', async () => {
    const block = await client.publish(input('Short-lived'));
    await client.delete({ credentials, block });
    await client.delete({ credentials, block });
    expect(sim.records().map((record) => [record.kind, record.id])).toEqual([
      ['post', block.remoteId],
      ['delete', block.remoteId],
    ]);
    const gone = await getJson(`/2/tweets/${block.remoteId}`);
    expect(gone.body.errors).toEqual([expect.objectContaining({ title: 'Not Found Error' })]);
  });

  it('maps each sim token to the right NetworkError kind', async () => {
    const fail = await failureOf(client.publish(input('Launch sim:fail')));
    expect(fail).toMatchObject({
      kind: 'permanent',
      message: 'You are not permitted to perform this action.',
    });
    expect(fail.details).toEqual({ status: 403 });

    const flaky = await failureOf(client.publish(input('Launch sim:flaky')));
    expect(flaky.kind).toBe('transient');
    // X may have stored the tweet before answering 503: the engine looks it up before resending.
    expect(flaky.details).toEqual({ status: 503, outcomeUnknown: true });
    await expect(client.publish(input('Launch sim:flaky'))).resolves.toMatchObject({
      remoteId: expect.any(String),
    });

    const reconnect = await failureOf(client.publish(input('Launch sim:reconnect')));
    expect(reconnect).toMatchObject({ kind: 'reconnect', message: 'Unauthorized' });
    expect(reconnect.details.status).toBe(401);

    // Nothing was stored for the refusals; the flaky one went through on its second send.
    expect(sim.records().map((record) => record.text)).toEqual(['Launch sim:flaky']);
  });

  it('sim:fail-once fails the first send and accepts the second', async () => {
    const first = await failureOf(client.publish(input('Once sim:fail-once')));
    expect(first.kind).toBe('permanent');
    const block = await client.publish(input('Once sim:fail-once'));
    expect(sim.records()).toEqual([expect.objectContaining({ kind: 'post', id: block.remoteId })]);
  });

  it('sim:timeout: the tweet is stored, the client gives up with outcomeUnknown, and lookup finds it', async () => {
    const since = new Date();
    const started = Date.now();
    const error = await failureOf(client.publish(input('Slow one & <more> sim:timeout')));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBe(true);

    const stored = sim.records();
    expect(stored).toEqual([
      expect.objectContaining({ kind: 'post', text: 'Slow one & <more> sim:timeout' }),
    ]);
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'ignored-on-x',
      content: 'Slow one & <more> sim:timeout',
      parent: null,
      since,
    });
    expect(found).toEqual({
      remoteId: stored[0]?.id,
      remoteUrl: `https://x.com/alice/status/${stored[0]?.id}`,
      meta: {},
    });
    // X hands the text back HTML-escaped; lookup matched it all the same.
    const timeline = await getJson(`/2/users/${xUserForToken(TOKEN).id}/tweets?max_results=5`);
    expect(timeline.body.data).toEqual([
      expect.objectContaining({ text: 'Slow one &amp; &lt;more&gt; sim:timeout' }),
    ]);
  });

  it('closes a held sim:timeout socket after holdMs, which the client sees as an unknown outcome', async () => {
    const short = await startXSimulator({ holdMs: 150 });
    try {
      const patient = new XClient({ baseUrl: short.url, timeoutMs: 5_000 });
      const started = Date.now();
      const error = await failureOf(patient.publish(input('Held sim:timeout')));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(error.kind).toBe('transient');
      expect(error.details.outcomeUnknown).toBe(true);
      expect(short.records()).toHaveLength(1);
    } finally {
      await short.stop();
    }
  });

  it('lookup matches the reply parent and answers null for what X does not have', async () => {
    const since = new Date();
    const root = await client.publish(input('Root for lookup'));
    const error = await failureOf(
      client.publish(input('Reply lost sim:timeout', { parent: { block: root, root } })),
    );
    expect(error.details.outcomeUnknown).toBe(true);
    const lookup = (content: string, parent: { block: RemoteBlock; root: RemoteBlock } | null) =>
      client.lookup({ credentials, idempotencyKey: 'k', content, parent, since });

    const reply = await lookup('Reply lost sim:timeout', { block: root, root });
    expect(reply?.remoteId).toBe(sim.records()[1]?.id);
    expect(await lookup('Reply lost sim:timeout', null)).toBeNull();
    expect(await lookup('Never sent', null)).toBeNull();
    expect((await lookup('Root for lookup', null))?.remoteId).toBe(root.remoteId);
    // Another account's token sees its own (empty) timeline.
    const other = new XClient({ baseUrl: sim.url, timeoutMs: 300 });
    const otherCredentials = { accessToken: 'x-token-bob', remoteAccountId: 'bob' };
    expect(
      await other.lookup({
        credentials: otherCredentials,
        idempotencyKey: 'k',
        content: 'Root for lookup',
        parent: null,
        since,
      }),
    ).toBeNull();
  });

  it('the timeline lags behind a stored tweet: a lookup right after the lost answer finds nothing yet', async () => {
    const lagging = await startXSimulator({ timelineLagMs: 800 });
    try {
      const lagClient = new XClient({ baseUrl: lagging.url, timeoutMs: 300 });
      const since = new Date();
      const error = await failureOf(lagClient.publish(input('Lagging sim:timeout')));
      expect(error.details.outcomeUnknown).toBe(true);
      const [stored] = lagging.records();
      const lookup = () =>
        lagClient.lookup({
          credentials,
          idempotencyKey: 'k',
          content: 'Lagging sim:timeout',
          parent: null,
          since,
        });
      // Stored, but not in the timeline yet: a null here proves nothing.
      expect(await lookup()).toBeNull();
      // The tweet itself is there (X would refuse it again as a duplicate).
      const again = await failureOf(lagClient.publish(input('Lagging sim:timeout')));
      expect(again.details.duplicate).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect((await lookup())?.remoteId).toBe(stored?.id);
      expect(lagging.records()).toHaveLength(1);
    } finally {
      await lagging.stop();
    }
  });

  it('links come back as t.co links; lookup still matches a bare domain and a link with another case', async () => {
    const since = new Date();
    const content = 'Read example.com/news and https://Docs.Example.org/Guide/ today sim:timeout';
    const error = await failureOf(client.publish(input(content)));
    expect(error.details.outcomeUnknown).toBe(true);
    const [stored] = sim.records();
    expect(stored?.text).toBe(content);

    // X shows every link, a bare domain too, as t.co, expanded in entities.urls.
    const timeline = await getJson(
      `/2/users/${xUserForToken(TOKEN).id}/tweets?max_results=5&tweet.fields=entities`,
    );
    const [tweet] = timeline.body.data as { text: string; entities: { urls: unknown[] } }[];
    expect(tweet?.text).toMatch(
      /^Read https:\/\/t\.co\/\w{10} and https:\/\/t\.co\/\w{10} today sim:timeout$/,
    );
    expect(tweet?.entities.urls).toEqual([
      expect.objectContaining({ expanded_url: 'http://example.com/news', display_url: 'example.com/news' }),
      expect.objectContaining({ expanded_url: 'https://Docs.Example.org/Guide/' }),
    ]);

    const lookup = (text: string) =>
      client.lookup({ credentials, idempotencyKey: 'k', content: text, parent: null, since });
    expect((await lookup(content))?.remoteId).toBe(stored?.id);
    // Another link in the same place is another tweet.
    expect(await lookup(content.replace('example.com/news', 'example.com/sports'))).toBeNull();
  });

  it.each([
    ['sim:reset', undefined],
    ['sim:bad-gateway', 502],
  ])(
    '%s: the tweet is stored, the answer is lost (outcome unknown), and lookup finds it',
    async (token, status) => {
      const since = new Date();
      const content = `Stored then lost ${token}`;
      const error = await failureOf(client.publish(input(content)));
      expect(error.kind).toBe('transient');
      expect(error.details.outcomeUnknown).toBe(true);
      expect(error.details.status).toBe(status);
      const found = await client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since });
      expect(found?.remoteId).toBe(sim.records()[0]?.id);
      expect(sim.records()).toHaveLength(1);
    },
  );

  it('answers 429 with x-rate-limit-reset while rate limited: transient with retryAfterSeconds', async () => {
    sim.setRateLimited(42);
    const raw = await getJson('/2/users/me');
    expect(raw.status).toBe(429);
    expect(raw.body).toEqual({
      title: 'Too Many Requests',
      detail: 'Too Many Requests',
      type: 'about:blank',
      status: 429,
    });
    const reset = Number(raw.headers.get('x-rate-limit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 40);
    expect(raw.headers.get('x-rate-limit-remaining')).toBe('0');

    const error = await failureOf(client.publish(input('Rate limited')));
    expect(error.kind).toBe('transient');
    expect(error.details.status).toBe(429);
    expect(error.details.retryAfterSeconds).toBeGreaterThanOrEqual(40);
    expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(43);

    sim.setRateLimited(0);
    await expect(client.publish(input('Rate limited'))).resolves.toMatchObject({
      remoteId: expect.any(String),
    });
  });

  it('a revoked or expired token means reconnect, with X’s 401 body', async () => {
    for (const token of ['revoked-123', 'expired-456']) {
      const error = await failureOf(
        client.publish(input('Hello', { credentials: { accessToken: token, remoteAccountId: 'alice' } })),
      );
      expect(error.kind).toBe('reconnect');
      expect(error.details).toEqual({ status: 401, tokenExpired: true });
      const raw = await getJson('/2/users/me', token);
      expect(raw).toMatchObject({
        status: 401,
        body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
      });
    }
    expect(sim.records()).toEqual([]);
  });

  it('refuses duplicate content the way X does', async () => {
    await client.publish(input('Same words'));
    const error = await failureOf(client.publish(input('Same words')));
    expect(error).toMatchObject({
      kind: 'permanent',
      message: 'You are not allowed to create a Tweet with duplicate content.',
      details: { status: 403, duplicate: true },
    });
  });

  it('answers with X’s error bodies', async () => {
    const refused = await fetch(`${sim.url}/2/tweets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'sim:fail' }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      title: 'Forbidden',
      detail: 'You are not permitted to perform this action.',
      type: 'about:blank',
      status: 403,
    });
    const invalid = await getJson(`/2/users/${xUserForToken(TOKEN).id}/tweets?max_results=1`);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      title: 'Invalid Request',
      type: 'https://api.twitter.com/2/problems/invalid-request',
      errors: [{ message: expect.stringContaining('max_results') }],
    });
    const noEdits = await fetch(`${sim.url}/2/tweets/1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(noEdits.status).toBe(404);
  });

  it('a network that cannot be reached is transient with a known outcome', async () => {
    const closed = await startXSimulator();
    const url = closed.url;
    await closed.stop();
    const error = await failureOf(
      new XClient({ baseUrl: url, timeoutMs: 300 }).publish(input('Nobody home')),
    );
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(error.message).toContain('ECONNREFUSED');
  });
});

describe('X media upload against the X simulator', () => {
  const stored = async (id: string) =>
    (await getJson(`/2/tweets/${id}?tweet.fields=attachments,entities`)).body.data as Record<string, any>;

  it('posts a thread with images: chunked upload, alt text through metadata, media_ids on each tweet', async () => {
    const a = mediaFile('a.png', 'image/png', mediaFiles.png(600_000), 'A red square');
    const b = mediaFile('b.jpg', 'image/jpeg', mediaFiles.jpeg(300_000), 'A blue circle');
    const c = mediaFile('c.webp', 'image/webp', mediaFiles.webp(1_000));
    const first = await client.publish(input('Pictures 1/2', { media: [a, b] }));
    const second = await client.publish(
      input('Pictures 2/2', { media: [c], parent: { block: first, root: first } }),
    );

    const uploads = sim.media();
    expect(
      uploads.map(({ category, totalBytes, receivedBytes, finalized, state, altText, segments }) => ({
        category,
        totalBytes,
        receivedBytes,
        finalized,
        state,
        altText,
        segments,
      })),
    ).toEqual([
      // 600,000 bytes in 256 KiB chunks: 3 appends.
      {
        category: 'tweet_image',
        totalBytes: 600_000,
        receivedBytes: 600_000,
        finalized: true,
        state: 'succeeded',
        altText: 'A red square',
        segments: 3,
      },
      {
        category: 'tweet_image',
        totalBytes: 300_000,
        receivedBytes: 300_000,
        finalized: true,
        state: 'succeeded',
        altText: 'A blue circle',
        segments: 2,
      },
      {
        category: 'tweet_image',
        totalBytes: 1_000,
        receivedBytes: 1_000,
        finalized: true,
        state: 'succeeded',
        altText: null,
        segments: 1,
      },
    ]);
    expect(uploads[0]?.tweetIds).toEqual([first.remoteId]);
    expect(uploads[2]?.tweetIds).toEqual([second.remoteId]);
    expect((await stored(first.remoteId)).attachments.media_keys).toEqual(
      uploads.slice(0, 2).map((u) => `3_${u.id}`),
    );
    // X appends a t.co link for the media; the lookup still recognises the tweet.
    expect((await stored(first.remoteId)).text).toMatch(/^Pictures 1\/2 https:\/\/t\.co\/\w+$/);
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'k',
      content: 'Pictures 2/2',
      parent: { block: first, root: first },
      since: new Date(Date.now() - 60_000),
    });
    expect(found?.remoteId).toBe(second.remoteId);
  });

  it('posts a video: streamed in chunks, tweet_video, STATUS polled until processing succeeded', async () => {
    const video = mediaFile('v.mp4', 'video/mp4', mediaFiles.mp4(1_200_000), 'A short clip');
    const block = await client.publish(input('A video', { media: [video] }));
    const [upload] = sim.media();
    expect(upload).toMatchObject({
      category: 'tweet_video',
      mediaType: 'video/mp4',
      receivedBytes: 1_200_000,
      segments: 5,
      state: 'succeeded',
      altText: 'A short clip',
      tweetIds: [block.remoteId],
    });
    expect((await stored(block.remoteId)).attachments.media_keys).toEqual([`3_${upload?.id}`]);
  });

  it('a GIF goes up as tweet_gif and is processed like a video', async () => {
    const gif = mediaFile('g.gif', 'image/gif', mediaFiles.gif(40_000));
    await client.publish(input('A GIF', { media: [gif] }));
    expect(sim.media()[0]).toMatchObject({ category: 'tweet_gif', state: 'succeeded' });
  });

  it('a video X fails to process is a permanent refusal with its reason, and no tweet', async () => {
    sim.setSwitches({ processingFails: true });
    const video = mediaFile('bad.mp4', 'video/mp4', mediaFiles.mp4(50_000));
    const error = await failureOf(client.publish(input('Broken video', { media: [video] })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('Unsupported video format');
    expect(sim.records()).toEqual([]);
  });

  it('a video still processing after the wait is transient, and the retry reuses the upload', async () => {
    sim.setSwitches({ processingPolls: 3 });
    // A clock that the waits between polls move forward: no sleeping on real time.
    let waited = 0;
    const impatient = new XClient({
      baseUrl: sim.url,
      timeoutMs: 2_000,
      // check_after_secs is 1: a 1-second budget allows one poll, not the three X needs.
      media: {
        chunkBytes: 256 * 1024,
        maxProcessingSeconds: 1,
        now: () => Date.now() + waited,
        sleep: async (ms) => {
          waited += ms;
        },
      },
    });
    const video = mediaFile('slow.mp4', 'video/mp4', mediaFiles.mp4(50_000));
    const error = await failureOf(impatient.publish(input('Slow video', { media: [video] })));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(sim.media()[0]?.state).toBe('in_progress');
    const block = await impatient.publish(input('Slow video', { media: [video] }));
    expect(sim.media()).toHaveLength(1);
    expect(sim.media()[0]).toMatchObject({ state: 'succeeded', tweetIds: [block.remoteId] });
  });

  it('an upload failing half-way is transient (no tweet sent) and the retry starts a new upload from the first byte', async () => {
    sim.setSwitches({ failAppendAt: 2 });
    const video = mediaFile('half.mp4', 'video/mp4', mediaFiles.mp4(1_000_000));
    const error = await failureOf(client.publish(input('Half way', { media: [video] })));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(error.message).toMatch(/half-way/);
    expect(sim.records()).toEqual([]);
    expect(sim.media()).toMatchObject([{ finalized: false, segments: 2 }]);

    const block = await client.publish(input('Half way', { media: [video] }));
    const [broken, complete] = sim.media();
    expect(broken).toMatchObject({ finalized: false, tweetIds: [] });
    expect(complete).toMatchObject({
      finalized: true,
      receivedBytes: 1_000_000,
      segments: 4,
      tweetIds: [block.remoteId],
    });
    // The file was read from its first byte again.
    expect(fileReads).toEqual(['half.mp4', 'half.mp4']);
  });

  it('a retry after a refused tweet reuses the uploaded media id instead of uploading again', async () => {
    const picture = mediaFile('p.png', 'image/png', mediaFiles.png(20_000), 'First alt');
    sim.setSwitches({ dailyLimitSeconds: 3600 });
    const limited = await failureOf(client.publish(input('Limited', { media: [picture] })));
    expect(limited.details.rateLimited).toBe(true);
    expect(sim.media()).toHaveLength(1);

    sim.setSwitches({ dailyLimitSeconds: 0 });
    const block = await client.publish(input('Limited', { media: [{ ...picture, altText: 'Second alt' }] }));
    expect(sim.media()).toHaveLength(1);
    expect(sim.media()[0]).toMatchObject({ altText: 'Second alt', tweetIds: [block.remoteId] });
    expect(fileReads).toEqual(['p.png']);
  });

  it('an upload X no longer has (expired) is uploaded again', async () => {
    const picture = mediaFile('e.png', 'image/png', mediaFiles.png(5_000));
    // The client keeps uploads while X says they live; an upload X lost early is noticed by STATUS.
    sim.setSwitches({ dailyLimitSeconds: 3600 });
    await failureOf(client.publish(input('Expired', { media: [picture] })));
    sim.setSwitches({ dailyLimitSeconds: 0, expireUploads: true });
    const block = await client.publish(input('Expired', { media: [picture] }));
    expect(sim.media()).toHaveLength(2);
    expect(sim.media()[1]?.tweetIds).toEqual([block.remoteId]);
  });

  it('refuses a video together with other files before uploading anything', async () => {
    const video = mediaFile('m.mp4', 'video/mp4', mediaFiles.mp4(10_000));
    const picture = mediaFile('m.png', 'image/png', mediaFiles.png(1_000));
    const error = await failureOf(client.publish(input('Mixed', { media: [video, picture] })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/one GIF, or one video/);
    expect(sim.media()).toEqual([]);
  });

  it('the simulator refuses tweets with unknown, unfinished or unprocessed media like X', async () => {
    const post = (media_ids: string[]) =>
      fetch(`${sim.url}/2/tweets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: `media ${Math.random()}`, media: { media_ids } }),
      });
    const call = async (path: string, json?: unknown, token = TOKEN) =>
      (await fetch(`${sim.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json ?? {}),
      }).then((r) => r.json())) as { data: { id: string; processing_info?: { state: string } } };

    const unknown = await post(['1234567890']);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).errors[0].message).toBe('Your media IDs are invalid.');

    const init = await call('/2/media/upload/initialize', {
      media_type: 'video/mp4',
      total_bytes: 4,
      media_category: 'tweet_video',
    });
    const id = init.data.id;
    expect((await post([id])).status).toBe(400); // not finalized
    const short = await fetch(`${sim.url}/2/media/upload/${id}/finalize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(short.status).toBe(400); // no bytes yet: segments do not add up
    await call(`/2/media/upload/${id}/append`, {
      segment_index: 0,
      media: Buffer.from('abcd').toString('base64'),
    });
    const finalized = await call(`/2/media/upload/${id}/finalize`);
    expect(finalized.data.processing_info?.state).toBe('pending');
    expect((await post([id])).status).toBe(400); // still processing
    // Someone else's media is unknown to this user.
    expect(
      (
        await fetch(`${sim.url}/2/tweets`, {
          method: 'POST',
          headers: { authorization: 'Bearer x-token-bob', 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'not mine', media: { media_ids: [id] } }),
        })
      ).status,
    ).toBe(400);
    for (let i = 0; i < 2; i++) await getJson(`/2/media/upload?command=STATUS&media_id=${id}`);
    expect((await post([id])).status).toBe(201);
  });
});

describe('X failing after it stored the tweet', () => {
  it('a 503 from X after storing is an unknown outcome, and lookup finds the tweet', async () => {
    sim.setSwitches({ serverErrorAfterStore: true });
    const error = await failureOf(client.publish(input('Stored, then 503')));
    expect(error.kind).toBe('transient');
    expect(error.details.status).toBe(503);
    expect(error.details.outcomeUnknown).toBe(true);
    expect(sim.records().map((r) => r.text)).toEqual(['Stored, then 503']);
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'k',
      content: 'Stored, then 503',
      parent: null,
      since: new Date(Date.now() - 60_000),
    });
    expect(found?.remoteId).toBe(sim.records()[0]?.id);
    // A resend is refused as duplicate content: "already there", not a refusal of the post.
    const resend = await failureOf(client.publish(input('Stored, then 503')));
    expect(resend.details).toMatchObject({ status: 403, duplicate: true });
  });
});

describe('X rate limits against the X simulator', () => {
  it('a spent daily cap waits for the 24-hour reset, not the 15-minute window', async () => {
    sim.setSwitches({ dailyLimitSeconds: 6 * 3600 });
    const raw = await fetch(`${sim.url}/2/tweets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'over the cap' }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('x-user-limit-24hour-remaining')).toBe('0');
    const error = await failureOf(client.publish(input('Over the daily cap')));
    expect(error.kind).toBe('transient');
    expect(error.details.rateLimited).toBe(true);
    expect(error.message).toMatch(/24-hour limit/);
    // About six hours (the 15-minute window would reset within a minute).
    expect(error.details.retryAfterSeconds).toBeGreaterThan(6 * 3600 - 120);
    expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(6 * 3600 + 1);
  });

  it('a spent 15-minute window waits for x-rate-limit-reset while the daily cap has room', async () => {
    sim.setRateLimited(600);
    const error = await failureOf(client.publish(input('Too fast')));
    expect(error.details.rateLimited).toBe(true);
    expect(error.details.retryAfterSeconds).toBeGreaterThan(500);
    expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(601);
  });
});
