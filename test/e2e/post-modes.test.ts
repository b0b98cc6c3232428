import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../functions/core/admin/admin.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { liveOnNetwork, schedulesOf, wrapDeps } from '../support/interleave.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
/** One workspace, a live key and a test key. */
let ws: Awaited<ReturnType<typeof freshWorkspace>> & { live: string; test: string };
let tagId: string;
const m = `modes-${Math.random().toString(36).slice(2, 10)}`;

beforeAll(async () => {
  rt = await sharedTestRuntime();
  const base = await freshWorkspace(rt, ['linkedin']);
  const { secret } = await createApiKey(rt.container.deps, {
    accountId: base.accountId,
    workspaceId: base.workspaceId,
    mode: 'test',
    permission: 'write',
    name: 'sandbox',
  });
  ws = { ...base, live: base.key, test: secret };
  const tag = await rt.api('/tags', { method: 'POST', key: ws.live, body: { name: 'Both worlds' } });
  expect(tag.status).toBe(201);
  tagId = tag.body.id;
});
afterAll(async () => {
  await rt?.destroy();
});

type Mode = 'live' | 'test';
const other = (mode: Mode): Mode => (mode === 'live' ? 'test' : 'live');
const body = (text: string, extra: Record<string, unknown> = {}) => ({
  intent: 'draft',
  tagIds: [tagId],
  channels: [{ channelId: ws.channels.linkedin, blocks: [{ content: `${m} ${text}` }] }],
  ...extra,
});
const create = async (mode: Mode, payload: unknown) => {
  const res = await rt.api('/posts', { method: 'POST', key: ws[mode], body: payload });
  expect(res.status).toBe(201);
  expect(res.body.mode).toBe(mode);
  return res.body;
};
const read = (mode: Mode, postId: string) => rt.api(`/posts/${postId}`, { key: ws[mode] });
const expectNotFound = (res: { status: number; body: any }, postId: string) => {
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe('not_found');
  expect(res.body.error.message).toBe(`No post ${postId} exists in this workspace.`);
};

describe.each(['live', 'test'] as const)('a %s post, seen with the other mode’s key', (mode) => {
  const intruder = other(mode);

  it('is 404 on GET, PUT, DELETE and publish, and nothing changes', async () => {
    const draft = await create(mode, body(`${mode} draft`));
    const scheduled = await create(
      mode,
      body(`${mode} scheduled`, {
        intent: 'schedule',
        scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      }),
    );
    for (const post of [draft, scheduled]) {
      const id = post.id as string;
      expectNotFound(await read(intruder, id), id);
      expectNotFound(
        await rt.api(`/posts/${id}`, { method: 'PUT', key: ws[intruder], body: body('taken over') }),
        id,
      );
      expectNotFound(await rt.api(`/posts/${id}`, { method: 'DELETE', key: ws[intruder] }), id);
      expectNotFound(await rt.api(`/posts/${id}/publish`, { method: 'POST', key: ws[intruder] }), id);
      expect((await read(mode, id)).body).toEqual(post);
    }
    // The scheduled post keeps its schedule; the draft never reached a network.
    expect(await schedulesOf(rt, scheduled.id)).toHaveLength(1);
    expect(liveOnNetwork(rt, 'linkedin', `${m} ${mode} draft`)).toHaveLength(0);
  });

  it('is 404 on revise and retract once published, and stays published', async () => {
    const created = await create(mode, body(`${mode} published`, { intent: 'now' }));
    const published = await waitForPost(rt, created.id, ws[mode]);
    expect(published.status).toBe('published');
    const id = created.id as string;
    expectNotFound(
      await rt.api(`/posts/${id}/revise`, {
        method: 'POST',
        key: ws[intruder],
        body: { channels: [{ channelId: ws.channels.linkedin, blocks: [{ content: `${m} rewritten` }] }] },
      }),
      id,
    );
    expectNotFound(await rt.api(`/posts/${id}/retract`, { method: 'POST', key: ws[intruder] }), id);
    expect((await read(mode, id)).body).toEqual(published);
    // A live post is on its network, untouched; a sandbox post never reached one.
    expect(liveOnNetwork(rt, 'linkedin', `${m} ${mode} published`)).toHaveLength(mode === 'live' ? 1 : 0);
  });
});

describe('GET /posts', () => {
  it('lists only the posts of the key’s mode, with every filter', async () => {
    const own = { live: [] as string[], test: [] as string[] };
    for (const mode of ['live', 'test'] as const) {
      own[mode].push((await create(mode, body(`${mode} list draft`))).id);
      own[mode].push(
        (
          await create(
            mode,
            body(`${mode} list scheduled`, {
              intent: 'schedule',
              scheduledAt: new Date(Date.now() + 7200_000).toISOString(),
            }),
          )
        ).id,
      );
    }
    const listed = async (mode: Mode, query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: any } = await rt.api(
          `/posts?limit=1&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key: ws[mode] },
        );
        expect(res.status).toBe(200);
        for (const post of res.body.data) expect(post.mode).toBe(mode);
        ids.push(...res.body.data.map((p: { id: string }) => p.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return ids;
    };
    for (const mode of ['live', 'test'] as const) {
      const mine = (await listed(mode, '')).filter((id) => own.live.includes(id) || own.test.includes(id));
      expect(new Set(mine)).toEqual(new Set(own[mode]));
      expect(await listed(mode, `tag=${tagId}&status=draft&status=scheduled`)).toEqual(
        expect.arrayContaining(own[mode]),
      );
      for (const query of [`tag=${tagId}`, 'status=draft', 'status=scheduled', `tag=${tagId}&status=draft`]) {
        const ids = await listed(mode, query);
        expect(ids.some((id) => own[other(mode)].includes(id))).toBe(false);
      }
    }
  });
});

describe('channels with a test key (the sandbox rule)', () => {
  it('reads them, but cannot connect, choose targets, complete or disconnect, and no network is called', async () => {
    const calls: string[] = [];
    const real = rt.container.deps.auths;
    const restore = wrapDeps(rt, {
      auths: (platform) => {
        const auth = real(platform);
        if (!auth) return auth;
        return new Proxy(auth, {
          get(target, prop, receiver) {
            const value = Reflect.get(target, prop, receiver);
            if (typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              calls.push(`${platform}.${String(prop)}`);
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        });
      },
    });
    try {
      const refused = [
        await rt.api('/channels/connect', {
          method: 'POST',
          key: ws.test,
          body: { platform: 'x', redirectUrl: 'https://app.example/connected' },
        }),
        await rt.api('/channels', {
          method: 'POST',
          key: ws.test,
          body: {
            platform: 'bluesky',
            identifier: 'someone.bsky.social',
            appPassword: 'abcd-efgh-ijkl-mnop',
          },
        }),
        await rt.api('/channels/connect/complete', {
          method: 'POST',
          key: ws.test,
          body: { connectCode: `cc_${'A'.repeat(43)}${'a'.repeat(32)}` },
        }),
        await rt.api('/channels/connect/st_unknown/targets', {
          method: 'POST',
          key: ws.test,
          body: { targetIds: ['page_1'] },
        }),
        await rt.api(`/channels/${ws.channels.linkedin}`, { method: 'DELETE', key: ws.test }),
      ];
      for (const res of refused) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(res.body.error.message).toMatch(/^Test keys cannot connect/);
      }
      expect(calls).toEqual([]);
      // The live channel is untouched and both modes still see it.
      for (const mode of ['live', 'test'] as const) {
        const got = await rt.api(`/channels/${ws.channels.linkedin}`, { key: ws[mode] });
        expect(got.status).toBe(200);
        expect(got.body.status).toBe('connected');
        const list = await rt.api('/channels', { key: ws[mode] });
        expect(list.body.data.map((c: { id: string }) => c.id)).toContain(ws.channels.linkedin);
      }
    } finally {
      restore();
    }
  });
});
