import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformId } from '../../functions/platforms/types.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '3000', PUBLISH_RETRY_BASE_SECONDS: '1' } });
});
afterAll(async () => {
  await rt?.destroy();
});

const simUrl = (platform: PlatformId) => rt.simulators.byPlatform.get(platform)?.url as string;

/** Every access token the network's simulator issued expires now (its refresh tokens stay valid). */
const expireTokens = async (platform: PlatformId) => {
  const res = await fetch(`${simUrl(platform)}/_sim/oauth/expire`, { method: 'POST' });
  expect(res.status).toBe(204);
};

/** An X channel connected through the consent flow. */
const connectX = async () => {
  const start = await rt.api('/channels/connect', {
    method: 'POST',
    body: { platform: 'x', redirectUrl: 'https://client.example/done' },
  });
  expect(start.status).toBe(201);
  const authorize = new URL(start.body.authorizeUrl);
  authorize.searchParams.set('sim_user', `x${randomBytes(3).toString('hex')}`);
  const atNetwork = await fetch(authorize, { redirect: 'manual' });
  const atHerald = await fetch(atNetwork.headers.get('location') as string, { redirect: 'manual' });
  const landed = new URL(atHerald.headers.get('location') as string);
  expect(landed.searchParams.get('error')).toBeNull();
  return landed.searchParams.get('channelId') as string;
};

const connectBluesky = async () => {
  const res = await rt.api('/channels', {
    method: 'POST',
    body: {
      platform: 'bluesky',
      identifier: `r${randomBytes(3).toString('hex')}.bsky.social`,
      appPassword: 'abcd-efgh-ijkl-mnop',
    },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

const publish = async (channelId: string, content: string) => {
  const res = await rt.api('/posts', {
    method: 'POST',
    body: { intent: 'now', channels: [{ channelId, blocks: [{ content }] }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
};

describe.each([
  { platform: 'x' as const, connect: connectX },
  { platform: 'bluesky' as const, connect: connectBluesky },
])('$platform channel across token expiries', ({ platform, connect }) => {
  it('keeps publishing across three token expiries (refresh on the expired answer, rotating refresh tokens)', async () => {
    const channelId = await connect();
    for (let round = 1; round <= 4; round++) {
      if (round > 1) await expireTokens(platform);
      const postId = await publish(channelId, `${platform} round ${round} ${randomBytes(3).toString('hex')}`);
      const post = await waitForPost(rt, postId);
      expect(post.status, JSON.stringify(post.channels)).toBe('published');
    }
    const channel = await rt.api(`/channels/${channelId}`);
    expect(channel.body.status).toBe('connected');
  });

  it('20 concurrent publishes during an expiry refresh once: all publish and the channel stays connected', async () => {
    const channelId = await connect();
    await expireTokens(platform);
    // The refresh token rotates: a second refresh with the first one would be refused and the
    // channel would fall to needs_reconnect, failing posts. Every post publishing proves one refresh.
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        publish(channelId, `${platform} burst ${i} ${randomBytes(3).toString('hex')}`),
      ),
    );
    const posts = await Promise.all(ids.map((id) => waitForPost(rt, id, undefined, 60_000)));
    for (const post of posts) expect(post.status, JSON.stringify(post.channels)).toBe('published');
    const channel = await rt.api(`/channels/${channelId}`);
    expect(channel.body.status).toBe('connected');
  });
});

describe('revise and retract refresh tokens too', () => {
  it('retracts a Bluesky post after the session expired (refresh on the expired answer)', async () => {
    const channelId = await connectBluesky();
    const postId = await publish(channelId, `to retract ${randomBytes(3).toString('hex')}`);
    expect((await waitForPost(rt, postId)).status).toBe('published');
    await expireTokens('bluesky');
    const retract = await rt.api(`/posts/${postId}/retract`, { method: 'POST' });
    expect(retract.status, JSON.stringify(retract.body)).toBe(200);
    expect(retract.body.removed).toEqual([{ channelId, platform: 'bluesky', reason: null }]);
    expect((await rt.api(`/channels/${channelId}`)).body.status).toBe('connected');
  });
});

describe('a refused refresh', () => {
  it('makes the channel needs_reconnect when its refresh token has expired too (and only that channel)', async () => {
    const channelId = await connectBluesky();
    // Sessions issued from now on live one second, refresh token included.
    const lifetimes = await fetch(`${simUrl('bluesky')}/_sim/oauth/lifetimes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accessSeconds: 1, refreshSeconds: 1 }),
    });
    expect(lifetimes.status).toBe(204);
    const other = await connectBluesky();
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const postId = await publish(other, `refused ${randomBytes(3).toString('hex')}`);
    const post = await waitForPost(rt, postId);
    expect(post.status).toBe('failed');
    expect(post.channels[0].error).toMatch(/reconnect/i);
    expect((await rt.api(`/channels/${other}`)).body.status).toBe('needs_reconnect');
    expect((await rt.api(`/channels/${channelId}`)).body.status).toBe('connected');
    await fetch(`${simUrl('bluesky')}/_sim/oauth/lifetimes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accessSeconds: null, refreshSeconds: null }),
    });
  });
});
