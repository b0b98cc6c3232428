import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoReplyStore } from '../../functions/adapters/aws/dynamo/replies.ts';
import { createApiKey } from '../../functions/core/admin/admin.ts';
import { commentIdOf } from '../../functions/domain/comments.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The comment routes with test keys: sandbox posts get the sandbox's simulated comments and
 * replies, through the same routes, rules and reply records as live posts, and never a network call.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
let postId: string;

beforeAll(async () => {
  rt = await sharedTestRuntime();
  ws = await freshWorkspace(rt, ['x', 'bluesky', 'threads', 'facebook'], 'test');
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [
        {
          channelId: ws.channels.x,
          blocks: [{ content: 'Comments in the sandbox' }, { content: 'a second block' }],
        },
        { channelId: ws.channels.bluesky, blocks: [{ content: 'Comments in the sandbox' }] },
        { channelId: ws.channels.threads, blocks: [{ content: 'Comments in the sandbox' }] },
        { channelId: ws.channels.facebook, blocks: [{ content: 'Comments in the sandbox' }] },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  postId = created.body.id;
  expect((await waitForPost(rt, postId, ws.key)).status).toBe('published');
});
afterAll(async () => {
  await rt?.destroy();
});

interface Comment {
  id: string;
  remoteId: string;
  blockIndex: number | null;
  parentId: string | null;
  author: { name: string | null; handle: string | null };
  text: string;
  replyId: string | null;
}

/** The reply records as stored (the runtime's own table). */
const replyStore = () => dynamoReplyStore(rt.container.deps.table);

const commentsOf = async (query = '') => {
  const res = await rt.api(`/v1/posts/${postId}/comments${query}`, { key: ws.key });
  expect(res.status, res.text).toBe(200);
  return res.body.channels as {
    channelId: string;
    status: string;
    reason: string | null;
    windowDays: number | null;
    comments: Comment[] | null;
    nextCursor: string | null;
  }[];
};

const reply = (commentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  rt.api(`/v1/posts/${postId}/comments/${commentId}/replies`, { method: 'POST', key: ws.key, body, headers });

describe('GET /v1/posts/{id}/comments with a test key', () => {
  it('shows each channel: simulated comments where the network allows them, a reason where it does not', async () => {
    const channels = await commentsOf();
    const byId = new Map(channels.map((c) => [c.channelId, c]));
    const x = byId.get(ws.channels.x);
    expect(x?.status).toBe('ok');
    expect(x?.windowDays).toBe(7);
    expect(x?.reason).toMatch(/last 7 days/);
    expect(x?.comments?.map((c) => c.text)).toEqual([
      'Congratulations on the launch!',
      'Where can I read more about this?',
      'Agreed, great news.',
    ]);
    const [first, , third] = x?.comments ?? [];
    expect(first?.parentId).toBeNull();
    expect(first?.blockIndex).toBe(0);
    expect(third?.parentId).toBe(first?.id);
    expect(third?.blockIndex).toBe(0);
    expect(first?.id).toBe(commentIdOf(first?.remoteId as string));
    expect(byId.get(ws.channels.bluesky)?.comments).toHaveLength(3);
    expect(byId.get(ws.channels.facebook)?.status).toBe('ok');
    const threads = byId.get(ws.channels.threads);
    expect(threads).toMatchObject({ status: 'unsupported', comments: null, nextCursor: null });
    expect(threads?.reason).toMatch(/Threads does not let apps read or answer comments/);
  });

  it('filters by channel and by time, and refuses what it cannot read', async () => {
    const only = await commentsOf(`?channelId=${ws.channels.bluesky}`);
    expect(only.map((c) => c.channelId)).toEqual([ws.channels.bluesky]);
    const later = await commentsOf(`?channelId=${ws.channels.bluesky}&since=2999-01-01T00:00:00Z`);
    expect(later[0]?.comments).toEqual([]);
    for (const [query, code, field] of [
      ['?since=yesterday', 'validation_failed', 'since'],
      ['?since=2030-01-01T10:00:00', 'invalid_timezone', 'since'],
      ['?limit=0', 'validation_failed', 'limit'],
      ['?cursor=abc', 'validation_failed', 'channelId'],
      [`?channelId=${ws.channels.x}&cursor=abc`, 'invalid_cursor', 'cursor'],
      ['?channelId=ch_notOnThisPost', 'validation_failed', 'channelId'],
      ['?channelId=../x', 'validation_failed', 'channelId'],
      ['?page=2', 'validation_failed', undefined],
    ] as const) {
      const res = await rt.api(`/v1/posts/${postId}/comments${query}`, { key: ws.key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe(code);
      if (field) expect(res.body.error.field, query).toBe(field);
    }
    expect((await rt.api('/v1/posts/post_doesNotExist/comments', { key: ws.key })).status).toBe(404);
    // A live key does not see a test key's post.
    expect((await rt.api(`/v1/posts/${postId}/comments`)).status).toBe(404);
  });
});

describe('POST /v1/posts/{id}/comments/{commentId}/replies with a test key', () => {
  it('answers a comment once, shows the reply among the comments, and deletes it', async () => {
    const [target] = (await commentsOf(`?channelId=${ws.channels.x}`))[0]?.comments ?? [];
    const body = { channelId: ws.channels.x, content: 'Thank you!' };
    const first = await reply(target?.id as string, body, { 'idempotency-key': 'thanks-1' });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      postId,
      channelId: ws.channels.x,
      platform: 'x',
      commentId: target?.id,
      status: 'sent',
      content: 'Thank you!',
      mediaIds: [],
    });
    expect(first.body.id).toMatch(/^rpl_/);
    // The same request again: the first answer, nothing sent again.
    const again = await reply(target?.id as string, body, { 'idempotency-key': 'thanks-1' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    // Without a key, the same text to the same comment is the same reply.
    const keyless = await reply(target?.id as string, body);
    const keylessAgain = await reply(target?.id as string, body);
    expect(keyless.status).toBe(201);
    expect(keylessAgain.status).toBe(200);
    expect(keylessAgain.body.id).toBe(keyless.body.id);

    const listed = (await commentsOf(`?channelId=${ws.channels.x}`))[0]?.comments ?? [];
    const shown = listed.find((c) => c.replyId === first.body.id);
    expect(shown).toMatchObject({ text: 'Thank you!', parentId: target?.id, id: first.body.remoteCommentId });

    const path = `/v1/posts/${postId}/comments/${target?.id}/replies/${first.body.id}`;
    const deleted = await rt.api(path, { method: 'DELETE', key: ws.key });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ id: first.body.id, status: 'deleted' });
    expect((await rt.api(path, { method: 'DELETE', key: ws.key })).body.status).toBe('deleted');
    const after = (await commentsOf(`?channelId=${ws.channels.x}`))[0]?.comments ?? [];
    expect(after.some((c) => c.replyId === first.body.id)).toBe(false);
    // Another comment's id, or another reply id, is not this reply.
    const wrong = await rt.api(
      `/v1/posts/${postId}/comments/${commentIdOf('other')}/replies/${first.body.id}`,
      {
        method: 'DELETE',
        key: ws.key,
      },
    );
    expect(wrong.status).toBe(404);
    expect(
      (
        await rt.api(`/v1/posts/${postId}/comments/${target?.id}/replies/rpl_nope`, {
          method: 'DELETE',
          key: ws.key,
        })
      ).status,
    ).toBe(404);
  });

  it('settles a reply whose answer was lost by looking it up, never sending it twice', async () => {
    const [, target] = (await commentsOf(`?channelId=${ws.channels.bluesky}`))[0]?.comments ?? [];
    const res = await reply(target?.id as string, {
      channelId: ws.channels.bluesky,
      content: 'Lost answer sim:timeout',
    });
    expect(res.status, res.text).toBe(201);
    const stored = await replyStore().getReply(postId, res.body.id);
    expect(stored).toMatchObject({ state: 'sent', attempt: 1 });
  });

  it("checks the reply against the network's comment rules before anything is sent", async () => {
    const [target] = (await commentsOf(`?channelId=${ws.channels.x}`))[0]?.comments ?? [];
    const id = target?.id as string;
    const cases: [Record<string, unknown>, number, string, string | undefined][] = [
      [{ channelId: ws.channels.x, content: 'x'.repeat(281) }, 422, 'content_too_long', 'content'],
      [{ channelId: ws.channels.x, content: '   ' }, 400, 'validation_failed', 'content'],
      [{ channelId: ws.channels.x }, 400, 'validation_failed', 'content'],
      [{ channelId: ws.channels.x, content: 'hi', extra: 1 }, 400, 'validation_failed', undefined],
      [
        { channelId: ws.channels.facebook, content: 'hi', mediaIds: ['med_abc'] },
        422,
        'too_many_media',
        'mediaIds',
      ],
      [
        { channelId: ws.channels.x, content: 'hi', mediaIds: ['med_nope'] },
        422,
        'media_not_found',
        'mediaIds[0]',
      ],
      [{ channelId: ws.channels.threads, content: 'hi' }, 422, 'comments_not_supported', 'channelId'],
      [{ channelId: 'ch_notOnThisPost', content: 'hi' }, 422, 'channel_not_found', 'channelId'],
      [{ channelId: 'nonsense', content: 'hi' }, 400, 'validation_failed', 'channelId'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await reply(id, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
      if (field) expect(res.body.error.field, JSON.stringify(body)).toBe(field);
    }
    for (const commentId of [
      'cmt_',
      'nonsense',
      commentIdOf('not-a-comment-here'),
      `cmt_${'A'.repeat(2000)}`,
    ]) {
      const res = await reply(commentId, { channelId: ws.channels.x, content: 'hi' });
      expect(res.status, commentId).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await replyStore().listReplies(postId)).not.toContainEqual(
      expect.objectContaining({ content: 'hi' }),
    );
  });

  it('needs a write key', async () => {
    const deps = rt.container.deps;
    const { secret } = await createApiKey(deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      mode: 'test',
      permission: 'read',
      name: 'read only',
    });
    const [target] = (await commentsOf(`?channelId=${ws.channels.x}`))[0]?.comments ?? [];
    expect((await rt.api(`/v1/posts/${postId}/comments`, { key: secret })).status).toBe(200);
    const res = await rt.api(`/v1/posts/${postId}/comments/${target?.id}/replies`, {
      method: 'POST',
      key: secret,
      body: { channelId: ws.channels.x, content: 'hi' },
    });
    expect(res.status).toBe(403);
  });
});
