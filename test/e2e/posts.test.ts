import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import {
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from '../../functions/core/admin/admin.ts';
import { hashSecret } from '../../functions/core/auth/api-keys.ts';
import { schedulesOf } from '../support/interleave.ts';
import { waitForPost } from '../support/publishing.ts';
import { REQUEST_ID, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let ch: Record<string, string>;

const future = (minutes = 60) => new Date(Date.now() + minutes * 60_000).toISOString();
const xPost = (content = 'Hello from Herald', extra: Record<string, unknown> = {}) => ({
  intent: 'draft',
  channels: [{ channelId: ch.x, blocks: [{ content }] }],
  ...extra,
});
/** Schedules fire SCHEDULE_LEAD_SECONDS (5 s locally) before the post's time; the queue closes the gap. */
const ahead = (iso: string) => new Date(Date.parse(iso) - 5000).toISOString();
/** The post's schedule (each save writes one of its own; at most one is left once a request is done). */
const schedule = async (postId: string) => {
  const found = await schedulesOf(rt, postId);
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0];
};

beforeAll(async () => {
  rt = await startTestRuntime();
  ch = Object.fromEntries(rt.seed.channels.map((c) => [c.platform, c.id]));
});
afterAll(async () => {
  await rt?.destroy();
});

describe('POST /v1/posts', () => {
  it('creates a draft with the spec 2.2 shape', async () => {
    const res = await rt.api('/posts', {
      method: 'POST',
      body: {
        intent: 'draft',
        tagIds: [rt.seed.tags[0]?.id],
        channels: [
          { channelId: ch.x, blocks: [{ content: 'First' }, { content: 'Second' }] },
          { channelId: ch.linkedin, blocks: [{ content: 'On LinkedIn' }], options: { visibility: 'PUBLIC' } },
        ],
      },
    });
    expect(res.status).toBe(201);
    const post = res.body;
    expect(post.id).toMatch(/^post_[0-9A-Za-z]{22}$/);
    expect(post).toMatchObject({ status: 'draft', mode: 'live', scheduledAt: null, publishedAt: null });
    expect(post.tags).toEqual([{ id: rt.seed.tags[0]?.id, name: rt.seed.tags[0]?.name }]);
    expect(post.channels).toHaveLength(2);
    expect(post.channels[0]).toMatchObject({
      channelId: ch.x,
      platform: 'x',
      status: 'draft',
      error: null,
      remoteUrl: null,
      blocks: [
        { content: 'First', remoteUrl: null },
        { content: 'Second', remoteUrl: null },
      ],
    });
    expect(post.channels[1].options).toEqual({ visibility: 'PUBLIC' });
    const read = await rt.api(`/posts/${post.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(post);
  });

  it('schedules at the given time in UTC with milliseconds and creates its schedule', async () => {
    const at = new Date(Date.now() + 3 * 3600_000);
    at.setUTCMilliseconds(0);
    // The same instant written as a wall-clock time two hours east of UTC (the date rolls over with it).
    const offset = `${new Date(at.getTime() + 2 * 3600_000).toISOString().slice(0, 19)}+02:00`;
    const res = await rt.api('/posts', {
      method: 'POST',
      body: xPost('Later', { intent: 'schedule', scheduledAt: offset }),
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('scheduled');
    expect(new Date(res.body.scheduledAt).getTime()).toBe(at.getTime());
    expect(res.body.scheduledAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await schedule(res.body.id))?.fireAt).toBe(ahead(res.body.scheduledAt));
  });

  it('answers intent now with status publishing', async () => {
    const res = await rt.api('/posts', { method: 'POST', body: xPost('Now', { intent: 'now' }) });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('publishing');
    expect(res.body.channels[0].status).toBe('publishing');
  });

  it('accepts Authorization: Bearer on create', async () => {
    const res = await rt.api('/posts', {
      method: 'POST',
      key: null,
      headers: { authorization: `Bearer ${rt.seed.keys.live}` },
      body: xPost(),
    });
    expect(res.status).toBe(201);
  });

  it.each([
    [
      'a past schedule',
      { intent: 'schedule', scheduledAt: '2020-01-01T00:00:00Z' },
      'schedule_in_past',
      'scheduledAt',
    ],
    [
      'no timezone',
      { intent: 'schedule', scheduledAt: '2030-01-01T10:00:00' },
      'invalid_timezone',
      'scheduledAt',
    ],
    ['Feb 30', { intent: 'schedule', scheduledAt: '2030-02-30T10:00:00Z' }, 'invalid_date', 'scheduledAt'],
    ['a schedule on a draft', { intent: 'draft', scheduledAt: future() }, 'validation_failed', 'scheduledAt'],
  ])('refuses %s with its code and field and creates nothing', async (_, extra, code, field) => {
    const before = await rt.api('/usage');
    const res = await rt.api('/posts', { method: 'POST', body: xPost('x', extra) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error).toMatchObject({ code, field });
    expect(res.body.error.requestId).toMatch(REQUEST_ID);
    const after = await rt.api('/usage');
    expect(after.body.posts.created.used).toBe(before.body.posts.created.used);
  });

  it('refuses text over the network limit with content_too_long and the block path', async () => {
    const res = await rt.api('/posts', {
      method: 'POST',
      body: {
        intent: 'draft',
        channels: [
          { channelId: ch.linkedin, blocks: [{ content: 'ok' }] },
          { channelId: ch.x, blocks: [{ content: 'fine' }, { content: 'a'.repeat(281) }] },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'content_too_long',
      field: 'channels[1].blocks[1].content',
    });
  });

  it("refuses another workspace's channel and tag", async () => {
    const other = rt.seed.otherWorkspace.channels[0]?.id as string;
    const res = await rt.api('/posts', {
      method: 'POST',
      body: { intent: 'draft', channels: [{ channelId: other, blocks: [{ content: 'x' }] }] },
    });
    expect(res.body.error).toMatchObject({ code: 'channel_not_found', field: 'channels[0].channelId' });
  });

  it('reads only the channels and tags a post names: repeats, ids of another shape and absent ids', async () => {
    const create = (body: Record<string, unknown>) => rt.api('/posts', { method: 'POST', body });
    const block = [{ content: 'x' }];
    const tag = rt.seed.tags[0] as { id: string; name: string };
    const twice = await create({
      intent: 'draft',
      channels: [
        { channelId: ch.x, blocks: block },
        { channelId: ch.x, blocks: block },
      ],
    });
    expect(twice.status).toBe(422);
    expect(twice.body.error).toMatchObject({ code: 'duplicate_channel', field: 'channels[1].channelId' });
    for (const channelId of ['not an id', `ch_${'A'.repeat(65)}`, 'ch_Absent0000000000000000', 'tag_x']) {
      const res = await create({ intent: 'draft', channels: [{ channelId, blocks: block }] });
      expect(res.status, channelId).toBe(422);
      expect(res.body.error, channelId).toMatchObject({
        code: 'channel_not_found',
        field: 'channels[0].channelId',
      });
    }
    for (const tagId of ['not an id', 'tag_Absent0000000000000000', ch.x]) {
      const res = await create({ ...xPost(), tagIds: [tag.id, tagId] });
      expect(res.status, tagId).toBe(422);
      expect(res.body.error, tagId).toMatchObject({ code: 'tag_not_found', field: 'tagIds[1]' });
    }
    const repeated = await create({ ...xPost(), tagIds: [tag.id, tag.id] });
    expect(repeated.status).toBe(201);
    expect(repeated.body.tags).toEqual([{ id: tag.id, name: tag.name }]);
    const untagged = await create(xPost());
    expect(untagged.status).toBe(201);
    expect(untagged.body.tags).toEqual([]);
  });

  it('gives read-only keys 403', async () => {
    const res = await rt.api('/posts', { method: 'POST', key: rt.seed.keys.read, body: xPost() });
    expect(res.status).toBe(403);
  });
});

describe('GET /v1/posts/{id}', () => {
  it("answers 404 for an unknown id and for another workspace's post", async () => {
    const mine = await rt.api('/posts', { method: 'POST', body: xPost() });
    const theirs = await rt.api(`/posts/${mine.body.id}`, { key: rt.seed.keys.otherWorkspace });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
    expect((await rt.api('/posts/post_0000000000000000000000')).status).toBe(404);
    expect((await rt.api('/posts/not-an-id')).status).toBe(404);
  });
});

describe('PUT /v1/posts/{id}', () => {
  it('replaces a draft whole, removes left-out channels, and moves between draft and scheduled', async () => {
    const created = await rt.api('/posts', {
      method: 'POST',
      body: {
        intent: 'draft',
        channels: [
          { channelId: ch.x, blocks: [{ content: 'one' }] },
          { channelId: ch.bluesky, blocks: [{ content: 'two' }] },
        ],
      },
    });
    const id = created.body.id;
    const at = future(120);
    const put = await rt.api(`/posts/${id}`, {
      method: 'PUT',
      body: {
        intent: 'schedule',
        scheduledAt: at,
        channels: [{ channelId: ch.bluesky, blocks: [{ content: 'edited' }] }],
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, status: 'scheduled', scheduledAt: new Date(at).toISOString() });
    expect(put.body.channels).toHaveLength(1);
    expect(put.body.channels[0].blocks[0].content).toBe('edited');
    expect((await schedule(id))?.fireAt).toBe(ahead(at));

    const later = future(240);
    await rt.api(`/posts/${id}`, {
      method: 'PUT',
      body: {
        intent: 'schedule',
        scheduledAt: later,
        channels: [{ channelId: ch.bluesky, blocks: [{ content: 'moved' }] }],
      },
    });
    expect((await schedule(id))?.fireAt).toBe(ahead(later));

    const back = await rt.api(`/posts/${id}`, {
      method: 'PUT',
      body: { intent: 'draft', channels: [{ channelId: ch.bluesky, blocks: [{ content: 'draft again' }] }] },
    });
    expect(back.body).toMatchObject({ status: 'draft', scheduledAt: null });
    expect(await schedule(id)).toBeUndefined();
  });

  it('PUT to a time inside the schedule lead queues the post at once (its schedule only a safety net), never early', async () => {
    const created = await rt.api('/posts', { method: 'POST', body: xPost('soon') });
    // Closer than the lead (5 s locally): too close for a schedule, straight onto the publish queue.
    const at = new Date(Date.now() + 4000).toISOString();
    const put = await rt.api(`/posts/${created.body.id}`, {
      method: 'PUT',
      body: xPost('soon, edited', { intent: 'schedule', scheduledAt: at }),
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.status).toBe('scheduled');
    const done = await waitForPost(rt, created.body.id, undefined, 60_000);
    expect(done.status).toBe('published');
    expect(Date.parse(done.publishedAt)).toBeGreaterThanOrEqual(Date.parse(at));
  }, 90_000);

  it('uses no quota and refuses posts that are no longer draft or scheduled', async () => {
    const created = await rt.api('/posts', { method: 'POST', body: xPost() });
    const before = (await rt.api('/usage')).body.posts.created.used;
    await rt.api(`/posts/${created.body.id}`, { method: 'PUT', body: xPost('changed') });
    expect((await rt.api('/usage')).body.posts.created.used).toBe(before);
    const now = await rt.api('/posts', { method: 'POST', body: xPost('x', { intent: 'now' }) });
    const res = await rt.api(`/posts/${now.body.id}`, { method: 'PUT', body: xPost('too late') });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
  });

  it('validates like create and changes nothing on a 4xx', async () => {
    const created = await rt.api('/posts', { method: 'POST', body: xPost('keep me') });
    const res = await rt.api(`/posts/${created.body.id}`, { method: 'PUT', body: xPost('a'.repeat(300)) });
    expect(res.body.error.code).toBe('content_too_long');
    expect((await rt.api(`/posts/${created.body.id}`)).body.channels[0].blocks[0].content).toBe('keep me');
  });
});

describe('DELETE /v1/posts/{id}', () => {
  it('removes the post and its schedule', async () => {
    const created = await rt.api('/posts', {
      method: 'POST',
      body: xPost('bye', { intent: 'schedule', scheduledAt: future() }),
    });
    expect(await schedule(created.body.id)).toBeDefined();
    const res = await rt.api(`/posts/${created.body.id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.body.id, deleted: true });
    expect((await rt.api(`/posts/${created.body.id}`)).status).toBe(404);
    expect(await schedule(created.body.id)).toBeUndefined();
    expect((await rt.api(`/posts/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, and refuses a different body', async () => {
    const key = randomUUID();
    const first = await rt.api('/posts', {
      method: 'POST',
      body: xPost('once'),
      headers: { 'idempotency-key': key },
    });
    const again = await rt.api('/posts', {
      method: 'POST',
      body: xPost('once'),
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await rt.api('/posts', {
      method: 'POST',
      body: xPost('twice'),
      headers: { 'idempotency-key': key },
    });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    // The same key from another workspace is another request.
    const theirs = await rt.api('/posts', {
      method: 'POST',
      key: rt.seed.keys.otherWorkspace,
      body: {
        intent: 'draft',
        channels: [{ channelId: rt.seed.otherWorkspace.channels[0]?.id, blocks: [{ content: 'once' }] }],
      },
      headers: { 'idempotency-key': key },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(first.body.id);
  });

  it('makes exactly one post from 50 parallel identical requests', async () => {
    const key = randomUUID();
    const content = `parallel ${key}`;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        rt.api('/posts', { method: 'POST', body: xPost(content), headers: { 'idempotency-key': key } }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const inFlight = results.filter((r) => r.status === 409);
    expect(created.length + inFlight.length).toBe(50);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of inFlight) expect(r.body.error.code).toBe('idempotency_in_progress');
    const all = [];
    let cursor: string | null = null;
    do {
      const page: any = await rt.api(`/posts?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(all.filter((p) => p.channels[0].blocks[0].content === content)).toHaveLength(1);
  });

  it('refuses a malformed key', async () => {
    const res = await rt.api('/posts', {
      method: 'POST',
      body: xPost(),
      headers: { 'idempotency-key': 'a b' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('Idempotency-Key');
  });
});

describe('quota and usage', () => {
  it('lets exactly N of N+5 parallel creates through when N are left, then answers 402', async () => {
    const deps = rt.container.deps;
    const account = await createAccount(deps, { name: 'Quota', plan: 'free' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'Q' });
    const { secret } = await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'write',
      name: 'q',
    });
    const channel = await connectChannel(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'bluesky',
      name: 'q',
      remoteAccountId: 'did:plc:quotaq',
      accessToken: 't',
    });
    const usage = await rt.api('/usage', { key: secret });
    const limit = usage.body.posts.created.limit as number;
    expect(usage.body.posts.created.used).toBe(0);
    const body = {
      intent: 'draft',
      channels: [{ channelId: channel.channelId, blocks: [{ content: 'q' }] }],
    };
    const results = await Promise.all(
      Array.from({ length: limit + 5 }, () => rt.api('/posts', { method: 'POST', key: secret, body })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(limit);
    const refused = results.filter((r) => r.status === 402);
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r.body.error.code).toBe('quota_exceeded');
    const after = await rt.api('/usage', { key: secret });
    expect(after.body.posts.created).toEqual({ used: limit, limit });
    const listed = await rt.api('/posts?limit=100', { key: secret });
    expect(listed.body.data).toHaveLength(limit);
  });

  it('reports the account-wide usage record', async () => {
    const res = await rt.api('/usage', { key: rt.seed.keys.read });
    expect(res.status).toBe(200);
    const now = new Date();
    expect(res.body).toMatchObject({
      plan: 'starter',
      periodStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      periodEnd: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      channels: { used: 13, limit: 25 },
      storage: { bytesUsed: 0 },
    });
    expect(res.body.posts.created.used).toBeGreaterThan(0);
    // Posts created with intent now in this file really publish (to the simulators) and count.
    expect(res.body.posts.published).toBeGreaterThan(0);
    expect(res.body.posts.published).toBeLessThanOrEqual(res.body.posts.created.used);
    const other = await rt.api('/usage', { key: rt.seed.keys.otherWorkspace });
    expect(other.body.posts.created.used).toBe(res.body.posts.created.used);
  });

  it('does not count sandbox posts', async () => {
    const before = (await rt.api('/usage')).body.posts.created.used;
    const res = await rt.api('/posts', { method: 'POST', key: rt.seed.keys.test, body: xPost('sandbox') });
    expect(res.status).toBe(201);
    expect(res.body.mode).toBe('test');
    expect((await rt.api('/usage')).body.posts.created.used).toBe(before);
  });
});

describe("a create whose reads start beside the key's check (a key this instance has seen)", () => {
  /** A workspace with one channel, and a key of each permission (the write key used once: now known). */
  const workspaceWithKeys = async () => {
    const deps = rt.container.deps;
    const account = await createAccount(deps, { name: 'Hint', plan: 'starter' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'H' });
    const key = async (permission: 'write' | 'read') =>
      (
        await createApiKey(deps, {
          accountId: account.accountId,
          workspaceId: ws.workspaceId,
          mode: 'live',
          permission,
          name: permission,
        })
      ).secret;
    const channel = await connectChannel(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'bluesky',
      name: 'h',
      remoteAccountId: 'did:plc:hundredh',
      accessToken: 't',
    });
    const body = {
      intent: 'draft',
      channels: [{ channelId: channel.channelId, blocks: [{ content: 'h' }] }],
    };
    const write = await key('write');
    const read = await key('read');
    const first = await rt.api('/posts', { method: 'POST', key: write, body });
    expect(first.status).toBe(201);
    const count = async () => (await rt.api('/posts?limit=100', { key: read })).body.data.length as number;
    return { write, read, body, count };
  };

  it('refuses a key removed since it was last used (401, nothing created)', async () => {
    const { write, body, count } = await workspaceWithKeys();
    const deps = rt.container.deps;
    await deps.table.doc.send(
      new DeleteCommand({ TableName: deps.table.tableName, Key: keys.apiKey(hashSecret(write)) }),
    );
    const refused = await rt.api('/posts', { method: 'POST', key: write, body });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    expect(await count()).toBe(1);
  });

  it("answers in the usual order: the key's 403 before the body's error, and a bad body is counted", async () => {
    const { write, read, count } = await workspaceWithKeys();
    // The read key is known too (it listed), and may not create, whatever the body.
    await count();
    const forbidden = await rt.api('/posts', { method: 'POST', key: read, body: { intent: 'nope' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    const bad = await rt.api('/posts', { method: 'POST', key: write, body: { intent: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const next = await rt.api('/posts', { method: 'POST', key: write, body: { intent: 'nope' } });
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBe(
      Number(bad.headers.get('x-ratelimit-remaining')) - 1,
    );
    expect(await count()).toBe(1);
  });

  it("still answers 404 for another workspace's channel", async () => {
    const { write } = await workspaceWithKeys();
    const other = rt.seed.channels[0]?.id as string;
    const res = await rt.api('/posts', {
      method: 'POST',
      key: write,
      body: { intent: 'draft', channels: [{ channelId: other, blocks: [{ content: 'x' }] }] },
    });
    expect(res.body.error).toMatchObject({ code: 'channel_not_found', field: 'channels[0].channelId' });
  });
});
