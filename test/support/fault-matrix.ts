import { expect } from 'vitest';
import { mutatePost, PublishingEngine, startRound } from '../../functions/core/publishing/engine.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import { type NetworkClient, SIM_TOKENS, type SimToken } from '../../functions/ports/network-client.ts';
import { freshWorkspace } from './accounts.ts';
import { mediaFiles } from './media-files.ts';
import { uploadMedia } from './media-upload.ts';
import { eventsOfPost } from './outbox.ts';
import { storedClaim, waitForPost } from './publishing.ts';
import type { TestRuntime } from './runtime.ts';
import { waitFor } from './wait.ts';

/**
 * The fault matrix shared by every network's fault test: each sim token in each block position of
 * one thread, all at once, through the local runtime over HTTP. It checks what holds on every
 * network (nothing posted twice, the right end state per token); each network's test adds its own
 * checks (media attached once, with its alt text) on the cases it returns.
 */

/** The runtime settings of a fault run (pass as `startTestRuntime({ env })`, adding the network's own). */
export const FAULT_ENV: Record<string, string> = {
  // Generous for a loaded machine: a request that times out is an unknown outcome, looked up
  // before anything is sent again.
  NETWORK_TIMEOUT_MS: '3000',
  PUBLISH_RETRY_BASE_SECONDS: '0.2',
  // A lease must outlast two network requests (the runtime refuses to start otherwise).
  PUBLISH_LEASE_SECONDS: '7',
};

/**
 * The runtime settings of the crash scenarios (`crashBetweenSendAndRecord`, on
 * `sharedTestRuntime({ env: CRASH_ENV })`): the healthy worker waits out the dead one's lease, so a
 * short lease is the scenario's length. One post at a time, not a matrix of them, so the shorter
 * network timeout the lease needs (under half of it) is as safe as the other e2e files' 1 s. X's
 * and Reddit's consistency windows are the fault files' own (their timelines lag 3 s and 200 ms
 * behind a stored post in the simulators), so every network's crash runs on this one runtime.
 */
export const CRASH_ENV: Record<string, string> = {
  NETWORK_TIMEOUT_MS: '1000',
  PUBLISH_RETRY_BASE_SECONDS: '0.2',
  PUBLISH_LEASE_SECONDS: '2.1',
  X_CONSISTENCY_WINDOW_SECONDS: '5',
  REDDIT_CONSISTENCY_WINDOW_SECONDS: '3',
};

/** The records of `platform`'s simulator that carry `marker` (posts, replies and comments; not edits or deletes). */
export const postedOn = (rt: TestRuntime, platform: PlatformId, marker: string) =>
  (rt.simulators.byPlatform.get(platform)?.records() ?? []).filter(
    (r) => r.kind !== 'edit' && r.kind !== 'delete' && r.text?.includes(marker),
  );

/** Expects every text carrying `marker` on the network once at most; returns how many there are. */
export const noDuplicates = (rt: TestRuntime, platform: PlatformId, marker: string) => {
  const texts = postedOn(rt, platform, marker).map((r) => r.text);
  expect(new Set(texts).size, `${platform} ${marker}: ${texts.join(' | ')}`).toBe(texts.length);
  return texts.length;
};

/** Uploads a small PNG (or JPEG) as media of the workspace; its size is `2000 + i` bytes... */
export const uploadImage = async (
  rt: TestRuntime,
  key: string,
  i: number,
  type: 'image/png' | 'image/jpeg' = 'image/png',
): Promise<string> => {
  const bytes = type === 'image/png' ? mediaFiles.png(2_000 + i) : mediaFiles.jpeg(2_000 + i);
  const ext = type === 'image/png' ? 'png' : 'jpg';
  return (await uploadMedia(rt, key, bytes, `block${i}.${ext}`, type, `Picture of block ${i}`)).id;
};

/** Uploads block `i`'s files for the workspace `key`; returns their media ids. */
export type MediaUploader = (rt: TestRuntime, key: string, i: number) => Promise<string[]>;

/** Uploads a small MP4 (`2000 + i` bytes, alt text "Video of block i") as media of the workspace. */
export const uploadVideo: MediaUploader = async (rt, key, i) => [
  (await uploadMedia(rt, key, mediaFiles.mp4(2_000 + i), `block${i}.mp4`, 'video/mp4', `Video of block ${i}`))
    .id,
];

export interface FaultChannel {
  title?: string;
  options?: Record<string, unknown>;
  postType?: string;
}

const channelFields = (
  channel: FaultMatrixOptions['channel'],
  ws: Awaited<ReturnType<typeof freshWorkspace>>,
): FaultChannel => (typeof channel === 'function' ? channel(ws) : (channel ?? {}));

export interface FaultMatrixOptions {
  /** Blocks per thread (default 3; 1 on networks without threads). */
  blocks?: number;
  /** Which blocks carry one image, numbered from 0 (default none). */
  mediaBlocks?: number[];
  /** The image type the network takes (default PNG). */
  imageType?: 'image/png' | 'image/jpeg';
  /** Uploads the files of each block in `mediaBlocks` instead of one image (e.g. `uploadVideo`). */
  media?: MediaUploader;
  /**
   * Channel fields the network needs besides blocks (title, options, postType); a function when
   * they depend on the case's workspace (Pinterest's boardId: a board of the channel's account).
   */
  channel?: FaultChannel | ((ws: Awaited<ReturnType<typeof freshWorkspace>>) => FaultChannel);
  /** The tokens to run (default every sim token). */
  tokens?: readonly SimToken[];
  /** How long one thread may take to settle (default 60 s: many threads at once on a shared machine). */
  settleMs?: number;
}

const mediaOf = (
  rt: TestRuntime,
  key: string,
  i: number,
  options: Pick<FaultMatrixOptions, 'imageType' | 'media'>,
): Promise<string[]> =>
  options.media ? options.media(rt, key, i) : uploadImage(rt, key, i, options.imageType).then((id) => [id]);

export interface FaultCase {
  network: PlatformId;
  token: SimToken;
  position: number;
  marker: string;
  ws: Awaited<ReturnType<typeof freshWorkspace>>;
  /** The post after its first round (before a `sim:fail-once` retry). */
  firstRound: any;
  /** The post at the end. */
  post: any;
  events: Awaited<ReturnType<typeof eventsOfPost>>;
  /** How many blocks carrying the marker the network holds (checked to hold no duplicate). */
  count: number;
}

/**
 * Publishes one thread per sim token and block position on `network`, all at once, retries the
 * `sim:fail-once` ones through `POST /posts/{id}/publish`, and checks each thread's end state and
 * that the network holds no block twice. Returns the cases for the network's own checks.
 */
export const runFaultMatrix = async (
  rt: TestRuntime,
  network: PlatformId,
  options: FaultMatrixOptions = {},
): Promise<FaultCase[]> => {
  const blockCount = options.blocks ?? 3;
  const mediaBlocks = options.mediaBlocks ?? [];
  const positions = Array.from({ length: blockCount }, (_, i) => i);
  const cases = (options.tokens ?? SIM_TOKENS).flatMap((token) =>
    positions.map((position) => ({ token, position })),
  );
  const settleMs = options.settleMs ?? 60_000;

  const results = await Promise.all(
    cases.map(async ({ token, position }): Promise<FaultCase> => {
      // A workspace each: a reconnect marks its channel, which must not spill into other cases.
      const ws = await freshWorkspace(rt, [network], 'live', { keepEvents: true });
      const marker = `${network}-${token}-${position}-${Math.random().toString(36).slice(2, 8)}`;
      const blocks = await Promise.all(
        positions.map(async (i) => ({
          content: `${marker} block${i}${i === position ? ` ${token}` : ''}`,
          ...(mediaBlocks.includes(i) ? { mediaIds: await mediaOf(rt, ws.key, i, options) } : {}),
        })),
      );
      const created = await rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: {
          intent: 'now',
          channels: [{ channelId: ws.channels[network], ...channelFields(options.channel, ws), blocks }],
        },
      });
      expect(created.status, `${network} ${token} at ${position}: ${created.text}`).toBe(201);
      const label = `${network} ${token} at ${position}`;
      let post = await waitForPost(rt, created.body.id, ws.key, settleMs).catch((e) => {
        throw new Error(`${label}: ${e.message}`);
      });
      const firstRound = post;
      if (token === 'sim:fail-once') {
        await rt.api(`/posts/${post.id}/publish`, { method: 'POST', key: ws.key });
        post = await waitForPost(rt, post.id, ws.key, settleMs).catch((e) => {
          throw new Error(`${label} (retry): ${e.message}`);
        });
      }
      return {
        network,
        token,
        position,
        marker,
        ws,
        firstRound,
        post,
        events: await eventsOfPost(rt, post.id),
        count: 0,
      };
    }),
  );

  for (const c of results) {
    c.count = noDuplicates(rt, network, c.marker);
    await expectFaultOutcome(rt, c, blockCount);
  }
  return results;
};

/** The end state each sim token leads to, on any network. */
const expectFaultOutcome = async (rt: TestRuntime, c: FaultCase, blockCount: number) => {
  const { token, position, post, firstRound, events, count, ws } = c;
  const label = `${c.network} ${token} at block ${position + 1}`;
  const channel = post.channels[0];
  const live = channel.blocks.filter((b: any) => b.remoteUrl !== null).length;
  switch (token) {
    case 'sim:fail':
    case 'sim:reconnect':
      expect(post.status, label).toBe(position === 0 ? 'failed' : 'partially_published');
      expect(channel.status, label).toBe('failed');
      expect(live, label).toBe(position);
      expect(count, label).toBe(position);
      expect(events.at(-1)?.type, label).toBe(position === 0 ? 'post.failed' : 'post.partially_failed');
      if (token === 'sim:reconnect') {
        expect(channel.error, label).toMatch(/reconnect/);
        const channels = await rt.api('/channels', { key: ws.key });
        expect(channels.body.data[0].status, label).toBe('needs_reconnect');
        expect(
          events.some((e) => e.type === 'channel.needs_reconnect'),
          label,
        ).toBe(true);
      }
      break;
    case 'sim:fail-once':
      expect(firstRound.status, label).toBe(position === 0 ? 'failed' : 'partially_published');
      expect(post.status, label).toBe('published');
      expect(count, label).toBe(blockCount);
      break;
    case 'sim:flaky':
      // Looked up (nothing there after the consistency window), then sent again.
      expect(post.status, label).toBe('published');
      expect(count, label).toBe(blockCount);
      break;
    case 'sim:timeout':
    case 'sim:reset':
    case 'sim:bad-gateway':
      // The network was asked whether it had the block: it had, so it is recorded, not resent
      // (or the resend was refused as a duplicate naming the block, which is adopted).
      expect(post.status, label).toBe('published');
      expect(count, label).toBe(blockCount);
      break;
    default:
      throw new Error(`${label}: no expectation for ${token satisfies never}`);
  }
};

/**
 * A worker that sends the last block of a draft and dies before recording it (its promise never
 * settles); once its claim's lease has run out (the runtime's PUBLISH_LEASE_SECONDS: run it on
 * `CRASH_ENV`) a healthy worker takes over. The network must hold every block once,
 * and the post must be published with the last block recorded (found by a lookup, or adopted from
 * a duplicate refusal).
 */
export const crashBetweenSendAndRecord = async (
  rt: TestRuntime,
  network: PlatformId,
  options: Pick<FaultMatrixOptions, 'blocks' | 'mediaBlocks' | 'imageType' | 'media' | 'channel'> = {},
) => {
  const blockCount = options.blocks ?? 2;
  const ws = await freshWorkspace(rt, [network]);
  const marker = `crash-${network}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  const blocks = await Promise.all(
    Array.from({ length: blockCount }, async (_, i) => ({
      content: `${marker} ${i + 1}`,
      ...((options.mediaBlocks ?? []).includes(i) ? { mediaIds: await mediaOf(rt, ws.key, i, options) } : {}),
    })),
  );
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'draft',
      channels: [{ channelId: ws.channels[network], ...channelFields(options.channel, ws), blocks }],
    },
  });
  expect(created.status, created.text).toBe(201);
  const postId = created.body.id;
  const last = ` ${blockCount}`;
  const deps = rt.container.deps;
  let sentLast = false;
  const dying = new PublishingEngine({
    ...deps,
    networks: (platform, mode) => {
      const real = deps.networks(platform, mode);
      const wrapped: NetworkClient = Object.create(real);
      wrapped.publish = async (input) => {
        const remote = await real.publish(input);
        if (input.content.endsWith(last)) {
          sentLast = true;
          return new Promise(() => undefined);
        }
        return remote;
      };
      return wrapped;
    },
  });
  // Start the round without a queue message: only the dying worker runs it.
  await mutatePost(deps, postId, (post) => ({ next: startRound(post, new Date()) }));
  void dying.handle({ postId, kind: 'run', round: 1 });
  await waitFor(() => sentLast, {
    timeoutMs: 20_000,
    what: `the dying worker's send of block ${blockCount}`,
  });
  // The dead worker's claim on the last block, as it left it (a video's saved progress extends it).
  const { leaseUntil } = await storedClaim(rt, postId, ws.channels[network], blockCount - 1);
  // After the lease, a healthy worker takes over.
  await waitFor(() => Date.now() > Date.parse(leaseUntil), {
    timeoutMs: 60_000,
    intervalMs: 50,
    what: `the lease until ${leaseUntil}`,
  });
  await new PublishingEngine(deps).handle({ postId, kind: 'run', round: 1 });
  const post = await waitForPost(rt, postId, ws.key);
  expect(sentLast).toBe(true);
  expect(noDuplicates(rt, network, marker)).toBe(blockCount);
  expect(post.status).toBe('published');
  expect(post.channels[0].blocks.at(-1).remoteUrl).not.toBeNull();
  return post;
};
