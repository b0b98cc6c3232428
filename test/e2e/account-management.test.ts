/**
 * The dashboard's management routes (/v1/account/**) through the local runtime, with real access
 * tokens from its user pool: every route's happy path; tenancy on every route (a second account's
 * user gets 404 for the first's workspace and ids, and never sees its keys, channels, posts or
 * deliveries); a key route refuses a token and a user route refuses a key; a revoked key is 401 at
 * once (also on an instance that remembers its scope, folded path and usual path); a rolled key
 * lives out its grace, then answers 401. Every answer is checked against the OpenAPI document.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKeyBody, rollKeyBody } from '../../functions/core/account/keys.ts';
import { workspaceBody } from '../../functions/core/account/workspaces.ts';
import { connectChannel } from '../../functions/core/admin/admin.ts';
import { scopeHint } from '../../functions/core/auth/api-keys.ts';
import { userRoutes } from '../../functions/http/routes.ts';
import { oversizedKeys, watchKeys } from '../support/dynamo-key-limits.ts';
import { waitForPost } from '../support/publishing.ts';
import { type ApiCall, type ApiResponse, startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { bearer, otherAccountUser } from '../support/users.ts';
import { waitFor } from '../support/wait.ts';

let rt: TestRuntime;
type Person = Awaited<ReturnType<typeof otherAccountUser>>;
/** The account whose data is looked at, and a second account's user who must never see it. */
let ann: Person;
let bob: Person;

const REDIRECT = 'https://client.example/dashboard/';
/** Bodies per route in the fuzz block (brief by default; set FUZZ_RUNS to go further). */
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 30);

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '3000', PUBLISH_RETRY_BASE_SECONDS: '0.5' } });
  [ann, bob] = await Promise.all([otherAccountUser(rt), otherAccountUser(rt)]);
  watchKeys();
}, 120_000);
afterAll(async () => {
  // The worker's next file shares these modules: the client's own send again.
  vi.restoreAllMocks();
  await rt?.destroy();
});

/** A call of a user route as `person` (their access token, no key). */
const as =
  (person: Person) =>
  (path: string, call: ApiCall = {}) =>
    rt.api(path, { ...call, key: null, headers: { ...bearer(person.tokens.accessToken), ...call.headers } });
const ws = (person: Person, rest = '') => `/v1/account/workspaces/${person.workspaceId}${rest}`;

const expectStatus = (res: ApiResponse, status: number) => expect(res.status, res.text).toBe(status);
const expectNotFound = (res: ApiResponse) => {
  expectStatus(res, 404);
  expect(res.body.error.code).toBe('not_found');
};

/** A key of ann's workspace, made through the dashboard. */
const newKey = async (body: Record<string, unknown> = { mode: 'live', permission: 'write' }) => {
  const res = await as(ann)(ws(ann, '/keys'), { method: 'POST', body });
  expectStatus(res, 201);
  return res.body as { id: string; secret: string; name: string; prefix: string };
};

/** One of ann's X channels, connected by the operator's command. */
let annChannel: string;
const channelOfAnn = async () => {
  annChannel ??= (
    await connectChannel(rt.container.deps, {
      accountId: ann.accountId,
      workspaceId: ann.workspaceId,
      platform: 'x',
      name: `x ${ann.workspaceId}`,
      remoteAccountId: `acct_${randomBytes(4).toString('hex')}`,
      accessToken: `token-${ann.workspaceId}`,
    })
  ).channelId;
  return annChannel;
};

const draft = async (key: string) =>
  rt.api('/posts', {
    method: 'POST',
    key,
    body: {
      intent: 'draft',
      channels: [{ channelId: await channelOfAnn(), blocks: [{ content: 'draft' }] }],
    },
  });

describe('who may call which route', () => {
  it('a user route answers a key (header or bearer) as API Gateway does: 401, not the envelope', async () => {
    const key = await newKey();
    for (const call of [
      { key: key.secret },
      { key: null, headers: { authorization: `Bearer ${key.secret}` } },
    ]) {
      const res = await rt.api('/v1/account', call);
      expectStatus(res, 401);
      expect(res.body).toEqual({ message: 'Unauthorized' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    // Nothing at all: the same.
    expect((await rt.api('/v1/account/workspaces', { key: null })).status).toBe(401);
  });

  it('a user route answers an ID token 401 in the envelope: only an access token is a person', async () => {
    const res = await as(ann)('/v1/account', { headers: bearer(ann.tokens.idToken) });
    expectStatus(res, 401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('a key route answers an access token 401 in the envelope: a token is never a key', async () => {
    const res = await rt.api('/v1/channels', { key: null, headers: bearer(ann.tokens.accessToken) });
    expectStatus(res, 401);
    expect(res.body.error.code).toBe('unauthorized');
  });
});

describe('the account, its usage and its workspaces', () => {
  it('shows the signed-in user, the plan and the workspaces; usage is what GET /v1/usage answers', async () => {
    const me = await as(ann)('/v1/account');
    expectStatus(me, 200);
    expect(me.body.user.id).toBe(ann.userId);
    expect(me.body.account).toEqual({ id: ann.accountId, plan: 'starter' });
    expect(me.body.workspaces.map((w: { id: string }) => w.id)).toEqual([ann.workspaceId]);
    const usage = await as(ann)('/v1/account/usage');
    expectStatus(usage, 200);
    const key = await newKey({ mode: 'live', permission: 'read' });
    expect((await rt.api('/v1/usage', { key: key.secret })).body).toEqual(usage.body);
  });

  it('creates (trimmed), lists and renames workspaces; bad names change nothing', async () => {
    const created = await as(ann)('/v1/account/workspaces', { method: 'POST', body: { name: '  Launch  ' } });
    expectStatus(created, 201);
    expect(created.body.name).toBe('Launch');
    const renamed = await as(ann)(`/v1/account/workspaces/${created.body.id}`, {
      method: 'PATCH',
      body: { name: 'Relaunch' },
    });
    expectStatus(renamed, 200);
    expect(renamed.body).toEqual({ ...created.body, name: 'Relaunch' });
    const listed = await as(ann)('/v1/account/workspaces');
    expect(listed.body.data.map((w: { id: string; name: string }) => [w.id, w.name])).toContainEqual([
      created.body.id,
      'Relaunch',
    ]);
    const before = listed.body.data;
    for (const [call, code] of [
      [{ body: {} }, 'validation_failed'],
      [{ body: { name: '' } }, 'validation_failed'],
      [{ body: { name: '   ' } }, 'validation_failed'],
      [{ body: { name: 'x'.repeat(101) } }, 'validation_failed'],
      [{ body: { name: 'ok', plan: 'unlimited' } }, 'validation_failed'],
      [{ body: ['ok'] }, 'validation_failed'],
      [{ body: { name: 42 } }, 'validation_failed'],
      [{ rawBody: '{"name":', headers: { 'content-type': 'application/json' } }, 'invalid_json'],
      [
        { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        'unsupported_media_type',
      ],
    ] as [ApiCall, string][]) {
      for (const [path, method] of [
        ['/v1/account/workspaces', 'POST'],
        [`/v1/account/workspaces/${created.body.id}`, 'PATCH'],
      ]) {
        const res = await as(ann)(path as string, { method, ...call });
        expect(res.status, `${method} ${JSON.stringify(call)}: ${res.text}`).toBe(
          code === 'unsupported_media_type' ? 415 : 400,
        );
        expect(res.body.error.code).toBe(code);
      }
    }
    expect((await as(ann)('/v1/account/workspaces')).body.data).toEqual(before);
  });
});

describe('API keys from the dashboard', () => {
  it('creates a key whose secret works at once, shown once; the list has its prefix and when it was last used', async () => {
    const key = await newKey({ name: 'CI', mode: 'test', permission: 'read' });
    expect(key.secret).toMatch(/^sk_test_/);
    expect(key.prefix).toBe(key.secret.slice(0, 12));
    const listed = async () =>
      ((await as(ann)(ws(ann, '/keys'))).body.data as Record<string, unknown>[]).find((k) => k.id === key.id);
    expect(await listed()).toMatchObject({ name: 'CI', mode: 'test', permission: 'read', lastUsedAt: null });
    expect(JSON.stringify((await as(ann)(ws(ann, '/keys'))).body)).not.toContain(key.secret);
    const before = Date.now();
    expectStatus(await rt.api('/v1/channels', { key: key.secret }), 200);
    const lastUsedAt = (await listed())?.lastUsedAt as string;
    expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
    // A read key stays a read key.
    expectStatus(await draft(key.secret), 403);
  });

  it('refuses bad key bodies and makes no key', async () => {
    const count = async () => (await as(ann)(ws(ann, '/keys'))).body.data.length;
    const before = await count();
    for (const body of [
      {},
      { mode: 'live' },
      { mode: 'prod', permission: 'write' },
      { mode: 'live', permission: 'admin' },
      { mode: 'live', permission: 'write', name: '' },
      { mode: 'live', permission: 'write', name: 'x'.repeat(101) },
      { mode: 'live', permission: 'write', workspaceId: bob.workspaceId },
      { mode: 'live', permission: 'write', secret: 'sk_live_chosen' },
      null,
      'live',
    ]) {
      const res = await as(ann)(ws(ann, '/keys'), { method: 'POST', body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const key = await newKey();
    for (const body of [
      { graceSeconds: -1 },
      { graceSeconds: 86_401 },
      { graceSeconds: 1.5 },
      { graceSeconds: '5' },
    ]) {
      const res = await as(ann)(ws(ann, `/keys/${key.id}/roll`), { method: 'POST', body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
    }
    expect(await count()).toBe(before + 1);
    expectStatus(await rt.api('/v1/channels', { key: key.secret }), 200);
  });

  it('revokes: the next request with the key is 401 at once, also where an instance remembers it (both paths)', async () => {
    const key = await newKey();
    // Two requests: the first starts the key's window and leaves its scope remembered; the
    // second takes the folded path (the key's item read with the post's references).
    expectStatus(await draft(key.secret), 201);
    expectStatus(await draft(key.secret), 201);
    expect(scopeHint(key.secret, new Date())).toEqual({
      accountId: ann.accountId,
      workspaceId: ann.workspaceId,
    });
    const revoked = await as(ann)(ws(ann, `/keys/${key.id}`), { method: 'DELETE' });
    expectStatus(revoked, 204);
    expect(revoked.text).toBe('');
    // The folded path's route (POST /v1/posts), then a route of the usual path.
    expectStatus(await draft(key.secret), 401);
    expectStatus(await rt.api('/v1/channels', { key: key.secret }), 401);
    expect(((await as(ann)(ws(ann, '/keys'))).body.data as { id: string }[]).map((k) => k.id)).not.toContain(
      key.id,
    );
    expectNotFound(await as(ann)(ws(ann, `/keys/${key.id}`), { method: 'DELETE' }));
  });

  it('rolls with a grace: both keys work, then the old one is 401 once the grace ends', {
    timeout: 30_000,
  }, async () => {
    const old = await newKey({ name: 'deploy', mode: 'live', permission: 'write' });
    expectStatus(await draft(old.secret), 201);
    expectStatus(await draft(old.secret), 201);
    const rolled = await as(ann)(ws(ann, `/keys/${old.id}/roll`), {
      method: 'POST',
      body: { graceSeconds: 2 },
    });
    expectStatus(rolled, 201);
    expect(rolled.body).toMatchObject({ name: 'deploy', mode: 'live', permission: 'write', expiresAt: null });
    expect(rolled.body.id).not.toBe(old.id);
    const listed = (await as(ann)(ws(ann, '/keys'))).body.data as { id: string; expiresAt: string | null }[];
    const oldExpiry = listed.find((k) => k.id === old.id)?.expiresAt as string;
    expect(Date.parse(oldExpiry)).toBeGreaterThan(Date.now() - 2000);
    expectStatus(await rt.api('/v1/channels', { key: rolled.body.secret }), 200);
    // The old key until its grace ends (the check races the end: it may already be over).
    const early = await rt.api('/v1/channels', { key: old.secret });
    if (Date.now() < Date.parse(oldExpiry) - 500) expectStatus(early, 200);
    await waitFor(async () => (await rt.api('/v1/channels', { key: old.secret })).status === 401, {
      timeoutMs: 10_000,
      intervalMs: 200,
      what: 'the rolled key to be refused',
    });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(oldExpiry));
    expectStatus(await draft(old.secret), 401);
    expectStatus(await draft(rolled.body.secret), 201);
    expect(((await as(ann)(ws(ann, '/keys'))).body.data as { id: string }[]).map((k) => k.id)).not.toContain(
      old.id,
    );
  });
});

describe("the workspace's channels, posts and webhooks, as the key routes answer them", () => {
  it('connects a channel through the consent screen with the dashboard as the redirect, then disconnects it', {
    timeout: 60_000,
  }, async () => {
    const start = await as(ann)(ws(ann, '/channels/connect'), {
      method: 'POST',
      body: { platform: 'linkedin', redirectUrl: REDIRECT },
    });
    expectStatus(start, 201);
    const authorize = new URL(start.body.authorizeUrl);
    authorize.searchParams.set('sim_user', `l${randomBytes(3).toString('hex')}`);
    const atNetwork = await fetch(authorize, { redirect: 'manual' });
    const atHerald = await fetch(atNetwork.headers.get('location') as string, { redirect: 'manual' });
    const landed = new URL(atHerald.headers.get('location') as string);
    expect(landed.origin + landed.pathname).toBe(REDIRECT);
    const code = landed.searchParams.get('connectCode');
    // Bob cannot complete ann's code, in her workspace or in his.
    for (const path of [ws(ann, '/channels/connect/complete'), ws(bob, '/channels/connect/complete')]) {
      expectNotFound(await as(bob)(path, { method: 'POST', body: { connectCode: code } }));
    }
    const done = await as(ann)(ws(ann, '/channels/connect/complete'), {
      method: 'POST',
      body: { connectCode: code },
    });
    expectStatus(done, 201);
    const listed = await as(ann)(ws(ann, '/channels'));
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(done.body.id);
    expect((await as(bob)(ws(bob, '/channels'))).body.data).toEqual([]);
    expectNotFound(await as(bob)(ws(bob, `/channels/${done.body.id}`), { method: 'DELETE' }));
    const gone = await as(ann)(ws(ann, `/channels/${done.body.id}`), { method: 'DELETE' });
    expectStatus(gone, 200);
    expect((await as(ann)(ws(ann, '/channels'))).body.data.map((c: { id: string }) => c.id)).not.toContain(
      done.body.id,
    );
  });

  it("lists and chooses a connection's targets (Facebook pages)", { timeout: 60_000 }, async () => {
    const start = await as(ann)(ws(ann, '/channels/connect'), {
      method: 'POST',
      body: { platform: 'facebook', redirectUrl: REDIRECT },
    });
    expectStatus(start, 201);
    const authorize = new URL(start.body.authorizeUrl);
    authorize.searchParams.set('sim_user', `f${randomBytes(3).toString('hex')}`);
    const atNetwork = await fetch(authorize, { redirect: 'manual' });
    const atHerald = await fetch(atNetwork.headers.get('location') as string, { redirect: 'manual' });
    const code = new URL(atHerald.headers.get('location') as string).searchParams.get('connectCode');
    const done = await as(ann)(ws(ann, '/channels/connect/complete'), {
      method: 'POST',
      body: { connectCode: code },
    });
    expectStatus(done, 200);
    expect(done.body.pending).toBe('targets');
    const targetsPath = `/channels/connect/${done.body.connectionId}/targets`;
    expectNotFound(await as(bob)(ws(bob, targetsPath)));
    const offered = await as(ann)(ws(ann, targetsPath));
    expectStatus(offered, 200);
    const first = offered.body.data[0] as { id: string };
    expectNotFound(await as(bob)(ws(bob, targetsPath), { method: 'POST', body: { targetIds: [first.id] } }));
    const chosen = await as(ann)(ws(ann, targetsPath), { method: 'POST', body: { targetIds: [first.id] } });
    expectStatus(chosen, 201);
    expect(chosen.body.data).toHaveLength(1);
  });

  it('shows a post, its metrics and the webhook log; the signing secret on demand', {
    timeout: 60_000,
  }, async () => {
    const key = await newKey();
    const hook = await rt.api('/webhooks', {
      method: 'POST',
      key: key.secret,
      body: { url: 'https://127.0.0.1:9/hooks', events: ['post.published'] },
    });
    expectStatus(hook, 201);
    const created = await rt.api('/posts', {
      method: 'POST',
      key: key.secret,
      body: {
        intent: 'now',
        channels: [{ channelId: await channelOfAnn(), blocks: [{ content: 'hello dashboard' }] }],
      },
    });
    expectStatus(created, 201);
    const published = await waitForPost(rt, created.body.id, key.secret, 30_000);
    expect(published.status).toBe('published');

    const list = await as(ann)(ws(ann, '/posts?status=published'));
    expectStatus(list, 200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(created.body.id);
    const post = await as(ann)(ws(ann, `/posts/${created.body.id}`));
    expect(post.body).toEqual((await rt.api(`/posts/${created.body.id}`, { key: key.secret })).body);
    const metrics = await as(ann)(ws(ann, `/posts/${created.body.id}/metrics`));
    expectStatus(metrics, 200);
    expect(metrics.body).toEqual(
      (await rt.api(`/posts/${created.body.id}/metrics`, { key: key.secret })).body,
    );
    // The timeline: the engine's steps for the one channel and block, as the key route shows them.
    const timeline = await as(ann)(ws(ann, `/posts/${created.body.id}/timeline`));
    expectStatus(timeline, 200);
    expect(timeline.body.postId).toBe(created.body.id);
    expect(timeline.body.data.map((e: { kind: string }) => e.kind)).toContain('sent');
    expect(timeline.body).toEqual(
      (await rt.api(`/posts/${created.body.id}/timeline`, { key: key.secret })).body,
    );

    const hooks = await as(ann)(ws(ann, '/webhooks'));
    expect(hooks.body.data.map((h: { id: string }) => h.id)).toEqual([hook.body.endpoint.id]);
    const secret = await as(ann)(ws(ann, `/webhooks/${hook.body.endpoint.id}/secret`));
    expectStatus(secret, 200);
    expect(secret.body).toEqual({ secret: hook.body.secret });
    // The post.published delivery is tried (the address refuses it) and logged.
    const deliveries = await waitFor(
      async () => {
        const res = await as(ann)(ws(ann, `/webhooks/${hook.body.endpoint.id}/deliveries`));
        return res.status === 200 && res.body.data.length > 0 ? res : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'a delivery attempt in the log' },
    );
    expect(deliveries.body.data[0]).toMatchObject({ eventType: 'post.published', attempt: 1 });

    // Bob, in his own workspace, with ann's ids: nothing.
    expect((await as(bob)(ws(bob, '/posts'))).body.data).toEqual([]);
    expect((await as(bob)(ws(bob, '/webhooks'))).body.data).toEqual([]);
    expectNotFound(await as(bob)(ws(bob, `/posts/${created.body.id}`)));
    expectNotFound(await as(bob)(ws(bob, `/posts/${created.body.id}/metrics`)));
    expectNotFound(await as(bob)(ws(bob, `/posts/${created.body.id}/timeline`)));
    expectNotFound(await as(bob)(ws(bob, `/webhooks/${hook.body.endpoint.id}/secret`)));
    expectNotFound(await as(bob)(ws(bob, `/webhooks/${hook.body.endpoint.id}/deliveries`)));
    expect((await as(bob)(ws(bob, '/keys'))).body.data).toEqual([]);
    const annKeys = (await as(ann)(ws(ann, '/keys'))).body.data as { id: string }[];
    for (const k of annKeys.slice(0, 1)) {
      expectNotFound(await as(bob)(ws(bob, `/keys/${k.id}`), { method: 'DELETE' }));
      expectNotFound(await as(bob)(ws(bob, `/keys/${k.id}/roll`), { method: 'POST', body: {} }));
    }
  });
});

describe('tenancy on every route', () => {
  it("answers another account's user 404 for the workspace on every {workspaceId} route, and changes nothing", {
    timeout: 60_000,
  }, async () => {
    const key = await newKey();
    const hook = await rt.api('/webhooks', {
      method: 'POST',
      key: key.secret,
      body: { url: 'https://127.0.0.1:9/hooks', events: ['post.published'] },
    });
    const post = await draft(key.secret);
    const ids: Record<string, string> = {
      workspaceId: ann.workspaceId,
      keyId: key.id,
      state: 'st_unknown',
    };
    const bodies: Record<string, unknown> = {
      [`PATCH /v1/account/workspaces/{workspaceId}`]: { name: 'Taken over' },
      [`POST /v1/account/workspaces/{workspaceId}/keys`]: { mode: 'live', permission: 'write' },
      [`POST /v1/account/workspaces/{workspaceId}/keys/{keyId}/roll`]: {},
      [`POST /v1/account/workspaces/{workspaceId}/channels/connect`]: {
        platform: 'x',
        redirectUrl: REDIRECT,
      },
      [`POST /v1/account/workspaces/{workspaceId}/channels/connect/complete`]: { connectCode: 'cc_x' },
      [`POST /v1/account/workspaces/{workspaceId}/channels/connect/{state}/targets`]: { targetIds: ['1'] },
    };
    const channelId = await channelOfAnn();
    /** The `{id}` of a route: ann's post, webhook or channel. */
    const idFor = (path: string) =>
      path.includes('/posts/')
        ? post.body.id
        : path.includes('/webhooks/')
          ? hook.body.endpoint.id
          : channelId;
    const routes = userRoutes.filter((r) => r.path.includes('{workspaceId}'));
    // Every user route but the four about the account as a whole.
    expect(userRoutes.filter((r) => !routes.includes(r)).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/account',
      'GET /v1/account/usage',
      'GET /v1/account/workspaces',
      'POST /v1/account/workspaces',
    ]);
    for (const route of routes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'id' ? idFor(route.path) : (ids[name] ?? ''),
      );
      const routeKey = `${route.method} ${route.path}`;
      const res = await as(bob)(path, {
        method: route.method,
        ...(bodies[routeKey] !== undefined ? { body: bodies[routeKey] } : {}),
      });
      expect(res.status, `${routeKey}: ${res.text}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    // Nothing of ann's changed: her workspace's name, her key, her channel, post and webhook.
    const me = (await as(ann)('/v1/account')).body;
    expect(me.workspaces.find((w: { id: string }) => w.id === ann.workspaceId).name).not.toBe('Taken over');
    expectStatus(await rt.api('/v1/channels', { key: key.secret }), 200);
    expectStatus(await rt.api(`/v1/posts/${post.body.id}`, { key: key.secret }), 200);
    expectStatus(await rt.api(`/v1/webhooks/${hook.body.endpoint.id}`, { key: key.secret }), 200);
    expectStatus(await rt.api(`/v1/channels/${channelId}`, { key: key.secret }), 200);
    // And bob's own account answers only his.
    const his = (await as(bob)('/v1/account')).body;
    expect(his.account.id).toBe(bob.accountId);
    expect(his.workspaces.map((w: { id: string }) => w.id)).toEqual([bob.workspaceId]);
    expect((await as(bob)('/v1/account/workspaces')).body.data.map((w: { id: string }) => w.id)).toEqual([
      bob.workspaceId,
    ]);
  });
});

describe('ids that cannot be ids', () => {
  it("answers an over-long or malformed path id 404 (or 400) in the envelope, with no key past DynamoDB's limits", {
    timeout: 60_000,
  }, async () => {
    const bodies: Record<string, unknown> = {
      PATCH: { name: 'Renamed' },
      POST: {},
    };
    // DynamoDB refuses a partition key over 2,048 bytes and a sort key over 1,024: a 5xx on AWS.
    const bad = (prefix: string) => [`${prefix}_${'x'.repeat(2_100)}`, `${prefix}_%2e%2e`, `${prefix}_a-b`];
    const prefixOf: Record<string, string> = { workspaceId: 'ws', keyId: 'key', state: 'st' };
    const idPrefix = (path: string) =>
      path.includes('/posts/') ? 'post' : path.includes('/webhooks/') ? 'wh' : 'ch';
    oversizedKeys.splice(0);
    for (const route of userRoutes.filter((r) => r.path.includes('{'))) {
      const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
      for (const name of names) {
        for (const value of bad(name === 'id' ? idPrefix(route.path) : (prefixOf[name] as string))) {
          const path = route.path.replace(/\{(\w+)\}/g, (_, other: string) =>
            other === name
              ? value
              : other === 'workspaceId'
                ? ann.workspaceId
                : `${prefixOf[other] ?? 'x'}_1`,
          );
          const label = `${route.method} ${route.path} with {${name}} = ${value.slice(0, 20)}…`;
          const res = await as(ann)(path, {
            method: route.method,
            ...(bodies[route.method] !== undefined ? { body: bodies[route.method] } : {}),
          });
          expect([400, 404], `${label}: ${res.text.slice(0, 200)}`).toContain(res.status);
          expect(typeof res.body.error.code, label).toBe('string');
          expect(oversizedKeys.splice(0), label).toEqual([]);
        }
      }
    }
  });
});

describe('bodies thrown at the management routes', () => {
  it('answers each as its schema says: 201/200 when it parses, else 400 in the envelope with nothing changed', {
    timeout: 120_000,
  }, async () => {
    const made = await as(ann)('/v1/account/workspaces', { method: 'POST', body: { name: 'Fuzz' } });
    expectStatus(made, 201);
    const fuzzWs = `/v1/account/workspaces/${made.body.id}`;
    const seed = await as(ann)(`${fuzzWs}/keys`, {
      method: 'POST',
      body: { mode: 'test', permission: 'read' },
    });
    expectStatus(seed, 201);
    const state = async () => ({
      keys: (await as(ann)(`${fuzzWs}/keys`)).body.data.length as number,
      workspaces: (await as(ann)('/v1/account/workspaces')).body.data as { id: string; name: string }[],
    });
    const text = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.constantFrom('', ' ', ' x ', 'x'.repeat(100), 'x'.repeat(101)),
    );
    const value = fc.oneof(text, fc.jsonValue({ maxDepth: 2 }));
    const cases: [string, string, (body: unknown) => boolean, fc.Arbitrary<unknown>][] = [
      [
        'POST',
        `${fuzzWs}/keys`,
        (body) => createKeyBody.safeParse(body).success,
        fc.oneof(
          fc.record(
            {
              name: value,
              mode: fc.oneof(fc.constantFrom('live', 'test', 'LIVE', ''), value),
              permission: fc.oneof(fc.constantFrom('read', 'write', 'admin'), value),
              extra: value,
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      ],
      [
        'PATCH',
        fuzzWs,
        (body) => workspaceBody.safeParse(body).success,
        fc.oneof(
          fc.record({ name: value, extra: value }, { requiredKeys: [] }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      ],
      [
        'POST',
        `${fuzzWs}/keys/${seed.body.id}/roll`,
        (body) => rollKeyBody.safeParse(body).success,
        fc.oneof(
          fc.record(
            {
              graceSeconds: fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.double(), value),
              extra: value,
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      ],
    ];
    for (const [method, path, valid, bodies] of cases) {
      // A roll that succeeds may retire the key it rolled (at once without a grace): a later roll
      // of it is then 404.
      let rolled = false;
      await fc.assert(
        fc.asyncProperty(bodies, async (generated) => {
          const sent = JSON.stringify(generated);
          const body: unknown = JSON.parse(sent);
          const before = await state();
          const res = await as(ann)(path, {
            method,
            rawBody: sent,
            headers: { 'content-type': 'application/json' },
          });
          const what = `${method} ${path} ${sent}: ${res.text}`;
          if (valid(body)) {
            if (rolled && res.status === 404) return;
            expect([200, 201], what).toContain(res.status);
            rolled ||= path.endsWith('/roll');
            return;
          }
          expect(res.status, what).toBe(400);
          expect(res.body.error.code).toBe('validation_failed');
          expect(res.body.error.message).toEqual(expect.any(String));
          expect(await state()).toEqual(before);
        }),
        { numRuns: FUZZ_RUNS },
      );
    }
  });
});
