import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../functions/shared/verify-webhook.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { connectOAuth, expireTokens, setTokenLifetimes, storedChannel } from '../support/channels.ts';
import type { Receiver } from '../support/https-receiver.ts';
import { needsReconnectEvents } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { startReceiverRuntime } from '../support/receiver-runtime.ts';
import type { TestRuntime } from '../support/runtime.ts';

/**
 * The metrics worker through a token refresh (the token service's two paths): after the network
 * says the access token expired it refreshes (reading the app's client secret, sealing the new
 * tokens) and the reading is stored; when the refresh is refused the channel becomes
 * needs_reconnect with its event. The cadence runs 36,000 times faster (an hour is 0.1 s) and the
 * sweep every 0.2 s, so a live post is read every few tenths of a second. Its own runtime: the
 * revise and retract refresh tests (channels-refresh.test.ts) must not see a metrics reading
 * refresh their channels first. The refused refresh's event is delivered to a real endpoint (an
 * HTTPS receiver), as a workspace's owner would get it.
 */
let rt: TestRuntime;
let receiver: Receiver;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ rt, receiver, stop } = await startReceiverRuntime({
    env: {
      METRICS_TIME_SCALE: '36000',
      METRICS_SWEEP_INTERVAL_SECONDS: '0.2',
    },
  }));
});
afterAll(async () => {
  await stop?.();
});

const publishNow = async (key: string, channelId: string) => {
  const res = await rt.api('/posts', {
    method: 'POST',
    key,
    body: {
      intent: 'now',
      channels: [{ channelId, blocks: [{ content: `metrics ${randomBytes(3).toString('hex')}` }] }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const post = await waitForPost(rt, res.body.id, key);
  expect(post.status).toBe('published');
  return post.id as string;
};

/** Polls until `check` returns something (generous deadline: the machine may be loaded). */
const eventually = async <T>(what: string, check: () => Promise<T | null | undefined | false>) => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

/** The post's one channel as GET /posts/{id}/metrics shows it. */
const metricsOf = async (postId: string, key: string) => {
  const res = await rt.api(`/posts/${postId}/metrics`, { key });
  expect(res.status).toBe(200);
  return res.body.channels[0];
};

describe('the metrics worker across a token expiry (X: the refresh sends the app’s client secret)', () => {
  it('refreshes the expired token, stores the reading and keeps the channel connected', async () => {
    const ws = await freshWorkspace(rt, [], 'live', { keepEvents: true });
    const channelId = await connectOAuth(rt, 'x', ws.key);
    const postId = await publishNow(ws.key, channelId);
    await eventually('a first reading', async () =>
      (await metricsOf(postId, ws.key)).readings.some((r: any) => r.status === 'ok'),
    );
    const before = await storedChannel(rt, ws.workspaceId, channelId);
    const expiredAt = new Date().toISOString();
    await expireTokens(rt, 'x');

    // Nothing else uses this channel now: only a metrics reading can have refreshed its tokens.
    const after = await eventually('the refresh', async () => {
      const stored = await storedChannel(rt, ws.workspaceId, channelId);
      return stored.version > before.version ? stored : null;
    });
    expect(after.connection).toBe('connected');
    expect(after.tokens.accessToken).not.toBe(before.tokens.accessToken);
    // X rotates its refresh tokens: the new one is stored too.
    expect(after.tokens.refreshToken).not.toBe(before.tokens.refreshToken);

    const channel = await eventually('a reading after the expiry', async () => {
      const seen = await metricsOf(postId, ws.key);
      return seen.readings.some((r: any) => r.status === 'ok' && r.at > expiredAt) ? seen : null;
    });
    expect(channel.metricsStatus).toBe('available');
    expect(channel.readings.filter((r: any) => r.status !== 'ok')).toEqual([]);
    expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('connected');
    expect(await needsReconnectEvents(rt, postId)).toEqual([]);
  });

  it('when the refresh is refused: the channel needs_reconnect, its owner gets the signed event, and its readings say why', async () => {
    const ws = await freshWorkspace(rt, []);
    const endpoint = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: receiver.url('/reconnect'), events: ['channel.needs_reconnect'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    // Refresh tokens issued from now on live one second (access tokens keep X's two hours).
    await setTokenLifetimes(rt, 'x', { refreshSeconds: 1 });
    let channelId: string;
    try {
      channelId = await connectOAuth(rt, 'x', ws.key);
    } finally {
      await setTokenLifetimes(rt, 'x', { refreshSeconds: null });
    }
    const postId = await publishNow(ws.key, channelId);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expireTokens(rt, 'x');

    await eventually(
      'needs_reconnect',
      async () => (await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status === 'needs_reconnect',
    );
    await receiver.waitFor(
      (all) => all.some((r) => r.path === '/reconnect'),
      60_000,
      'the channel.needs_reconnect delivery',
    );
    const received = receiver.received.filter((r) => r.path === '/reconnect');
    expect(received).toHaveLength(1);
    const [event] = received;
    expect(
      verifyWebhook(event?.raw ?? '', event?.headers['x-herald-signature'] as string, [endpoint.body.secret]),
    ).toBe(true);
    expect(event?.body).toMatchObject({
      type: 'channel.needs_reconnect',
      data: { channelId, platform: 'x', postId },
    });

    const channel = await eventually('a reading that says why', async () => {
      const seen = await metricsOf(postId, ws.key);
      return seen.readings.some((r: any) => r.status !== 'ok') ? seen : null;
    });
    expect(channel.metricsStatus).toBe('needs_reconnect');
    const notRead = channel.readings.filter((r: any) => r.status !== 'ok');
    expect(notRead[0].reason).toMatch(/reconnect/i);
    // Later readings do not try the network again: still the one event.
    expect(await needsReconnectEvents(rt, postId)).toHaveLength(1);
  });
});
