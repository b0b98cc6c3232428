import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { connectOAuth, expireTokens, setTokenLifetimes, storedChannel } from '../support/channels.ts';
import { needsReconnectEvents } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '3000', PUBLISH_RETRY_BASE_SECONDS: '1' } });
});
afterAll(async () => {
  await rt?.destroy();
});

/** An X channel connected through the consent flow. */
const connectX = () => connectOAuth(rt, 'x');

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

const publish = async (channelId: string, content: string, key?: string) => {
  const res = await rt.api('/posts', {
    method: 'POST',
    ...(key ? { key } : {}),
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
      if (round > 1) await expireTokens(rt, platform);
      const postId = await publish(channelId, `${platform} round ${round} ${randomBytes(3).toString('hex')}`);
      const post = await waitForPost(rt, postId);
      expect(post.status, JSON.stringify(post.channels)).toBe('published');
    }
    const channel = await rt.api(`/channels/${channelId}`);
    expect(channel.body.status).toBe('connected');
  });

  it('20 concurrent publishes during an expiry refresh once: all publish and the channel stays connected', async () => {
    const channelId = await connect();
    await expireTokens(rt, platform);
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
    await expireTokens(rt, 'bluesky');
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
    await setTokenLifetimes(rt, 'bluesky', { accessSeconds: 1, refreshSeconds: 1 });
    const other = await connectBluesky();
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const postId = await publish(other, `refused ${randomBytes(3).toString('hex')}`);
    const post = await waitForPost(rt, postId);
    expect(post.status).toBe('failed');
    expect(post.channels[0].error).toMatch(/reconnect/i);
    expect((await rt.api(`/channels/${other}`)).body.status).toBe('needs_reconnect');
    expect((await rt.api(`/channels/${channelId}`)).body.status).toBe('connected');
    await setTokenLifetimes(rt, 'bluesky', { accessSeconds: null, refreshSeconds: null });
  });
});

/**
 * A LinkedIn post published in a workspace that keeps its events (it has a webhook endpoint), on
 * a channel whose refresh token has expired and whose access token the network now says expired:
 * the next call needs a refresh, and LinkedIn refuses it.
 */
const postWithDeadRefresh = async () => {
  const ws = await freshWorkspace(rt, [], 'live', { keepEvents: true });
  // Refresh tokens issued from now on live one second (access tokens keep LinkedIn's 60 days).
  await setTokenLifetimes(rt, 'linkedin', { refreshSeconds: 1 });
  let channelId: string;
  try {
    channelId = await connectOAuth(rt, 'linkedin', ws.key);
  } finally {
    await setTokenLifetimes(rt, 'linkedin', { refreshSeconds: null });
  }
  const content = `dead refresh ${randomBytes(3).toString('hex')}`;
  const postId = await publish(channelId, content, ws.key);
  expect((await waitForPost(rt, postId, ws.key)).status).toBe('published');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await expireTokens(rt, 'linkedin');
  return { ws, channelId, postId, content };
};

describe('revise refreshes a token whose refresh needs the app’s client secret (LinkedIn)', () => {
  it('revises a published post after the access token expired: one refresh, new tokens stored, channel connected', async () => {
    const ws = await freshWorkspace(rt, [], 'live', { keepEvents: true });
    const channelId = await connectOAuth(rt, 'linkedin', ws.key);
    const postId = await publish(channelId, `before ${randomBytes(3).toString('hex')}`, ws.key);
    expect((await waitForPost(rt, postId, ws.key)).status).toBe('published');
    const before = await storedChannel(rt, ws.workspaceId, channelId);
    await expireTokens(rt, 'linkedin');

    const content = `revised ${randomBytes(3).toString('hex')}`;
    const revise = await rt.api(`/posts/${postId}/revise`, {
      method: 'POST',
      key: ws.key,
      body: { channels: [{ channelId, blocks: [{ content }] }] },
    });
    expect(revise.status, JSON.stringify(revise.body)).toBe(200);
    expect(revise.body).toEqual({
      revised: [{ channelId, platform: 'linkedin', reason: null, blocks: [0] }],
      unchanged: [],
    });
    const post = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(post.body.channels[0].blocks[0].content).toBe(content);

    const after = await storedChannel(rt, ws.workspaceId, channelId);
    expect(after.connection).toBe('connected');
    expect(after.version).toBe(before.version + 1);
    expect(after.tokens.accessToken).not.toBe(before.tokens.accessToken);
    // LinkedIn does not rotate its refresh tokens.
    expect(after.tokens.refreshToken).toBe(before.tokens.refreshToken);
    expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('connected');
    expect(await needsReconnectEvents(rt, postId)).toEqual([]);
  });
});

/** A LinkedIn channel's entry when its token refresh was refused: left as it was, and why. */
const refusedRefresh = (channelId: string) => ({
  channelId,
  platform: 'linkedin',
  reason: expect.stringMatching(/refused to refresh the access token.*reconnect the channel/),
});

/** The post's one `channel.needs_reconnect` event, about its LinkedIn channel. */
const expectOneReconnectEvent = async (workspaceId: string, channelId: string, postId: string) => {
  const events = await needsReconnectEvents(rt, postId);
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ workspaceId, data: { channelId, platform: 'linkedin', postId } });
};

describe('a refused refresh during revise and retract', () => {
  it('revise: 200 with the channel unchanged and why, the text kept, the channel needs_reconnect with one event', async () => {
    const { ws, channelId, postId, content } = await postWithDeadRefresh();
    const body = { channels: [{ channelId, blocks: [{ content: `${content} (edited)` }] }] };
    const revise = await rt.api(`/posts/${postId}/revise`, { method: 'POST', key: ws.key, body });
    expect(revise.status, JSON.stringify(revise.body)).toBe(200);
    expect(revise.body.revised).toEqual([]);
    expect(revise.body.unchanged).toEqual([refusedRefresh(channelId)]);
    const post = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(post.body.status).toBe('published');
    expect(post.body.channels[0].blocks[0].content).toBe(content);
    expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('needs_reconnect');

    await expectOneReconnectEvent(ws.workspaceId, channelId, postId);

    // Once marked, the channel is not tried again: the reason says so, and no second event.
    const again = await rt.api(`/posts/${postId}/revise`, { method: 'POST', key: ws.key, body });
    expect(again.status).toBe(200);
    expect(again.body.unchanged).toEqual([
      { channelId, platform: 'linkedin', reason: 'The channel must be reconnected first.' },
    ]);
    expect(await needsReconnectEvents(rt, postId)).toHaveLength(1);
  });

  it('retract: 200 with the channel remaining and why, the post still live, the channel needs_reconnect with one event', async () => {
    const { ws, channelId, postId } = await postWithDeadRefresh();
    const retract = await rt.api(`/posts/${postId}/retract`, { method: 'POST', key: ws.key });
    expect(retract.status, JSON.stringify(retract.body)).toBe(200);
    expect(retract.body.removed).toEqual([]);
    expect(retract.body.remaining).toEqual([refusedRefresh(channelId)]);
    const post = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(post.status).toBe(200);
    expect(post.body.status).toBe('published');
    expect(post.body.channels.map((c: { channelId: string }) => c.channelId)).toEqual([channelId]);
    expect(post.body.channels[0].blocks[0].remoteUrl).toMatch(/^https:\/\//);
    expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('needs_reconnect');

    await expectOneReconnectEvent(ws.workspaceId, channelId, postId);
  });
});
