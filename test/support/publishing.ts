import type { TestRuntime } from './runtime.ts';

const TERMINAL = new Set(['published', 'partially_published', 'failed']);

/** Polls GET /posts/{id} until the post leaves `publishing` (or `scheduled`), like a client would. */
export const waitForPost = async (rt: TestRuntime, postId: string, key?: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await rt.api(`/posts/${postId}`, key ? { key } : {});
    if (TERMINAL.has(res.body.status)) return res.body;
    if (Date.now() > deadline)
      throw new Error(`Post ${postId} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
