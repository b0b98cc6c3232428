import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../functions/core/admin/admin.ts';
import { BLOCK_TIMELINE_LIMIT, type BlockEvent } from '../../functions/domain/timeline.ts';
import type { BlockClaim } from '../../functions/ports/publishing.ts';
import type { XSimulator } from '../../simulators/x/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { FAULT_ENV } from '../support/fault-matrix.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * GET /v1/posts/{id}/timeline through the real engine, queue and simulators: each step the engine
 * took, in order, with its time.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({ env: FAULT_ENV });
});
afterAll(async () => {
  await rt?.destroy();
});

interface Event {
  at: string;
  channelId: string;
  block: number | null;
  kind: string;
  detail: string;
  attempt?: number;
  until?: string;
  remoteId?: string;
  url?: string;
  error?: { code: string; message: string };
}

/** A post published now on one channel, waited for until done; its timeline as the key reads it. */
const publish = async (platform: 'x' | 'bluesky', blocks: string[], mode: 'live' | 'test' = 'live') => {
  const ws = await freshWorkspace(rt, [platform], mode);
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [{ channelId: ws.channels[platform], blocks: blocks.map((content) => ({ content })) }],
    },
  });
  expect(created.status).toBe(201);
  const postId = created.body.id as string;
  const post = await waitForPost(rt, postId, ws.key, 60_000);
  const res = await rt.api(`/posts/${postId}/timeline`, { key: ws.key });
  expect(res.status).toBe(200);
  expect(res.body.postId).toBe(postId);
  const events = res.body.data as Event[];
  // Oldest first, every event of the post's one channel.
  const times = events.map((e) => Date.parse(e.at));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  for (const event of events) expect(event.channelId).toBe(ws.channels[platform]);
  return { ws, postId, post, events, kinds: events.map((e) => `${e.kind}@${e.block ?? 'channel'}`) };
};

describe('GET /v1/posts/{id}/timeline', () => {
  it('shows a published thread block by block, with each remote id and link', async () => {
    const marker = `timeline-thread-${Date.now()}`;
    const { post, events, kinds } = await publish('bluesky', [`${marker} one`, 'two', 'three']);
    expect(post.status).toBe('published');
    expect(kinds).toEqual([
      'queued@channel',
      'sending@0',
      'sent@0',
      'sending@1',
      'sent@1',
      'sending@2',
      'sent@2',
      'channel_published@channel',
    ]);
    const sent = events.filter((e) => e.kind === 'sent');
    expect(sent.map((e) => e.url)).toEqual(
      post.channels[0].blocks.map((b: { remoteUrl: string }) => b.remoteUrl),
    );
    for (const e of sent) expect(e.remoteId).toBeTruthy();
    expect(events.at(-1)?.url).toBe(post.channels[0].remoteUrl);
  }, 90_000);

  it('shows a lost answer, then the lookup that found the post: sent once', async () => {
    const marker = `timeline-lost-${Date.now()}`;
    const { post, events, kinds } = await publish('bluesky', [`${marker} sim:timeout`]);
    expect(post.status).toBe('published');
    expect(kinds.slice(0, 3)).toEqual(['queued@channel', 'sending@0', 'answer_lost@0']);
    expect(kinds.at(-2)).toBe('lookup_found@0');
    expect(kinds.at(-1)).toBe('channel_published@channel');
    // Sent once: no second `sending` after the lost answer.
    expect(kinds.filter((k) => k === 'sending@0')).toHaveLength(1);
    const found = events.at(-2) as Event;
    expect(found.url).toBe(post.channels[0].remoteUrl);
    // The lookup came after the send, by at least the answer's timeout.
    const sending = events[1] as Event;
    expect(Date.parse(found.at) - Date.parse(sending.at)).toBeGreaterThanOrEqual(
      Number(FAULT_ENV.NETWORK_TIMEOUT_MS) - 50,
    );
  }, 90_000);

  it("shows a rate limit's wait until the reset, then the send that went through", async () => {
    const x = rt.simulators.byPlatform.get('x') as unknown as XSimulator;
    x.setRateLimited(2);
    try {
      const marker = `timeline-ratelimit-${Date.now()}`;
      const { post, events, kinds } = await publish('x', [marker]);
      expect(post.status).toBe('published');
      expect(kinds).toEqual([
        'queued@channel',
        'sending@0',
        'refused@0',
        'rate_limit_wait@channel',
        'sending@0',
        'sent@0',
        'channel_published@channel',
      ]);
      const refused = events[2] as Event;
      expect(refused.error?.code).toBe('rate_limited');
      const wait = events[3] as Event;
      // The second send waited for the reset the wait announced; no attempt was spent.
      expect(Date.parse(events[4]?.at as string)).toBeGreaterThanOrEqual(
        Date.parse(wait.until as string) - 2_000,
      );
      expect(events[4]?.attempt).toBe(1);
    } finally {
      x.setRateLimited(0);
    }
  }, 90_000);

  it("answers a sandbox post's timeline, a read-only key reads it, and another workspace gets 404", async () => {
    const { ws, postId, kinds } = await publish('bluesky', ['sandbox timeline'], 'test');
    expect(kinds).toEqual(['queued@channel', 'sending@0', 'sent@0', 'channel_published@channel']);
    const { secret: reader } = await createApiKey(rt.container.deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      mode: 'test',
      permission: 'read',
      name: 'reader',
    });
    expect((await rt.api(`/posts/${postId}/timeline`, { key: reader })).status).toBe(200);
    const other = await freshWorkspace(rt, ['bluesky'], 'test');
    const res = await rt.api(`/posts/${postId}/timeline`, { key: other.key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    // A live key of the same workspace does not see a sandbox post, as GET /posts/{id}.
    const { secret: live } = await createApiKey(rt.container.deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'read',
      name: 'live reader',
    });
    expect((await rt.api(`/posts/${postId}/timeline`, { key: live })).status).toBe(404);
  }, 90_000);

  it("keeps a claim's timeline in DynamoDB within its bound, one event per run of upload saves", async () => {
    const { postId } = await publish('bluesky', ['bounds']);
    const { claims, postTimelines } = rt.container.deps;
    const at = () => new Date().toISOString();
    const event = (kind: BlockEvent['kind'], detail: string): BlockEvent => ({ at: at(), kind, detail });
    const fresh: BlockClaim = {
      postId,
      channelId: 'ch_bounds',
      block: 0,
      state: 'sending',
      owner: 'w-bounds',
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
      since: at(),
      append: [event('sending', 'first send')],
    };
    const acquired = await claims.acquire(fresh);
    if (!acquired.acquired) throw new Error('not acquired');
    const held = acquired.claim;
    expect(held.timeline?.map((e) => e.kind)).toEqual(['sending']);
    // Three saves in a row: one event, the latest.
    for (const offset of [1, 2, 3]) {
      const saved = event('upload_progress', `offset ${offset}`);
      expect(await claims.saveProgress(held, { offset }, fresh.leaseUntil, saved)).toBe(true);
      held.timeline = [...(held.timeline ?? []).filter((e) => e.kind !== 'upload_progress'), saved];
    }
    let read = (await postTimelines.getTimeline(postId)).blocks.find((b) => b.channelId === 'ch_bounds');
    expect(read?.events.map((e) => e.detail)).toEqual(['first send', 'offset 3']);
    // More events than the bound in one settle: the latest are kept, the others counted.
    const many = Array.from({ length: BLOCK_TIMELINE_LIMIT + 3 }, (_, i) =>
      event('lookup_not_found', `look ${i}`),
    );
    await claims.settle({ ...held, append: many }, 'checking');
    read = (await postTimelines.getTimeline(postId)).blocks.find((b) => b.channelId === 'ch_bounds');
    expect(read?.events).toHaveLength(BLOCK_TIMELINE_LIMIT);
    expect(read?.dropped).toBe(5);
    expect(read?.events.at(-1)?.detail).toBe(`look ${BLOCK_TIMELINE_LIMIT + 2}`);
    // A holder whose view of the list is behind the stored one appends (never overwrites): nothing is lost.
    await claims.settle(
      { ...held, timeline: read?.events.slice(0, 10) ?? [], append: [event('unknown', 'given up')] },
      'unknown',
    );
    read = (await postTimelines.getTimeline(postId)).blocks.find((b) => b.channelId === 'ch_bounds');
    expect(read?.events).toHaveLength(BLOCK_TIMELINE_LIMIT + 1);
    expect(read?.events.at(-1)?.kind).toBe('unknown');
  }, 90_000);
});
