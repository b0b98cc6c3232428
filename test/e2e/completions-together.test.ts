import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackerFor } from '../../functions/core/metrics/collect.ts';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import type { NetworkClient, RemoteBlock } from '../../functions/ports/network-client.ts';
import type { PostStore, PostWriteExtras } from '../../functions/ports/posts.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { barrier } from '../support/interleave.ts';
import { eventsOfPost, offEndpoint } from '../support/outbox.ts';
import { storedClaim } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The channels of one job whose answers come in at the same moment are completed in one write
 * (each block's record, its claim's settle, the channel's completion, its event and its metrics
 * tracking start), with the same outcome as one write per channel. A joint write that fails writes
 * nothing, and each completion is then written alone, with its own outcome.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({
    env: { NETWORK_TIMEOUT_MS: '1000', PUBLISH_RETRY_BASE_SECONDS: '0.2', PUBLISH_LEASE_SECONDS: '3' },
  });
});
afterAll(async () => {
  await rt?.destroy();
});

const deps = () => rt.container.deps;
const PLATFORMS = ['x', 'bluesky', 'linkedin'] as const satisfies PlatformId[];

/** A scripted network per platform: publishes wait for `hold`; lookups find what was published. */
const scripted = (hold?: (platform: PlatformId) => Promise<void>) => {
  const published = new Map<string, RemoteBlock[]>();
  const client = (platform: PlatformId): NetworkClient => ({
    platform,
    consistencyWindowSeconds: 0,
    async publish() {
      await hold?.(platform);
      const list = published.get(platform) ?? [];
      const remote = {
        remoteId: `${platform}${list.length + 1}`,
        remoteUrl: `https://${platform}.example/p/${list.length + 1}`,
        meta: {},
      };
      list.push(remote);
      published.set(platform, list);
      return remote;
    },
    async lookup() {
      return published.get(platform)?.[0] ?? null;
    },
    edit: async () => undefined,
    delete: async () => undefined,
  });
  const clients = new Map(PLATFORMS.map((p) => [p as PlatformId, client(p)]));
  return { clients, published };
};

/** The post store, with the extras of every write made through it. */
const recording = () => {
  const real = deps().posts;
  const writes: PostWriteExtras[] = [];
  const posts: PostStore = {
    create: (post, quota, keyCount) => real.create(post, quota, keyCount),
    get: (postId) => real.get(postId),
    getWithActivity: (postId) => real.getWithActivity(postId),
    getForJob: (postId, reads) => real.getForJob(postId, reads),
    replace: async (previous, next, extras) => {
      await real.replace(previous, next, extras);
      writes.push(extras ?? {});
    },
    delete: (post) => real.delete(post),
    list: (query) => real.list(query),
  };
  return { posts, writes };
};

/** An engine on the scripted networks that starts metrics tracking in the completion's write, as deployed. */
const engineWith = (
  clients: Map<PlatformId, NetworkClient>,
  posts: PostStore = deps().posts,
): PublishingEngine =>
  new PublishingEngine({
    ...deps(),
    posts,
    networks: (platform, mode) => clients.get(platform) ?? deps().networks(platform, mode),
    trackerFor: (post, channelId) => trackerFor(deps().cadence, post, channelId),
  });

/** A live draft on X, Bluesky and LinkedIn made publishing, with no job queued. */
const publishingDraft = async ({ keepEvents = true } = {}) => {
  const ws = await freshWorkspace(rt, [...PLATFORMS], 'live', { keepEvents });
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'draft',
      channels: PLATFORMS.map((p) => ({ channelId: ws.channels[p], blocks: [{ content: `together ${p}` }] })),
    },
  });
  expect(created.status, created.text).toBe(201);
  const postId = created.body.id as string;
  const { post } = await mutatePost(deps(), postId, (current) => ({ next: startRound(current, new Date()) }));
  return { ws, postId, version: post.version };
};

const until = async (check: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('channel completions whose answers come in together', () => {
  it('are written in one transaction, with every record, claim, event, tracking start and count of one write per channel', async () => {
    const held = barrier(PLATFORMS.length);
    const network = scripted(() => held.wait());
    const { posts, writes } = recording();
    const { ws, postId, version } = await publishingDraft();
    const job = engineWith(network.clients, posts).handle({ postId, kind: 'run', round: 1 });
    await held.there;
    held.open();
    await job;

    // One write completed the three channels.
    expect(writes).toHaveLength(1);
    expect(writes[0]?.settleClaims).toHaveLength(3);
    expect(writes[0]?.startTracking?.map((s) => s.countPost)).toEqual([true, false, false]);
    const post = await deps().posts.get(postId);
    expect(post?.status).toBe('published');
    expect(post?.version).toBe(version + 1);
    const times = new Set(post?.channels.map((c) => c.publishedAt));
    expect(times.size).toBe(1);
    expect(post?.publishedAt).toBe([...times][0]);
    for (const p of PLATFORMS) {
      const channel = post?.channels.find((c) => c.platform === p);
      expect(channel?.status).toBe('published');
      expect(channel?.blocks[0]?.remoteId).toBe(`${p}1`);
      const claim = await storedClaim(rt, postId, ws.channels[p]);
      expect(claim.state).toBe('sent');
      expect(claim.remote?.remoteId).toBe(`${p}1`);
    }

    // One event per channel, each carrying the post exactly as GET /posts/{id} answers it.
    const events = await eventsOfPost(rt, postId);
    expect(events.map((e) => e.type)).toEqual(['post.published', 'post.published', 'post.published']);
    expect(new Set(events.map((e) => e.data.channelId))).toEqual(
      new Set(PLATFORMS.map((p) => ws.channels[p])),
    );
    const view = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(view.status).toBe(200);
    for (const event of events) expect(event.data.post).toEqual(view.body);

    // Counted once as published; the post once and each network once in the stats; three trackers.
    const usage = await rt.api('/usage', { key: ws.key });
    expect(usage.body.posts.published).toBe(1);
    expect((await deps().metrics.listTrackers(postId)).map((t) => t.platform).sort()).toEqual([
      'bluesky',
      'linkedin',
      'x',
    ]);
    const day = String(post?.publishedAt).slice(0, 10);
    expect(await deps().metrics.statsDays(ws.workspaceId, 'live', day, day)).toEqual([
      { posts: 1, 'x:posts': 1, 'bluesky:posts': 1, 'linkedin:posts': 1 },
    ]);
    for (const p of PLATFORMS) expect(network.published.get(p)).toHaveLength(1);
  });

  it('when one claim was taken over meanwhile, the joint write is refused; the others are written alone and that channel stops', async () => {
    const held = barrier(PLATFORMS.length);
    const network = scripted(() => held.wait());
    const { posts, writes } = recording();
    const { ws, postId } = await publishingDraft();
    const job = engineWith(network.clients, posts).handle({ postId, kind: 'run', round: 1 });
    job.catch(() => undefined);
    await held.there;
    // Another worker takes X's claim over while the sends are in flight (its lease made to look expired).
    const current = await storedClaim(rt, postId, ws.channels.x);
    const past = new Date(Date.now() - 1000).toISOString();
    expect(await deps().claims.takeOver(current, { ...current, owner: 'other', leaseUntil: past })).toBe(
      true,
    );
    held.open();
    // X's completion is refused: the job's message goes back to the queue.
    await expect(job).rejects.toThrow();
    await until(async () => writes.length === 2, 'the two other channels written');
    // Written one by one: the joint write wrote nothing.
    expect(writes.map((w) => w.settleClaims?.length)).toEqual([1, 1]);
    const post = await deps().posts.get(postId);
    const byPlatform = (p: PlatformId) => post?.channels.find((c) => c.platform === p);
    expect(byPlatform('bluesky')?.status).toBe('published');
    expect(byPlatform('linkedin')?.status).toBe('published');
    expect(byPlatform('x')?.status).toBe('publishing');
    expect(byPlatform('x')?.blocks[0]?.remoteId).toBeNull();
    expect((await storedClaim(rt, postId, ws.channels.x)).owner).toBe('other');
    expect((await eventsOfPost(rt, postId)).map((e) => e.data.channelId).sort()).toEqual(
      [ws.channels.bluesky, ws.channels.linkedin].sort(),
    );

    // The next job finds X's claim abandoned: it looks the block up (never sends it again) and records it.
    await engineWith(network.clients).handle({ postId, kind: 'run', round: 1 });
    const done = await deps().posts.get(postId);
    expect(done?.status).toBe('published');
    expect(done?.channels.find((c) => c.platform === 'x')?.blocks[0]?.remoteId).toBe('x1');
    for (const p of PLATFORMS) expect(network.published.get(p)).toHaveLength(1);
    expect(await eventsOfPost(rt, postId)).toHaveLength(3);
  });

  it('when an endpoint appeared since the job read the count, the events are kept', async () => {
    const held = barrier(PLATFORMS.length);
    const network = scripted(() => held.wait());
    const { posts, writes } = recording();
    const { ws, postId } = await publishingDraft({ keepEvents: false });
    const job = engineWith(network.clients, posts).handle({ postId, kind: 'run', round: 1 });
    await held.there;
    // The job read a count of 0; an endpoint is created (and counted) before the completions commit.
    await deps().webhooks.createEndpoint(offEndpoint(ws.accountId, ws.workspaceId), 0);
    held.open();
    await job;
    const post = await deps().posts.get(postId);
    expect(post?.status).toBe('published');
    const events = await eventsOfPost(rt, postId);
    expect(events.map((e) => e.type)).toEqual(['post.published', 'post.published', 'post.published']);
    // Each write that committed kept its events (none was written without them).
    expect(writes.every((w) => (w.events?.length ?? 0) > 0 && w.outbox?.endpoints !== 0)).toBe(true);
    const view = await rt.api(`/posts/${postId}`, { key: ws.key });
    expect(events.at(-1)?.data.post).toEqual(view.body);
  });

  it('does not wait for a send slower than its short delay: the quick ones are written together, the slow one alone', async () => {
    // X and Bluesky answer together; LinkedIn only once the test lets it.
    const quick = barrier(2);
    const linkedin = barrier(1);
    const network = scripted((platform) => (platform === 'linkedin' ? linkedin.wait() : quick.wait()));
    const { posts, writes } = recording();
    const { postId } = await publishingDraft();
    const job = engineWith(network.clients, posts).handle({ postId, kind: 'run', round: 1 });
    await quick.there;
    await linkedin.there;
    quick.open();
    // Written while LinkedIn's send is still in flight.
    await until(async () => writes.length === 1, 'the two quick channels written');
    expect(writes[0]?.settleClaims).toHaveLength(2);
    linkedin.open();
    await job;
    expect(writes).toHaveLength(2);
    expect(writes[1]?.settleClaims).toHaveLength(1);
    const post = await deps().posts.get(postId);
    expect(post?.status).toBe('published');
    expect(new Set(post?.channels.map((c) => c.publishedAt)).size).toBe(2);
  });
});
