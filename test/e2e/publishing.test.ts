import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let ch: Record<string, string>;

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '500', PUBLISH_RETRY_BASE_SECONDS: '1' } });
  ch = Object.fromEntries(rt.seed.channels.map((c) => [c.platform, c.id]));
});
afterAll(async () => {
  await rt?.destroy();
});

const thread = (platform: string, contents: string[]) => ({
  channelId: ch[platform],
  blocks: contents.map((content) => ({ content })),
});

describe('publishing through the simulators', () => {
  it('publishes a post now on several networks with threads and comments', async () => {
    const res = await rt.api('/posts', {
      method: 'POST',
      body: {
        intent: 'now',
        channels: [
          thread('x', ['one', 'two', 'three']),
          thread('bluesky', ['b one', 'b two']),
          thread('threads', ['t one', 't two']),
          thread('facebook', ['f post', 'f comment']),
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('publishing');
    const post = await waitForPost(rt, res.body.id);
    expect(post.status).toBe('published');
    expect(post.publishedAt).not.toBeNull();
    for (const channel of post.channels) {
      expect(channel.status).toBe('published');
      expect(channel.remoteUrl).toBe(channel.blocks[0].remoteUrl);
      for (const block of channel.blocks) expect(block.remoteUrl).toMatch(/^https:\/\//);
    }
    const x = rt.simulators.byPlatform.get('x')?.records() ?? [];
    const xPosts = x.filter((r) => ['one', 'two', 'three'].includes(r.text ?? ''));
    expect(xPosts.map((r) => r.text)).toEqual(['one', 'two', 'three']);
    expect(xPosts[1]?.parentId).toBe(xPosts[0]?.id);
    expect(xPosts[2]?.parentId).toBe(xPosts[1]?.id);
    const fb = (rt.simulators.byPlatform.get('facebook')?.records() ?? []).filter((r) =>
      r.text?.startsWith('f '),
    );
    expect(fb.map((r) => r.kind)).toEqual(['post', 'comment']);
    const usage = await rt.api('/usage');
    expect(usage.body.posts.published).toBe(1);
  });
});
