import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { waitForPost } from '../support/publishing.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await sharedTestRuntime();
  ws = await freshWorkspace(rt, ['instagram', 'facebook', 'x', 'linkedin']);
});
afterAll(async () => {
  await rt?.destroy();
});

const upload = (bytes: Buffer, name: string, type: string) => uploadMedia(rt, ws.key, bytes, name, type);

const post = (
  platform: 'instagram' | 'x' | 'linkedin',
  mediaIds: string[],
  extra: Record<string, unknown> = {},
) =>
  rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'draft',
      channels: [
        { channelId: ws.channels[platform], blocks: [{ content: `media on ${platform}`, mediaIds }] },
      ],
      ...extra,
    },
  });

const expectRefusal = (res: { status: number; body: any }, code: string, field: string) => {
  expect({ status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({
    status: 422,
    code,
    field,
  });
};

describe('media in posts', () => {
  it('checks files against the network: required, accepted types, count, readiness', async () => {
    const jpeg = await upload(mediaFiles.jpeg(), 'a.jpg', 'image/jpeg');
    const png = await upload(mediaFiles.png(), 'b.png', 'image/png');
    const pdf = await upload(mediaFiles.pdf(), 'deck.pdf', 'application/pdf');

    expectRefusal(await post('instagram', []), 'media_required', 'channels[0].blocks[0].mediaIds');
    expect((await post('instagram', [jpeg.id])).status).toBe(201);
    // Instagram takes JPEG but not PNG; X takes no PDF; LinkedIn takes documents.
    expectRefusal(
      await post('instagram', [png.id]),
      'media_type_not_accepted',
      'channels[0].blocks[0].mediaIds[0]',
    );
    expectRefusal(
      await post('x', [jpeg.id, pdf.id]),
      'media_type_not_accepted',
      'channels[0].blocks[0].mediaIds[1]',
    );
    expect((await post('linkedin', [pdf.id])).status).toBe(201);

    const more = [];
    for (let i = 0; i < 4; i++)
      more.push((await upload(mediaFiles.jpeg(100 + i), `${i}.jpg`, 'image/jpeg')).id);
    expectRefusal(await post('x', [jpeg.id, ...more]), 'too_many_media', 'channels[0].blocks[0].mediaIds');

    const pending = await rt.api('/media/uploads', {
      method: 'POST',
      key: ws.key,
      body: { fileName: 'c.jpg', mimeType: 'image/jpeg', size: 100 },
    });
    expectRefusal(
      await post('x', [pending.body.media.id]),
      'media_not_ready',
      'channels[0].blocks[0].mediaIds[0]',
    );
    expectRefusal(
      await post('x', ['med_0000000000000000000000']),
      'media_not_found',
      'channels[0].blocks[0].mediaIds[0]',
    );
  });

  it('hands the network a presigned URL of the file, and a later delete leaves the live post alone', async () => {
    const bytes = mediaFiles.jpeg(4096);
    const file = await upload(bytes, 'live.jpg', 'image/jpeg');
    const created = await post('instagram', [file.id], { intent: 'now' });
    expect(created.status).toBe(201);
    const done = await waitForPost(rt, created.body.id, ws.key);
    expect(done.status).toBe('published');

    // The simulator's inspection API lists what the network received, media included.
    const sim = rt.simulators.byPlatform.get('instagram') as { url: string };
    const { data } = (await (await fetch(`${sim.url}/_sim/instagram/posts`)).json()) as {
      data: { caption: string; attachments: { kind: string; url: string; size: number }[] }[];
    };
    const record = data.find((r) => r.caption === 'media on instagram');
    // Instagram fetched the file from the URL it was handed: a presigned GET of Herald's copy.
    expect(record?.attachments).toEqual([
      { kind: 'image', url: expect.stringMatching(/^http/), size: bytes.length, altText: null },
    ]);
    const fetched = await fetch(record?.attachments[0]?.url as string);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);

    expect((await rt.api(`/media/${file.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    const after = await rt.api(`/posts/${created.body.id}`, { key: ws.key });
    expect(after.body).toMatchObject({
      status: 'published',
      channels: [{ status: 'published', error: null }],
    });
  });

  it('fails the channel of a scheduled post at publish time when its file was deleted meanwhile', async () => {
    const file = await upload(mediaFiles.jpeg(), 'soon.jpg', 'image/jpeg');
    const other = await upload(mediaFiles.jpeg(200), 'kept.jpg', 'image/jpeg');
    const scheduledAt = new Date(Date.now() + 4000).toISOString();
    const res = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'schedule',
        scheduledAt,
        channels: [
          { channelId: ws.channels.instagram, blocks: [{ content: 'deleted file', mediaIds: [file.id] }] },
          { channelId: ws.channels.facebook, blocks: [{ content: 'kept file', mediaIds: [other.id] }] },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect((await rt.api(`/media/${file.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    const done = await waitForPost(rt, res.body.id, ws.key);
    expect(done.status).toBe('partially_published');
    const [instagram, facebook] = done.channels;
    expect(instagram).toMatchObject({ platform: 'instagram', status: 'failed', remoteUrl: null });
    expect(instagram.error).toBe(`The media file ${file.id} was deleted before publication.`);
    expect(facebook).toMatchObject({ platform: 'facebook', status: 'published', error: null });
  });
});
