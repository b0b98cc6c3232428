import { describe, expect, it } from 'vitest';
import {
  completionEventType,
  dispatchEvents,
  JobGates,
  newEvent,
  sameGate,
  TagNames,
} from '../../../functions/core/publishing/outbox.ts';
import { NetworkError } from '../../../functions/ports/network-client.ts';
import type { OutboxEvent } from '../../../functions/ports/publishing.ts';
import { FakeClock } from '../../support/fakes/clock.ts';
import { engineOnFakes, postChannel, publishingPost, seed, WORKSPACE } from '../../support/fakes/engine.ts';
import { FakeJobQueue } from '../../support/fakes/queue.ts';
import { FakeTagStore } from '../../support/fakes/tags.ts';

describe('the events of a publication', () => {
  it('are kept with the write and handed to the event queue with their facts', async () => {
    const f = engineOnFakes();
    f.tags.addTag({
      tagId: 'tag_1',
      workspaceId: WORKSPACE,
      name: 'launch',
      color: null,
      createdAt: 'x',
    });
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])], { tagIds: ['tag_1'] }));
    await f.engine.handle(job);
    const [event] = f.posts.outbox;
    expect(event).toMatchObject({
      type: 'post.published',
      accountId: 'acc_1',
      workspaceId: WORKSPACE,
      mode: 'live',
      createdAt: f.clock.now().toISOString(),
      data: { channelId: 'ch_x', platform: 'x', blocksPublished: 1, blocksTotal: 1, error: null },
    });
    expect(event?.id).toMatch(/^evt_/);
    expect(event?.data.post).toMatchObject({
      id: 'post_1',
      status: 'published',
      tags: [{ id: 'tag_1', name: 'launch' }],
    });
    expect(f.queue.events).toEqual([
      { eventId: event?.id, about: { workspaceId: WORKSPACE, type: 'post.published', mode: 'live' } },
    ]);
  });

  it('are left out when the workspace has no webhook endpoint', async () => {
    const f = engineOnFakes();
    f.channels.endpoints.set(WORKSPACE, 0);
    await f.engine.handle(seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])])));
    expect(f.posts.peek('post_1')?.status).toBe('published');
    expect(f.posts.outbox).toEqual([]);
    expect(f.queue.events).toEqual([]);
    expect(f.posts.writes.at(-1)?.extras?.outbox).toEqual({ workspaceId: WORKSPACE, endpoints: 0 });
  });

  it('are kept after all when an endpoint was created since the job read the count', async () => {
    const f = engineOnFakes();
    f.channels.endpoints.set(WORKSPACE, 0);
    const job = seed(
      f,
      publishingPost([postChannel('ch_x', 'x', ['a', 'b']), postChannel('ch_y', 'x', ['c'])]),
    );
    f.posts.beforeWrite = () => f.channels.endpoints.set(WORKSPACE, 1);
    await f.engine.handle(job);
    expect(f.posts.outbox.map((e) => e.data.channelId).sort()).toEqual(['ch_x', 'ch_y']);
    expect(f.queue.events).toHaveLength(2);
  });

  it('stay in the outbox when the event queue fails, and the publication stands', async () => {
    const f = engineOnFakes();
    f.queue.failEvents = true;
    await f.engine.handle(seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])])));
    expect(f.posts.peek('post_1')?.status).toBe('published');
    expect(f.posts.outbox).toHaveLength(1);
  });

  it('name the failing channel and its error', async () => {
    const f = engineOnFakes();
    const job = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    f.channels.addChannel({
      ...(await f.channels.getChannel(WORKSPACE, 'ch_x'))!,
      connection: 'needs_reconnect',
    });
    await f.engine.handle(job);
    expect(f.posts.outbox.map((e) => [e.type, e.data.error, e.data.blocksPublished])).toEqual([
      ['post.failed', 'The channel must be reconnected before it can post.', 0],
    ]);
  });

  it('tell of a reconnection once, however many posts find it', async () => {
    const f = engineOnFakes();
    const first = seed(f, publishingPost([postChannel('ch_x', 'x', ['a'])]));
    const second = seed(f, publishingPost([postChannel('ch_x', 'x', ['b'])], { postId: 'post_2' }));
    const revoked = { kind: 'error' as const, error: new NetworkError('reconnect', 'revoked') };
    f.network('x').answer(revoked, revoked);
    await Promise.all([f.engine.handle(first), f.engine.handle(second)]);
    expect(f.posts.outbox.map((e) => e.type).sort()).toEqual([
      'channel.needs_reconnect',
      'post.failed',
      'post.failed',
    ]);
    expect(f.posts.peek('post_2')?.channels[0]?.status).toBe('failed');
  });
});

describe('outbox parts', () => {
  it('make events stamped now, about the post', () => {
    const clock = new FakeClock('2026-01-02T03:04:05.000Z');
    const post = publishingPost([], { mode: 'test' });
    const event = newEvent(clock, post, 'post.failed', { channelId: 'c', platform: 'x', error: 'no' });
    expect(event).toMatchObject({
      type: 'post.failed',
      createdAt: '2026-01-02T03:04:05.000Z',
      accountId: 'acc_1',
      workspaceId: WORKSPACE,
      mode: 'test',
      data: { channelId: 'c', platform: 'x', error: 'no' },
    });
    expect(newEvent(clock, post, 'post.failed', event.data).id).not.toBe(event.id);
  });

  it('name the event by how the channel ended', () => {
    expect(completionEventType('published', 1)).toBe('post.published');
    expect(completionEventType('failed', 1)).toBe('post.partially_failed');
    expect(completionEventType('failed', 0)).toBe('post.failed');
  });

  it('compare gates by workspace and count', () => {
    const g = { workspaceId: 'w', endpoints: 0 };
    expect(sameGate(undefined, undefined)).toBe(true);
    expect(sameGate(g, g)).toBe(true);
    expect(sameGate(g, { ...g })).toBe(true);
    expect(sameGate(g, undefined)).toBe(false);
    expect(sameGate(undefined, g)).toBe(false);
    expect(sameGate(g, { ...g, endpoints: null })).toBe(false);
    expect(sameGate(g, { ...g, workspaceId: 'v' })).toBe(false);
  });

  it('hand only live events to the queue', async () => {
    const queue = new FakeJobQueue();
    const base = newEvent(new FakeClock(), publishingPost([]), 'post.published', {
      channelId: 'c',
      platform: 'x',
      error: null,
    });
    const test: OutboxEvent = { ...base, id: 'evt_test', mode: 'test' };
    await dispatchEvents(queue, [test, base]);
    expect(queue.events.map((e) => e.eventId)).toEqual([base.id]);
  });

  it("keep a job's view of the endpoints, keeping events when the read failed or an endpoint appeared", async () => {
    const gates = new JobGates();
    const round = publishingPost([]);
    expect(await gates.get(round)).toBeUndefined();
    gates.read(round, Promise.resolve({ endpoints: 0 }));
    expect(await gates.get(round)).toEqual({ workspaceId: WORKSPACE, endpoints: 0 });
    expect(gates.reopen(round)).toEqual({ workspaceId: WORKSPACE, endpoints: null });
    expect(await gates.get(round)).toEqual({ workspaceId: WORKSPACE, endpoints: null });
    const other = publishingPost([]);
    gates.read(other, Promise.reject(new Error('read failed')));
    expect(await gates.get(other)).toBeUndefined();
  });

  it('read tag names once for concurrent callers, and again after a failed read', async () => {
    const tags = new FakeTagStore();
    tags.addTag({ tagId: 't', workspaceId: WORKSPACE, name: 'n', color: null, createdAt: 'x' });
    let reads = 0;
    const listTags = tags.listTags.bind(tags);
    tags.listTags = async (id) => {
      reads++;
      if (reads === 1) throw new Error('table unavailable');
      return listTags(id);
    };
    const names = new TagNames(tags);
    await expect(names.of(WORKSPACE)).rejects.toThrow('table unavailable');
    const [a, b] = await Promise.all([names.of(WORKSPACE), names.of(WORKSPACE)]);
    expect(a).toBe(b);
    expect(a.get('t')).toBe('n');
    expect(reads).toBe(2);
  });
});
