import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChannel } from '../../functions/core/admin/admin.ts';
import { PLATFORM_IDS, type PlatformId } from '../../functions/domain/platforms/types.ts';
import { networkAuths } from '../../functions/platforms/auth-registry.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
/** A workspace of its own on the unlimited plan: this file connects many channels. */
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
const REDIRECT = 'https://client.example/after-connect?from=herald';

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '2000', PUBLISH_RETRY_BASE_SECONDS: '1' } });
  ws = await freshWorkspace(rt, []);
});

/** The API with this file's workspace key unless another is given. */
const api: TestRuntime['api'] = (path, call = {}) =>
  rt.api(path, { ...call, key: call.key === undefined ? ws.key : call.key });
afterAll(async () => {
  await rt?.destroy();
});

/** The networks the registry can connect, by kind. */
const registered = PLATFORM_IDS.flatMap((platform) => {
  const auth = networkAuths({ baseUrls: {}, timeoutMs: 1000 })(platform);
  return auth ? [{ platform, kind: auth.kind, hasTargets: auth.hasTargets }] : [];
});
const oauthNetworks = registered.filter((n) => n.kind === 'oauth2');

const sim = (platform: PlatformId) => rt.simulators.byPlatform.get(platform)?.url as string;

/** Follows one redirect by hand, as a browser would. */
const follow = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { redirect: 'manual', headers });
  return {
    status: res.status,
    location: res.headers.get('location'),
    contentType: res.headers.get('content-type'),
    text: await res.text(),
  };
};

const startConnect = async (platform: string, key?: string) => {
  const res = await api('/channels/connect', {
    method: 'POST',
    body: { platform, redirectUrl: REDIRECT },
    ...(key ? { key } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { authorizeUrl: string; state: string; expiresAt: string };
};

/** Consent at the simulator (as `user`), then the network's redirect to Herald's callback: where the browser lands. */
const consent = async (authorizeUrl: string, user: string, extra: Record<string, string> = {}) => {
  const url = new URL(authorizeUrl);
  url.searchParams.set('sim_user', user);
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  const atNetwork = await follow(url.toString());
  expect(atNetwork.status, atNetwork.text).toBeGreaterThanOrEqual(300);
  expect(atNetwork.status).toBeLessThan(400);
  const callback = atNetwork.location as string;
  expect(callback).toContain('/v1/channels/callback');
  const atHerald = await follow(callback);
  return { callback, ...atHerald };
};

const landed = (location: string | null) => {
  expect(location).toBeTruthy();
  const url = new URL(location as string);
  expect(`${url.origin}${url.pathname}`).toBe('https://client.example/after-connect');
  expect(url.searchParams.get('from')).toBe('herald');
  return url.searchParams;
};

const channelIds = async (key?: string) =>
  ((await api('/channels', key ? { key } : {})).body.data as { id: string }[]).map((c) => c.id);

/** The browser's part: consent as `user`; the connect code (and state) the client's page lands with. */
const codeThroughBrowser = async (platform: string, user: string, key?: string) => {
  const { authorizeUrl, state } = await startConnect(platform, key);
  const end = await consent(authorizeUrl, user);
  expect(end.status).toBe(302);
  const params = landed(end.location);
  expect(params.get('error'), params.get('error_description') ?? '').toBeNull();
  expect(params.get('state')).toBe(state);
  expect(params.get('channelId')).toBeNull();
  expect(params.get('connectCode')).toMatch(/^cc_[A-Za-z0-9_-]{75}$/);
  return { connectCode: params.get('connectCode') as string, state };
};

const complete = (connectCode: unknown, call: Parameters<typeof api>[1] = {}) =>
  api('/channels/connect/complete', { method: 'POST', body: { connectCode }, ...call });

/**
 * Connects `user` on an OAuth network end to end (consent, then the client's server completes the
 * code; on networks with targets it chooses the first); returns the channel ids and the status of
 * the completion.
 */
const connectThroughBrowser = async (platform: string, user: string, hasTargets: boolean) => {
  const before = await channelIds();
  const { connectCode } = await codeThroughBrowser(platform, user);
  // The redirect alone makes no channel.
  expect(await channelIds()).toEqual(before);
  const done = await complete(connectCode);
  expect(done.status, done.text).toBeLessThan(300);
  if (!hasTargets) return { ids: [done.body.id as string], status: done.status };
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({
    pending: 'targets',
    platform,
    connectionId: expect.stringMatching(/^con_/),
  });
  expect(await channelIds()).toEqual(before);
  const targets = await api(`/channels/connect/${done.body.connectionId}/targets`);
  expect(targets.status).toBe(200);
  expect(targets.body.data).toEqual(done.body.data);
  expect(targets.body.data.length).toBeGreaterThan(0);
  const chosen = await api(`/channels/connect/${done.body.connectionId}/targets`, {
    method: 'POST',
    body: { targetIds: [targets.body.data[0].id] },
  });
  expect(chosen.status, JSON.stringify(chosen.body)).toBe(201);
  return { ids: chosen.body.data.map((c: { id: string }) => c.id) as string[], status: chosen.status };
};

describe('a channel whose grant cannot read metrics', () => {
  it('a LinkedIn member connected through OAuth: metricsStatus missing_permission says which permission and why', async () => {
    const { ids } = await connectThroughBrowser('linkedin', `u${randomBytes(3).toString('hex')}`, false);
    const channel = await api(`/channels/${ids[0]}`);
    expect(channel.status).toBe(200);
    expect(channel.body).toMatchObject({
      platform: 'linkedin',
      status: 'connected',
      metricsStatus: 'missing_permission',
    });
    expect(channel.body.metricsHint).toMatch(/lacks r_member_social\. .*reconnecting does not help/);
    const listed = await api('/channels');
    expect(listed.body.data.find((c: { id: string }) => c.id === ids[0])?.metricsHint).toBe(
      channel.body.metricsHint,
    );
    // A channel whose metrics are available carries no hint.
    const { ids: xIds } = await connectThroughBrowser('x', `u${randomBytes(3).toString('hex')}`, false);
    expect((await api(`/channels/${xIds[0]}`)).body).not.toHaveProperty('metricsHint');
  });
});

describe('connect flow over HTTP, for every network in the auth registry', () => {
  it('has networks to test', () => {
    expect(oauthNetworks.length).toBeGreaterThan(0);
  });

  it.each(oauthNetworks)(
    '$platform: authorize → simulator → callback → redirectUrl with connectCode → complete',
    async (n) => {
      const user = `u${randomBytes(3).toString('hex')}`;
      const first = await connectThroughBrowser(n.platform, user, n.hasTargets);
      if (!n.hasTargets) expect(first.status).toBe(201);
      const [channelId] = first.ids;
      expect(channelId).toMatch(/^ch_/);
      const channel = await api(`/channels/${channelId}`);
      expect(channel.status).toBe(200);
      expect(channel.body).toMatchObject({
        id: channelId,
        status: 'connected',
        manageStatus: expect.any(String),
      });
      expect(JSON.stringify(channel.body)).not.toMatch(/token/i);
      const list = await api('/channels');
      expect(list.body.data.map((c: { id: string }) => c.id)).toContain(channelId);

      // Reconnecting the same remote account updates the channel instead of adding one.
      const again = await connectThroughBrowser(n.platform, user, n.hasTargets);
      expect(again.ids).toEqual([channelId]);
      if (!n.hasTargets) expect(again.status).toBe(200);
      const after = await api('/channels');
      expect(after.body.data.length).toBe(list.body.data.length);
    },
  );

  it('asks the network for PKCE and the publishing scopes', async () => {
    const x = oauthNetworks.find((n) => n.platform === 'x');
    if (!x) return;
    const { authorizeUrl, state } = await startConnect('x');
    const url = new URL(authorizeUrl);
    expect(url.origin).toBe(new URL(sim('x')).origin);
    expect(url.searchParams.get('state')).toBe(state);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const callback = new URL(url.searchParams.get('redirect_uri') as string);
    expect(callback.pathname).toBe('/v1/channels/callback');
    expect(callback.port).toBe(String(rt.port));
  });

  it('a user who refuses consent lands on redirectUrl with an error', async () => {
    const n = oauthNetworks[0];
    if (!n) return;
    const { authorizeUrl } = await startConnect(n.platform);
    const end = await consent(authorizeUrl, 'refuser', { sim_deny: '1' });
    expect(end.status).toBe(302);
    expect(landed(end.location).get('error')).toBe('access_denied');
    expect(landed(end.location).get('connectCode')).toBeNull();
  });
});

describe('state', () => {
  const n = () => oauthNetworks[0] as (typeof oauthNetworks)[number];

  it('a replayed callback is refused with 400 and no redirect: the state is single-use', async () => {
    const { authorizeUrl } = await startConnect(n().platform);
    const first = await consent(authorizeUrl, `r${randomBytes(3).toString('hex')}`);
    expect(landed(first.location).get('error')).toBeNull();
    const replay = await follow(first.callback);
    expect(replay.status).toBe(400);
    expect(replay.location).toBeNull();
    expect(JSON.parse(replay.text).error).toMatchObject({ code: 'invalid_state', field: 'state' });
    // A refused consent uses the state up too.
    const refused = await startConnect(n().platform);
    const denied = await consent(refused.authorizeUrl, 'refuser', { sim_deny: '1' });
    expect(landed(denied.location).get('error')).toBe('access_denied');
    const again = await follow(denied.callback);
    expect(again.status).toBe(400);
    expect(again.location).toBeNull();
  });

  it('a forged or missing state is refused with 400 and no redirect', async () => {
    const forged = await follow(
      `${rt.url}/v1/channels/callback?code=abc&state=${randomBytes(20).toString('hex')}`,
    );
    expect(forged.status).toBe(400);
    expect(forged.location).toBeNull();
    expect(JSON.parse(forged.text).error.code).toBe('invalid_state');
    const missing = await follow(`${rt.url}/v1/channels/callback?code=abc`);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).error.code).toBe('invalid_state');
  });

  it('a browser gets a small page of our own for a refused callback, never a redirect', async () => {
    const { authorizeUrl } = await startConnect(n().platform);
    const first = await consent(authorizeUrl, `h${randomBytes(3).toString('hex')}`);
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const url of [first.callback, `${rt.url}/v1/channels/callback?code=abc&state=%3Cscript%3E`]) {
      const page = await follow(url, browser);
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.contentType).toMatch(/^text\/html/);
      expect(page.text).toContain('Connection not completed');
      expect(page.text).toContain('invalid_state');
      expect(page.text).not.toContain('<script>');
    }
  });

  it('an expired state is refused with 400 and no redirect (10 minutes)', async () => {
    const { authorizeUrl } = await startConnect(n().platform);
    const url = new URL(authorizeUrl);
    url.searchParams.set('sim_user', 'late');
    const atNetwork = await follow(url.toString());
    const later = new Date(Date.now() + 11 * 60_000);
    const restore = rt.container.override({ clock: { now: () => later } });
    try {
      const end = await follow(atNetwork.location as string);
      expect(end.status).toBe(400);
      expect(end.location).toBeNull();
      expect(JSON.parse(end.text).error.code).toBe('invalid_state');
      expect(JSON.parse(end.text).error.message).toMatch(/10 minutes/);
    } finally {
      restore();
    }
  });

  it("another workspace's state is unknown to the targets routes", async () => {
    const withTargets = oauthNetworks.find((x) => x.hasTargets);
    if (!withTargets) return;
    const { connectCode, state } = await codeThroughBrowser(
      withTargets.platform,
      `t${randomBytes(3).toString('hex')}`,
    );
    // Before the key holder completes the code, there is nothing to choose.
    const uncompleted = await api(`/channels/connect/${state}/targets`);
    expect(uncompleted.status).toBe(400);
    expect(uncompleted.body.error).toMatchObject({ code: 'invalid_state' });
    expect(uncompleted.body.error.message).toMatch(/complete/i);
    const done = await complete(connectCode);
    expect(done.status).toBe(200);
    const connectionId = done.body.connectionId as string;
    const forged = await api(`/channels/connect/${randomBytes(20).toString('hex')}/targets`);
    expect(forged.status).toBe(404);
    const forgedId = await api(`/channels/connect/con_${'A'.repeat(43)}/targets`);
    expect(forgedId.status).toBe(404);
    const pending = await startConnect(withTargets.platform);
    const early = await api(`/channels/connect/${pending.state}/targets`);
    expect(early.status).toBe(400);
    expect(early.body.error.code).toBe('invalid_state');
    const foreignId = await api(`/channels/connect/${connectionId}/targets`, {
      key: rt.seed.keys.otherWorkspace,
    });
    expect(foreignId.status).toBe(404);
    const foreign = await api(`/channels/connect/${state}/targets`, { key: rt.seed.keys.otherWorkspace });
    expect(foreign.status).toBe(404);
    const foreignChoose = await api(`/channels/connect/${state}/targets`, {
      key: rt.seed.keys.otherWorkspace,
      method: 'POST',
      body: { targetIds: ['anything'] },
    });
    expect(foreignChoose.status).toBe(404);
    const unknownTarget = await api(`/channels/connect/${state}/targets`, {
      method: 'POST',
      body: { targetIds: ['not-a-target'] },
    });
    expect(unknownTarget.status).toBe(400);
    expect(unknownTarget.body.error.field).toBe('targetIds');
    const own = await api(`/channels/connect/${state}/targets`);
    const chosen = await api(`/channels/connect/${state}/targets`, {
      method: 'POST',
      body: { targetIds: [own.body.data[0].id] },
    });
    expect(chosen.status).toBe(201);
    const twice = await api(`/channels/connect/${state}/targets`, {
      method: 'POST',
      body: { targetIds: [own.body.data[0].id] },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.code).toBe('invalid_state');
  });
});

describe('bad input and configuration', () => {
  it('refuses redirect URLs that are not https (http only for localhost)', async () => {
    for (const redirectUrl of [
      'http://client.example/cb',
      'ftp://x/y',
      'not a url',
      'https://u:p@client.example/',
      'https://client.example/#frag',
    ]) {
      const res = await api('/channels/connect', { method: 'POST', body: { platform: 'x', redirectUrl } });
      expect(res.status, redirectUrl).toBe(400);
      expect(res.body.error.field).toBe('redirectUrl');
    }
    const local = await api('/channels/connect', {
      method: 'POST',
      body: { platform: 'x', redirectUrl: 'http://localhost:3000/cb' },
    });
    expect(local.status).toBe(201);
    const unknown = await api('/channels/connect', {
      method: 'POST',
      body: { platform: 'myspace', redirectUrl: REDIRECT },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field).toBe('platform');
  });

  it('a read key cannot connect', async () => {
    const res = await api('/channels/connect', {
      key: rt.seed.keys.read,
      method: 'POST',
      body: { platform: 'x', redirectUrl: REDIRECT },
    });
    expect(res.status).toBe(403);
  });

  it('a network without a connection flow answers 422 network_not_configured', async () => {
    const restore = rt.container.override({ auths: () => null });
    try {
      const res = await api('/channels/connect', {
        method: 'POST',
        body: { platform: 'x', redirectUrl: REDIRECT },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('network_not_configured');
      const bluesky = await api('/channels', {
        method: 'POST',
        body: { platform: 'bluesky', identifier: 'a.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' },
      });
      expect(bluesky.status).toBe(422);
      expect(bluesky.body.error.code).toBe('network_not_configured');
    } finally {
      restore();
    }
  });

  it('a network whose app credentials are not configured answers 422 network_not_configured', async () => {
    const restore = rt.container.override({ appCredentials: { get: async () => null } });
    try {
      const res = await api('/channels/connect', {
        method: 'POST',
        body: { platform: 'x', redirectUrl: REDIRECT },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('network_not_configured');
    } finally {
      restore();
    }
  });
});

describe('Bluesky app password', () => {
  it('creates the channel once (201), reconnects it (200), refuses a bad password (422)', async () => {
    const identifier = `b${randomBytes(3).toString('hex')}.bsky.social`;
    const res = await api('/channels', {
      method: 'POST',
      body: { platform: 'bluesky', identifier, appPassword: 'abcd-efgh-ijkl-mnop' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      platform: 'bluesky',
      status: 'connected',
      continuationStatus: 'available',
    });
    const again = await api('/channels', {
      method: 'POST',
      body: { platform: 'bluesky', identifier, appPassword: 'abcd-efgh-ijkl-mnop' },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(res.body.id);
    // Bluesky allows 30 sign-ins per 5 minutes per account: the 31st connect is told to wait.
    let limited = again;
    for (let i = 0; i < 40 && limited.status !== 429; i++) {
      limited = await api('/channels', {
        method: 'POST',
        body: { platform: 'bluesky', identifier, appPassword: 'abcd-efgh-ijkl-mnop' },
      });
    }
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const missing = await api('/channels', { method: 'POST', body: { platform: 'bluesky', identifier } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('appPassword');
    // A client-given PDS is called from inside: only public addresses (like webhook URLs).
    const privatePds = await api('/channels', {
      method: 'POST',
      body: { platform: 'bluesky', identifier, appPassword: 'x', service: 'https://10.0.0.1' },
    });
    expect(privatePds.status).toBe(422);
    expect(privatePds.body.error).toMatchObject({ code: 'url_not_allowed', field: 'service' });
    const nowhere = await api('/channels', {
      method: 'POST',
      body: { platform: 'bluesky', identifier, appPassword: 'x', service: 'https://pds.invalid' },
    });
    expect(nowhere.status).toBe(422);
    expect(nowhere.body.error).toMatchObject({ code: 'network_refused', field: 'service' });
    const badService = await api('/channels', {
      method: 'POST',
      body: { platform: 'bluesky', identifier, appPassword: 'x', service: 'http://pds.example' },
    });
    expect(badService.status).toBe(400);
    expect(badService.body.error.field).toBe('service');
  });
});

describe('GET and DELETE /channels/{id}', () => {
  it('disconnects: revokes where possible, removes the channel, keeps its posts', async () => {
    const identifier = `d${randomBytes(3).toString('hex')}.bsky.social`;
    const created = await api('/channels', {
      method: 'POST',
      body: { platform: 'bluesky', identifier, appPassword: 'abcd-efgh-ijkl-mnop' },
    });
    const id = created.body.id as string;
    const post = await api('/posts', {
      method: 'POST',
      body: { intent: 'now', channels: [{ channelId: id, blocks: [{ content: 'before disconnect' }] }] },
    });
    expect(post.status).toBe(201);
    expect((await waitForPost(rt, post.body.id, ws.key)).status).toBe('published');
    const usageBefore = (await api('/usage')).body.channels.used;

    const other = await api(`/channels/${id}`, { key: rt.seed.keys.otherWorkspace });
    expect(other.status).toBe(404);
    const otherDelete = await api(`/channels/${id}`, {
      key: rt.seed.keys.otherWorkspace,
      method: 'DELETE',
    });
    expect(otherDelete.status).toBe(404);

    const del = await api(`/channels/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, disconnected: true, revoked: true });
    expect((await api(`/channels/${id}`)).status).toBe(404);
    expect((await api(`/channels/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await api('/usage')).body.channels.used).toBe(usageBefore - 1);
    const kept = await api(`/posts/${post.body.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.channels[0]).toMatchObject({ channelId: id, status: 'published' });
    expect((await api('/channels/ch_doesnotexist')).status).toBe(404);
  });
});

describe('completing with the connect code', () => {
  const xUser = () => `c${randomBytes(3).toString('hex')}`;

  it("only the key holder's workspace completes: another workspace's key gets 404, the code stays good", async () => {
    const other = await freshWorkspace(rt, []);
    const before = await channelIds(other.key);
    const { connectCode } = await codeThroughBrowser('x', xUser());
    const stolen = await complete(connectCode, { key: other.key });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error).toMatchObject({ code: 'not_found', field: 'connectCode' });
    expect(await channelIds(other.key)).toEqual(before);
    const seeded = await complete(connectCode, { key: rt.seed.keys.otherWorkspace });
    expect(seeded.status).toBe(404);
    const readOnly = await complete(connectCode, { key: rt.seed.keys.read });
    expect(readOnly.status).toBe(403);
    const own = await complete(connectCode);
    expect(own.status).toBe(201);
    expect(await channelIds()).toContain(own.body.id);
  });

  it('is single use: a used code is 400 connect_code_used; an Idempotency-Key replay answers the first answer', async () => {
    const { connectCode } = await codeThroughBrowser('x', xUser());
    const key = randomBytes(8).toString('hex');
    const first = await complete(connectCode, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    const replay = await complete(connectCode, { headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    const again = await complete(connectCode);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'connect_code_used', field: 'connectCode' });
    expect(again.body.error.message).toContain(first.body.id);
  });

  it('expires 10 minutes after the redirect (400 connect_code_expired)', async () => {
    const { connectCode } = await codeThroughBrowser('x', xUser());
    const later = new Date(Date.now() + 11 * 60_000);
    const restore = rt.container.override({ clock: { now: () => later } });
    try {
      const late = await complete(connectCode);
      expect(late.status).toBe(400);
      expect(late.body.error).toMatchObject({ code: 'connect_code_expired', field: 'connectCode' });
    } finally {
      restore();
    }
  });

  it('refuses malformed codes (400, field connectCode) and forged ones (404)', async () => {
    for (const connectCode of ['', 'ch_abc', 'cc_short', 42, null, `cc_${'a'.repeat(2000)}`]) {
      const res = await complete(connectCode);
      expect(res.status, String(connectCode)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', field: 'connectCode' });
    }
    const { connectCode } = await codeThroughBrowser('x', xUser());
    const wrongSecret = `${connectCode.slice(0, -1)}${connectCode.endsWith('a') ? 'b' : 'a'}`;
    expect((await complete(wrongSecret)).status).toBe(404);
    expect((await complete(`cc_${'A'.repeat(43)}${'a'.repeat(32)}`)).status).toBe(404);
    expect((await complete(connectCode)).status).toBe(201);
  });
});

/** A workspace of its own account on the free plan (13 channels) with `count` channels already. */
const atCount = async (count: number) => {
  const fresh = await freshWorkspace(rt, PLATFORM_IDS.slice(0, count));
  for (let i = PLATFORM_IDS.length; i < count; i++) {
    await connectChannel(rt.container.deps, {
      accountId: fresh.accountId,
      workspaceId: fresh.workspaceId,
      platform: 'x',
      name: `Extra ${i}`,
      remoteAccountId: `extra_${fresh.workspaceId}_${i}`,
      accessToken: 'token',
    });
  }
  await rt.container.deps.accounts.setPlan(fresh.accountId, 'free');
  expect((await rt.container.deps.accounts.getAccount(fresh.accountId))?.channelCount).toBe(count);
  return fresh;
};
const usedChannels = async (accountId: string) =>
  (await rt.container.deps.accounts.getAccount(accountId))?.channelCount;

describe('channel limit', () => {
  it('a new channel past the plan limit is refused with 402 (app password, and the completion, which keeps the code)', async () => {
    const full = await atCount(13);
    const res = await api('/channels', {
      key: full.key,
      method: 'POST',
      body: {
        platform: 'bluesky',
        identifier: `q${randomBytes(3).toString('hex')}.bsky.social`,
        appPassword: 'abcd-efgh-ijkl-mnop',
      },
    });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('quota_exceeded');
    // The plan changes between the start and the completion: the completion checks the limit.
    await rt.container.deps.accounts.setPlan(full.accountId, 'unlimited');
    const { connectCode } = await codeThroughBrowser('x', `q${randomBytes(3).toString('hex')}`, full.key);
    await rt.container.deps.accounts.setPlan(full.accountId, 'free');
    const refused = await complete(connectCode, { key: full.key });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('quota_exceeded');
    expect(await usedChannels(full.accountId)).toBe(13);
    // The refusal did not use the code up: with room again, it completes.
    const [first] = await channelIds(full.key);
    expect((await api(`/channels/${first}`, { key: full.key, method: 'DELETE' })).status).toBe(200);
    const done = await complete(connectCode, { key: full.key });
    expect(done.status, done.text).toBe(201);
    expect(await usedChannels(full.accountId)).toBe(13);
  });

  it('targets are all or nothing: 2 chosen at 12 of 13 is 402, creates nothing and leaves the choice open', async () => {
    const ws12 = await atCount(12);
    const { connectCode } = await codeThroughBrowser(
      'pinterest',
      `p${randomBytes(3).toString('hex')}`,
      ws12.key,
    );
    const done = await complete(connectCode, { key: ws12.key });
    expect(done.status).toBe(200);
    const targets = done.body.data as { id: string }[];
    expect(targets.length).toBeGreaterThanOrEqual(2);
    const before = await channelIds(ws12.key);
    const both = await api(`/channels/connect/${done.body.connectionId}/targets`, {
      key: ws12.key,
      method: 'POST',
      body: { targetIds: targets.slice(0, 2).map((t) => t.id) },
    });
    expect(both.status).toBe(402);
    expect(both.body.error.code).toBe('quota_exceeded');
    expect(await channelIds(ws12.key)).toEqual(before);
    expect(await usedChannels(ws12.accountId)).toBe(12);
    const one = await api(`/channels/connect/${done.body.connectionId}/targets`, {
      key: ws12.key,
      method: 'POST',
      body: { targetIds: [(targets[0] as { id: string }).id] },
    });
    expect(one.status, one.text).toBe(201);
    expect(await usedChannels(ws12.accountId)).toBe(13);
  });

  it('concurrent connections of one account at 12 of 13: one channel, none refused; reconnects at the limit never are', async () => {
    const ws12 = await atCount(12);
    const user = `k${randomBytes(3).toString('hex')}`;
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await codeThroughBrowser('x', user, ws12.key)).connectCode);
    const answers = await Promise.all(codes.map((code) => complete(code, { key: ws12.key })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await usedChannels(ws12.accountId)).toBe(13);
    const again = [];
    for (let i = 0; i < 5; i++) again.push((await codeThroughBrowser('x', user, ws12.key)).connectCode);
    const reconnects = await Promise.all(again.map((code) => complete(code, { key: ws12.key })));
    expect(reconnects.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await usedChannels(ws12.accountId)).toBe(13);
  });
});
