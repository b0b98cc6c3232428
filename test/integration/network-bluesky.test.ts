import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BlueskyClient, isTid, recordKeyFor } from '../../functions/platforms/bluesky/client.ts';
import { systemResolver } from '../../functions/shared/address-policy.ts';
import {
  type BlueskySimulator,
  simDidForHandle,
  startBlueskySimulator,
} from '../../simulators/bluesky/simulator.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

const DID = 'did:plc:alice2345abcdefghijklmno';

/** A PNG whose IHDR says width × height. */
const pngOf = (width: number, height: number) => {
  const png = Buffer.from(mediaFiles.png());
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return png;
};

/** A JPEG with an APP0 segment, then a baseline frame header (SOF0) of width × height. */
const jpegOf = (width: number, height: number) =>
  Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]),
    Buffer.from('JFIF\0', 'latin1'),
    Buffer.from([1, 1, 0, 0, 1, 0, 1, 0, 0]),
    Buffer.from([0xff, 0xc0, 0, 17, 8, height >> 8, height & 255, width >> 8, width & 255, 3]),
    Buffer.alloc(9),
    Buffer.from([0xff, 0xd9]),
  ]);

/** Serves files like a presigned storage URL would. */
const serveFiles = async (files: Record<string, Buffer>) => {
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': file.length }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
const credentials = { accessToken: 'bsky-access-jwt-alice', remoteAccountId: DID };

let sim: BlueskySimulator;
let client: BlueskyClient;

const input = blockInput(credentials);

const xrpc = async (
  nsid: string,
  init: { token?: string; body?: unknown; query?: Record<string, string> } = {},
) => {
  const query = init.query ? `?${new URLSearchParams(init.query)}` : '';
  const response = await fetch(`${sim.url}/xrpc/${nsid}${query}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${init.token ?? credentials.accessToken}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

beforeAll(async () => {
  sim = await startBlueskySimulator({ blobUploadLimit: 3_000_000 });
  client = new BlueskyClient({ baseUrl: sim.url, timeoutMs: 300 });
});
afterAll(async () => {
  await sim?.stop();
});
beforeEach(() => {
  sim.reset();
});

describe('Bluesky client against the PDS simulator', () => {
  it('posts a 3-block thread as reply records with root and parent strong refs', async () => {
    const keys = [randomUUID(), randomUUID(), randomUUID()];
    const first = await client.publish(
      input('Thread 1/3 https://example.com/a #launch', {
        idempotencyKey: keys[0],
        options: { languages: ['en', 'pt-BR'] },
      }),
    );
    const second = await client.publish(
      input('Thread 2/3', { idempotencyKey: keys[1], parent: { block: first, root: first } }),
    );
    const third = await client.publish(
      input('Thread 3/3', { idempotencyKey: keys[2], parent: { block: second, root: first } }),
    );

    for (const [i, block] of [first, second, third].entries()) {
      const rkey = recordKeyFor(keys[i] as string);
      expect(isTid(rkey)).toBe(true);
      expect(block.remoteId).toBe(`at://${DID}/app.bsky.feed.post/${rkey}`);
      expect(block.meta).toEqual({
        uri: block.remoteId,
        cid: expect.stringMatching(/^bafyrei[a-z2-7]{52}$/),
      });
      expect(block.remoteUrl).toBe(`https://bsky.app/profile/${DID}/post/${rkey}`);
    }
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
        text: 'Thread 1/3 https://example.com/a #launch',
        account: DID,
      },
      {
        kind: 'reply',
        id: second.remoteId,
        parentId: first.remoteId,
        rootId: first.remoteId,
        text: 'Thread 2/3',
        account: DID,
      },
      {
        kind: 'reply',
        id: third.remoteId,
        parentId: second.remoteId,
        rootId: first.remoteId,
        text: 'Thread 3/3',
        account: DID,
      },
    ]);
    const overHttp = await fetch(`${sim.url}/_sim/records`);
    expect(((await overHttp.json()) as { data: unknown }).data).toEqual(sim.records());

    // The stored records: strong refs with the parents' cids, langs, and link/tag facets in bytes.
    const rkeyOf = (uri: string) => uri.split('/').pop() as string;
    const head = await xrpc('com.atproto.repo.getRecord', {
      query: { repo: DID, collection: 'app.bsky.feed.post', rkey: rkeyOf(first.remoteId) },
    });
    expect(head.body.value).toMatchObject({
      $type: 'app.bsky.feed.post',
      langs: ['en', 'pt-BR'],
      facets: [
        {
          index: { byteStart: 11, byteEnd: 32 },
          features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a' }],
        },
        {
          index: { byteStart: 33, byteEnd: 40 },
          features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'launch' }],
        },
      ],
    });
    const tail = await xrpc('com.atproto.repo.getRecord', {
      query: { repo: DID, collection: 'app.bsky.feed.post', rkey: rkeyOf(third.remoteId) },
    });
    expect(tail.body.value).toMatchObject({
      reply: {
        root: { uri: first.remoteId, cid: first.meta.cid },
        parent: { uri: second.remoteId, cid: second.meta.cid },
      },
    });
  });

  it('rich text like the official client: mentions resolved on the PDS, unresolvable ones plain, any scheme case, bare domains, tags and cashtags', async () => {
    const text = 'Olá @bob.bsky.social @nobody.bsky.social HTTPS://Example.com/X bsky.app #café $aapl #️⃣';
    const block = await client.publish(input(text));
    const stored = await xrpc('com.atproto.repo.getRecord', {
      query: { repo: DID, collection: 'app.bsky.feed.post', rkey: block.remoteId.split('/').pop() as string },
    });
    const bytes = Buffer.from(text, 'utf8');
    const facets = (
      stored.body.value as {
        facets: { index: { byteStart: number; byteEnd: number }; features: unknown[] }[];
      }
    ).facets;
    expect(
      facets.map((f) => [bytes.subarray(f.index.byteStart, f.index.byteEnd).toString('utf8'), f.features]),
    ).toEqual([
      [
        '@bob.bsky.social',
        [{ $type: 'app.bsky.richtext.facet#mention', did: simDidForHandle('bob.bsky.social') }],
      ],
      ['HTTPS://Example.com/X', [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://Example.com/X' }]],
      ['bsky.app', [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://bsky.app' }]],
      ['#café', [{ $type: 'app.bsky.richtext.facet#tag', tag: 'café' }]],
      ['$aapl', [{ $type: 'app.bsky.richtext.facet#tag', tag: '$AAPL' }]],
    ]);
  });

  it('derives the same valid TID from the same idempotency key', () => {
    expect(recordKeyFor('post_1:ch_1:0')).toBe(recordKeyFor('post_1:ch_1:0'));
    expect(recordKeyFor('post_1:ch_1:0')).not.toBe(recordKeyFor('post_1:ch_1:1'));
    for (let i = 0; i < 200; i++) expect(isTid(recordKeyFor(`key-${i}`))).toBe(true);
  });

  it('refuses edits without calling the PDS, and deletes records', async () => {
    const block = await client.publish(input('Cannot be edited'));
    const error = await failureOf(client.edit({ credentials, block, content: 'Edited' }));
    expect(error).toMatchObject({ kind: 'permanent', message: 'Bluesky does not allow edits' });

    await client.delete({ credentials, block });
    await client.delete({ credentials, block });
    expect(sim.records().map((record) => [record.kind, record.id])).toEqual([
      ['post', block.remoteId],
      ['delete', block.remoteId],
    ]);
  });

  it('maps each sim token to the right NetworkError kind', async () => {
    const fail = await failureOf(client.publish(input('Launch sim:fail')));
    expect(fail.kind).toBe('permanent');
    expect(fail.message).toBe('Invalid app.bsky.feed.post record: rejected by the PDS (sim:fail)');
    expect(fail.details).toEqual({ status: 400 });

    // A 503 before anything was stored: the client reads the key, finds nothing, and sends again
    // under the same key.
    const flakyKey = randomUUID();
    const flaky = await client.publish(input('Launch sim:flaky', { idempotencyKey: flakyKey }));
    expect(flaky.remoteId).toContain(recordKeyFor(flakyKey));

    // The PDS answers an expired access JWT with HTTP 400 ExpiredToken.
    const reconnect = await failureOf(client.publish(input('Launch sim:reconnect')));
    expect(reconnect).toMatchObject({ kind: 'reconnect', message: 'Token has expired' });
    expect(reconnect.details).toEqual({ status: 400, tokenExpired: true });

    expect(sim.records().map((record) => record.text)).toEqual(['Launch sim:flaky']);
  });

  it('sim:fail-once fails the first send and accepts the second', async () => {
    const key = randomUUID();
    const first = await failureOf(client.publish(input('Once sim:fail-once', { idempotencyKey: key })));
    expect(first.kind).toBe('permanent');
    const block = await client.publish(input('Once sim:fail-once', { idempotencyKey: key }));
    expect(sim.records()).toEqual([expect.objectContaining({ kind: 'post', id: block.remoteId })]);
  });

  it('sim:timeout: the record is stored, the client gives up with outcomeUnknown, and lookup finds it by key', async () => {
    const root = await client.publish(input('Root'));
    const key = randomUUID();
    const lost = input('Lost reply sim:timeout', { idempotencyKey: key, parent: { block: root, root } });
    const started = Date.now();
    const error = await failureOf(client.publish(lost));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBe(true);
    const stored = sim.records()[1];
    expect(stored).toMatchObject({ kind: 'reply', text: 'Lost reply sim:timeout', parentId: root.remoteId });

    const lookup = {
      credentials,
      idempotencyKey: key,
      content: lost.content,
      parent: lost.parent,
      since: new Date(started),
    };
    const found = await client.lookup(lookup);
    expect(found?.remoteId).toBe(stored?.id);
    expect(found?.meta.cid).toMatch(/^bafyrei/);
    expect(await client.lookup({ ...lookup, idempotencyKey: randomUUID() })).toBeNull();

    // Sending the block again is safe: its key is taken (the PDS answers 500), and the record
    // there is this block.
    const again = await client.publish(lost);
    expect(again).toEqual(found);
    expect(sim.records()).toHaveLength(2);
    const raw = await xrpc('com.atproto.repo.createRecord', {
      body: {
        repo: DID,
        collection: 'app.bsky.feed.post',
        rkey: recordKeyFor(key),
        record: { $type: 'app.bsky.feed.post', text: 'x', createdAt: new Date().toISOString() },
      },
    });
    expect(raw).toMatchObject({
      status: 500,
      body: {
        error: 'InternalServerError',
        message: expect.stringContaining('There is already a value at key'),
      },
    });

    // A different text under the same key is neither published nor creatable.
    const changed = await failureOf(client.publish({ ...lost, content: 'Changed text' }));
    expect(changed).toMatchObject({
      kind: 'permanent',
      message: expect.stringContaining('Another version of this block is already on Bluesky'),
    });
    const changedLookup = await failureOf(client.lookup({ ...lookup, content: 'Changed text' }));
    expect(changedLookup.kind).toBe('permanent');
  });

  it.each(['sim:reset', 'sim:bad-gateway'])(
    '%s after the PDS stored the record: the client reads the key and returns the stored post, sending nothing again',
    async (token) => {
      const key = randomUUID();
      const lost = input(`Stored then lost ${token}`, { idempotencyKey: key });
      const block = await client.publish(lost);
      expect(block.remoteId).toBe(sim.records()[0]?.id);
      expect(block.meta.cid).toMatch(/^bafyrei/);
      expect(sim.records()).toHaveLength(1);
      const found = await client.lookup({
        credentials,
        idempotencyKey: key,
        content: lost.content,
        parent: null,
        since: new Date(Date.now() - 60_000),
      });
      expect(found).toEqual(block);
    },
  );

  it('a 500 after the PDS stored the record is published (read by its key), never sent twice', async () => {
    const root = await client.publish(input('Root'));
    sim.failAfterStore(1);
    const reply = input('Reply stored then 500', { parent: { block: root, root } });
    const block = await client.publish(reply);
    expect(block.remoteId).toContain(recordKeyFor(reply.idempotencyKey));
    expect(sim.records().map((r) => [r.kind, r.id])).toEqual([
      ['post', root.remoteId],
      ['reply', block.remoteId],
    ]);
  });

  it('a different text under a taken key (the PDS answers 500) is another version, not this block', async () => {
    const key = randomUUID();
    await client.publish(input('Old text', { idempotencyKey: key }));
    const error = await failureOf(client.publish(input('New text', { idempotencyKey: key })));
    expect(error).toMatchObject({
      kind: 'permanent',
      message: expect.stringContaining('Another version of this block is already on Bluesky'),
    });
  });

  it('uses the channel’s own PDS (credentials.serviceUrl) over the configured one', async () => {
    // The simulator is on loopback over plain http: the local runtime's allowance lets the guarded
    // path reach it (bluesky-pds-guard.test.ts shows what it refuses).
    const elsewhere = new BlueskyClient({
      baseUrl: 'http://127.0.0.1:9',
      timeoutMs: 300,
      outbound: { resolve: systemResolver, allowLoopback: () => true },
    });
    const block = await elsewhere.publish(
      input('On my own PDS', { credentials: { ...credentials, serviceUrl: `${sim.url}/` } }),
    );
    expect(sim.records().map((r) => r.id)).toEqual([block.remoteId]);
    const unreachable = await failureOf(elsewhere.publish(input('Nowhere')));
    expect(unreachable.kind).toBe('transient');
  });

  it('answers 429 with ratelimit-reset while rate limited: transient, rateLimited, waiting until the reset', async () => {
    sim.setRateLimited(30);
    const raw = await xrpc('com.atproto.repo.deleteRecord', {
      body: { repo: DID, collection: 'app.bsky.feed.post', rkey: 'x' },
    });
    expect(raw.status).toBe(429);
    expect(raw.body).toEqual({ error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' });
    expect(Number(raw.headers.get('ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 + 28);
    expect(raw.headers.get('ratelimit-limit')).toBe('5000');
    expect(raw.headers.get('ratelimit-remaining')).toBe('0');
    expect(raw.headers.get('ratelimit-policy')).toBe('5000;w=3600');

    const error = await failureOf(client.publish(input('Rate limited')));
    expect(error.kind).toBe('transient');
    expect(error.details.status).toBe(429);
    expect(error.details.rateLimited).toBe(true);
    expect(error.details.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(31);
    sim.setRateLimited(0);
    await expect(client.publish(input('Rate limited'))).resolves.toBeDefined();
  });

  it('the daily write limit spent: its policy in the headers, the wait until its reset', async () => {
    sim.setRateLimited(5 * 3600);
    try {
      const raw = await xrpc('com.atproto.repo.deleteRecord', {
        body: { repo: DID, collection: 'app.bsky.feed.post', rkey: 'x' },
      });
      expect(raw.status).toBe(429);
      expect(raw.headers.get('ratelimit-limit')).toBe('35000');
      expect(raw.headers.get('ratelimit-policy')).toBe('35000;w=86400');
      const error = await failureOf(client.publish(input('Daily limit')));
      expect(error.kind).toBe('transient');
      expect(error.details.rateLimited).toBe(true);
      expect(error.details.retryAfterSeconds).toBeGreaterThanOrEqual(5 * 3600 - 5);
      expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(5 * 3600 + 1);
      expect(sim.records().filter((r) => r.text === 'Daily limit')).toEqual([]);
    } finally {
      sim.setRateLimited(0);
    }
  });

  it('a revoked, expired or missing token means reconnect, with the PDS’s bodies', async () => {
    const cases = [
      {
        token: 'revoked-1',
        status: 400,
        body: { error: 'InvalidToken', message: 'Token could not be verified' },
      },
      { token: 'expired-1', status: 400, body: { error: 'ExpiredToken', message: 'Token has expired' } },
    ];
    for (const { token, status, body } of cases) {
      const error = await failureOf(
        client.publish(input('Hello', { credentials: { accessToken: token, remoteAccountId: DID } })),
      );
      expect(error.kind).toBe('reconnect');
      expect(error.message).toBe(body.message);
      const raw = await xrpc('com.atproto.repo.createRecord', { token, body: {} });
      expect(raw).toMatchObject({ status, body });
    }
    const missing = await fetch(`${sim.url}/xrpc/com.atproto.repo.createRecord`, { method: 'POST' });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: 'AuthMissing', message: 'Authentication Required' });
    expect(sim.records()).toEqual([]);
  });

  it('validates posts like the PDS: too long is a permanent refusal with its message', async () => {
    const error = await failureOf(client.publish(input('é'.repeat(301))));
    expect(error).toMatchObject({
      kind: 'permanent',
      message: 'Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes',
    });
    const badKey = await xrpc('com.atproto.repo.createRecord', {
      body: { repo: DID, collection: 'app.bsky.feed.post', rkey: 'bad key', record: {} },
    });
    expect(badKey).toMatchObject({ status: 400, body: { error: 'InvalidRequest' } });
    const missing = await xrpc('com.atproto.repo.getRecord', {
      query: { repo: DID, collection: 'app.bsky.feed.post', rkey: '3aaaaaaaaaaaa' },
    });
    expect(missing).toMatchObject({ status: 400, body: { error: 'RecordNotFound' } });
  });

  it('accepts a handle as repo and answers with the DID it resolves to', async () => {
    const byHandle = { accessToken: 'bsky-access-jwt-bob', remoteAccountId: 'bob.bsky.social' };
    const block = await client.publish(input('Hi from a handle', { credentials: byHandle }));
    const did = simDidForHandle('bob.bsky.social');
    expect(block.remoteId.startsWith(`at://${did}/app.bsky.feed.post/`)).toBe(true);
    expect(block.remoteUrl.startsWith(`https://bsky.app/profile/${did}/post/`)).toBe(true);
  });

  it('posts an MP4 through the video service: service auth, upload, job polling, app.bsky.embed.video with alt text', async () => {
    const mp4 = mediaFiles.mp4(4096);
    const files = await serveFiles({ '/v.mp4': mp4, '/bad.mp4': Buffer.from('not a video at all') });
    const videoClient = new BlueskyClient({ baseUrl: sim.url, timeoutMs: 2_000, videoPollMs: 20 });
    try {
      const media = [
        {
          mediaId: 'med_v',
          mimeType: 'video/mp4',
          size: mp4.length,
          altText: 'A clip',
          url: `${files.url}/v.mp4`,
        },
      ];
      const block = await videoClient.publish(input('A video', { media }));
      const stored = await xrpc('com.atproto.repo.getRecord', {
        query: {
          repo: DID,
          collection: 'app.bsky.feed.post',
          rkey: block.remoteId.split('/').pop() as string,
        },
      });
      expect((stored.body.value as Record<string, unknown>).embed).toEqual({
        $type: 'app.bsky.embed.video',
        video: {
          $type: 'blob',
          ref: { $link: expect.stringMatching(/^bafkrei/) },
          mimeType: 'video/mp4',
          size: mp4.length,
        },
        alt: 'A clip',
      });
      // The same video again: the service answers 409 already_exists with the job, which is reused.
      await expect(videoClient.publish(input('Same video again', { media }))).resolves.toBeDefined();

      const failed = await failureOf(
        videoClient.publish(
          input('Broken video', {
            media: [{ ...media[0], mediaId: 'med_bad', url: `${files.url}/bad.mp4` }] as typeof media,
          }),
        ),
      );
      expect(failed).toMatchObject({ kind: 'permanent', message: expect.stringContaining('med_bad') });

      const mov = await failureOf(
        videoClient.publish(
          input('MOV', { media: [{ ...media[0], mimeType: 'video/quicktime' }] as typeof media }),
        ),
      );
      expect(mov).toMatchObject({ kind: 'permanent', message: expect.stringContaining('MP4 only') });
      const mixed = await failureOf(
        videoClient.publish(
          input('Mixed', {
            media: [
              ...media,
              { mediaId: 'med_i', mimeType: 'image/png', size: 1, altText: null, url: `${files.url}/x` },
            ],
          }),
        ),
      );
      expect(mixed.kind).toBe('permanent');
      expect(sim.records().map((r) => r.text)).toEqual(['A video', 'Same video again']);
    } finally {
      await files.stop();
    }
  });

  it('a video larger than the simulators’ usual 5 MiB body goes through (the video service takes up to 100,000,000 bytes)', async () => {
    const mp4 = mediaFiles.mp4(12 * 1024 * 1024);
    const files = await serveFiles({ '/big.mp4': mp4 });
    const videoClient = new BlueskyClient({ baseUrl: sim.url, timeoutMs: 5_000, videoPollMs: 20 });
    try {
      const block = await videoClient.publish(
        input('A bigger video', {
          media: [
            {
              mediaId: 'med_big',
              mimeType: 'video/mp4',
              size: mp4.length,
              altText: null,
              url: `${files.url}/big.mp4`,
            },
          ],
        }),
      );
      const stored = await xrpc('com.atproto.repo.getRecord', {
        query: {
          repo: DID,
          collection: 'app.bsky.feed.post',
          rkey: block.remoteId.split('/').pop() as string,
        },
      });
      const embed = (stored.body.value as { embed?: { video?: { size?: number } } }).embed;
      expect(embed?.video?.size).toBe(mp4.length);
    } finally {
      await files.stop();
    }
  });

  it('the video service refuses a service token for another method, and the PDS a video blob it never processed', async () => {
    const raw = await fetch(`${sim.url}/xrpc/app.bsky.video.uploadVideo?did=${DID}&name=a.mp4`, {
      method: 'POST',
      headers: { authorization: 'Bearer a.b.c', 'content-type': 'video/mp4' },
      body: mediaFiles.mp4(),
    });
    expect(raw.status).toBe(401);
    const ghost = await xrpc('com.atproto.repo.createRecord', {
      body: {
        repo: DID,
        collection: 'app.bsky.feed.post',
        rkey: recordKeyFor('ghost video'),
        record: {
          $type: 'app.bsky.feed.post',
          text: 'ghost',
          createdAt: new Date().toISOString(),
          embed: {
            $type: 'app.bsky.embed.video',
            video: { $type: 'blob', ref: { $link: 'bafkreighost' }, mimeType: 'video/mp4', size: 10 },
          },
        },
      },
    });
    expect(ghost).toMatchObject({ status: 400, body: { error: 'BlobNotFound' } });
  });

  it('posts images: one uploadBlob each, embedded with alt text and the aspect ratio from the header', async () => {
    const png = pngOf(640, 480);
    const jpeg = jpegOf(1080, 1920);
    const files = await serveFiles({ '/a.png': png, '/b.jpg': jpeg });
    try {
      const media = [
        {
          mediaId: 'med_a',
          mimeType: 'image/png',
          size: png.length,
          altText: 'A chart',
          url: `${files.url}/a.png`,
        },
        {
          mediaId: 'med_b',
          mimeType: 'image/jpeg',
          size: jpeg.length,
          altText: null,
          url: `${files.url}/b.jpg`,
        },
      ];
      const block = await client.publish(input('Two pictures', { media }));
      const stored = await xrpc('com.atproto.repo.getRecord', {
        query: {
          repo: DID,
          collection: 'app.bsky.feed.post',
          rkey: block.remoteId.split('/').pop() as string,
        },
      });
      const blobs = sim.blobs();
      expect(blobs.map((b) => [b.mimeType, b.size])).toEqual([
        ['image/png', png.length],
        ['image/jpeg', jpeg.length],
      ]);
      expect((stored.body.value as Record<string, unknown>).embed).toEqual({
        $type: 'app.bsky.embed.images',
        images: [
          {
            image: { $type: 'blob', ref: { $link: blobs[0]?.cid }, mimeType: 'image/png', size: png.length },
            alt: 'A chart',
            aspectRatio: { width: 640, height: 480 },
          },
          {
            image: {
              $type: 'blob',
              ref: { $link: blobs[1]?.cid },
              mimeType: 'image/jpeg',
              size: jpeg.length,
            },
            alt: '',
            aspectRatio: { width: 1080, height: 1920 },
          },
        ],
      });
    } finally {
      await files.stop();
    }
  });

  it('an image over 2,000,000 bytes is refused before anything is uploaded or posted', async () => {
    const big = Buffer.concat([pngOf(10, 10), Buffer.alloc(2_000_000)]);
    const files = await serveFiles({ '/big.png': big });
    try {
      const media = [
        {
          mediaId: 'med_big',
          mimeType: 'image/png',
          size: big.length,
          altText: null,
          url: `${files.url}/big.png`,
        },
      ];
      const error = await failureOf(client.publish(input('Too big', { media })));
      expect(error.kind).toBe('permanent');
      expect(error.message).toContain('2000000 bytes');
      expect(sim.blobs()).toEqual([]);
      expect(sim.records()).toEqual([]);
    } finally {
      await files.stop();
    }
  });

  it('a thread whose replies carry images keeps its strong refs', async () => {
    const png = pngOf(100, 50);
    const files = await serveFiles({ '/p.png': png });
    try {
      const media = [
        {
          mediaId: 'med_p',
          mimeType: 'image/png',
          size: png.length,
          altText: 'p',
          url: `${files.url}/p.png`,
        },
      ];
      const first = await client.publish(input('Thread with pictures 1', { media }));
      const second = await client.publish(
        input('Thread with pictures 2', { media, parent: { block: first, root: first } }),
      );
      expect(sim.records().map((r) => [r.kind, r.parentId])).toEqual([
        ['post', null],
        ['reply', first.remoteId],
      ]);
      expect(second.meta.cid).toMatch(/^bafyrei/);
    } finally {
      await files.stop();
    }
  });
});

describe('Bluesky PDS simulator: the PDS’s awkward answers', () => {
  const post = (rkey: string | undefined, record: Record<string, unknown>) =>
    xrpc('com.atproto.repo.createRecord', {
      body: {
        repo: DID,
        collection: 'app.bsky.feed.post',
        ...(rkey === undefined ? {} : { rkey }),
        record: { $type: 'app.bsky.feed.post', createdAt: new Date().toISOString(), ...record },
      },
    });
  const uploadBlob = async (bytes: Buffer, type: string) => {
    const response = await fetch(`${sim.url}/xrpc/com.atproto.repo.uploadBlob`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': type },
      body: bytes,
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('refuses a post record key that is not a TID (the lexicon says key: tid), and takes a TID', async () => {
    const refused = await post('my-post-1', { text: 'free-form key' });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        error: 'InvalidRequest',
        message: 'Invalid record key for app.bsky.feed.post: Invalid TID string (got "my-post-1")',
      },
    });
    const tid = recordKeyFor('some block');
    expect(await post(tid, { text: 'TID key' })).toMatchObject({
      status: 200,
      body: { uri: `at://${DID}/app.bsky.feed.post/${tid}` },
    });
    // Without a key the PDS picks a TID.
    const picked = await post(undefined, { text: 'no key' });
    expect(isTid(String(picked.body.uri).split('/').pop() as string)).toBe(true);
    expect(sim.records().map((r) => r.text)).toEqual(['TID key', 'no key']);
  });

  it('a repeated record key is HTTP 500 (not 400), and the first record stays', async () => {
    const tid = recordKeyFor('twice');
    expect((await post(tid, { text: 'first' })).status).toBe(200);
    expect(await post(tid, { text: 'second' })).toMatchObject({
      status: 500,
      body: {
        error: 'InternalServerError',
        message: `There is already a value at key: app.bsky.feed.post/${tid}`,
      },
    });
    expect(sim.records().map((r) => r.text)).toEqual(['first']);
  });

  it('failAfterStore: stores the record, then answers 500', async () => {
    sim.failAfterStore(1);
    const tid = recordKeyFor('stored then 500');
    expect(await post(tid, { text: 'stored' })).toMatchObject({
      status: 500,
      body: { error: 'InternalServerError' },
    });
    const read = await xrpc('com.atproto.repo.getRecord', {
      query: { repo: DID, collection: 'app.bsky.feed.post', rkey: tid },
    });
    expect(read).toMatchObject({ status: 200, body: { value: { text: 'stored' } } });
    expect((await post(recordKeyFor('next'), { text: 'next' })).status).toBe(200);
    // The same switch over HTTP, for runtime tests.
    const control = await fetch(`${sim.url}/_sim/bluesky/fail-after-store`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1 }),
    });
    expect(control.status).toBe(204);
    expect((await post(recordKeyFor('again'), { text: 'again' })).status).toBe(500);
    expect(sim.records().map((r) => r.text)).toEqual(['stored', 'next', 'again']);
  });

  it('validates facets: byte ranges inside the text on character boundaries, known features', async () => {
    const text = 'héllo #tag';
    // "#tag" starts at UTF-16 index 6 but UTF-8 byte 7 (é is two bytes).
    const ok = await post(recordKeyFor('facet ok'), {
      text,
      facets: [
        {
          index: { byteStart: 7, byteEnd: 11 },
          features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'tag' }],
        },
      ],
    });
    expect(ok.status).toBe(200);
    const cases: [unknown, string][] = [
      [
        [
          {
            index: { byteStart: 7, byteEnd: 12 },
            features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'tag' }],
          },
        ],
        'Record/facets/0/index is not a range of the text (bytes 7-12 of 11)',
      ],
      [
        [
          {
            index: { byteStart: 2, byteEnd: 4 },
            features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'x' }],
          },
        ],
        'Record/facets/0/index is not a range of the text (bytes 2-4 of 11)',
      ],
      [
        [{ index: { byteStart: -1, byteEnd: 4 }, features: [] }],
        // The Lexicon validator's own words (@atproto/lexicon, validators/primitives.ts).
        'Record/facets/0/index/byteStart can not be less than 0',
      ],
      [
        [
          {
            index: { byteStart: 0, byteEnd: 5 },
            features: [{ $type: 'app.bsky.richtext.facet#mention', did: 'alice' }],
          },
        ],
        'Record/facets/0/features/0/did must be a valid did',
      ],
      [
        [
          {
            index: { byteStart: 7, byteEnd: 11 },
            features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'a'.repeat(65) }],
          },
        ],
        'Record/facets/0/features/0/tag must not be longer than 64 graphemes',
      ],
      [
        [{ index: { byteStart: 7, byteEnd: 11 }, features: [{ $type: 'app.bsky.richtext.facet#bold' }] }],
        expect.stringContaining('Record/facets/0/features/0 $type must be one of'),
      ] as unknown as [unknown, string],
    ];
    for (const [i, [facets, message]] of cases.entries()) {
      const refused = await post(recordKeyFor(`facet bad ${i}`), { text, facets });
      expect(refused).toMatchObject({
        status: 400,
        body: {
          error: 'InvalidRequest',
          message: typeof message === 'string' ? `Invalid app.bsky.feed.post record: ${message}` : message,
        },
      });
    }
    expect(sim.records()).toHaveLength(1);
  });

  it('caps post text at 3000 UTF-8 bytes besides 300 graphemes', async () => {
    // 250 family emoji: 250 graphemes, 6250 bytes.
    const refused = await post(recordKeyFor('bytes'), { text: '👨‍👩‍👧'.repeat(250) });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        message: 'Invalid app.bsky.feed.post record: Record/text must not be longer than 3000 characters',
      },
    });
  });

  it('uploadBlob: answers a blob ref with the sniffed type; over the upload limit 413; images over 2,000,000 bytes refused in the record', async () => {
    const png = mediaFiles.png();
    const uploaded = await uploadBlob(png, 'application/octet-stream');
    expect(uploaded).toEqual({
      status: 200,
      body: {
        blob: {
          $type: 'blob',
          ref: { $link: expect.stringMatching(/^bafkrei[a-z2-7]{52}$/) },
          mimeType: 'image/png',
          size: png.length,
        },
      },
    });
    const withImage = await post(recordKeyFor('with image'), {
      text: 'a picture',
      embed: {
        $type: 'app.bsky.embed.images',
        images: [{ image: uploaded.body.blob, alt: 'a dot', aspectRatio: { width: 1, height: 1 } }],
      },
    });
    expect(withImage.status).toBe(200);

    expect(await uploadBlob(mediaFiles.jpeg(3_000_001), 'image/jpeg')).toEqual({
      status: 413,
      body: { error: 'PayloadTooLarge', message: 'request entity too large' },
    });

    const big = await uploadBlob(mediaFiles.jpeg(2_000_001), 'image/jpeg');
    expect(big.status).toBe(200);
    const tooBig = await post(recordKeyFor('too big'), {
      text: 'big',
      embed: { $type: 'app.bsky.embed.images', images: [{ image: big.body.blob, alt: '' }] },
    });
    expect(tooBig).toMatchObject({
      status: 400,
      body: {
        error: 'InvalidRequest',
        message:
          'Invalid app.bsky.feed.post record: Record/embed/images/0/image blob too big (maximum 2000000, got 2000001)',
      },
    });

    const notUploaded = await post(recordKeyFor('ghost'), {
      text: 'ghost',
      embed: {
        $type: 'app.bsky.embed.images',
        images: [{ image: { ...uploaded.body.blob, ref: { $link: 'bafkreighost' } }, alt: '' }],
      },
    });
    expect(notUploaded).toMatchObject({
      status: 400,
      body: { error: 'BlobNotFound', message: 'Could not find blob: bafkreighost' },
    });
    const five = await post(recordKeyFor('five'), {
      text: 'five',
      embed: {
        $type: 'app.bsky.embed.images',
        images: Array(5).fill({ image: uploaded.body.blob, alt: '' }),
      },
    });
    expect(five.body.message).toBe(
      'Invalid app.bsky.feed.post record: Record/embed/images must not have more than 4 elements',
    );
    const noAlt = await post(recordKeyFor('no alt'), {
      text: 'no alt',
      embed: { $type: 'app.bsky.embed.images', images: [{ image: uploaded.body.blob }] },
    });
    expect(noAlt.body.message).toBe(
      'Invalid app.bsky.feed.post record: Record/embed/images/0 must have the property "alt"',
    );
    expect(sim.records().map((r) => r.text)).toEqual(['a picture']);
  });

  it('resolveHandle: a handle to its DID; an unknown handle is 400', async () => {
    expect(
      await xrpc('com.atproto.identity.resolveHandle', { query: { handle: 'bob.bsky.social' } }),
    ).toMatchObject({
      status: 200,
      body: { did: simDidForHandle('bob.bsky.social') },
    });
    expect(
      await xrpc('com.atproto.identity.resolveHandle', { query: { handle: 'nobody.bsky.social' } }),
    ).toMatchObject({ status: 400, body: { error: 'InvalidRequest', message: 'Unable to resolve handle' } });
  });
});
