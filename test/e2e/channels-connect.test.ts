import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkAuths } from '../../functions/platforms/auth-registry.ts';
import { PLATFORM_IDS, type PlatformId } from '../../functions/platforms/types.ts';
import { getDeps, overrideDeps } from '../../functions/runtime/container.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
/** A workspace of its own on the unlimited plan: this file connects many channels. */
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
const REDIRECT = 'https://client.example/after-connect?from=herald';

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '2000', PUBLISH_RETRY_BASE_SECONDS: '1' } });
  ws = await freshWorkspace([]);
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
const follow = async (url: string) => {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
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

/** Connects `user` on an OAuth network end to end; returns the new channel ids. */
const connectThroughBrowser = async (platform: string, user: string, hasTargets: boolean) => {
  const { authorizeUrl, state } = await startConnect(platform);
  const end = await consent(authorizeUrl, user);
  expect(end.status).toBe(302);
  const params = landed(end.location);
  expect(params.get('error'), params.get('error_description') ?? '').toBeNull();
  if (!hasTargets) return [params.get('channelId') as string];
  expect(params.get('pending')).toBe('targets');
  expect(params.get('state')).toBe(state);
  const targets = await api(`/channels/connect/${state}/targets`);
  expect(targets.status).toBe(200);
  expect(targets.body.data.length).toBeGreaterThan(0);
  const chosen = await api(`/channels/connect/${state}/targets`, {
    method: 'POST',
    body: { targetIds: [targets.body.data[0].id] },
  });
  expect(chosen.status, JSON.stringify(chosen.body)).toBe(201);
  return chosen.body.data.map((c: { id: string }) => c.id) as string[];
};

describe('connect flow over HTTP, for every network in the auth registry', () => {
  it('has networks to test', () => {
    expect(oauthNetworks.length).toBeGreaterThan(0);
  });

  it.each(oauthNetworks)(
    '$platform: authorize → simulator → callback → redirectUrl with channelId',
    async (n) => {
      const user = `u${randomBytes(3).toString('hex')}`;
      const [channelId] = await connectThroughBrowser(n.platform, user, n.hasTargets);
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
      expect(again).toEqual([channelId]);
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
  });
});

describe('state', () => {
  const n = () => oauthNetworks[0] as (typeof oauthNetworks)[number];

  it('a replayed callback is refused: the state is single-use', async () => {
    const { authorizeUrl } = await startConnect(n().platform);
    const first = await consent(authorizeUrl, `r${randomBytes(3).toString('hex')}`);
    expect(landed(first.location).get('error')).toBeNull();
    const replay = await follow(first.callback);
    expect(replay.status).toBe(302);
    expect(landed(replay.location).get('error')).toBe('state_used');
  });

  it('a forged or missing state is refused with 400 and no redirect', async () => {
    const forged = await follow(
      `${rt.url}/v1/channels/callback?code=abc&state=${randomBytes(20).toString('hex')}`,
    );
    expect(forged.status).toBe(400);
    expect(JSON.parse(forged.text).error.code).toBe('invalid_state');
    const missing = await follow(`${rt.url}/v1/channels/callback?code=abc`);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).error.code).toBe('invalid_state');
  });

  it('an expired state is refused (10 minutes)', async () => {
    const { authorizeUrl } = await startConnect(n().platform);
    const url = new URL(authorizeUrl);
    url.searchParams.set('sim_user', 'late');
    const atNetwork = await follow(url.toString());
    const later = new Date(Date.now() + 11 * 60_000);
    const restore = overrideDeps({ clock: { now: () => later } });
    try {
      const end = await follow(atNetwork.location as string);
      expect(end.status).toBe(302);
      expect(landed(end.location).get('error')).toBe('state_expired');
    } finally {
      restore();
    }
  });

  it("another workspace's state is unknown to the targets routes", async () => {
    const withTargets = oauthNetworks.find((x) => x.hasTargets);
    if (!withTargets) return;
    const { authorizeUrl, state } = await startConnect(withTargets.platform);
    const end = await consent(authorizeUrl, `t${randomBytes(3).toString('hex')}`);
    expect(landed(end.location).get('pending')).toBe('targets');
    const forged = await api(`/channels/connect/${randomBytes(20).toString('hex')}/targets`);
    expect(forged.status).toBe(404);
    const pending = await startConnect(withTargets.platform);
    const early = await api(`/channels/connect/${pending.state}/targets`);
    expect(early.status).toBe(400);
    expect(early.body.error.code).toBe('invalid_state');
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
    const restore = overrideDeps({ auths: () => null });
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
    const restore = overrideDeps({ appCredentials: { get: async () => null } });
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

describe('channel limit', () => {
  it('a new channel past the plan limit is refused with 402 (app password and OAuth callback)', async () => {
    const deps = getDeps();
    const account = await deps.accounts.getAccount(ws.accountId);
    await deps.accounts.setPlan(ws.accountId, 'free');
    try {
      // The free plan allows 13; this workspace's account connected more above.
      expect(account?.channelCount).toBeGreaterThanOrEqual(13);
      const res = await api('/channels', {
        method: 'POST',
        body: {
          platform: 'bluesky',
          identifier: `q${randomBytes(3).toString('hex')}.bsky.social`,
          appPassword: 'abcd-efgh-ijkl-mnop',
        },
      });
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('quota_exceeded');
      const n = oauthNetworks.find((x) => !x.hasTargets);
      if (n) {
        const { authorizeUrl } = await startConnect(n.platform);
        const end = await consent(authorizeUrl, `q${randomBytes(3).toString('hex')}`);
        expect(landed(end.location).get('error')).toBe('quota_exceeded');
      }
    } finally {
      await deps.accounts.setPlan(ws.accountId, account?.plan ?? 'unlimited');
    }
  });
});
