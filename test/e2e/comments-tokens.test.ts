import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoReplyStore } from '../../functions/adapters/aws/dynamo/replies.ts';
import { commentIdOf } from '../../functions/domain/comments.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { connectOAuth, expireTokens, setTokenLifetimes, storedChannel } from '../support/channels.ts';
import { needsReconnectEvents } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The comment routes on a channel connected through the consent flow, whose access token expires
 * (Reddit's live an hour; its refresh needs the app's client secret): the routes refresh it like
 * revise and retract do, and a refused refresh makes the channel `needs_reconnect`, said in the
 * answer, with one `channel.needs_reconnect` event.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { NETWORK_TIMEOUT_MS: '3000' } });
});
afterAll(async () => {
  await rt?.destroy();
});

/** A Reddit post with three comments from others, published on a channel connected through OAuth. */
const redditPost = async (connect?: { refreshSeconds: number }) => {
  const ws = await freshWorkspace(rt, [], 'live', { keepEvents: true });
  if (connect) await setTokenLifetimes(rt, 'reddit', connect);
  let channelId: string;
  try {
    channelId = await connectOAuth(rt, 'reddit', ws.key);
  } finally {
    if (connect) await setTokenLifetimes(rt, 'reddit', { refreshSeconds: null });
  }
  const connectedAt = Date.now();
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [
        {
          channelId,
          title: 'Comments after a token expiry',
          options: { subreddit: 'heraldtest' },
          blocks: [{ content: `tokens ${randomBytes(3).toString('hex')} sim:comments` }],
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  const postId = created.body.id as string;
  expect((await waitForPost(rt, postId, ws.key)).status).toBe('published');
  return { ws, channelId, postId, connectedAt };
};

/** Herald's records of the replies it sent. */
const replyStore = () => dynamoReplyStore(rt.container.deps.table);

/** Waits until the refresh token issued at `connectedAt` (living one second) is past its lifetime, then expires the access tokens. */
const refreshDead = async (connectedAt: number) => {
  await waitFor(() => Date.now() > connectedAt + 1_200 || null, {
    timeoutMs: 5_000,
    what: 'the refresh token past its lifetime',
  });
  await expireTokens(rt, 'reddit');
};

/** The post's one `channel.needs_reconnect` event, about its Reddit channel. */
const oneReconnectEvent = async (workspaceId: string, channelId: string, postId: string) => {
  const events = await waitFor(
    async () => {
      const found = await needsReconnectEvents(rt, postId);
      return found.length > 0 ? found : null;
    },
    { timeoutMs: 10_000, what: 'the channel.needs_reconnect event' },
  );
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ workspaceId, data: { channelId, platform: 'reddit' } });
};

describe('comments on a channel whose access token expired', () => {
  it('lists and answers after a refresh each time: new tokens stored, the channel connected', async () => {
    const { ws, channelId, postId } = await redditPost();
    const before = await storedChannel(rt, ws.workspaceId, channelId);

    await expireTokens(rt, 'reddit');
    const listed = await rt.api(`/v1/posts/${postId}/comments`, { key: ws.key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.channels[0]).toMatchObject({ channelId, status: 'ok' });
    const comments = listed.body.channels[0].comments as { id: string; text: string }[];
    expect(comments).toHaveLength(3);
    const afterList = await storedChannel(rt, ws.workspaceId, channelId);
    expect(afterList.version).toBeGreaterThan(before.version);
    expect(afterList.tokens.accessToken).not.toBe(before.tokens.accessToken);

    await expireTokens(rt, 'reddit');
    const reply = await rt.api(`/v1/posts/${postId}/comments/${comments[0]?.id}/replies`, {
      method: 'POST',
      key: ws.key,
      body: { channelId, content: 'Thanks for reading' },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.status).toBe('sent');
    const afterReply = await storedChannel(rt, ws.workspaceId, channelId);
    expect(afterReply.version).toBeGreaterThan(afterList.version);

    await expireTokens(rt, 'reddit');
    const removed = await rt.api(`/v1/posts/${postId}/comments/${comments[0]?.id}/replies/${reply.body.id}`, {
      method: 'DELETE',
      key: ws.key,
    });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.status).toBe('deleted');
    const afterDelete = await storedChannel(rt, ws.workspaceId, channelId);
    expect(afterDelete.version).toBeGreaterThan(afterReply.version);
    expect(afterDelete.connection).toBe('connected');
  });

  it('a refused refresh on the list: the channel answers needs_reconnect, is marked so, and one event says it', async () => {
    const { ws, channelId, postId, connectedAt } = await redditPost({ refreshSeconds: 1 });
    await refreshDead(connectedAt);

    const listed = await rt.api(`/v1/posts/${postId}/comments`, { key: ws.key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.channels[0]).toMatchObject({ channelId, status: 'needs_reconnect', comments: null });
    expect(listed.body.channels[0].reason).toMatch(/reconnect/i);
    expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('needs_reconnect');
    await oneReconnectEvent(ws.workspaceId, channelId, postId);

    // Once marked, the channel is not tried again: the reason says so, and no second event.
    const again = await rt.api(`/v1/posts/${postId}/comments`, { key: ws.key });
    expect(again.body.channels[0]).toMatchObject({
      status: 'needs_reconnect',
      reason: 'The channel must be reconnected first.',
    });
    const reply = await rt.api(`/v1/posts/${postId}/comments/${commentIdOf('t1_abc')}/replies`, {
      method: 'POST',
      key: ws.key,
      body: { channelId, content: 'Too late' },
    });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.error.code).toBe('channel_disconnected');
    expect(await needsReconnectEvents(rt, postId)).toHaveLength(1);
  });

  it('a refused refresh on a reply: 422 channel_disconnected, nothing sent, the channel marked with one event', async () => {
    const { ws, channelId, postId, connectedAt } = await redditPost({ refreshSeconds: 1 });
    const listed = await rt.api(`/v1/posts/${postId}/comments`, { key: ws.key });
    const commentId = listed.body.channels[0].comments[0].id as string;
    await refreshDead(connectedAt);

    const reply = await rt.api(`/v1/posts/${postId}/comments/${commentId}/replies`, {
      method: 'POST',
      key: ws.key,
      body: { channelId, content: 'Never sent' },
    });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.error).toMatchObject({ code: 'channel_disconnected', field: 'channelId' });
    expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('needs_reconnect');
    await oneReconnectEvent(ws.workspaceId, channelId, postId);
    const records = rt.simulators.byPlatform.get('reddit')?.records() ?? [];
    expect(records.filter((r) => r.text?.includes('Never sent'))).toEqual([]);
    expect(await replyStore().listReplies(postId)).toEqual([]);
  });

  it('a refused refresh on a delete: 422 channel_disconnected, the reply kept, the channel marked with one event', async () => {
    const { ws, channelId, postId, connectedAt } = await redditPost({ refreshSeconds: 1 });
    const listed = await rt.api(`/v1/posts/${postId}/comments`, { key: ws.key });
    const commentId = listed.body.channels[0].comments[0].id as string;
    const reply = await rt.api(`/v1/posts/${postId}/comments/${commentId}/replies`, {
      method: 'POST',
      key: ws.key,
      body: { channelId, content: 'Kept for now' },
    });
    expect(reply.status, reply.text).toBe(201);
    await refreshDead(connectedAt);

    const removed = await rt.api(`/v1/posts/${postId}/comments/${commentId}/replies/${reply.body.id}`, {
      method: 'DELETE',
      key: ws.key,
    });
    expect(removed.status, removed.text).toBe(422);
    expect(removed.body.error.code).toBe('channel_disconnected');
    expect((await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status).toBe('needs_reconnect');
    await oneReconnectEvent(ws.workspaceId, channelId, postId);
    expect((await replyStore().getReply(postId, reply.body.id))?.state).toBe('sent');
  });
});
