import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { eventsOfPost } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '400', PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
});
afterAll(async () => {
  await rt?.destroy();
});

const create = async (key: string, body: unknown) => {
  const res = await rt.api('/posts', { method: 'POST', key, body });
  expect(res.status).toBe(201);
  return res.body;
};
const recordsOf = (platform: string, marker: string) =>
  (rt.simulators.byPlatform.get(platform as never)?.records() ?? []).filter(
    (r) => r.kind !== 'edit' && r.kind !== 'delete' && r.text?.includes(marker),
  );
const media = async (workspaceId: string, accountId: string, mimeType = 'image/jpeg') => {
  const mediaId = `med_${Math.random().toString(36).slice(2, 12).padEnd(22, '0')}`;
  // The bytes too: networks that pull media (Instagram) fetch them from a presigned URL.
  await rt.container.deps.blobs().put(`${workspaceId}/${mediaId}`, mediaFiles.jpeg(1000), mimeType);
  await rt.container.deps.media.put({
    mediaId,
    workspaceId,
    accountId,
    fileName: 'photo.jpg',
    mimeType,
    size: 1000,
    altText: null,
    objectKey: `${workspaceId}/${mediaId}`,
    status: 'ready',
    createdAt: new Date().toISOString(),
  });
  return mediaId;
};

describe('spec 3 state table, end to end', () => {
  it('scheduled → publishing when the time comes (never before it), then published', async () => {
    const ws = await freshWorkspace(rt, ['x', 'bluesky'], 'live', { keepEvents: true });
    const at = new Date(Date.now() + 7000);
    const post = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: at.toISOString(),
      channels: [
        { channelId: ws.channels.x, blocks: [{ content: 'scheduled x' }] },
        { channelId: ws.channels.bluesky, blocks: [{ content: 'scheduled bsky' }] },
      ],
    });
    expect(post.status).toBe('scheduled');
    const before = await rt.api(`/posts/${post.id}`, { key: ws.key });
    // Read before its time (else this run says nothing about "never before it"), still scheduled.
    expect(Date.now()).toBeLessThan(at.getTime());
    expect(before.body.status).toBe('scheduled');
    const done = await waitForPost(rt, post.id, ws.key);
    expect(done.status).toBe('published');
    const stored = await rt.container.deps.posts.get(post.id);
    const lag = Date.parse(stored?.roundStartedAt as string) - at.getTime();
    // Never early; how close to the time it starts is measured by `npm run bench -- publishing`.
    expect(lag).toBeGreaterThanOrEqual(0);
    const events = await eventsOfPost(rt, post.id);
    expect(events.map((e) => e.type)).toEqual(['post.published', 'post.published']);
    expect(new Set(events.map((e) => e.data.channelId))).toEqual(
      new Set([ws.channels.x, ws.channels.bluesky]),
    );
    // Live events leave the outbox (GSI1 OUTBOX) once the webhook dispatcher has taken them.
    await expect
      .poll(async () => (await eventsOfPost(rt, post.id)).some((e) => e.pending), { timeout: 5000 })
      .toBe(false);
    // data.post is the post as GET shows it at that moment: the last event sees it published.
    expect(events.at(-1)?.data.post?.status).toBe('published');
    expect(events[0]?.data).toMatchObject({ blocksPublished: 1, blocksTotal: 1, error: null });
  });

  it('publishing → partially_published when some channels fail, failed when none went out', async () => {
    const ws = await freshWorkspace(rt, ['x', 'linkedin', 'threads'], 'live', { keepEvents: true });
    const partial = await create(ws.key, {
      intent: 'now',
      channels: [
        { channelId: ws.channels.x, blocks: [{ content: 'partial ok' }] },
        { channelId: ws.channels.linkedin, blocks: [{ content: 'partial sim:fail' }] },
      ],
    });
    const p = await waitForPost(rt, partial.id, ws.key);
    expect(p.status).toBe('partially_published');
    expect(p.publishedAt).toBeNull();
    expect(p.channels.map((c: any) => c.status)).toEqual(['published', 'failed']);
    expect(p.channels[1].error).toMatch(/.+/);
    expect((await eventsOfPost(rt, partial.id)).map((e) => e.type).sort()).toEqual([
      'post.failed',
      'post.published',
    ]);

    const failed = await create(ws.key, {
      intent: 'now',
      channels: [
        { channelId: ws.channels.x, blocks: [{ content: 'nope sim:fail' }] },
        { channelId: ws.channels.threads, blocks: [{ content: 'nope either sim:fail' }] },
      ],
    });
    const f = await waitForPost(rt, failed.id, ws.key);
    expect(f.status).toBe('failed');
    const events = await eventsOfPost(rt, failed.id);
    expect(events.map((e) => e.type)).toEqual(['post.failed', 'post.failed']);
    expect(events.every((e) => typeof e.data.error === 'string')).toBe(true);
  });

  it('draft → publish starts it; only draft, failed and partially published posts can be published', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const draft = await create(ws.key, {
      intent: 'draft',
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: 'from draft' }] }],
    });
    const started = await rt.api(`/posts/${draft.id}/publish`, { method: 'POST', key: ws.key });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('publishing');
    expect((await waitForPost(rt, draft.id, ws.key)).status).toBe('published');
    const again = await rt.api(`/posts/${draft.id}/publish`, { method: 'POST', key: ws.key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const scheduled = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: 'later' }] }],
    });
    expect((await rt.api(`/posts/${scheduled.id}/publish`, { method: 'POST', key: ws.key })).status).toBe(
      409,
    );
  });

  it('a retry publishes only the channels not yet published and resumes a thread at the failed block', async () => {
    const ws = await freshWorkspace(rt, ['x', 'bluesky'], 'live', { keepEvents: true });
    const marker = `resume-${Date.now()}`;
    const post = await create(ws.key, {
      intent: 'now',
      channels: [
        { channelId: ws.channels.bluesky, blocks: [{ content: `${marker} fine` }] },
        {
          channelId: ws.channels.x,
          blocks: [
            { content: `${marker} 1` },
            { content: `${marker} 2 sim:fail-once` },
            { content: `${marker} 3` },
          ],
        },
      ],
    });
    const first = await waitForPost(rt, post.id, ws.key);
    expect(first.status).toBe('partially_published');
    expect(first.channels[1].blocks.map((b: any) => b.remoteUrl !== null)).toEqual([true, false, false]);
    const events = await eventsOfPost(rt, post.id);
    expect(events.find((e) => e.data.channelId === ws.channels.x)).toMatchObject({
      type: 'post.partially_failed',
      data: { blocksPublished: 1, blocksTotal: 3 },
    });

    const retry = await rt.api(`/posts/${post.id}/publish`, { method: 'POST', key: ws.key });
    expect(retry.body.status).toBe('publishing');
    expect(retry.body.channels.map((c: any) => c.status)).toEqual(['published', 'publishing']);
    const done = await waitForPost(rt, post.id, ws.key);
    expect(done.status).toBe('published');
    expect(done.publishedAt).not.toBeNull();
    const x = recordsOf('x', marker);
    expect(x.map((r) => r.text)).toEqual([`${marker} 1`, `${marker} 2 sim:fail-once`, `${marker} 3`]);
    expect(x[1]?.parentId).toBe(x[0]?.id);
    expect(x[2]?.parentId).toBe(x[1]?.id);
    expect(recordsOf('bluesky', marker)).toHaveLength(1);
  });

  it('published → revise changes the words where the network allows edits', async () => {
    const ws = await freshWorkspace(rt, ['linkedin', 'x', 'facebook']);
    const post = await create(ws.key, {
      intent: 'now',
      channels: [
        { channelId: ws.channels.linkedin, blocks: [{ content: 'li before' }, { content: 'li comment' }] },
        { channelId: ws.channels.x, blocks: [{ content: 'x before' }] },
        { channelId: ws.channels.facebook, blocks: [{ content: 'fb same' }] },
      ],
    });
    await waitForPost(rt, post.id, ws.key);
    const revise = (channels: unknown) =>
      rt.api(`/posts/${post.id}/revise`, { method: 'POST', key: ws.key, body: { channels } });
    const body = [
      { channelId: ws.channels.linkedin, blocks: [{ content: 'li after' }, { content: 'li comment' }] },
      { channelId: ws.channels.x, blocks: [{ content: 'x after' }] },
      { channelId: ws.channels.facebook, blocks: [{ content: 'fb same' }] },
    ];
    const res = await revise(body);
    expect(res.status).toBe(200);
    expect(res.body.revised).toEqual([
      { channelId: ws.channels.linkedin, platform: 'linkedin', reason: null, blocks: [0] },
    ]);
    expect(res.body.unchanged).toEqual([
      { channelId: ws.channels.x, platform: 'x', reason: expect.stringMatching(/does not allow edits/) },
      { channelId: ws.channels.facebook, platform: 'facebook', reason: 'Nothing to change.' },
    ]);
    const after = await rt.api(`/posts/${post.id}`, { key: ws.key });
    expect(after.body.channels[0].blocks[0].content).toBe('li after');
    expect(after.body.channels[1].blocks[0].content).toBe('x before');
    const edits = (rt.simulators.byPlatform.get('linkedin')?.records() ?? []).filter(
      (r) => r.kind === 'edit',
    );
    expect(edits.map((r) => r.text)).toEqual(['li after']);

    expect((await revise(body.slice(0, 2))).body.error.code).toBe('revise_mismatch');
    expect((await revise([body[1], body[0], body[2]])).body.error).toMatchObject({
      code: 'revise_mismatch',
      field: 'channels[0].channelId',
    });
    const tooLong = await revise([
      { ...body[0], blocks: [{ content: 'a'.repeat(3001) }, { content: 'x' }] },
      body[1],
      body[2],
    ]);
    expect(tooLong.body.error).toMatchObject({
      code: 'content_too_long',
      field: 'channels[0].blocks[0].content',
    });
  });

  it('published → retract removes what the networks allow; the rest remains; retract again; nothing left removes the post', async () => {
    const ws = await freshWorkspace(rt, ['x', 'instagram']);
    const photo = await media(ws.workspaceId, ws.accountId);
    const marker = `retract-${Date.now()}`;
    const post = await create(ws.key, {
      intent: 'now',
      channels: [
        { channelId: ws.channels.x, blocks: [{ content: `${marker} a` }, { content: `${marker} b` }] },
        { channelId: ws.channels.instagram, blocks: [{ content: `${marker} ig`, mediaIds: [photo] }] },
      ],
    });
    expect((await waitForPost(rt, post.id, ws.key)).status).toBe('published');
    const res = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(res.status).toBe(200);
    expect(res.body.removed).toEqual([{ channelId: ws.channels.x, platform: 'x', reason: null }]);
    expect(res.body.remaining).toEqual([
      {
        channelId: ws.channels.instagram,
        platform: 'instagram',
        reason: expect.stringMatching(/does not allow/),
      },
    ]);
    const deletes = (rt.simulators.byPlatform.get('x')?.records() ?? []).filter((r) => r.kind === 'delete');
    expect(deletes.length).toBeGreaterThanOrEqual(2);
    const left = await rt.api(`/posts/${post.id}`, { key: ws.key });
    expect(left.body.channels.map((c: any) => c.platform)).toEqual(['instagram']);
    const again = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(again.body.removed).toEqual([]);
    expect(again.body.remaining).toHaveLength(1);

    const solo = await create(ws.key, {
      intent: 'now',
      channels: [{ channelId: ws.channels.x, blocks: [{ content: `${marker} solo` }] }],
    });
    await waitForPost(rt, solo.id, ws.key);
    const gone = await rt.api(`/posts/${solo.id}/retract`, { method: 'POST', key: ws.key });
    expect(gone.body.removed).toHaveLength(1);
    expect((await rt.api(`/posts/${solo.id}`, { key: ws.key })).status).toBe(404);
  });

  it('a deleted scheduled post never publishes', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const marker = `deleted-${Date.now()}`;
    const at = Date.now() + 6500;
    const post = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: new Date(at).toISOString(),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: marker }] }],
    });
    // A post of the same channel due a second later: once it is published, the deleted post's time
    // has passed and the scheduler has handled it, so its absence below is not just "not yet".
    const later = await create(ws.key, {
      intent: 'schedule',
      scheduledAt: new Date(at + 1000).toISOString(),
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `kept-${marker.slice(8)}` }] }],
    });
    expect((await rt.api(`/posts/${post.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    expect(Date.now()).toBeLessThan(at);
    expect((await waitForPost(rt, later.id, ws.key)).status).toBe('published');
    expect(recordsOf('bluesky', `kept-${marker.slice(8)}`)).toHaveLength(1);
    expect(recordsOf('bluesky', marker)).toHaveLength(0);
  });
});

describe('test keys run in the sandbox', () => {
  it('follow the same state machine, call no network, queue no webhook and use no quota', async () => {
    const ws = await freshWorkspace(rt, ['x', 'linkedin'], 'test', { keepEvents: true });
    const marker = `sandbox-${Date.now()}`;
    const post = await create(ws.key, {
      intent: 'now',
      channels: [
        {
          channelId: ws.channels.x,
          blocks: [{ content: `${marker} one` }, { content: `${marker} two sim:fail` }],
        },
        { channelId: ws.channels.linkedin, blocks: [{ content: `${marker} ok` }] },
      ],
    });
    const done = await waitForPost(rt, post.id, ws.key);
    expect(done.mode).toBe('test');
    expect(done.status).toBe('partially_published');
    expect(done.channels[0].blocks[0].remoteUrl).toMatch(/^https:\/\/sandbox\.herald\.invalid\//);
    expect(recordsOf('x', marker)).toHaveLength(0);
    expect(recordsOf('linkedin', marker)).toHaveLength(0);
    // Sandbox events are never delivered and nothing reads them: they are not kept, even in a
    // workspace with a webhook endpoint.
    expect(await eventsOfPost(rt, post.id)).toEqual([]);
    const usage = await rt.api('/usage', { key: ws.key });
    expect(usage.body.posts).toEqual({ created: { used: 0, limit: null }, published: 0 });
  });
});
