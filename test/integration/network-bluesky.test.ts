import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BlueskyClient, isTid, recordKeyFor } from '../../functions/platforms/bluesky/client.ts';
import { simDidForHandle, startBlueskySimulator } from '../../functions/platforms/bluesky/simulator.ts';
import type { Simulator } from '../../functions/platforms/simulator/framework.ts';
import { blockInput, failureOf } from '../support/network.ts';

const DID = 'did:plc:alice2345abcdefghijklmno';
const credentials = { accessToken: 'bsky-access-jwt-alice', remoteAccountId: DID };

let sim: Simulator;
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
  sim = await startBlueskySimulator();
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

    const flakyKey = randomUUID();
    const flaky = await failureOf(client.publish(input('Launch sim:flaky', { idempotencyKey: flakyKey })));
    expect(flaky.kind).toBe('transient');
    // A 5xx reached the PDS, which may have written the record: the engine looks it up first.
    expect(flaky.details).toEqual({ status: 503, outcomeUnknown: true });
    await expect(
      client.publish(input('Launch sim:flaky', { idempotencyKey: flakyKey })),
    ).resolves.toMatchObject({
      remoteId: expect.stringContaining(recordKeyFor(flakyKey)),
    });

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
    '%s: the record is stored, the answer is lost (outcome unknown), and lookup finds it',
    async (token) => {
      const key = randomUUID();
      const lost = input(`Stored then lost ${token}`, { idempotencyKey: key });
      const error = await failureOf(client.publish(lost));
      expect(error.kind).toBe('transient');
      expect(error.details.outcomeUnknown).toBe(true);
      if (token === 'sim:bad-gateway') expect(error.details.status).toBe(502);
      const found = await client.lookup({
        credentials,
        idempotencyKey: key,
        content: lost.content,
        parent: null,
        since: new Date(Date.now() - 60_000),
      });
      expect(found?.remoteId).toBe(sim.records()[0]?.id);
      expect(sim.records()).toHaveLength(1);
    },
  );

  it('answers 429 with ratelimit-reset while rate limited: transient with retryAfterSeconds', async () => {
    sim.setRateLimited(30);
    const raw = await xrpc('com.atproto.repo.deleteRecord', {
      body: { repo: DID, collection: 'app.bsky.feed.post', rkey: 'x' },
    });
    expect(raw.status).toBe(429);
    expect(raw.body).toEqual({ error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' });
    expect(Number(raw.headers.get('ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 + 28);

    const error = await failureOf(client.publish(input('Rate limited')));
    expect(error.kind).toBe('transient');
    expect(error.details.status).toBe(429);
    expect(error.details.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(31);
    sim.setRateLimited(0);
    await expect(client.publish(input('Rate limited'))).resolves.toBeDefined();
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

  it('refuses media it cannot upload', async () => {
    const media = [
      { mediaId: 'med_1', mimeType: 'image/png', size: 10, altText: 'a', url: 'https://example.test/a.png' },
    ];
    const error = await failureOf(client.publish(input('With a picture', { media })));
    expect(error.kind).toBe('permanent');
    expect(sim.records()).toEqual([]);
  });
});
