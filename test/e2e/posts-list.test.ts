import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addTag,
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from '../../functions/core/admin/admin.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let key: string;
let channelId: string;
let tagA: string;
let tagB: string;
interface Made {
  id: string;
  status: string;
  tags: string[];
  listTime: string;
}
const made: Made[] = [];

const listAll = async (query: string, limit: number) => {
  const seen: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = query ? '&' : '';
    const res: any = await rt.api(`/posts?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, {
      key,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    seen.push(...res.body.data);
    cursor = res.body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(100);
  } while (cursor);
  return seen;
};

const expected = (filter: (m: Made) => boolean) =>
  made
    .filter(filter)
    .sort((a, b) => (a.listTime + a.id < b.listTime + b.id ? 1 : -1))
    .map((m) => m.id);

beforeAll(async () => {
  rt = await sharedTestRuntime();
  const deps = rt.container.deps;
  const account = await createAccount(deps, { name: 'Lists', plan: 'unlimited' });
  const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'L' });
  key = (
    await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'write',
      name: 'l',
    })
  ).secret;
  channelId = (
    await connectChannel(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform: 'x',
      name: 'l',
      accessToken: 't',
    })
  ).channelId;
  tagA = (await addTag(deps, { accountId: account.accountId, workspaceId: ws.workspaceId, name: 'A' })).tagId;
  tagB = (await addTag(deps, { accountId: account.accountId, workspaceId: ws.workspaceId, name: 'B' })).tagId;
  const base = Date.UTC(2031, 0, 10, 12, 0, 0);
  for (let i = 0; i < 45; i++) {
    const kind = i % 3;
    const tags = [i % 2 === 0 ? tagA : null, i % 5 === 0 ? tagB : null].filter(Boolean) as string[];
    const body: Record<string, unknown> = {
      intent: kind === 0 ? 'draft' : kind === 1 ? 'schedule' : 'now',
      tagIds: tags,
      channels: [{ channelId, blocks: [{ content: `post ${i}` }] }],
    };
    // Several posts share a scheduled time: the id breaks the tie.
    if (kind === 1) body.scheduledAt = new Date(base + Math.floor(i / 6) * 86_400_000).toISOString();
    const res = await rt.api('/posts', { method: 'POST', key, body });
    expect(res.status).toBe(201);
    made.push({
      id: res.body.id,
      status: res.body.status,
      tags,
      listTime: res.body.scheduledAt ?? res.body.createdAt,
    });
  }
  // Posts created with intent now publish in the background: list them by their final status.
  for (const m of made) if (m.status === 'publishing') m.status = (await waitForPost(rt, m.id, key)).status;
}, 120_000);
afterAll(async () => {
  await rt?.destroy();
});

describe('GET /v1/posts', () => {
  it('pages through everything in a stable order with no duplicates or gaps', async () => {
    for (const limit of [1, 7, 25, 100]) {
      const ids = (await listAll('', limit)).map((p) => p.id);
      expect(ids).toEqual(expected(() => true));
    }
  });

  it('defaults to 25 per page and ends with nextCursor null', async () => {
    const first = await rt.api('/posts', { key });
    expect(first.body.data).toHaveLength(25);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await rt.api(`/posts?cursor=${first.body.nextCursor}`, { key });
    expect(second.body.data).toHaveLength(20);
    expect(second.body.nextCursor).toBeNull();
  });

  it('filters by one or several statuses', async () => {
    expect((await listAll('status=draft', 4)).map((p) => p.id)).toEqual(
      expected((m) => m.status === 'draft'),
    );
    expect((await listAll('status=draft&status=scheduled', 4)).map((p) => p.id)).toEqual(
      expected((m) => m.status === 'draft' || m.status === 'scheduled'),
    );
    expect(await listAll('status=failed', 10)).toEqual([]);
  });

  it('filters by tags (any of them), alone and with statuses', async () => {
    expect((await listAll(`tag=${tagA}`, 6)).map((p) => p.id)).toEqual(
      expected((m) => m.tags.includes(tagA)),
    );
    expect((await listAll(`tag=${tagA}&tag=${tagB}`, 6)).map((p) => p.id)).toEqual(
      expected((m) => m.tags.includes(tagA) || m.tags.includes(tagB)),
    );
    expect((await listAll(`tag=${tagB}&status=scheduled&status=published`, 2)).map((p) => p.id)).toEqual(
      expected((m) => m.tags.includes(tagB) && (m.status === 'scheduled' || m.status === 'published')),
    );
  });

  it('filters by a range of scheduled time given as dates or full times', async () => {
    const inRange = (from: string, to: string) => (m: Made) => m.listTime >= from && m.listTime <= to;
    expect((await listAll('from=2031-01-11&to=2031-01-12', 3)).map((p) => p.id)).toEqual(
      expected(inRange('2031-01-11T00:00:00.000Z', '2031-01-12T23:59:59.999Z')),
    );
    const from = encodeURIComponent('2031-01-11T13:00:00+01:00');
    expect((await listAll(`from=${from}&status=scheduled`, 3)).map((p) => p.id)).toEqual(
      expected((m) => m.status === 'scheduled' && m.listTime >= '2031-01-11T12:00:00.000Z'),
    );
    expect(
      (await listAll('to=2031-01-10', 50)).every(
        (p) => p.scheduledAt === null || p.scheduledAt <= '2031-01-10T23:59:59.999Z',
      ),
    ).toBe(true);
  });

  it.each([
    ['limit=0', 'validation_failed', 'limit'],
    ['limit=101', 'validation_failed', 'limit'],
    ['limit=abc', 'validation_failed', 'limit'],
    ['status=done', 'validation_failed', 'status'],
    ['cursor=garbage', 'invalid_cursor', 'cursor'],
    ['from=2031-02-30', 'invalid_date', 'from'],
    ['from=2031-01-01T10:00:00', 'invalid_timezone', 'from'],
    ['from=2031-01-02&to=2031-01-01', 'validation_failed', 'from'],
  ])('refuses %s with 400', async (query, code, field) => {
    const res = await rt.api(`/posts?${query}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, field });
  });

  it("never shows another workspace's posts", async () => {
    const other = await rt.api('/posts?limit=100');
    const mine = new Set(made.map((m) => m.id));
    expect(other.body.data.some((p: { id: string }) => mine.has(p.id))).toBe(false);
  });
});
