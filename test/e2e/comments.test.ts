import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPlatform } from '../../functions/domain/platforms/catalog.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { FAULT_ENV } from '../support/fault-matrix.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Comments through the HTTP API on the seven networks that allow them, against their simulators:
 * a post published with `sim:comments` gets three comments from others; Herald lists them, answers
 * one exactly once (an Idempotency-Key's retry, and a lost answer looked up before any resend, are
 * one reply on the network), shows its reply among them, and deletes it.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: FAULT_ENV });
});
afterAll(async () => {
  await rt?.destroy();
});

type Ws = Awaited<ReturnType<typeof freshWorkspace>>;

/** What each network's first block needs besides its text. */
const channelOf = async (platform: PlatformId, ws: Ws, content: string): Promise<Record<string, unknown>> => {
  const channelId = ws.channels[platform];
  switch (platform) {
    case 'instagram': {
      const photo = await uploadMedia(rt, ws.key, mediaFiles.jpeg(5_000), 'p.jpg', 'image/jpeg');
      return { channelId, blocks: [{ content, mediaIds: [photo.id] }] };
    }
    case 'youtube': {
      const video = await uploadMedia(rt, ws.key, mediaFiles.mp4(50_000), 'v.mp4', 'video/mp4');
      return {
        channelId,
        title: 'Comments on YouTube',
        options: { privacy: 'unlisted', madeForKids: 'false' },
        blocks: [{ content, mediaIds: [video.id] }],
      };
    }
    case 'reddit':
      return {
        channelId,
        title: 'Comments on Reddit',
        options: { subreddit: 'heraldtest' },
        blocks: [{ content }],
      };
    default:
      return { channelId, blocks: [{ content }] };
  }
};

interface Comment {
  id: string;
  parentId: string | null;
  text: string;
  replyId: string | null;
}

const SEEDED = ['Congratulations on the launch!', 'Where can I read more about this?', 'Agreed, great news.'];

/** The networks whose clients answer comments (the others are covered by their reason). */
const NETWORKS: PlatformId[] = [
  'x',
  'bluesky',
  'linkedin_page',
  'instagram',
  'facebook',
  'youtube',
  'reddit',
];

/** The three ways an answer is lost after the network stored the reply, spread over the networks. */
const LOST = ['sim:timeout', 'sim:reset', 'sim:bad-gateway'] as const;

describe.concurrent('comments on live posts', () => {
  it.each(NETWORKS)(
    '%s: lists comments, answers one exactly once, and deletes the answer',
    async (platform) => {
      const ws = await freshWorkspace(rt, [platform]);
      const marker = `c31-${platform}-${Date.now()}`;
      const created = await rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: { intent: 'now', channels: [await channelOf(platform, ws, `${marker} sim:comments`)] },
      });
      expect(created.status, created.text).toBe(201);
      const postId = created.body.id as string;
      const post = await waitForPost(rt, postId, ws.key, 60_000);
      expect(post.status, JSON.stringify(post.channels)).toBe('published');

      const list = async () => {
        const res = await rt.api(`/v1/posts/${postId}/comments`, { key: ws.key });
        expect(res.status, res.text).toBe(200);
        return res.body.channels[0] as { status: string; reason: string | null; comments: Comment[] | null };
      };
      // X's search shows a new reply after a lag: wait until the three are there.
      const seeded = await waitFor(
        async () => {
          const channel = await list();
          expect(channel.status, channel.reason ?? '').toBe('ok');
          return SEEDED.every((text) => channel.comments?.some((c) => c.text === text))
            ? channel.comments
            : null;
        },
        { timeoutMs: 20_000, what: `the seeded comments on ${platform}` },
      );
      const first = seeded.find((c) => c.text === SEEDED[0]) as Comment;
      expect(first.parentId).toBeNull();
      expect(seeded.find((c) => c.text === SEEDED[2])?.parentId).toBe(first.id);

      const sim = rt.simulators.byPlatform.get(platform);
      const sentWith = (text: string) =>
        (sim?.records() ?? []).filter(
          (r) => r.kind !== 'delete' && r.kind !== 'edit' && r.text?.includes(text),
        );
      const path = `/v1/posts/${postId}/comments/${first.id}/replies`;
      const send = (content: string, key: string) =>
        rt.api(path, {
          method: 'POST',
          key: ws.key,
          body: { channelId: ws.channels[platform], content },
          headers: { 'idempotency-key': key },
        });

      const answer = await send(`Thanks ${marker}`, `${marker}-1`);
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body).toMatchObject({ status: 'sent', commentId: first.id, platform });
      const again = await send(`Thanks ${marker}`, `${marker}-1`);
      expect(again.body).toEqual(answer.body);
      expect(sentWith(`Thanks ${marker}`)).toHaveLength(1);
      await waitFor(
        async () =>
          (await list()).comments?.find((c) => c.replyId === answer.body.id && c.text === `Thanks ${marker}`),
        { timeoutMs: 20_000, what: 'the reply among the comments' },
      );

      // The answer is lost after the network stored the reply: looked up, never sent again.
      const lost = `Lost ${marker} ${LOST[NETWORKS.indexOf(platform) % LOST.length]}`;
      const settled = await waitFor(
        async () => {
          const res = await send(lost, `${marker}-2`);
          if (res.status === 503) return null;
          return res;
        },
        { timeoutMs: 30_000, intervalMs: 500, what: 'the lost reply settled' },
      );
      expect(settled.status, settled.text).toBe(201);
      expect(sentWith(`Lost ${marker}`)).toHaveLength(1);
      // A refusal posts nothing and says why.
      const refused = await send(`Refused ${marker} sim:fail`, `${marker}-3`);
      expect([refused.status, refused.body.error?.code]).toEqual([422, 'reply_refused']);
      expect(sentWith(`Refused ${marker}`)).toHaveLength(0);

      // Where the network's replies take images (X, Bluesky, a LinkedIn Page), one goes with the text.
      if ((getPlatform(platform)?.limits.commentReplies?.maxMedia ?? 0) > 0) {
        const image = await uploadMedia(rt, ws.key, mediaFiles.png(2_000), 'r.png', 'image/png');
        const res = await rt.api(path, {
          method: 'POST',
          key: ws.key,
          body: { channelId: ws.channels[platform], content: `Image ${marker}`, mediaIds: [image.id] },
        });
        expect(res.status, res.text).toBe(201);
        expect(res.body.mediaIds).toEqual([image.id]);
        expect(sentWith(`Image ${marker}`)).toHaveLength(1);
      }

      const deleted = await rt.api(`${path}/${answer.body.id}`, { method: 'DELETE', key: ws.key });
      expect(deleted.status, deleted.text).toBe(200);
      expect(deleted.body.status).toBe('deleted');
      expect((sim?.records() ?? []).some((r) => r.kind === 'delete' && r.id === answer.body.remoteId)).toBe(
        true,
      );
    },
  );
});
