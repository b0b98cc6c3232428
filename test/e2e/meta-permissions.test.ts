import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THREADS_SCOPES } from '../../functions/platforms/threads/oauth.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { simUrl } from '../support/channels.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { needsReconnectEvents } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Issue 26, through the HTTP API of the local runtime: a Threads or Instagram call refused for a
 * missing permission makes the channel needs_reconnect, and the `channel.needs_reconnect` event
 * (and the channel's failure on the post) says which permission is missing and that reconnecting
 * grants it, instead of "The access token expired or was revoked."
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
});
afterAll(async () => {
  await rt?.destroy();
});

/**
 * A channel connected through the consent flow as `user`, who grants only `granted` of what
 * Herald asks for (all when not given).
 */
const connectAs = async (
  key: string,
  platform: 'threads' | 'instagram',
  user: string,
  granted?: readonly string[],
): Promise<string> => {
  const start = await rt.api('/channels/connect', {
    method: 'POST',
    key,
    body: { platform, redirectUrl: 'https://client.example/done' },
  });
  expect(start.status, start.text).toBe(201);
  const authorize = new URL(start.body.authorizeUrl);
  authorize.searchParams.set('sim_user', user);
  if (granted) authorize.searchParams.set('sim_scopes', granted.join(','));
  const atNetwork = await fetch(authorize, { redirect: 'manual' });
  const atHerald = await fetch(atNetwork.headers.get('location') as string, { redirect: 'manual' });
  const landed = new URL(atHerald.headers.get('location') as string).searchParams;
  expect(landed.get('error')).toBeNull();
  const complete = await rt.api('/channels/connect/complete', {
    method: 'POST',
    key,
    body: { connectCode: landed.get('connectCode') },
  });
  expect(complete.status, complete.text).toBe(201);
  return complete.body.id as string;
};

const publish = async (
  key: string,
  channelId: string,
  blocks: { content: string; mediaIds?: string[] }[],
): Promise<string> => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key,
    body: { intent: 'now', channels: [{ channelId, blocks }] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
};

/** The post failed on the channel, which needs a reconnect; its one event and its failure name `permission`. */
const expectReconnectFor = async (
  ws: { key: string; workspaceId: string },
  channelId: string,
  postId: string,
  platform: string,
  permission: string,
) => {
  const post = await waitForPost(rt, postId, ws.key, 60_000);
  expect(post.channels[0].status, JSON.stringify(post.channels)).toBe('failed');
  expect(post.channels[0].error).toContain(permission);
  expect(post.channels[0].error).toMatch(/Reconnecting the channel grants it/);
  expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('needs_reconnect');
  const events = await needsReconnectEvents(rt, postId);
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ workspaceId: ws.workspaceId, data: { channelId, platform, postId } });
  const error = events[0]?.data.error as string;
  expect(error).not.toBe('The access token expired or was revoked.');
  expect(error).toContain(permission);
  expect(error).toMatch(/missing permission/);
  expect(error).toMatch(/Reconnecting the channel grants it/);
};

describe('a call refused for a missing permission: the needs_reconnect event says which', () => {
  it('Threads: a reply whose answer was lost cannot be looked up without threads_read_replies', async () => {
    const ws = await freshWorkspace(rt, [], 'live', { keepEvents: true });
    // A channel whose user did not grant threads_read_replies (Threads echoes no scopes: Herald
    // believes it has all it asked for).
    const channelId = await connectAs(
      ws.key,
      'threads',
      `th${randomBytes(3).toString('hex')}`,
      THREADS_SCOPES.filter((s) => s !== 'threads_read_replies'),
    );
    const marker = `th-perm-${Date.now()}`;
    const postId = await publish(ws.key, channelId, [
      { content: `${marker} root` },
      { content: `${marker} reply sim:bad-gateway` },
    ]);
    await expectReconnectFor(ws, channelId, postId, 'threads', 'threads_read_replies');
    // The reply was stored by Threads (its answer lost) and never sent twice.
    const stored = (
      (await (await fetch(`${simUrl(rt, 'threads')}/_sim/threads/posts`)).json()) as {
        data: { text: string }[];
      }
    ).data.filter((p) => p.text.startsWith(marker));
    expect(stored.map((p) => p.text)).toEqual([`${marker} root`, `${marker} reply sim:bad-gateway`]);
  }, 90_000);

  it('Instagram: a permission taken back after consent (instagram_business_content_publish)', async () => {
    const ws = await freshWorkspace(rt, [], 'live', { keepEvents: true });
    const user = `ig${randomBytes(3).toString('hex')}`;
    const channelId = await connectAs(ws.key, 'instagram', user);
    const dropped = await fetch(`${simUrl(rt, 'instagram')}/_sim/oauth/permissions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user, drop: ['instagram_business_content_publish'] }),
    });
    expect(dropped.status).toBe(204);
    const image = await uploadMedia(rt, ws.key, mediaFiles.jpeg(10_000), 'p.jpg', 'image/jpeg');
    const postId = await publish(ws.key, channelId, [
      { content: `ig-perm-${Date.now()}`, mediaIds: [image.id] },
    ]);
    await expectReconnectFor(ws, channelId, postId, 'instagram', 'instagram_business_content_publish');
  }, 90_000);
});
