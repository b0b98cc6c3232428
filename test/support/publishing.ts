import { expect } from 'vitest';
import type { BlockClaim } from '../../functions/ports/publishing.ts';
import type { TestRuntime } from './runtime.ts';

const TERMINAL = new Set(['published', 'partially_published', 'failed']);

/**
 * Waits until the post leaves `publishing` (or `scheduled`) and returns it as GET /posts/{id}
 * answers `key`. The wait reads the stored post (one read, where a GET also passes the API's key
 * check, rate limit and response check): a fault matrix waits on dozens of posts at once, and
 * their polls through the API took much of the runtime's time from the publishing they wait for.
 */
export const waitForPost = async (rt: TestRuntime, postId: string, key?: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let status = (await rt.container.deps.posts.get(postId))?.status;
    if (status !== undefined && TERMINAL.has(status)) {
      const res = await rt.api(`/posts/${postId}`, key ? { key } : {});
      if (TERMINAL.has(res.body.status)) return res.body;
      status = res.body.status;
    }
    if (Date.now() > deadline) throw new Error(`Post ${postId} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** A one-block post on `channelId` with intent `now`, created over HTTP (201) and polled until it is done. */
export const publishNow = async (rt: TestRuntime, key: string, channelId: string, content: string) => {
  const res = await rt.api('/posts', {
    method: 'POST',
    key,
    body: { intent: 'now', channels: [{ channelId, blocks: [{ content }] }] },
  });
  expect(res.status, res.text).toBe(201);
  return waitForPost(rt, res.body.id, key);
};

/** A block's claim as stored (read by a probe that cannot take it: the claim exists). */
export const storedClaim = async (
  rt: TestRuntime,
  postId: string,
  channelId: string,
  block = 0,
): Promise<BlockClaim> => {
  const probe = await rt.container.deps.claims.acquire({
    postId,
    channelId,
    block,
    state: 'sending',
    owner: 'probe',
    leaseUntil: new Date().toISOString(),
    since: new Date().toISOString(),
  });
  if (probe.acquired) throw new Error('the claim did not exist');
  return probe.current;
};
