import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TOKENS } from '../../functions/ports/network-client.ts';
import { simPinterestBoards } from '../../simulators/pinterest/oauth.ts';
import {
  type SimPin,
  type SimPinterestMedia,
  simPinterestUserFor,
} from '../../simulators/pinterest/simulator.ts';
import type { freshWorkspace } from '../support/accounts.ts';
import {
  CRASH_ENV,
  crashBetweenSendAndRecord,
  FAULT_ENV,
  type FaultCase,
  runFaultMatrix,
  uploadVideo,
} from '../support/fault-matrix.ts';
import { mediaFiles } from '../support/media-files.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The fault matrix on Pinterest: a pin is one block, so every sim token runs in that block, once
 * with an image (pulled by Pinterest from its presigned URL) and once with a video (uploaded to
 * Pinterest's S3 form and processed before the pin). Besides the shared checks (nothing pinned
 * twice, the right end state), every live pin carries its one file, the file uploaded to Herald.
 */

let rt: TestRuntime;
/** The crash scenarios' runtime: a short lease to wait out. */
let crashRt: TestRuntime;

beforeAll(async () => {
  rt = await sharedTestRuntime({ env: FAULT_ENV });
  crashRt = await sharedTestRuntime({ env: CRASH_ENV });
});
afterAll(async () => {
  await rt?.destroy();
});

/** The first board of the channel's account: freshWorkspace connects it with `token-<workspace id>`. */
const onBoard = (ws: Awaited<ReturnType<typeof freshWorkspace>>) => ({
  options: {
    boardId: (simPinterestBoards(simPinterestUserFor(`token-${ws.workspaceId}`).id)[0] as { id: string }).id,
  },
});

const simUrl = () => rt.simulators.baseUrls.pinterest as string;
const simPins = async () =>
  ((await (await fetch(`${simUrl()}/_sim/pinterest/pins`)).json()) as { data: SimPin[] }).data;
const simMedia = async () =>
  ((await (await fetch(`${simUrl()}/_sim/pinterest/media`)).json()) as { data: SimPinterestMedia[] }).data;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const pinOf = (pins: SimPin[], c: FaultCase) => {
  const url = c.post.channels[0].blocks[0].remoteUrl as string | null;
  const id = url ? /\/pin\/(\d+)\/$/.exec(url)?.[1] : undefined;
  return { id, pin: pins.find((pin) => pin.id === id) };
};

describe('sim tokens on Pinterest pins', () => {
  it(`never pins twice and ends in the right state, each live pin with its image (${SIM_TOKENS.length} pins)`, async () => {
    const cases = await runFaultMatrix(rt, 'pinterest', { blocks: 1, mediaBlocks: [0], channel: onBoard });
    const pins = await simPins();
    const image = mediaFiles.png(2_000);
    for (const c of cases) {
      const label = `pinterest ${c.token}`;
      const { id, pin } = pinOf(pins, c);
      if (!id) {
        expect(
          pins.some((p) => p.description?.includes(c.marker)),
          label,
        ).toBe(false);
        continue;
      }
      expect(pin, label).toMatchObject({
        description: `${c.marker} block0 ${c.token}`,
        altText: 'Picture of block 0',
        deleted: false,
        media: {
          type: 'image',
          images: [{ size: image.length, sha256: sha(image), contentType: 'image/png' }],
        },
      });
      // The one pin carrying the marker is the one the post records.
      expect(
        pins.filter((p) => p.description?.includes(c.marker)).map((p) => p.id),
        label,
      ).toEqual([id]);
    }
  }, 180_000);

  it(`never pins a video twice; each live pin carries one processed upload (${SIM_TOKENS.length} pins)`, async () => {
    const cases = await runFaultMatrix(rt, 'pinterest', {
      blocks: 1,
      mediaBlocks: [0],
      media: uploadVideo,
      channel: onBoard,
    });
    const [pins, uploads] = [await simPins(), await simMedia()];
    const video = mediaFiles.mp4(2_000);
    for (const c of cases) {
      const label = `pinterest video ${c.token}`;
      const { id, pin } = pinOf(pins, c);
      if (!id) continue;
      const mediaId = pin?.media.type === 'video' ? pin.media.mediaId : undefined;
      const upload = uploads.find((m) => m.mediaId === mediaId);
      expect(upload, label).toMatchObject({
        status: 'succeeded',
        size: video.length,
        sha256: sha(video),
        pins: [id],
      });
      expect(
        pins.filter((p) => p.description?.includes(c.marker)),
        label,
      ).toHaveLength(1);
    }
  }, 180_000);

  it('a worker dying between the pin and its record: the next worker finds the pin, nothing is pinned twice', async () => {
    const post = await crashBetweenSendAndRecord(crashRt, 'pinterest', {
      blocks: 1,
      mediaBlocks: [0],
      channel: onBoard,
    });
    expect(post.channels[0].blocks[0].remoteUrl).toMatch(/^https:\/\/www\.pinterest\.com\/pin\/\d+\/$/);
  }, 60_000);
});
