import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimThreadsPost } from '../../simulators/threads/simulator.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Threads through the HTTP API of the local runtime: posts, replies and media published by the
 * Threads client to the Threads simulator, which pulls the files from Herald's presigned URLs;
 * what arrived is read from the simulator's inspection routes.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: { PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
  ws = await freshWorkspace(rt, ['threads']);
});
afterAll(async () => {
  await rt?.destroy();
});

const simUrl = () => rt.simulators.baseUrls.threads as string;
const simPosts = async (): Promise<SimThreadsPost[]> =>
  ((await (await fetch(`${simUrl()}/_sim/threads/posts`)).json()) as { data: SimThreadsPost[] }).data;
const byMarker = async (marker: string) => (await simPosts()).filter((p) => p.text.startsWith(marker));

const upload = (bytes: Buffer, name: string, type: string, altText?: string) =>
  uploadMedia(rt, ws.key, bytes, name, type, altText);

const publishNow = async (
  blocks: { content: string; mediaIds?: string[]; mediaAltText?: Record<string, string> }[],
  options?: Record<string, string>,
) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [{ channelId: ws.channels.threads, blocks, ...(options ? { options } : {}) }],
    },
  });
  expect(created.status).toBe(201);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

describe('Threads through the API', () => {
  it('publishes a post and its replies, each reply to the previous block, with reply control', async () => {
    const marker = `th-text-${Date.now()}`;
    const post = await publishNow(
      [{ content: `${marker} 1` }, { content: `${marker} 2` }, { content: `${marker} 3` }],
      { replyControl: 'accounts_you_follow' },
    );
    expect(post.status).toBe('published');
    const posts = await byMarker(marker);
    expect(posts.map((p) => [p.text, p.replyControl])).toEqual([
      [`${marker} 1`, 'accounts_you_follow'],
      [`${marker} 2`, 'everyone'],
      [`${marker} 3`, 'everyone'],
    ]);
    expect(posts[1]?.replyToId).toBe(posts[0]?.id);
    expect(posts[2]?.replyToId).toBe(posts[1]?.id);
    expect(posts[2]?.rootId).toBe(posts[0]?.id);
    expect(post.channels[0].blocks.map((b: { remoteUrl: string }) => b.remoteUrl)).toEqual(
      posts.map((p) => p.permalink),
    );
    expect(post.channels[0].remoteUrl).toBe(posts[0]?.permalink);
  }, 60_000);

  it('publishes media in every block: an image with alt text, a video, a carousel; each file pulled once by Threads', async () => {
    const marker = `th-media-${Date.now()}`;
    const image = await upload(mediaFiles.png(20_000), 'a.png', 'image/png', 'Alt from the file');
    const video = await upload(mediaFiles.mp4(60_000), 'clip.mp4', 'video/mp4');
    const second = await upload(mediaFiles.jpeg(15_000), 'b.jpg', 'image/jpeg');
    const post = await publishNow([
      { content: `${marker} 1`, mediaIds: [image.id] },
      { content: `${marker} 2`, mediaIds: [video.id], mediaAltText: { [video.id]: 'A clip' } },
      { content: `${marker} 3`, mediaIds: [image.id, second.id] },
    ]);
    expect(post.status).toBe('published');
    const posts = await byMarker(marker);
    expect(posts.map((p) => [p.mediaType, p.media.map((m) => [m.type, m.altText, m.bytes])])).toEqual([
      ['IMAGE', [['IMAGE', 'Alt from the file', image.size]]],
      ['VIDEO', [['VIDEO', 'A clip', video.size]]],
      [
        'CAROUSEL_ALBUM',
        [
          ['IMAGE', 'Alt from the file', image.size],
          ['IMAGE', null, second.size],
        ],
      ],
    ]);
    expect(posts[1]?.replyToId).toBe(posts[0]?.id);
    expect(posts[2]?.replyToId).toBe(posts[1]?.id);
  }, 90_000);

  it('a link attachment beside files is refused before saving (422); on a text post it arrives at Threads', async () => {
    const marker = `th-link-${Date.now()}`;
    const image = await upload(mediaFiles.png(5_000), 'l.png', 'image/png');
    const refused = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'now',
        channels: [
          {
            channelId: ws.channels.threads,
            blocks: [{ content: `${marker} 1`, mediaIds: [image.id] }],
            options: { linkAttachment: 'https://example.com/read' },
          },
        ],
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/text-only/);
    const ok = await publishNow([{ content: `${marker} text only` }], {
      linkAttachment: 'https://example.com/read',
    });
    expect(ok.status).toBe('published');
    expect((await byMarker(marker)).map((p) => [p.text, p.linkAttachment])).toEqual([
      [`${marker} text only`, 'https://example.com/read'],
    ]);
  }, 60_000);

  it('revise is refused (Threads has no edits); retract deletes every block on Threads', async () => {
    const marker = `th-retract-${Date.now()}`;
    const post = await publishNow([{ content: `${marker} 1` }, { content: `${marker} 2` }]);
    expect(post.status).toBe('published');
    const revised = await rt.api(`/posts/${post.id}/revise`, {
      method: 'POST',
      key: ws.key,
      body: {
        channels: [
          {
            channelId: ws.channels.threads,
            blocks: [{ content: `${marker} 1 edited` }, { content: `${marker} 2` }],
          },
        ],
      },
    });
    expect(revised.status).toBe(200);
    expect(revised.body.revised).toEqual([]);
    expect(revised.body.unchanged).toEqual([
      {
        channelId: ws.channels.threads,
        platform: 'threads',
        reason: expect.stringMatching(/does not allow edits/),
      },
    ]);
    expect((await byMarker(marker)).map((p) => p.text)).toEqual([`${marker} 1`, `${marker} 2`]);

    const retracted = await rt.api(`/posts/${post.id}/retract`, { method: 'POST', key: ws.key });
    expect(retracted.status).toBe(200);
    expect(retracted.body.removed).toEqual([
      { channelId: ws.channels.threads, platform: 'threads', reason: null },
    ]);
    const posts = await byMarker(marker);
    expect(posts.map((p) => p.deleted)).toEqual([true, true]);
    const deletes = (rt.simulators.byPlatform.get('threads')?.records() ?? []).filter(
      (r) => r.kind === 'delete' && posts.some((p) => p.id === r.id),
    );
    expect(deletes).toHaveLength(2);
  }, 60_000);

  it('GET /platforms says what the Threads client does', async () => {
    const platforms = await rt.api('/platforms', { key: ws.key });
    const threads = platforms.body.data.find((p: { id: string }) => p.id === 'threads');
    expect(threads.limits).toMatchObject({
      maxLength: 500,
      textCounting: 'codepoints_emoji_bytes',
      continuation: 'reply',
      remoteEdit: null,
      supportsRemoteDelete: true,
      acceptedMimeTypes: ['image/jpeg', 'image/png', 'video/mp4', 'video/quicktime'],
      maxMedia: 20,
      maxMediaBytes: { 'image/jpeg': 8 * 1024 * 1024, 'image/png': 8 * 1024 * 1024 },
      requiresMedia: false,
    });
    expect(threads.limits.continuationTextOnly).toBeUndefined();
    expect(threads.limits.options.map((o: { key: string }) => o.key)).toEqual([
      'replyControl',
      'linkAttachment',
    ]);
    expect(threads.supportsMetrics).toBe(true);
  });
});
