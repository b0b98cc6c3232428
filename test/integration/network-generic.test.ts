import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getPlatform } from '../../functions/platforms/catalog.ts';
import { GENERIC_PLATFORMS, GenericNetworkClient } from '../../functions/platforms/generic/client.ts';
import {
  type GenericSimulator,
  type SimRecord,
  startGenericSimulator,
} from '../../functions/platforms/generic/simulator.ts';
import type { PlatformId } from '../../functions/platforms/types.ts';
import {
  type MediaForNetwork,
  NetworkError,
  type NetworkErrorKind,
  type PublishBlockInput,
} from '../../functions/ports/network-client.ts';

const alice = { accessToken: 'tok_alice', remoteAccountId: 'alice' };
const bob = { accessToken: 'tok_bob', remoteAccountId: 'bob' };

const file = (mimeType: string): MediaForNetwork => ({
  mediaId: 'med_1',
  mimeType,
  size: 1000,
  altText: null,
  url: 'https://media.example/med_1',
});
const jpeg = file('image/jpeg');
const mp4 = file('video/mp4');

let keySeq = 0;
const input = (overrides: Partial<PublishBlockInput> = {}): PublishBlockInput => ({
  credentials: alice,
  content: 'hello',
  media: [],
  title: null,
  postType: null,
  options: {},
  parent: null,
  idempotencyKey: `key_${++keySeq}`,
  round: 1,
  ...overrides,
});

const lookupInput = (idempotencyKey: string, credentials = alice) => ({
  credentials,
  idempotencyKey,
  content: '',
  parent: null,
  since: new Date(0),
});

/** The NetworkError a call throws (fails the test when it does not throw one). */
const caught = async (call: () => Promise<unknown>): Promise<NetworkError> => {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(NetworkError);
    return error as NetworkError;
  }
  throw new Error('expected a NetworkError');
};
const expectKind = async (call: () => Promise<unknown>, kind: NetworkErrorKind) => {
  const error = await caught(call);
  expect(error.kind).toBe(kind);
  return error;
};

/** A port nothing listens on. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

const raw = (sim: GenericSimulator, path: string, init: { method: string; body?: unknown; token?: string }) =>
  fetch(`${sim.url}${path}`, {
    method: init.method,
    headers: {
      Authorization: `Bearer ${init.token ?? alice.accessToken}`,
      'X-Account-Id': alice.remoteAccountId,
      'Content-Type': 'application/json',
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

const sims: GenericSimulator[] = [];
const start = async (platform: PlatformId, holdMs?: number) => {
  const sim = await startGenericSimulator({ platform, ...(holdMs !== undefined ? { holdMs } : {}) });
  sims.push(sim);
  return { sim, client: new GenericNetworkClient({ platform, baseUrl: sim.url, timeoutMs: 2_000 }) };
};
afterAll(async () => {
  await Promise.all(sims.map((s) => s.stop()));
});

describe('threads (reply network)', () => {
  let sim: GenericSimulator;
  let client: GenericNetworkClient;
  beforeAll(async () => {
    ({ sim, client } = await start('threads', 300));
  });
  beforeEach(() => sim.reset());

  it('publishes a thread: each block replies to the previous one, all under the root', async () => {
    const first = await client.publish(input({ content: 'one' }));
    const second = await client.publish(input({ content: 'two', parent: { block: first, root: first } }));
    const third = await client.publish(input({ content: 'three', parent: { block: second, root: first } }));
    expect(first.remoteId).toMatch(/^threads_[0-9a-f]+$/);
    expect(first.remoteUrl).toBe(`https://threads.example/alice/posts/${first.remoteId}`);
    expect(first.meta).toEqual({});
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
      { kind: 'post', id: first.remoteId, parentId: null, rootId: null, text: 'one', account: 'alice' },
      {
        kind: 'reply',
        id: second.remoteId,
        parentId: first.remoteId,
        rootId: first.remoteId,
        text: 'two',
        account: 'alice',
      },
      {
        kind: 'reply',
        id: third.remoteId,
        parentId: second.remoteId,
        rootId: first.remoteId,
        text: 'three',
        account: 'alice',
      },
    ]);
  });

  it('refuses a reply whose root is not the root of its parent', async () => {
    const first = await client.publish(input({ content: 'one' }));
    const second = await client.publish(input({ content: 'two', parent: { block: first, root: first } }));
    const error = await expectKind(
      () => client.publish(input({ content: 'three', parent: { block: second, root: second } })),
      'permanent',
    );
    expect(error.details.status).toBe(422);
    expect(sim.records()).toHaveLength(2);
  });

  it('edit is refused without calling the network (no remoteEdit); the API itself answers 405', async () => {
    const block = await client.publish(input());
    const offline = new GenericNetworkClient({
      platform: 'threads',
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
    });
    // Would be transient (connection refused) if it tried to call.
    await expectKind(() => offline.edit({ credentials: alice, block, content: 'new' }), 'permanent');
    await expectKind(() => client.edit({ credentials: alice, block, content: 'new' }), 'permanent');
    const response = await raw(sim, `/v1/posts/${block.remoteId}`, {
      method: 'PATCH',
      body: { text: 'new' },
    });
    expect(response.status).toBe(405);
    expect(await response.json()).toMatchObject({ error: { code: 'edit_unsupported' } });
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });

  it('delete is allowed and recorded; deleting again counts as done; lookup no longer finds it', async () => {
    const block = await client.publish(input({ idempotencyKey: 'del_1' }));
    await client.delete({ credentials: alice, block });
    await client.delete({ credentials: alice, block });
    expect(sim.records().map((r) => [r.kind, r.id])).toEqual([
      ['post', block.remoteId],
      ['delete', block.remoteId],
    ]);
    expect(await client.lookup(lookupInput('del_1'))).toBeNull();
  });

  it('sim:fail → permanent with the network message; nothing stored', async () => {
    const error = await expectKind(() => client.publish(input({ content: 'bad sim:fail' })), 'permanent');
    expect(error.message).toBe('Threads refused this post (sim:fail).');
    expect(error.details.status).toBe(422);
    expect(sim.records()).toEqual([]);
  });

  it('sim:fail-once → permanent the first time that text is sent for that account, accepted after', async () => {
    await expectKind(() => client.publish(input({ content: 'x sim:fail-once' })), 'permanent');
    // Another account sending the same text is refused once on its own.
    await expectKind(
      () => client.publish(input({ content: 'x sim:fail-once', credentials: bob })),
      'permanent',
    );
    const block = await client.publish(input({ content: 'x sim:fail-once' }));
    expect(sim.records().map((r) => [r.kind, r.id, r.account])).toEqual([['post', block.remoteId, 'alice']]);
  });

  it('sim:flaky → one 503 (transient; a 5xx leaves the outcome unknown), accepted after', async () => {
    const error = await expectKind(() => client.publish(input({ content: 'sim:flaky' })), 'transient');
    expect(error.details.status).toBe(503);
    expect(error.details.outcomeUnknown).toBe(true);
    await expect(client.publish(input({ content: 'sim:flaky' }))).resolves.toMatchObject({
      remoteId: expect.stringMatching(/^threads_/),
    });
    expect(sim.records()).toHaveLength(1);
  });

  it('sim:reconnect → reconnect', async () => {
    const error = await expectKind(() => client.publish(input({ content: 'sim:reconnect' })), 'reconnect');
    expect(error.details.status).toBe(401);
    expect(sim.records()).toEqual([]);
  });

  it('sim:timeout (our timeout first) → transient with outcomeUnknown; the post is stored and lookup finds it', async () => {
    const impatient = new GenericNetworkClient({ platform: 'threads', baseUrl: sim.url, timeoutMs: 100 });
    const error = await expectKind(
      () => impatient.publish(input({ content: 'slow sim:timeout', idempotencyKey: 'to_1' })),
      'transient',
    );
    expect(error.details.outcomeUnknown).toBe(true);
    const [stored] = sim.records();
    expect(stored).toMatchObject({ kind: 'post', text: 'slow sim:timeout' });
    const found = await client.lookup(lookupInput('to_1'));
    expect(found).toEqual({
      remoteId: stored?.id,
      remoteUrl: `https://threads.example/alice/posts/${stored?.id}`,
      meta: {},
    });
    expect(await client.lookup(lookupInput('to_other'))).toBeNull();
    // Lookups are per account.
    expect(await client.lookup(lookupInput('to_1', bob))).toBeNull();
  });

  it('sim:timeout (the simulator drops the socket first) → transient with outcomeUnknown', async () => {
    const started = Date.now();
    // holdMs is 300 here, the client waits up to 2 s: the socket is destroyed under it.
    const error = await expectKind(() => client.publish(input({ content: 'sim:timeout' })), 'transient');
    expect(error.details.outcomeUnknown).toBe(true);
    expect(error.message).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect(Date.now() - started).toBeLessThan(1_900);
    expect(sim.records()).toHaveLength(1);
  });

  it.each([
    ['sim:reset', undefined],
    ['sim:bad-gateway', 502],
  ])(
    '%s → stored, then the answer is lost: transient with outcomeUnknown; lookup finds it',
    async (token, status) => {
      const key = `lost_${token}`;
      const error = await expectKind(
        () => client.publish(input({ content: `stored ${token}`, idempotencyKey: key })),
        'transient',
      );
      expect(error.details.outcomeUnknown).toBe(true);
      expect(error.details.status).toBe(status);
      const [stored] = sim.records();
      expect(stored).toMatchObject({ kind: 'post', text: `stored ${token}` });
      expect((await client.lookup(lookupInput(key)))?.remoteId).toBe(stored?.id);
    },
  );

  it('rate limit → transient with retryAfterSeconds; lifted → accepted', async () => {
    sim.setRateLimited(7);
    const error = await expectKind(() => client.publish(input()), 'transient');
    expect(error.details).toMatchObject({ status: 429, retryAfterSeconds: 7 });
    sim.setRateLimited(0);
    await client.publish(input());
    // Also settable over HTTP.
    const set = await fetch(`${sim.url}/_sim/rate-limit`, {
      method: 'POST',
      body: JSON.stringify({ seconds: 3 }),
    });
    expect(set.status).toBe(204);
    const response = await raw(sim, '/v1/posts', { method: 'POST', body: { text: 'x', clientKey: 'k' } });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(sim.records()).toHaveLength(1);
  });

  it('revoked or expired token → reconnect; the simulator answers 401 token_expired', async () => {
    for (const accessToken of ['revoked_abc', 'expired-xyz']) {
      const error = await expectKind(
        () => client.publish(input({ credentials: { accessToken, remoteAccountId: 'alice' } })),
        'reconnect',
      );
      expect(error.details.status).toBe(401);
    }
    const response = await raw(sim, '/v1/posts', {
      method: 'POST',
      body: { text: 'x', clientKey: 'k' },
      token: 'revoked1',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: { code: 'token_expired', message: expect.any(String) },
    });
    const missing = await fetch(`${sim.url}/v1/posts`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(401);
    expect(sim.records()).toEqual([]);
  });

  it('an unreachable network → transient, outcome known (nothing was sent)', async () => {
    const offline = new GenericNetworkClient({
      platform: 'threads',
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
    });
    const error = await expectKind(() => offline.publish(input()), 'transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
  });

  it('another account cannot reply to, edit or delete alice’s post', async () => {
    const block = await client.publish(input());
    await expectKind(
      () => client.publish(input({ credentials: bob, parent: { block, root: block } })),
      'permanent',
    );
    const response = await fetch(`${sim.url}/v1/posts/${block.remoteId}`, {
      method: 'DELETE',
      headers: { Authorization: 'Bearer tok_bob', 'X-Account-Id': 'bob' },
    });
    expect(response.status).toBe(404);
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });

  it('inspection endpoint lists the records over HTTP, in order; reset empties it', async () => {
    const first = await client.publish(input({ content: 'a' }));
    await client.publish(input({ content: 'b', parent: { block: first, root: first } }));
    await client.delete({ credentials: alice, block: first });
    const response = await fetch(`${sim.url}/_sim/records`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: SimRecord[] };
    expect(body.data).toEqual(sim.records());
    expect(body.data.map((r) => r.kind)).toEqual(['post', 'reply', 'delete']);
    for (const r of body.data) expect(Number.isNaN(Date.parse(r.at))).toBe(false);
    const reset = await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    expect(reset.status).toBe(204);
    expect(sim.records()).toEqual([]);
    expect(await client.lookup(lookupInput('anything'))).toBeNull();
  });
});

describe('instagram (comment network, requires media, no edit, no delete)', () => {
  let sim: GenericSimulator;
  let client: GenericNetworkClient;
  beforeAll(async () => {
    ({ sim, client } = await start('instagram'));
  });
  beforeEach(() => sim.reset());

  const post = () => client.publish(input({ content: 'photo', media: [jpeg], postType: 'post' }));

  it('extra blocks become comments on the first block', async () => {
    const first = await post();
    const c1 = await client.publish(input({ content: 'c1', parent: { block: first, root: first } }));
    const c2 = await client.publish(input({ content: 'c2', parent: { block: first, root: first } }));
    expect(sim.records().map(({ kind, id, parentId, rootId }) => ({ kind, id, parentId, rootId }))).toEqual([
      { kind: 'post', id: first.remoteId, parentId: null, rootId: null },
      { kind: 'comment', id: c1.remoteId, parentId: first.remoteId, rootId: first.remoteId },
      { kind: 'comment', id: c2.remoteId, parentId: first.remoteId, rootId: first.remoteId },
    ]);
  });

  it('refuses a comment on a comment and a block beyond maxBlocks (3)', async () => {
    const first = await post();
    const c1 = await client.publish(input({ content: 'c1', parent: { block: first, root: first } }));
    await expectKind(
      () => client.publish(input({ content: 'cc', parent: { block: c1, root: first } })),
      'permanent',
    );
    await client.publish(input({ content: 'c2', parent: { block: first, root: first } }));
    const error = await expectKind(
      () => client.publish(input({ content: 'c3', parent: { block: first, root: first } })),
      'permanent',
    );
    expect(error.message).toMatch(/at most 3 blocks/);
    expect(sim.records()).toHaveLength(3);
  });

  it('requires media on the post (422 media_required → permanent), not on comments', async () => {
    const error = await expectKind(() => client.publish(input({ content: 'no photo' })), 'permanent');
    expect(error.details.status).toBe(422);
    expect(error.message).toMatch(/at least one file/);
    const response = await raw(sim, '/v1/posts', { method: 'POST', body: { text: 'x', clientKey: 'k' } });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toMatchObject({ error: { code: 'media_required' } });
    expect(sim.records()).toEqual([]);
  });

  it('refuses a file type the network does not accept and an unknown post type', async () => {
    await expectKind(() => client.publish(input({ media: [file('image/png')] })), 'permanent');
    await expectKind(() => client.publish(input({ media: [jpeg], postType: 'short' })), 'permanent');
    expect(sim.records()).toEqual([]);
  });

  it('edit and delete are refused without calling; the API answers 405 to both', async () => {
    const block = await post();
    const offline = new GenericNetworkClient({
      platform: 'instagram',
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
    });
    await expectKind(() => offline.edit({ credentials: alice, block, content: 'x' }), 'permanent');
    await expectKind(() => offline.delete({ credentials: alice, block }), 'permanent');
    expect(
      (await raw(sim, `/v1/posts/${block.remoteId}`, { method: 'PATCH', body: { text: 'x' } })).status,
    ).toBe(405);
    expect((await raw(sim, `/v1/posts/${block.remoteId}`, { method: 'DELETE' })).status).toBe(405);
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });
});

describe('facebook (comment network with text edits)', () => {
  let sim: GenericSimulator;
  let client: GenericNetworkClient;
  beforeAll(async () => {
    ({ sim, client } = await start('facebook'));
  });
  beforeEach(() => sim.reset());

  it('edits the text of a post and of a comment; edited text obeys sim tokens', async () => {
    const first = await client.publish(input({ content: 'v1' }));
    const comment = await client.publish(input({ content: 'c1', parent: { block: first, root: first } }));
    await client.edit({ credentials: alice, block: first, content: 'v2' });
    await client.edit({ credentials: alice, block: comment, content: 'c2' });
    await expectKind(
      () => client.edit({ credentials: alice, block: first, content: 'sim:fail' }),
      'permanent',
    );
    await expectKind(
      () => client.edit({ credentials: alice, block: first, content: 'sim:reconnect' }),
      'reconnect',
    );
    expect(sim.records().map(({ kind, id, text }) => [kind, id, text])).toEqual([
      ['post', first.remoteId, 'v1'],
      ['comment', comment.remoteId, 'c1'],
      ['edit', first.remoteId, 'v2'],
      ['edit', comment.remoteId, 'c2'],
    ]);
  });

  it('a title edit is refused without calling (remoteEdit is text only)', async () => {
    const block = await client.publish(input());
    await expectKind(() => client.edit({ credentials: alice, block, content: 'x', title: 'T' }), 'permanent');
    expect(sim.records().map((r) => r.kind)).toEqual(['post']);
  });
});

describe('youtube (single-block video network)', () => {
  let sim: GenericSimulator;
  let client: GenericNetworkClient;
  beforeAll(async () => {
    ({ sim, client } = await start('youtube'));
  });
  beforeEach(() => sim.reset());

  const video = (overrides: Partial<PublishBlockInput> = {}) =>
    client.publish(input({ content: 'description', title: 'My video', media: [mp4], ...overrides }));

  it('publishes one video', async () => {
    const block = await video({ options: { privacy: 'unlisted' } });
    expect(block.remoteId).toMatch(/^youtube_/);
    expect(sim.records()).toEqual([
      expect.objectContaining({ kind: 'post', id: block.remoteId, text: 'description' }),
    ]);
  });

  it('refuses any parent (maxBlocks 1): client permanent, API 422 threads_unsupported', async () => {
    const first = await video();
    const error = await expectKind(
      () => client.publish(input({ content: 'more', parent: { block: first, root: first } })),
      'permanent',
    );
    expect(error.details.status).toBe(422);
    const response = await raw(sim, '/v1/posts', {
      method: 'POST',
      body: { text: 'more', parentId: first.remoteId, rootId: first.remoteId, clientKey: 'k' },
    });
    expect(await response.json()).toMatchObject({ error: { code: 'threads_unsupported' } });
    expect(sim.records()).toHaveLength(1);
  });

  it('requires a video and a title', async () => {
    await expectKind(() => video({ media: [] }), 'permanent');
    await expectKind(() => video({ title: null }), 'permanent');
    await expectKind(() => video({ media: [jpeg] }), 'permanent');
    expect(sim.records()).toEqual([]);
  });

  it('edits text, title and options; deletes; lookup then finds nothing', async () => {
    const block = await video({ idempotencyKey: 'yt_1' });
    expect(await client.lookup(lookupInput('yt_1'))).toEqual(block);
    await client.edit({
      credentials: alice,
      block,
      content: 'new description',
      title: 'New title',
      options: { privacy: 'private' },
    });
    await client.delete({ credentials: alice, block });
    expect(sim.records().map(({ kind, text }) => [kind, text])).toEqual([
      ['post', 'description'],
      ['edit', 'new description'],
      ['delete', 'new description'],
    ]);
    expect(await client.lookup(lookupInput('yt_1'))).toBeNull();
  });

  it('every sim token gives the right kind on a video network too', async () => {
    await expectKind(() => video({ content: 'sim:fail' }), 'permanent');
    await expectKind(() => video({ content: 'sim:fail-once' }), 'permanent');
    await video({ content: 'sim:fail-once' });
    await expectKind(() => video({ content: 'sim:flaky' }), 'transient');
    await video({ content: 'sim:flaky' });
    await expectKind(() => video({ content: 'sim:reconnect' }), 'reconnect');
    const impatient = new GenericNetworkClient({ platform: 'youtube', baseUrl: sim.url, timeoutMs: 100 });
    const timeout = await expectKind(
      () =>
        impatient.publish(
          input({ content: 'sim:timeout', title: 'T', media: [mp4], idempotencyKey: 'yt_to' }),
        ),
      'transient',
    );
    expect(timeout.details.outcomeUnknown).toBe(true);
    expect(await client.lookup(lookupInput('yt_to'))).toMatchObject({
      remoteId: expect.stringMatching(/^youtube_/),
    });
    expect(sim.records().map((r) => r.text)).toEqual(['sim:fail-once', 'sim:flaky', 'sim:timeout']);
  });
});

describe('every generic network', () => {
  it.each(GENERIC_PLATFORMS)('%s: a first block that honours its rules is accepted', async (platform) => {
    const { sim, client } = await start(platform);
    const rules = getPlatform(platform);
    if (!rules) throw new Error(platform);
    const mimeType =
      rules.limits.acceptedMimeTypes.find((m) => m.startsWith('video/')) ?? rules.limits.acceptedMimeTypes[0];
    const block = await client.publish(
      input({
        content: 'hi',
        title: rules.limits.title ? 'A title' : null,
        media: rules.limits.requiresMedia && mimeType ? [file(mimeType)] : [],
      }),
    );
    expect(block.remoteId.startsWith(`${platform}_`)).toBe(true);
    expect(block.remoteUrl).toBe(`https://${platform}.example/alice/posts/${block.remoteId}`);
    expect(sim.records()).toHaveLength(1);
  });
});
