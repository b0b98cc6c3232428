import { createHeraldClient, type HeraldClient, verifyWebhook, waitForPost } from 'herald/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import type { Receiver } from '../support/https-receiver.ts';
import { startReceiverRuntime } from '../support/receiver-runtime.ts';
import type { TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let receiver: Receiver;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ rt, receiver, stop } = await startReceiverRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } }));
});
afterAll(async () => {
  await stop?.();
});

const until = async <T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('herald/client end to end', () => {
  it('creates a webhook and a post, waits until it is published, and verifies the signed event', async () => {
    const ws = await freshWorkspace(rt, ['x', 'bluesky']);
    // Its answers are contract-checked too: the test runtime checks every answer it gives this process.
    const herald: HeraldClient = createHeraldClient({ baseUrl: rt.url, apiKey: ws.key });

    const hook = await herald.POST('/v1/webhooks', {
      body: { url: receiver.url('/client'), events: ['post.published'] },
    });
    expect(hook.response.status).toBe(201);
    const secret = hook.data?.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const created = await herald.POST('/v1/posts', {
      params: { header: { 'Idempotency-Key': `client-${Date.now()}` } },
      body: {
        intent: 'now',
        channels: [
          { channelId: ws.channels.x, blocks: [{ content: 'Hello from the typed client' }] },
          { channelId: ws.channels.bluesky, blocks: [{ content: 'Hello from the typed client' }] },
        ],
      },
    });
    expect(created.error).toBeUndefined();
    expect(created.response.status).toBe(201);
    const postId = created.data?.id as string;

    const post = await waitForPost(herald, postId, { timeoutMs: 60_000, intervalMs: 100 });
    expect(post.status).toBe('published');
    expect(post.channels.map((c) => c.status)).toEqual(['published', 'published']);

    const delivery = await until('the post.published event', () =>
      receiver.received.find((r) => r.path === '/client' && r.body?.data?.post?.id === postId),
    );
    expect(verifyWebhook(delivery.raw, delivery.headers['x-herald-signature'] as string, secret)).toBe(true);
    expect(verifyWebhook(delivery.raw, delivery.headers['x-herald-signature'] as string, 'whsec_wrong')).toBe(
      false,
    );
    expect(delivery.body.type).toBe('post.published');

    // Errors come back typed, in the envelope.
    const missing = await herald.GET('/v1/posts/{id}', { params: { path: { id: 'pst_missing' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('not_found');
  }, 120_000);
});
