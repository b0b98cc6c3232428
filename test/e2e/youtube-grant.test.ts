import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { consentOAuth, simUrl, storedChannel } from '../support/channels.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * YouTube channels connected through Google's consent (issue 26), in a runtime of their own (its
 * clock moves months ahead):
 * - an unaudited Google project (the simulator's default) gets its uploads locked to private: the
 *   post is published and GET /v1/posts/{id} shows the channel's `visibility_restricted` warning;
 * - a refresh token unused for six months dies: the token sweep refreshes an idle channel every
 *   30 days and keeps it alive, while a channel the sweep does not refresh (stored without a
 *   refresh due time, as every YouTube channel was before) dies at its next use.
 */

const DAY = 86_400;
let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
/** How far Herald's clock runs ahead of the host's (ms). */
let aheadMs = 0;
let restoreClock: (() => void) | undefined;

beforeAll(async () => {
  rt = await startTestRuntime({
    env: { PUBLISH_RETRY_BASE_SECONDS: '0.2', TOKEN_SWEEP_INTERVAL_SECONDS: '0.3' },
  });
  // Before anything keeps a copy of the clock (the token service and the engine copy theirs).
  restoreClock = rt.container.override({ clock: { now: () => new Date(Date.now() + aheadMs) } });
  ws = await freshWorkspace(rt, []);
});
afterAll(async () => {
  restoreClock?.();
  await rt?.destroy();
});

const sim = (path: string, body: unknown) =>
  fetch(`${simUrl(rt, 'youtube')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Moves Herald's clock and the YouTube simulator's clock forward together. */
const advance = async (seconds: number) => {
  expect((await sim('/_sim/youtube/clock', { advanceSeconds: seconds })).status).toBe(204);
  aheadMs += seconds * 1000;
};

/** A YouTube channel connected through the consent flow (its first target). */
const connectYouTube = async (): Promise<string> => {
  const landed = await consentOAuth(rt, 'youtube', { key: ws.key });
  expect(landed.get('error')).toBeNull();
  const done = await rt.api('/channels/connect/complete', {
    method: 'POST',
    key: ws.key,
    body: { connectCode: landed.get('connectCode') },
  });
  expect(done.status, done.text).toBe(200);
  const chosen = await rt.api(`/channels/connect/${done.body.connectionId}/targets`, {
    method: 'POST',
    key: ws.key,
    body: { targetIds: [done.body.data[0].id] },
  });
  expect(chosen.status, chosen.text).toBe(201);
  return chosen.body.data[0].id as string;
};

const publishVideo = async (channelId: string, privacy: string) => {
  const video = await uploadMedia(rt, ws.key, mediaFiles.mp4(50_000), 'clip.mp4', 'video/mp4');
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [
        {
          channelId,
          title: 'Grant check',
          options: { privacy },
          blocks: [{ content: `grant ${randomBytes(3).toString('hex')}`, mediaIds: [video.id] }],
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  expect(created.body.channels[0].warnings).toEqual([]);
  return waitForPost(rt, created.body.id, ws.key, 60_000);
};

/** Polls until `check` returns something. */
const eventually = async <T>(what: string, check: () => Promise<T | null | undefined | false>) => {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('an unaudited Google project: the video is private, the post published with a warning', () => {
  it('GET /v1/posts/{id} shows visibility_restricted on the channel; the video is on YouTube', async () => {
    const channelId = await connectYouTube();
    const post = await publishVideo(channelId, 'public');
    expect(post.status, JSON.stringify(post.channels)).toBe('published');
    const [channel] = post.channels;
    expect(channel.status).toBe('published');
    expect(channel.warnings).toEqual([
      {
        code: 'visibility_restricted',
        message: expect.stringMatching(
          /private.*sent as public.*not passed YouTube's API audit.*apply for the audit/s,
        ),
      },
    ]);
    const id = new URL(channel.blocks[0].remoteUrl).searchParams.get('v');
    const videos = (await (await fetch(`${simUrl(rt, 'youtube')}/_sim/youtube/videos`)).json()) as {
      data: { id: string; privacyStatus: string }[];
    };
    expect(videos.data.find((v) => v.id === id)?.privacyStatus).toBe('private');
    // The list shows it too.
    const listed = await rt.api('/posts', { key: ws.key });
    expect(listed.body.data.find((p: { id: string }) => p.id === post.id)?.channels[0].warnings).toEqual(
      channel.warnings,
    );
  }, 120_000);

  it('an audited project, or a private video, has no warning (warnings is always there, empty)', async () => {
    const channelId = await connectYouTube();
    const asked = await publishVideo(channelId, 'private');
    expect(asked.status).toBe('published');
    expect(asked.channels[0].warnings).toEqual([]);
    expect((await sim('/_sim/youtube/project', { audited: true })).status).toBe(204);
    try {
      const audited = await publishVideo(channelId, 'public');
      expect(audited.status).toBe('published');
      expect(audited.channels[0].warnings).toEqual([]);
    } finally {
      await sim('/_sim/youtube/project', { audited: false });
    }
  }, 120_000);
});

describe('an idle YouTube channel across six months (Herald’s and the simulator’s clocks moved)', () => {
  it('the token sweep refreshes it every 30 days and keeps it alive; a channel it does not refresh dies', async () => {
    const kept = await connectYouTube();
    const unswept = await connectYouTube();
    // The control: stored without a refresh due time, as the old policy stored every YouTube channel.
    const deps = rt.container.deps;
    const record = await deps.channels.getChannel(ws.workspaceId, unswept);
    if (!record) throw new Error('no channel');
    expect(
      await deps.channels.replaceTokens(ws.workspaceId, unswept, record.tokenVersion ?? 0, {
        tokenCiphertext: record.tokenCiphertext,
        tokenExpiresAt: record.tokenExpiresAt ?? null,
        tokenIssuedAt: record.tokenIssuedAt ?? null,
        refreshDueAt: null,
        updatedAt: new Date().toISOString(),
      }),
    ).toBe(true);

    // Five months idle, twice: each time the sweep refreshes the channel (Google sees it used).
    for (let round = 1; round <= 2; round++) {
      const before = await storedChannel(rt, ws.workspaceId, kept);
      await advance(150 * DAY);
      const after = await eventually(`the sweep's refresh (round ${round})`, async () => {
        const stored = await storedChannel(rt, ws.workspaceId, kept);
        return stored.version > before.version ? stored : null;
      });
      expect(after.connection).toBe('connected');
    }
    const unsweptNow = await storedChannel(rt, ws.workspaceId, unswept);
    expect(unsweptNow.version).toBe((record.tokenVersion ?? 0) + 1);

    // Ten months after the consent: the swept channel publishes, the other one's grant is dead.
    const alive = await publishVideo(kept, 'private');
    expect(alive.status, JSON.stringify(alive.channels)).toBe('published');
    expect((await rt.api(`/channels/${kept}`, { key: ws.key })).body.status).toBe('connected');

    const dead = await publishVideo(unswept, 'private');
    expect(dead.status).toBe('failed');
    expect(dead.channels[0].error).toMatch(/reconnect/i);
    expect((await rt.api(`/channels/${unswept}`, { key: ws.key })).body.status).toBe('needs_reconnect');
  }, 180_000);
});
