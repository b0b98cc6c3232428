import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import type { LookupBlockInput, NetworkClient, RemoteBlock } from '../../functions/ports/network-client.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { type Gate, gate, liveXClientPerTest } from '../support/interleave.ts';
import { eventsOfPost } from '../support/outbox.ts';
import { storedClaim } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * A block's record on the post, its claim's outcome (`sent`) and, for a channel's last block, the
 * channel's completion with its event commit in one write, starting from the post the job holds.
 * These check what that write must still guarantee: a worker whose claim was taken over writes
 * nothing, and a held copy of the post that another write made stale never overwrites that write.
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
const useClient = liveXClientPerTest(() => rt);

/** A scripted X whose publish waits at `held` (when given) before it answers; lookups find what it published. */
const scriptedX = (held?: Gate) => {
  const published: RemoteBlock[] = [];
  const lookups: LookupBlockInput[] = [];
  let sends = 0;
  const client: NetworkClient = {
    platform: 'x',
    consistencyWindowSeconds: 0,
    async publish() {
      sends++;
      if (held) await held.hold();
      const remote = { remoteId: `x${sends}`, remoteUrl: `https://x.example/status/x${sends}`, meta: {} };
      published.push(remote);
      return remote;
    },
    async lookup(input) {
      lookups.push(input);
      return published[0] ?? null;
    },
    edit: async () => undefined,
    delete: async () => undefined,
  };
  return { client, published, lookups, sends: () => sends };
};

/** A live draft on X made publishing, with no job queued: the test runs the engine itself. */
const publishingDraft = async () => {
  const ws = await freshWorkspace(rt, ['x'], 'live', { keepEvents: true });
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'draft',
      channels: [{ channelId: ws.channels.x, blocks: [{ content: `claim ${Date.now()}` }] }],
    },
  });
  expect(created.status, created.text).toBe(201);
  const postId = created.body.id as string;
  await mutatePost(deps(), postId, (post) => ({ next: startRound(post, new Date()) }));
  return { postId, channelId: ws.channels.x as string };
};

describe('a block recorded with its claim settled in the same write', () => {
  it('commits the record, the channel and post completion, the event and the claim together', async () => {
    const network = scriptedX();
    useClient(network.client);
    const { postId, channelId } = await publishingDraft();
    await new PublishingEngine(deps()).handle({ postId, kind: 'run', round: 1 });
    const post = await deps().posts.get(postId);
    expect(post?.status).toBe('published');
    expect(post?.channels[0]?.blocks[0]?.remoteId).toBe('x1');
    const claim = await storedClaim(rt, postId, channelId);
    expect(claim.state).toBe('sent');
    expect(claim.remote).toEqual(network.published[0]);
    expect((await eventsOfPost(rt, postId)).map((e) => e.type)).toEqual(['post.published']);
    expect(network.sends()).toBe(1);
  });

  it('a worker whose claim was taken over during its send writes nothing; the new holder looks the block up and records it once', async () => {
    const held = gate();
    const network = scriptedX(held);
    useClient(network.client);
    const { postId, channelId } = await publishingDraft();
    const first = new PublishingEngine(deps()).handle({ postId, kind: 'run', round: 1 });
    first.catch(() => undefined);
    await held.reached;
    // Another worker takes the claim over while the send is in flight (its lease made to look expired).
    const current = await storedClaim(rt, postId, channelId);
    expect(current.state).toBe('sending');
    const past = new Date(Date.now() - 1000).toISOString();
    expect(await deps().claims.takeOver(current, { ...current, owner: 'other', leaseUntil: past })).toBe(
      true,
    );
    held.release();
    // The first worker's write is refused: its message goes back to the queue.
    await expect(first).rejects.toThrow();
    const untouched = await deps().posts.get(postId);
    expect(untouched?.status).toBe('publishing');
    expect(untouched?.channels[0]?.blocks[0]?.remoteId).toBeNull();
    expect(await eventsOfPost(rt, postId)).toEqual([]);
    expect((await storedClaim(rt, postId, channelId)).owner).toBe('other');

    // The next worker finds the claim abandoned: it looks the block up (never sends it again) and records it.
    await new PublishingEngine(deps()).handle({ postId, kind: 'run', round: 1 });
    const post = await deps().posts.get(postId);
    expect(post?.status).toBe('published');
    expect(post?.channels[0]?.blocks[0]?.remoteId).toBe('x1');
    expect(network.sends()).toBe(1);
    expect(network.lookups).toHaveLength(1);
    const claim = await storedClaim(rt, postId, channelId);
    expect(claim.state).toBe('sent');
    expect(claim.remote?.remoteId).toBe('x1');
    expect((await eventsOfPost(rt, postId)).map((e) => e.type)).toEqual(['post.published']);
  });

  it('a write made by someone else while the job held the post is kept: the stale copy is refused and the post read again', async () => {
    const held = gate();
    const network = scriptedX(held);
    useClient(network.client);
    const { postId } = await publishingDraft();
    const run = new PublishingEngine(deps()).handle({ postId, kind: 'run', round: 1 });
    await held.reached;
    const marker = '2000-01-01T00:00:00.000Z';
    const { post: between } = await mutatePost(deps(), postId, (post) => ({
      next: { ...post, roundStartedAt: marker },
    }));
    held.release();
    await run;
    const post = await deps().posts.get(postId);
    expect(post?.status).toBe('published');
    expect(post?.roundStartedAt).toBe(marker);
    expect(post?.version).toBe(between.version + 1);
    expect(post?.channels[0]?.blocks[0]?.remoteId).toBe('x1');
    expect(network.sends()).toBe(1);
  });
});
