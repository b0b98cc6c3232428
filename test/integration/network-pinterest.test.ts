import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  classifyPinterestFailure,
  PinterestClient,
  pinterestRetryAfter,
} from '../../functions/platforms/pinterest/client.ts';
import type { MediaForNetwork, RemoteBlock } from '../../functions/ports/network-client.ts';
import { SIM_DEFAULT_REDIRECT_URI } from '../../simulators/framework/oauth.ts';
import { simPinterestBoards } from '../../simulators/pinterest/oauth.ts';
import {
  type PinterestSimulator,
  simPinterestUserFor,
  startPinterestSimulator,
} from '../../simulators/pinterest/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

const TOKEN = 'pin-token-alice';
const credentials = { accessToken: TOKEN, remoteAccountId: 'alice' };
const USER = simPinterestUserFor(TOKEN).id;
const [BOARD, OTHER_BOARD] = simPinterestBoards(USER).map((board) => board.id) as [string, string];
const STRANGER_BOARD = (simPinterestBoards(simPinterestUserFor('pin-token-bob').id)[0] as { id: string }).id;

let sim: PinterestSimulator;
let client: PinterestClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl = '';
const stored = new Map<string, Buffer>();
const input = blockInput(credentials);
const onBoard = (content: string, overrides: Parameters<typeof input>[1] = {}) =>
  input(content, { ...overrides, options: { boardId: BOARD, ...(overrides.options ?? {}) } });

const file = (
  name: string,
  mimeType: string,
  bytes: Buffer,
  altText: string | null = null,
): MediaForNetwork => {
  stored.set(name, bytes);
  return { mediaId: `med_${name}`, mimeType, size: bytes.length, altText, url: `${filesUrl}/${name}` };
};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const png = () => file(`p${stored.size}.png`, 'image/png', mediaFiles.png(2_000 + stored.size));
const livePins = () => sim.pins().filter((pin) => !pin.deleted);

beforeAll(async () => {
  sim = await startPinterestSimulator({ holdMs: 1_000 });
  client = new PinterestClient({
    baseUrl: sim.url,
    timeoutMs: 500,
    media: { pollMs: 30, maxProcessingSeconds: 5 },
  });
  files = await startFileServer(servedFrom(stored));
  filesUrl = files.url;
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.reset();
});

describe('Pinterest client against the Pinterest simulator', () => {
  it('pins an image Pinterest pulls from its URL, with title, link and alt text, on the board', async () => {
    const image = file('a.png', 'image/png', mediaFiles.png(5_000), 'A red square');
    const block = await client.publish(
      onBoard('Autumn soup recipe', {
        title: 'Soup',
        media: [image],
        options: { boardId: BOARD, link: 'https://example.com/soup' },
      }),
    );
    expect(block.remoteId).toMatch(/^\d+$/);
    expect(block.remoteUrl).toBe(`https://www.pinterest.com/pin/${block.remoteId}/`);
    expect(block.meta).toEqual({ boardId: BOARD });
    const [pin] = sim.pins();
    expect(pin).toMatchObject({
      id: block.remoteId,
      owner: USER,
      boardId: BOARD,
      title: 'Soup',
      description: 'Autumn soup recipe',
      link: 'https://example.com/soup',
      altText: 'A red square',
      media: {
        type: 'image',
        images: [{ url: image.url, size: 5_000, sha256: sha(stored.get('a.png') as Buffer) }],
      },
    });
    expect(sim.records().map(({ kind, id, text }) => ({ kind, id, text }))).toEqual([
      { kind: 'post', id: block.remoteId, text: 'Autumn soup recipe' },
    ]);
  });

  it('takes the altText option over the file’s alt text', async () => {
    await client.publish(
      onBoard('Alt text', {
        media: [file('b.png', 'image/png', mediaFiles.png(), 'From the file')],
        options: { altText: 'From the option' },
      }),
    );
    expect(sim.pins()[0]?.altText).toBe('From the option');
  });

  it('pins 2 to 5 images as a carousel, each pulled once', async () => {
    const images = [png(), png(), png()];
    await client.publish(onBoard('Three pictures', { media: images }));
    const [pin] = sim.pins();
    expect(pin?.media.type).toBe('multiple_images');
    const pulled = pin?.media.type === 'multiple_images' ? pin.media.images : [];
    expect(pulled.map((image) => image.sha256)).toEqual(
      images.map((image) => sha(stored.get(image.url.split('/').pop() as string) as Buffer)),
    );
  });

  it('uploads a video through the S3 form, waits for processing and pins it by media id', async () => {
    const bytes = mediaFiles.mp4(300_000);
    const block = await client.publish(onBoard('A film', { media: [file('v.mp4', 'video/mp4', bytes)] }));
    const [media] = sim.media();
    expect(media).toMatchObject({
      status: 'succeeded',
      size: bytes.length,
      sha256: sha(bytes),
      pins: [block.remoteId],
    });
    expect(media?.contentType).toBe('video/mp4');
    expect(sim.pins()[0]?.media).toEqual({
      type: 'video',
      mediaId: media?.mediaId,
      cover: null,
      coverKeyFrameTime: 0,
    });
  });

  it('hands the coverImage option’s image to Pinterest as the video’s cover', async () => {
    const cover = file('cover.jpg', 'image/jpeg', mediaFiles.jpeg(3_000));
    await client.publish(
      onBoard('Film with a cover', {
        media: [file('c.mp4', 'video/mp4', mediaFiles.mp4())],
        options: { boardId: BOARD, coverImage: 'med_cover.jpg' },
        optionMedia: { coverImage: cover },
      }),
    );
    const media = sim.pins()[0]?.media;
    expect(media?.type === 'video' ? media.cover : null).toEqual({
      url: cover.url,
      size: 3_000,
      sha256: sha(stored.get('cover.jpg') as Buffer),
      contentType: 'image/jpeg',
    });
    expect(media?.type === 'video' ? media.coverKeyFrameTime : 'none').toBeNull();
  });

  it('refuses for good a video Pinterest failed to process, and pins nothing', async () => {
    sim.setSwitches({ processingFails: true });
    const error = await failureOf(
      client.publish(onBoard('Broken film', { media: [file('w.mp4', 'video/mp4', mediaFiles.mp4())] })),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('could not process the video');
    expect(sim.pins()).toEqual([]);
  });

  it('gives up waiting for slow processing within the bound: transient, nothing pinned, a retry uploads anew', async () => {
    sim.setSwitches({ processingMs: 60_000 });
    const quick = new PinterestClient({
      baseUrl: sim.url,
      timeoutMs: 500,
      media: { pollMs: 20, maxProcessingSeconds: 0.2 },
    });
    const video = file('slow.mp4', 'video/mp4', mediaFiles.mp4());
    const error = await failureOf(quick.publish(onBoard('Slow film', { media: [video] })));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(sim.pins()).toEqual([]);
    sim.setSwitches({ processingMs: 10 });
    await quick.publish(onBoard('Slow film', { media: [video] }));
    expect(sim.media().map((m) => m.status)).toEqual(['processing', 'succeeded']);
    expect(sim.pins()).toHaveLength(1);
  });

  it('with saved progress, a long processing wait continues later with the same upload instead of sending it again', async () => {
    sim.setSwitches({ processingMs: 700 });
    const quick = new PinterestClient({
      baseUrl: sim.url,
      timeoutMs: 500,
      media: { pollMs: 20, maxProcessingSeconds: 0.2 },
    });
    let saved: Record<string, unknown> | null = null;
    const progress = {
      get saved() {
        return saved;
      },
      save: async (state: Record<string, unknown>) => {
        saved = state;
      },
    };
    const video = file('long.mp4', 'video/mp4', mediaFiles.mp4(50_000));
    const block = onBoard('Long film', { media: [video], progress });
    let outcome: RemoteBlock | null = null;
    let laters = 0;
    for (let i = 0; i < 50 && !outcome; i++) {
      try {
        outcome = await quick.publish(block);
      } catch (error) {
        expect(error).toMatchObject({ kind: 'transient', details: { continueLater: true } });
        laters += 1;
      }
    }
    expect(laters).toBeGreaterThan(0);
    expect(sim.media()).toHaveLength(1);
    expect(saved).toEqual({ file: video.mediaId, pinterestMediaId: sim.media()[0]?.mediaId });
    expect(sim.pins().map((pin) => pin.id)).toEqual([outcome?.remoteId]);
  });

  it('continues later before the invocation’s deadline, and replaces a saved upload Pinterest no longer knows', async () => {
    sim.setSwitches({ processingMs: 60_000 });
    let saved: Record<string, unknown> | null = null;
    const progress = {
      get saved() {
        return saved;
      },
      save: async (state: Record<string, unknown>) => {
        saved = state;
      },
    };
    const video = file('gone.mp4', 'video/mp4', mediaFiles.mp4());
    saved = { file: video.mediaId, pinterestMediaId: '999' };
    const error = await failureOf(
      client.publish(
        onBoard('Deadline film', { media: [video], progress, deadline: new Date(Date.now() + 1000) }),
      ),
    );
    expect(error).toMatchObject({ kind: 'transient', details: { continueLater: true } });
    expect(sim.media()).toHaveLength(1);
    expect(saved).toEqual({ file: video.mediaId, pinterestMediaId: sim.media()[0]?.mediaId });
    expect(sim.pins()).toEqual([]);
  });

  it('retries a video whose upload form expired with a new registration (transient), pinning it once', async () => {
    sim.setSwitches({ uploadLifetimeSeconds: 0 });
    const video = file('late.mp4', 'video/mp4', mediaFiles.mp4());
    const error = await failureOf(client.publish(onBoard('Late film', { media: [video] })));
    expect(error).toMatchObject({ kind: 'transient', details: { status: 403 } });
    expect(sim.pins()).toEqual([]);
    sim.setSwitches({ uploadLifetimeSeconds: 3600 });
    await client.publish(onBoard('Late film', { media: [video] }));
    expect(sim.media().map((m) => m.status)).toEqual(['registered', 'succeeded']);
    expect(sim.pins()).toHaveLength(1);
  });

  it('refuses a pin whose image Pinterest cannot fetch, a video mixed with images, and a pin without a file', async () => {
    const missing: MediaForNetwork = {
      mediaId: 'med_gone',
      mimeType: 'image/png',
      size: 10,
      altText: null,
      url: `${filesUrl}/gone.png`,
    };
    const fetchFail = await failureOf(client.publish(onBoard('Gone', { media: [missing] })));
    expect(fetchFail.kind).toBe('permanent');
    expect(fetchFail.message).toContain('could not fetch the image');
    const mixed = await failureOf(
      client.publish(onBoard('Mixed', { media: [png(), file('m.mp4', 'video/mp4', mediaFiles.mp4())] })),
    );
    expect(mixed.kind).toBe('permanent');
    const none = await failureOf(client.publish(onBoard('Nothing')));
    expect(none.kind).toBe('permanent');
    expect(sim.pins()).toEqual([]);
  });

  it('refuses extra blocks: Pinterest has no comments or replies', async () => {
    const pin = await client.publish(onBoard('First', { media: [png()] }));
    const error = await failureOf(client.publish(onBoard('Second', { parent: { block: pin, root: pin } })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('single pin');
    expect(sim.records()).toHaveLength(1);
  });

  it('needs the boardId option, and refuses a board that is unknown or another user’s', async () => {
    const none = await failureOf(client.publish(input('No board', { media: [png()] })));
    expect(none.kind).toBe('permanent');
    expect(none.message).toContain('boardId');
    const unknown = await failureOf(
      client.publish(onBoard('Unknown', { media: [png()], options: { boardId: '123' } })),
    );
    expect(unknown).toMatchObject({ kind: 'permanent', details: { status: 404 } });
    expect(unknown.message).toContain('Board not found');
    // Bob's boards exist once Bob is seen.
    await fetch(`${sim.url}/v5/boards`, { headers: { authorization: 'Bearer pin-token-bob' } });
    const foreign = await failureOf(
      client.publish(onBoard('Foreign', { media: [png()], options: { boardId: STRANGER_BOARD } })),
    );
    expect(foreign).toMatchObject({ kind: 'permanent', details: { status: 403 } });
    expect(sim.pins()).toEqual([]);
  });

  it('serves tokens its OAuth half issued: their own boards, and refuses a pin without pins:write', async () => {
    const app = { clientId: 'herald-sim-pinterest', clientSecret: 'herald-sim-secret-pinterest' };
    const tokenFor = async (user: string, scopes: string) => {
      const authorize = new URL(`${sim.url}/oauth/`);
      for (const [k, v] of Object.entries({
        client_id: app.clientId,
        redirect_uri: SIM_DEFAULT_REDIRECT_URI,
        response_type: 'code',
        scope: 'boards:read,pins:read,pins:write,user_accounts:read',
        sim_user: user,
        sim_scopes: scopes,
      }))
        authorize.searchParams.set(k, v);
      const back = await fetch(authorize, { redirect: 'manual' });
      const code = new URL(back.headers.get('location') as string).searchParams.get('code') as string;
      const res = await fetch(`${sim.url}/v5/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: SIM_DEFAULT_REDIRECT_URI,
        }),
      });
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const boardsOf = async (token: string) =>
      (
        (await (
          await fetch(`${sim.url}/v5/boards`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as {
          items: { id: string }[];
        }
      ).items.map((b) => b.id);

    const full = await tokenFor('carol', 'boards:read,pins:read,pins:write,user_accounts:read');
    const [carolBoard] = await boardsOf(full);
    const carol = { accessToken: full, remoteAccountId: carolBoard as string };
    const pin = await client.publish({
      ...input('By Carol', { media: [png()], options: { boardId: carolBoard as string } }),
      credentials: carol,
    });
    expect(sim.pins()[0]).toMatchObject({ id: pin.remoteId, boardId: carolBoard });

    const readOnly = await tokenFor('dave', 'boards:read,pins:read,user_accounts:read');
    const [daveBoard] = await boardsOf(readOnly);
    const refused = await failureOf(
      client.publish({
        ...input('By Dave', { media: [png()], options: { boardId: daveBoard as string } }),
        credentials: { accessToken: readOnly, remoteAccountId: daveBoard as string },
      }),
    );
    expect(refused).toMatchObject({ kind: 'permanent', details: { status: 403 } });
    expect(refused.message).toContain('pins:write');
  });

  it('edits the description, title, link, alt text and board with PATCH', async () => {
    const block = await client.publish(onBoard('Before', { title: 'Old', media: [png()] }));
    await client.edit({
      credentials,
      block,
      content: 'After',
      title: 'New',
      options: { boardId: OTHER_BOARD, link: 'https://example.com/new', altText: 'New alt' },
    });
    expect(sim.pins()[0]).toMatchObject({
      description: 'After',
      title: 'New',
      boardId: OTHER_BOARD,
      link: 'https://example.com/new',
      altText: 'New alt',
    });
    await client.edit({ credentials, block, content: 'Only text' });
    expect(sim.pins()[0]).toMatchObject({
      description: 'Only text',
      title: 'New',
      link: 'https://example.com/new',
    });
    expect(sim.records().map((r) => r.kind)).toEqual(['post', 'edit', 'edit']);
  });

  it('deletes a pin (and a second delete of it succeeds); an edit of a deleted pin is refused', async () => {
    const block = await client.publish(onBoard('Short-lived', { media: [png()] }));
    await client.delete({ credentials, block });
    await client.delete({ credentials, block });
    expect(livePins()).toEqual([]);
    expect(sim.records().map((r) => r.kind)).toEqual(['post', 'delete']);
    const error = await failureOf(client.edit({ credentials, block, content: 'Too late' }));
    expect(error.kind).toBe('permanent');
  });

  it('classifies refusals, outages, expired tokens and rate limits', async () => {
    const refused = await failureOf(client.publish(onBoard('Bad sim:fail', { media: [png()] })));
    expect(refused).toMatchObject({ kind: 'permanent', details: { status: 400 } });
    expect(refused.message).toContain('community guidelines');

    const flaky = await failureOf(client.publish(onBoard('Wobbly sim:flaky', { media: [png()] })));
    expect(flaky).toMatchObject({ kind: 'transient', details: { status: 503, outcomeUnknown: true } });
    await client.publish(onBoard('Wobbly sim:flaky', { media: [png()] }));

    const expired = await failureOf(client.publish(onBoard('Expired sim:reconnect', { media: [png()] })));
    expect(expired).toMatchObject({ kind: 'reconnect', details: { status: 401, tokenExpired: true } });
    const revoked = await failureOf(
      client.publish({
        ...onBoard('Revoked', { media: [png()] }),
        credentials: { ...credentials, accessToken: 'revoked-1' },
      }),
    );
    expect(revoked.kind).toBe('reconnect');

    sim.setRateLimited(30);
    const limited = await failureOf(client.publish(onBoard('Limited', { media: [png()] })));
    expect(limited).toMatchObject({
      kind: 'transient',
      details: { status: 429, rateLimited: true, retryAfterSeconds: 30 },
    });
    sim.setRateLimited(0);

    sim.setSwitches({ dailyLimitSeconds: 7200 });
    const capped = await failureOf(client.publish(onBoard('Capped', { media: [png()] })));
    expect(capped).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
    expect(capped.details.retryAfterSeconds).toBeGreaterThan(7000);
    expect(capped.details.retryAfterSeconds).toBeLessThanOrEqual(7200);
    sim.setSwitches({ dailyLimitSeconds: 0 });
    expect(livePins().map((pin) => pin.description)).toEqual(['Wobbly sim:flaky']);
  });

  it('reads Pinterest’s rate-limit reset in seconds or as an epoch time, else waits a minute', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(pinterestRetryAfter({ 'x-ratelimit-reset': '42' }, now)).toBe(42);
    expect(pinterestRetryAfter({ 'x-ratelimit-reset': String(now.getTime() / 1000 + 90) }, now)).toBe(90);
    expect(pinterestRetryAfter({ 'retry-after': '7', 'x-ratelimit-reset': '42' }, now)).toBe(7);
    expect(pinterestRetryAfter({}, now)).toBe(60);
    expect(
      classifyPinterestFailure({ type: 'transport', sent: true, code: 'ECONNRESET' }).details.outcomeUnknown,
    ).toBe(true);
    expect(
      classifyPinterestFailure({ type: 'transport', sent: false, code: 'ECONNREFUSED' }).details
        .outcomeUnknown,
    ).toBeUndefined();
  });

  it.each(['sim:timeout', 'sim:reset', 'sim:bad-gateway'])(
    'finds the pin after a lost answer (%s) by looking it up, exactly once',
    async (token) => {
      const since = new Date();
      const content = `Lost answer ${token}`;
      const error = await failureOf(client.publish(onBoard(content, { media: [png()] })));
      expect(error).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
      const found = (await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content,
        parent: null,
        since,
      })) as RemoteBlock;
      expect(found.remoteId).toBe(sim.pins()[0]?.id);
      expect(found.remoteUrl).toBe(`https://www.pinterest.com/pin/${found.remoteId}/`);
      expect(sim.records()).toHaveLength(1);
    },
  );

  it('looks up nothing for a pin that was not made, or one made before the send', async () => {
    await client.publish(onBoard('Older pin', { media: [png()] }));
    const later = new Date(Date.now() + 5_000);
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Older pin',
        parent: null,
        since: later,
      }),
    ).toBeNull();
    expect(
      await client.lookup({
        credentials,
        idempotencyKey: 'k',
        content: 'Never pinned',
        parent: null,
        since: new Date(0),
      }),
    ).toBeNull();
  });

  it('reads impressions, saves and pin clicks from the pin’s analytics', async () => {
    const block = await client.publish(onBoard('Measured', { media: [png()] }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reading = await client.metrics({ credentials, block });
    expect(Object.keys(reading).sort()).toEqual(['clicks', 'impressions', 'saves']);
    for (const value of Object.values(reading)) expect(Number.isInteger(value) && value >= 0).toBe(true);
    await client.delete({ credentials, block });
    const gone = await failureOf(client.metrics({ credentials, block }));
    expect(gone).toMatchObject({ kind: 'permanent', details: { status: 404 } });
  });
});
