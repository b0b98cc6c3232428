import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { createAccount, createApiKey, createWorkspace } from '../../functions/core/admin/admin.ts';
import { MAX_DIRECT_UPLOAD_BYTES } from '../../functions/core/media/formats.ts';
import { objectKeys } from '../../functions/core/media/object-keys.ts';
import { PLANS } from '../../functions/domain/plans.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { type MediaFileKind, mediaFiles } from '../support/media-files.ts';
import { startAndPut as startUpload } from '../support/media-upload.ts';
import { REQUEST_ID, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;

beforeAll(async () => {
  rt = await startTestRuntime();
  ws = await freshWorkspace(rt, []);
});
afterAll(async () => {
  await rt?.destroy();
});

interface FilePart {
  bytes: Buffer;
  name: string;
  type?: string;
  altText?: string;
}

/** POST /v1/media as a browser's FormData would send it. */
const upload = async (part: FilePart, key = ws.key) => {
  const form = new FormData();
  form.set('file', new Blob([part.bytes], part.type === undefined ? {} : { type: part.type }), part.name);
  if (part.altText !== undefined) form.set('altText', part.altText);
  const res = await fetch(`${rt.url}/v1/media`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
};

const usage = async (key = ws.key) => (await rt.api('/usage', { key })).body.storage;
const download = async (url: string) => {
  const res = await fetch(url);
  return {
    status: res.status,
    bytes: Buffer.from(await res.arrayBuffer()),
    type: res.headers.get('content-type'),
  };
};
const expectError = (res: { status: number; body: any }, status: number, code: string, field?: string) => {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
  expect(res.body.error.requestId).toMatch(REQUEST_ID);
  if (field !== undefined) expect(res.body.error.field).toBe(field);
};

/** Starts a presigned upload and PUTs `bytes` to it the way a client would, with plain fetch. */
const startAndPut = (
  declared: { fileName: string; mimeType: string; size: number },
  bytes: Buffer,
  key = ws.key,
) => startUpload(rt, key, declared, bytes);

const CASES: [MediaFileKind, string, string][] = [
  ['jpeg', 'photo.jpg', 'image/jpeg'],
  ['png', 'diagram.png', 'image/png'],
  ['gif', 'loop.gif', 'image/gif'],
  ['webp', 'photo.webp', 'image/webp'],
  ['mp4', 'clip.mp4', 'video/mp4'],
  ['mov', 'clip.mov', 'video/quicktime'],
  ['pdf', 'deck.pdf', 'application/pdf'],
  ['vtt', 'captions.vtt', 'text/vtt'],
  ['srt', 'captions.srt', 'application/x-subrip'],
];

describe('POST /v1/media (multipart)', () => {
  it.each(CASES)(
    'stores a %s file and answers the spec 2.3 record with a working url',
    async (kind, name, type) => {
      const bytes = mediaFiles[kind]();
      const before = Date.now();
      const res = await upload({ bytes, name, type });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'ready',
        fileName: name,
        mimeType: type,
        size: bytes.length,
        altText: null,
      });
      expect(res.body.id).toMatch(/^med_[0-9A-Za-z]{22}$/);
      expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      const file = await download(res.body.url);
      expect(file.status).toBe(200);
      expect(file.bytes.equals(bytes)).toBe(true);
      expect(file.type).toBe(type);
      // Usable at once: GET by id finds it.
      expect((await rt.api(`/media/${res.body.id}`, { key: ws.key })).body.id).toBe(res.body.id);
    },
  );

  it('takes the type from the bytes when the client claims none, and keeps alt text', async () => {
    const res = await upload({
      bytes: mediaFiles.png(),
      name: 'screenshot',
      type: 'application/octet-stream',
      altText: 'A chart',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ mimeType: 'image/png', fileName: 'screenshot', altText: 'A chart' });
  });

  it('refuses a renamed or mislabelled file and stores nothing', async () => {
    const used = (await usage()).bytesUsed;
    const spoofed = await upload({ bytes: mediaFiles.png(), name: 'photo.jpg', type: 'image/jpeg' });
    expectError(spoofed, 422, 'media_type_mismatch', 'file');
    expect(spoofed.body.error.message).toContain('image/png');
    // Right extension, wrong declared type; and an honest type under another type's name.
    expectError(
      await upload({ bytes: mediaFiles.png(), name: 'a.png', type: 'image/jpeg' }),
      422,
      'media_type_mismatch',
      'file',
    );
    expectError(
      await upload({ bytes: mediaFiles.pdf(), name: 'deck.mp4', type: 'application/octet-stream' }),
      422,
      'media_type_mismatch',
      'file',
    );
    // Content of no supported type at all.
    expectError(
      await upload({ bytes: Buffer.from('just some notes\n'), name: 'notes.txt', type: 'text/plain' }),
      415,
      'media_type_unsupported',
      'file',
    );
    expectError(
      await upload({ bytes: Buffer.from('PK\u0003\u0004zipzipzip'), name: 'x.zip', type: 'application/zip' }),
      415,
      'media_type_unsupported',
      'file',
    );
    expect((await usage()).bytesUsed).toBe(used);
  });

  it('refuses a file above the multipart limit with 413 (the upload flow takes it), and a body above the gateway limit', async () => {
    const over = await upload({
      bytes: mediaFiles.mp4(MAX_DIRECT_UPLOAD_BYTES + 1024),
      name: 'big.mp4',
      type: 'video/mp4',
    });
    expectError(over, 413, 'payload_too_large', 'file');
    expect(over.body.error.message).toContain('/v1/media/uploads');
    // 5 MiB of file is more than Lambda takes once base64-encoded; 11 MiB more than API Gateway takes.
    for (const size of [5 * 1024 * 1024, 11 * 1024 * 1024]) {
      const res = await upload({ bytes: mediaFiles.mp4(size), name: 'big.mp4', type: 'video/mp4' });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    }
  });

  it('refuses what is not a one-file form', async () => {
    const json = await rt.api('/media', { method: 'POST', key: ws.key, body: { file: 'x' } });
    expectError(json, 415, 'unsupported_media_type');
    const form = new FormData();
    form.set('caption', 'hello');
    const noFile = await fetch(`${rt.url}/v1/media`, {
      method: 'POST',
      headers: { 'x-api-key': ws.key },
      body: form,
    });
    expectError({ status: noFile.status, body: await noFile.json() }, 400, 'validation_failed', 'caption');
    expectError(
      await upload({ bytes: Buffer.alloc(0), name: 'empty.png', type: 'image/png' }),
      400,
      'validation_failed',
      'file',
    );
  });

  it('needs a write key; a read key lists and reads', async () => {
    const deps = rt.container.deps;
    const { secret } = await createApiKey(deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'read',
      name: 'reader',
    });
    expectError(
      await upload({ bytes: mediaFiles.jpeg(), name: 'a.jpg', type: 'image/jpeg' }, secret),
      403,
      'forbidden',
    );
    expect((await rt.api('/media', { key: secret })).status).toBe(200);
  });
});

describe('presigned upload flow', () => {
  it('uploads a video straight to S3 with plain fetch, then completes it into the library', async () => {
    const bytes = mediaFiles.mp4(3 * 1024 * 1024 + 17);
    const used = (await usage()).bytesUsed;
    const start = await rt.api('/media/uploads', {
      method: 'POST',
      key: ws.key,
      body: { fileName: 'launch.mp4', mimeType: 'video/mp4', size: bytes.length },
    });
    expect(start.status).toBe(201);
    expect(start.body.media).toMatchObject({ status: 'pending', url: null, size: bytes.length });
    expect(start.body.upload).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'video/mp4' } });
    expect(Date.parse(start.body.upload.expiresAt)).toBeGreaterThan(Date.now());
    const id = start.body.media.id;
    // Not uploaded yet: completing says so and keeps the upload open.
    expectError(
      await rt.api(`/media/${id}/complete`, { method: 'POST', key: ws.key }),
      409,
      'media_not_uploaded',
    );
    // A pending upload is not in the library and counts toward nothing.
    expect((await rt.api('/media?limit=100', { key: ws.key })).body.data.map((m: any) => m.id)).not.toContain(
      id,
    );
    const put = await fetch(start.body.upload.url, {
      method: 'PUT',
      headers: start.body.upload.headers,
      body: bytes,
    });
    expect(put.status).toBe(200);
    expect((await usage()).bytesUsed).toBe(used);

    const done = await rt.api(`/media/${id}/complete`, { method: 'POST', key: ws.key });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      id,
      status: 'ready',
      mimeType: 'video/mp4',
      fileName: 'launch.mp4',
      size: bytes.length,
    });
    expect((await download(done.body.url)).bytes.equals(bytes)).toBe(true);
    expect((await usage()).bytesUsed).toBe(used + bytes.length);
    expect((await rt.api('/media?limit=100', { key: ws.key })).body.data[0].id).toBe(id);
    // The upload copy is gone; completing again answers the same file without counting it twice.
    expect(await rt.container.deps.blobs().size(objectKeys.upload(ws.workspaceId, id))).toBeNull();
    const again = await rt.api(`/media/${id}/complete`, { method: 'POST', key: ws.key });
    expect(again.status).toBe(200);
    expect((await usage()).bytesUsed).toBe(used + bytes.length);
  });

  it('refuses and removes a completed upload whose bytes are not the declared type', async () => {
    const bytes = mediaFiles.pdf(4096);
    const used = (await usage()).bytesUsed;
    const start = await startAndPut(
      { fileName: 'clip.mp4', mimeType: 'video/mp4', size: bytes.length },
      bytes,
    );
    const res = await rt.api(`/media/${start.media.id}/complete`, { method: 'POST', key: ws.key });
    expectError(res, 422, 'media_type_mismatch', 'file');
    expectError(await rt.api(`/media/${start.media.id}`, { key: ws.key }), 404, 'not_found');
    expect(
      await rt.container.deps.blobs().size(objectKeys.upload(ws.workspaceId, start.media.id)),
    ).toBeNull();
    expect((await usage()).bytesUsed).toBe(used);
  });

  it('refuses and removes a completed upload whose size is not the declared one', async () => {
    // S3 itself refuses such a PUT (Content-Length is signed); the local stand-in does not check.
    const bytes = mediaFiles.jpeg(2000);
    const start = await startAndPut({ fileName: 'p.jpg', mimeType: 'image/jpeg', size: 2500 }, bytes);
    expectError(
      await rt.api(`/media/${start.media.id}/complete`, { method: 'POST', key: ws.key }),
      422,
      'media_size_mismatch',
      'size',
    );
    expectError(await rt.api(`/media/${start.media.id}`, { key: ws.key }), 404, 'not_found');
    expect(
      await rt.container.deps.blobs().size(objectKeys.upload(ws.workspaceId, start.media.id)),
    ).toBeNull();
  });

  it('checks the declared type, name and size before handing out an upload URL', async () => {
    const start = (body: unknown) => rt.api('/media/uploads', { method: 'POST', key: ws.key, body });
    expectError(
      await start({ fileName: 'a.zip', mimeType: 'application/zip', size: 10 }),
      415,
      'media_type_unsupported',
      'mimeType',
    );
    expectError(
      await start({ fileName: 'a.png', mimeType: 'video/mp4', size: 10 }),
      422,
      'media_type_mismatch',
      'fileName',
    );
    expectError(
      await start({ fileName: 'a.jpg', mimeType: 'image/jpeg', size: 10 * 1024 * 1024 + 1 }),
      413,
      'payload_too_large',
      'size',
    );
    expectError(
      await start({ fileName: 'a.srt', mimeType: 'application/x-subrip', size: 5 * 1024 * 1024 + 1 }),
      413,
      'payload_too_large',
      'size',
    );
    expectError(
      await start({ fileName: 'a.mp4', mimeType: 'video/mp4', size: 100 * 1024 * 1024 + 1 }),
      413,
      'payload_too_large',
      'size',
    );
    expectError(
      await start({ fileName: 'a.mp4', mimeType: 'video/mp4', size: 0 }),
      400,
      'validation_failed',
      'size',
    );
    expectError(
      await start({ fileName: 'a.mp4', mimeType: 'video/mp4', size: 10, extra: 1 }),
      400,
      'validation_failed',
      'extra',
    );
    // 100 MiB exactly is allowed.
    expect((await start({ fileName: 'a.mp4', mimeType: 'video/mp4', size: 100 * 1024 * 1024 })).status).toBe(
      201,
    );
  });

  it('lets an upload never completed expire: it cannot be completed and never counted', async () => {
    const bytes = mediaFiles.png(1000);
    const used = (await usage()).bytesUsed;
    const start = await startAndPut(
      { fileName: 'late.png', mimeType: 'image/png', size: bytes.length },
      bytes,
    );
    const real = rt.container.deps.clock;
    const restore = rt.container.override({
      clock: { now: () => new Date(real.now().getTime() + 25 * 3600_000) },
    });
    try {
      expectError(
        await rt.api(`/media/${start.media.id}/complete`, { method: 'POST', key: ws.key }),
        404,
        'not_found',
      );
      expectError(await rt.api(`/media/${start.media.id}`, { key: ws.key }), 404, 'not_found');
    } finally {
      restore();
    }
    expect((await usage()).bytesUsed).toBe(used);
  });
});

describe('the library', () => {
  it('gives a new url on every response', async () => {
    const created = await upload({ bytes: mediaFiles.gif(), name: 'a.gif', type: 'image/gif' });
    const first = await rt.api(`/media/${created.body.id}`, { key: ws.key });
    const second = await rt.api(`/media/${created.body.id}`, { key: ws.key });
    expect(new Set([created.body.url, first.body.url, second.body.url]).size).toBe(3);
    for (const url of [first.body.url, second.body.url]) expect((await download(url)).status).toBe(200);
  });

  it('lists newest first, paginated with an opaque cursor, each file with a url', async () => {
    const own = await freshWorkspace(rt, []);
    const ids: string[] = [];
    for (const kind of ['jpeg', 'png', 'gif'] as const) {
      ids.push(
        (await upload({ bytes: mediaFiles[kind](), name: `f.${kind === 'jpeg' ? 'jpg' : kind}` }, own.key))
          .body.id,
      );
    }
    const page1 = await rt.api('/media?limit=2', { key: own.key });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((m: any) => m.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.data.every((m: any) => m.url.startsWith('http'))).toBe(true);
    const page2 = await rt.api(`/media?limit=2&cursor=${page1.body.nextCursor}`, { key: own.key });
    expect(page2.body).toMatchObject({ data: [{ id: ids[0] }], nextCursor: null });
    const all = await rt.api('/media', { key: own.key });
    expect(all.body.data).toHaveLength(3);
    expect(all.body.nextCursor).toBeNull();
    expectError(await rt.api('/media?limit=101', { key: own.key }), 400, 'validation_failed', 'limit');
    expectError(await rt.api('/media?cursor=nonsense', { key: own.key }), 400, 'invalid_cursor', 'cursor');
    // Another workspace sees none of it.
    expect((await rt.api('/media', { key: ws.key })).body.data.map((m: any) => m.id)).not.toContain(ids[0]);
    expectError(await rt.api(`/media/${ids[0]}`, { key: ws.key }), 404, 'not_found');
  });

  it('sets and removes alt text with PUT', async () => {
    const created = await upload({ bytes: mediaFiles.jpeg(), name: 'a.jpg', type: 'image/jpeg' });
    const set = await rt.api(`/media/${created.body.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { altText: 'A sunset' },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: created.body.id, altText: 'A sunset' });
    expect((await rt.api(`/media/${created.body.id}`, { key: ws.key })).body.altText).toBe('A sunset');
    const cleared = await rt.api(`/media/${created.body.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { altText: null },
    });
    expect(cleared.body.altText).toBeNull();
    const long = await rt.api(`/media/${created.body.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { altText: 'x'.repeat(1001) },
    });
    expectError(long, 400, 'validation_failed', 'altText');
    const other = await rt.api(`/media/${created.body.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { altText: 'x', fileName: 'b.jpg' },
    });
    expectError(other, 400, 'validation_failed', 'fileName');
  });

  it('frees the storage at once on delete, and the file stops being served', async () => {
    const bytes = mediaFiles.webp(50_000);
    const created = await upload({ bytes, name: 'a.webp', type: 'image/webp' });
    const used = (await usage()).bytesUsed;
    const res = await rt.api(`/media/${created.body.id}`, { method: 'DELETE', key: ws.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.body.id, deleted: true });
    expect((await usage()).bytesUsed).toBe(used - bytes.length);
    expectError(await rt.api(`/media/${created.body.id}`, { key: ws.key }), 404, 'not_found');
    expect((await download(created.body.url)).status).toBe(404);
    expectError(
      await rt.api(`/media/${created.body.id}`, { method: 'DELETE', key: ws.key }),
      404,
      'not_found',
    );
    expect((await usage()).bytesUsed).toBe(used - bytes.length);
  });
});

describe('storage quota', () => {
  it('refuses with 402 what would pass the plan storage limit, storing nothing', async () => {
    const deps = rt.container.deps;
    const account = await createAccount(deps, { name: 'Small', plan: 'free' });
    const space = await createWorkspace(deps, { accountId: account.accountId, name: 'S' });
    const { secret } = await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: space.workspaceId,
      mode: 'live',
      permission: 'write',
      name: 'k',
    });
    const limit = PLANS.free.storageBytes;
    const addStorage = (bytes: number) =>
      deps.table.doc.send(
        new UpdateCommand({
          TableName: deps.table.tableName,
          Key: keys.account(account.accountId),
          UpdateExpression: 'ADD storageBytes :b',
          ExpressionAttributeValues: { ':b': bytes },
        }),
      );
    // Fill the account (as earlier uploads would have) to 3000 bytes below the limit.
    await addStorage(limit - 3000);
    expect(await usage(secret)).toEqual({ bytesUsed: limit - 3000, bytesLimit: limit });

    const refused = await upload({ bytes: mediaFiles.jpeg(3001), name: 'a.jpg', type: 'image/jpeg' }, secret);
    expectError(refused, 402, 'quota_exceeded');
    expect((await rt.api('/media', { key: secret })).body.data).toEqual([]);
    expect((await usage(secret)).bytesUsed).toBe(limit - 3000);
    const start = rt.api('/media/uploads', {
      method: 'POST',
      key: secret,
      body: { fileName: 'v.mp4', mimeType: 'video/mp4', size: 3001 },
    });
    expectError(await start, 402, 'quota_exceeded');

    // A file that fits is counted; then an upload that fit when it started no longer fits at complete.
    const fits = await upload({ bytes: mediaFiles.jpeg(1000), name: 'a.jpg', type: 'image/jpeg' }, secret);
    expect(fits.status).toBe(201);
    expect((await usage(secret)).bytesUsed).toBe(limit - 2000);
    const video = mediaFiles.mp4(1500);
    const pending = await startAndPut(
      { fileName: 'v.mp4', mimeType: 'video/mp4', size: video.length },
      video,
      secret,
    );
    await addStorage(1000);
    expectError(
      await rt.api(`/media/${pending.media.id}/complete`, { method: 'POST', key: secret }),
      402,
      'quota_exceeded',
    );
    expectError(await rt.api(`/media/${pending.media.id}`, { key: secret }), 404, 'not_found');
    expect(
      await rt.container.deps.blobs().size(objectKeys.library(space.workspaceId, pending.media.id)),
    ).toBeNull();
    expect((await usage(secret)).bytesUsed).toBe(limit - 1000);
  });
});
