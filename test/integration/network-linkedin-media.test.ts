import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createLinkedInClient,
  DEFAULT_LINKEDIN_VERSION,
  type LinkedInClient,
} from '../../functions/platforms/linkedin/client.ts';
import type { MediaForNetwork } from '../../functions/ports/network-client.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import type { SimLinkedInMedia } from '../../simulators/linkedin/media.ts';
import {
  type SimCommentContent,
  type SimPostContent,
  startLinkedInSimulator,
} from '../../simulators/linkedin/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { blockInput, failureOf } from '../support/network.ts';

const credentials = { accessToken: 'li-token-media', remoteAccountId: 'MeDia42' };
const AUTHOR = 'urn:li:person:MeDia42';
const PART = 1_000;

let sim: Simulator;
let client: LinkedInClient;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
let filesUrl = '';
const stored = new Map<string, Buffer>();
const input = blockInput(credentials);

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
/** The headers of a direct call to the simulator's versioned API, as the author. */
const versioned = {
  authorization: `Bearer ${credentials.accessToken}`,
  'content-type': 'application/json',
  'linkedin-version': DEFAULT_LINKEDIN_VERSION,
  'x-restli-protocol-version': '2.0.0',
};
const waitUntil = async (check: () => Promise<boolean>, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const simMedia = async () =>
  ((await (await fetch(`${sim.url}/_sim/linkedin/media`)).json()) as { data: SimLinkedInMedia[] }).data;
const simPosts = async () =>
  (
    (await (await fetch(`${sim.url}/_sim/linkedin/posts`)).json()) as {
      data: {
        urn: string;
        text: string;
        content: SimPostContent | null;
        comments: { urn: string; actor: string; text: string; content: SimCommentContent | null }[];
      }[];
    }
  ).data;

beforeAll(async () => {
  sim = await startLinkedInSimulator({ media: { videoPartBytes: PART, processingMs: 150 } });
  client = createLinkedInClient('linkedin', {
    baseUrl: sim.url,
    timeoutMs: 2_000,
    media: { pollMs: 30, maxProcessingSeconds: 10 },
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

describe('LinkedIn media against the simulator', () => {
  it('posts one image with its alt text (Images API, AVAILABLE before the post)', async () => {
    const png = randomBytes(3_000);
    const block = await client.publish(
      input('One picture', { media: [file('a.png', 'image/png', png, 'A red square')] }),
    );
    const [image] = await simMedia();
    expect(image).toMatchObject({
      kind: 'image',
      owner: AUTHOR,
      status: 'AVAILABLE',
      size: 3_000,
      sha256: sha(png),
    });
    expect(await simPosts()).toEqual([
      {
        urn: block.remoteId,
        author: AUTHOR,
        text: 'One picture',
        deleted: false,
        content: { media: { id: image?.urn, altText: 'A red square' } },
        comments: [],
      },
    ]);
  });

  it('posts several images as multiImage, in order, each with its alt text', async () => {
    const bytes = [randomBytes(1_200), randomBytes(1_300), randomBytes(1_400)];
    await client.publish(
      input('Three pictures', {
        media: [
          file('m1.jpg', 'image/jpeg', bytes[0] as Buffer, 'First'),
          file('m2.png', 'image/png', bytes[1] as Buffer),
          file('m3.gif', 'image/gif', bytes[2] as Buffer, 'Third'),
        ],
      }),
    );
    const media = await simMedia();
    expect(media.map((m) => m.sha256)).toEqual(bytes.map(sha));
    const [post] = await simPosts();
    expect(post?.content).toEqual({
      multiImage: {
        images: [
          { id: media[0]?.urn, altText: 'First' },
          { id: media[1]?.urn },
          { id: media[2]?.urn, altText: 'Third' },
        ],
      },
    });
  });

  it('uploads a video in the parts LinkedIn gives, finalizes with the ETags and waits for AVAILABLE', async () => {
    const mp4 = randomBytes(2 * PART + 345);
    await client.publish(input('A film', { media: [file('v.mp4', 'video/mp4', mp4, 'Ignored for video')] }));
    const [video] = await simMedia();
    expect(video).toMatchObject({ kind: 'video', status: 'AVAILABLE', size: mp4.length, sha256: sha(mp4) });
    expect(video?.parts.map((p) => [p.firstByte, p.lastByte])).toEqual([
      [0, PART - 1],
      [PART, 2 * PART - 1],
      [2 * PART, 2 * PART + 344],
    ]);
    expect(video?.parts.every((p) => typeof p.etag === 'string')).toBe(true);
    expect((await simPosts())[0]?.content).toEqual({ media: { id: video?.urn } });
  });

  it('posts a PDF as a document with a title', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(900)]);
    await client.publish(
      input('Our report', { media: [file('r.pdf', 'application/pdf', pdf, 'Annual report')] }),
    );
    const [doc] = await simMedia();
    expect(doc).toMatchObject({ kind: 'document', status: 'AVAILABLE', sha256: sha(pdf) });
    expect((await simPosts())[0]?.content).toEqual({ media: { id: doc?.urn, title: 'Annual report' } });
  });

  it('a video upload failing half-way is transient, posts nothing, and the retry starts from a clean upload', async () => {
    const mp4 = randomBytes(3 * PART);
    const res = await fetch(`${sim.url}/_sim/linkedin/switches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failPartOnce: 1 }),
    });
    expect(res.status).toBe(204);
    const block = input('Film, second try', { media: [file('w.mp4', 'video/mp4', mp4)] });
    const error = await failureOf(client.publish(block));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(error.message).toMatch(/half-way/);
    expect(await simPosts()).toEqual([]);
    await client.publish(block);
    const media = await simMedia();
    expect(media.map((m) => m.status)).toEqual(['WAITING_UPLOAD', 'AVAILABLE']);
    expect(media[1]?.sha256).toBe(sha(mp4));
    expect((await simPosts())[0]?.content).toEqual({ media: { id: media[1]?.urn } });
  });

  it('refuses what one LinkedIn post cannot carry before uploading anything', async () => {
    const mixed = await failureOf(
      client.publish(
        input('Mixed', {
          media: [file('x.png', 'image/png', randomBytes(10)), file('x.mp4', 'video/mp4', randomBytes(10))],
        }),
      ),
    );
    expect(mixed.kind).toBe('permanent');
    const webp = await failureOf(
      client.publish(input('Webp', { media: [file('x.webp', 'image/webp', randomBytes(10))] })),
    );
    expect(webp.kind).toBe('permanent');
    const post = await client.publish(input('Parent'));
    const parent = { block: post, root: post };
    // A comment takes one image: two files, or a video, are refused before anything is uploaded.
    const two = await failureOf(
      client.publish(
        input('Comment with two files', {
          parent,
          media: [file('c1.png', 'image/png', randomBytes(10)), file('c2.png', 'image/png', randomBytes(10))],
        }),
      ),
    );
    expect(two).toMatchObject({ kind: 'permanent', message: expect.stringMatching(/one image/) });
    const video = await failureOf(
      client.publish(
        input('Comment with a video', { parent, media: [file('c.mp4', 'video/mp4', randomBytes(10))] }),
      ),
    );
    expect(video).toMatchObject({ kind: 'permanent', message: expect.stringMatching(/one image/) });
    expect(await simMedia()).toEqual([]);
  });

  it('a comment (a later block) carries one image: uploaded as the author, AVAILABLE, shown on the comment', async () => {
    const post = await client.publish(input('Post with a pictured comment'));
    const png = randomBytes(2_500);
    const comment = await client.publish(
      input('Look at this', {
        parent: { block: post, root: post },
        media: [file('comment.png', 'image/png', png, 'Alt of a comment image')],
      }),
    );
    const [image] = await simMedia();
    expect(image).toMatchObject({ kind: 'image', owner: AUTHOR, status: 'AVAILABLE', sha256: sha(png) });
    const [stored] = await simPosts();
    expect(stored?.comments).toEqual([
      {
        urn: comment.remoteId,
        actor: AUTHOR,
        text: 'Look at this',
        deleted: false,
        content: [{ entity: { image: image?.urn } }],
      },
    ]);
    // LinkedIn shows the image on the comment when the comments are read.
    const listed = await fetch(
      `${sim.url}/rest/socialActions/${encodeURIComponent(post.remoteId)}/comments`,
      { headers: versioned },
    );
    const { elements } = (await listed.json()) as { elements: { commentUrn: string; content?: unknown }[] };
    expect(elements).toEqual([
      expect.objectContaining({
        commentUrn: comment.remoteId,
        content: [expect.objectContaining({ entity: { image: image?.urn }, type: 'IMAGE' })],
      }),
    ]);
  });

  it('the simulator holds a comment to one AVAILABLE image of its actor, in LinkedIn’s content shape', async () => {
    const post = await client.publish(input('Parent of refused comments'));
    const upload = async (owner: string, put = true) => {
      const init = await fetch(`${sim.url}/rest/images?action=initializeUpload`, {
        method: 'POST',
        headers: versioned,
        body: JSON.stringify({ initializeUploadRequest: { owner } }),
      });
      const { value } = (await init.json()) as { value: { uploadUrl: string; image: string } };
      if (put) {
        const done = await fetch(value.uploadUrl, {
          method: 'PUT',
          headers: { authorization: versioned.authorization },
          body: randomBytes(20),
        });
        expect(done.status).toBe(201);
      }
      return value.image;
    };
    const mine = await upload(AUTHOR);
    const theirs = await upload('urn:li:person:Someone1');
    const waiting = await upload(AUTHOR, false);
    await waitUntil(async () => (await simMedia()).find((m) => m.urn === mine)?.status === 'AVAILABLE');
    await waitUntil(async () => (await simMedia()).find((m) => m.urn === theirs)?.status === 'AVAILABLE');
    const comment = (content: unknown, text = 'With an image') =>
      fetch(`${sim.url}/rest/socialActions/${encodeURIComponent(post.remoteId)}/comments`, {
        method: 'POST',
        headers: versioned,
        body: JSON.stringify({ actor: AUTHOR, object: post.remoteId, message: { text }, content }),
      });
    expect((await comment([{ entity: { image: mine } }, { entity: { image: mine } }])).status).toBe(422);
    expect((await comment({ entity: { image: mine } })).status).toBe(422);
    expect((await comment([{ image: mine }])).status).toBe(422);
    expect((await comment([{ entity: { image: 'urn:li:image:nothing' } }])).status).toBe(422);
    expect((await comment([{ entity: { image: waiting } }])).status).toBe(422);
    expect((await comment([{ entity: { image: theirs } }])).status).toBe(403);
    expect((await simPosts())[0]?.comments).toEqual([]);
    // One image of the actor, even without text, is a comment.
    expect((await comment([{ entity: { image: mine } }], '')).status).toBe(201);
    expect((await simPosts())[0]?.comments.map((c) => c.content)).toEqual([[{ entity: { image: mine } }]]);
  });

  it('the simulator refuses a post with a file that is still PROCESSING, or another owner’s', async () => {
    const headers = {
      authorization: `Bearer ${credentials.accessToken}`,
      'content-type': 'application/json',
      'linkedin-version': DEFAULT_LINKEDIN_VERSION,
      'x-restli-protocol-version': '2.0.0',
    };
    const init = await fetch(`${sim.url}/rest/images?action=initializeUpload`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ initializeUploadRequest: { owner: AUTHOR } }),
    });
    const { value } = (await init.json()) as { value: { uploadUrl: string; image: string } };
    const put = await fetch(value.uploadUrl, {
      method: 'PUT',
      headers: { authorization: headers.authorization },
      body: randomBytes(50),
    });
    expect(put.status).toBe(201);
    const post = (author: string) =>
      fetch(`${sim.url}/rest/posts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          author,
          commentary: 'Too early',
          visibility: 'PUBLIC',
          distribution: { feedDistribution: 'MAIN_FEED' },
          lifecycleState: 'PUBLISHED',
          content: { media: { id: value.image } },
        }),
      });
    const early = await post(AUTHOR);
    expect(early.status).toBe(422);
    expect(((await early.json()) as { message: string }).message).toMatch(/PROCESSING/);
    expect((await post('urn:li:person:Someone')).status).toBe(403);
  });
});
