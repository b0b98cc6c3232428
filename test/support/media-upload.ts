import { expect } from 'vitest';
import type { TestRuntime } from './runtime.ts';

/** A media record as POST /v1/media and the complete step answer it (the fields tests read). */
export interface UploadedMedia {
  id: string;
  size: number;
  url: string;
}

/** Uploads `bytes` as media of the workspace `key` (POST /v1/media, multipart); expects 201. */
export const uploadMedia = async (
  rt: TestRuntime,
  key: string,
  bytes: Buffer,
  name: string,
  type: string,
  altText?: string,
): Promise<UploadedMedia> => {
  const form = new FormData();
  form.set('file', new Blob([bytes], { type }), name);
  if (altText) form.set('altText', altText);
  const res = await fetch(`${rt.url}/v1/media`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as UploadedMedia;
};

/** What POST /v1/media/uploads answers: the pending media and where to put its bytes. */
export interface StartedUpload {
  media: UploadedMedia & Record<string, unknown>;
  upload: { url: string; headers: Record<string, string> } & Record<string, unknown>;
}

/** Starts a presigned upload of `declared` and PUTs `bytes` to its URL (201, then 200); not completed. */
export const startAndPut = async (
  rt: TestRuntime,
  key: string,
  declared: { fileName: string; mimeType: string; size: number },
  bytes: Buffer,
): Promise<StartedUpload> => {
  const start = await rt.api('/media/uploads', { method: 'POST', key, body: declared });
  expect(start.status).toBe(201);
  const put = await fetch(start.body.upload.url, {
    method: 'PUT',
    headers: start.body.upload.headers,
    body: bytes,
  });
  expect(put.status).toBe(200);
  return start.body as StartedUpload;
};

/** A file over the direct-upload cap: through a presigned upload, then completed. */
export const uploadLargeMedia = async (
  rt: TestRuntime,
  key: string,
  bytes: Buffer,
  name: string,
  type: string,
): Promise<UploadedMedia> => {
  const start = await startAndPut(rt, key, { fileName: name, mimeType: type, size: bytes.length }, bytes);
  const done = await rt.api(`/media/${start.media.id}/complete`, { method: 'POST', key });
  expect(done.status).toBe(200);
  return done.body as UploadedMedia;
};
