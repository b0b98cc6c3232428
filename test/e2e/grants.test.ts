import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { watchGrantUsage } from '../../functions/adapters/local/grant-usage.ts';
import { routes } from '../../functions/http/routes.ts';
import { workers } from '../../functions/workers/manifest.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { schedulesOf } from '../support/interleave.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The local runtime gives each function only the grants of its manifest entry, like its IAM role
 * on AWS. This runtime replaces some entries' grants (as they were before issue 9, or with one
 * removed) to show what a missing grant does; every other e2e file runs with the manifest as it is.
 */
const grantsOf = (routeKey: string) => {
  const route = routes.find((r) => `${r.method} ${r.path}` === routeKey);
  if (!route) throw new Error(`no route ${routeKey}`);
  return route.grants;
};
const publishWorker = workers.find((w) => w.queue === 'publish');
if (!publishWorker) throw new Error('no publish worker');

const overrides = {
  // POST /v1/posts before the fix: it sends to the publish queue without the grant to.
  'POST /v1/posts': ['table:read', 'table:write', 'scheduler:manage'],
  // POST /v1/webhooks before the fix: it could encrypt the new secret, not open it again.
  'POST /v1/webhooks': ['table:read', 'table:write', 'webhookSecret:encrypt'],
  'PUT /v1/posts/{id}': grantsOf('PUT /v1/posts/{id}').filter((g) => g !== 'scheduler:manage'),
  [publishWorker.entry]: publishWorker.grants.filter((g) => g !== 'channelToken:decrypt'),
} as const;

let rt: TestRuntime;
// What this file's runtime uses (other files may have run in this worker before).
const watch = watchGrantUsage();
const grantUsage = watch.usage;

beforeAll(async () => {
  rt = await startTestRuntime({
    grantOverrides: Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, [...v]])),
    // The post sweep runs every second and picks up posts idle for a second.
    env: { POST_SWEEP_AFTER_SECONDS: '1', POST_SWEEP_INTERVAL_SECONDS: '1' },
  });
});
afterAll(async () => {
  watch.stop();
  await rt?.destroy();
});

const nowPost = (channelId: string, content: string) => ({
  intent: 'now',
  channels: [{ channelId, blocks: [{ content }] }],
});

describe('a function without the grant for a call it makes', () => {
  it('POST /v1/posts intent now without publishQueue:send: 500, the post saved but never queued', {
    timeout: 120_000,
  }, async () => {
    // A test-key (sandbox) post: the publish worker needs no token for it.
    const ws = await freshWorkspace(rt, ['x'], 'test');
    const res = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: nowPost(ws.channels.x, 'stuck?'),
    });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    // What AWS did: the post was saved as publishing, with no job to publish it...
    const listed = await rt.api('/posts', { key: ws.key });
    expect(listed.body.data).toHaveLength(1);
    const [post] = listed.body.data;
    expect(post.status).toBe('publishing');
    // ... and the post sweep, which finds posts publishing with no progress, gets it published.
    expect((await waitForPost(rt, post.id, ws.key, 90_000)).status).toBe('published');
    const used = grantUsage().get('POST /v1/posts');
    expect(used?.has('table:write')).toBe(true);
    expect(used?.has('publishQueue:send')).toBe(false);
  });

  it('PUT /v1/posts/{id} without scheduler:manage: 500, and the draft stays as it was', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const draft = {
      intent: 'draft',
      channels: [{ channelId: ws.channels.x, blocks: [{ content: 'Draft' }] }],
    };
    const created = await rt.api('/posts', { method: 'POST', key: ws.key, body: draft });
    expect(created.status).toBe(201);
    const at = new Date(Date.now() + 3600_000).toISOString();
    const moved = await rt.api(`/posts/${created.body.id}`, {
      method: 'PUT',
      key: ws.key,
      body: {
        ...draft,
        intent: 'schedule',
        scheduledAt: at,
        channels: [{ ...draft.channels[0], blocks: [{ content: 'Later' }] }],
      },
    });
    expect(moved.status).toBe(500);
    // The schedule is written before the post: refused, nothing changed.
    expect((await rt.api(`/posts/${created.body.id}`, { key: ws.key })).body).toEqual(created.body);
    const { table } = rt.container.deps;
    const schedule = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: keys.schedule(created.body.id) }),
    );
    expect(schedule.Item).toBeUndefined();
  });

  it('the publish worker without channelToken:decrypt cannot open a live channel’s token: the channel fails', {
    timeout: 120_000,
  }, async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    // POST /v1/posts lacks publishQueue:send here: the sweep brings the post to the worker.
    const res = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: nowPost(ws.channels.bluesky, 'needs a token'),
    });
    expect(res.status).toBe(500);
    const [post] = (await rt.api('/posts', { key: ws.key })).body.data;
    const done = await waitForPost(rt, post.id, ws.key, 90_000);
    expect(done.status).toBe('failed');
    expect(done.channels[0].error).toBe('The channel must be reconnected before it can post.');
    const sent = rt.simulators.byPlatform.get('bluesky')?.records() ?? [];
    expect(JSON.stringify(sent)).not.toContain('needs a token');
  });
});

describe('POST /v1/webhooks with webhookSecret:encrypt only (its grants before issue 9)', () => {
  it('creates the endpoint and answers the secret it generated, without decrypting it', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const body = { url: 'https://127.0.0.1:9/hook', events: ['post.published'] };
    const headers = { 'idempotency-key': `grants-${Date.now()}` };
    const created = await rt.api('/webhooks', { method: 'POST', key: ws.key, body, headers });
    expect(created.status, created.text).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    // The answer is the secret the endpoint signs with.
    const stored = await rt.container.deps.webhooks.getEndpoint(ws.workspaceId, created.body.endpoint.id);
    expect(
      await rt.container.deps
        .tokenCipher()
        .decrypt(stored?.secretCiphertext ?? '', { channelId: created.body.endpoint.id }),
    ).toBe(created.body.secret);
    // A replay must open the sealed secret its record kept: that needs webhookSecret:decrypt,
    // which the manifest grants and this override leaves out.
    const replay = await rt.api('/webhooks', { method: 'POST', key: ws.key, body, headers });
    expect(replay.status).toBe(500);
    expect((await rt.api('/webhooks', { key: ws.key })).body.data).toHaveLength(1);
  });
});

describe('the key-less functions, with only the partitions their manifest grants name', () => {
  it('$default counts a request on the key’s item or, without a key, on the address’s window, and answers 404', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const keyed = await rt.api('/v1/nothing-here', { key: ws.key });
    expect(keyed.status).toBe(404);
    expect(Number(keyed.headers.get('x-ratelimit-remaining'))).toBeLessThan(
      Number(keyed.headers.get('x-ratelimit-limit')),
    );
    const keyless = await rt.api('/v1/nothing-here', { key: null });
    expect(keyless.status).toBe(404);
    expect(keyless.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect([...(grantUsage().get('$default') ?? [])]).toEqual(['table:countRequests']);
  });

  it('the OAuth callback reads the connect state its state names (an unknown one is refused), counted by address', async () => {
    const res = await rt.api('/v1/channels/callback?state=unknown&code=c', { key: null });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_state');
    const used = grantUsage().get('GET /v1/channels/callback');
    expect(used?.has('table:countRequests')).toBe(true);
    expect(used?.has('table:connectStates')).toBe(true);
  });
});

describe('the post sweep (on AWS what the local start-up recovery does)', () => {
  it('fires a scheduled post whose schedule was lost, once it is overdue', { timeout: 120_000 }, async () => {
    const ws = await freshWorkspace(rt, ['x'], 'test');
    const at = new Date(Date.now() + 10_000).toISOString();
    const created = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'schedule',
        scheduledAt: at,
        channels: [{ channelId: ws.channels.x, blocks: [{ content: 'lost' }] }],
      },
    });
    expect(created.status, created.text).toBe(201);
    // The schedule goes missing before it fires.
    const { table } = rt.container.deps;
    const [own] = await schedulesOf(rt, created.body.id);
    expect(own).toBeDefined();
    const deleted = await table.doc.send(
      new DeleteCommand({
        TableName: table.tableName,
        Key: keys.schedule(own?.name as string),
        ReturnValues: 'ALL_OLD',
      }),
    );
    expect(deleted.Attributes).toBeDefined();
    const done = await waitForPost(rt, created.body.id, ws.key, 90_000);
    expect(done.status).toBe('published');
    expect(Date.parse(done.publishedAt)).toBeGreaterThanOrEqual(Date.parse(at));
  });
});
