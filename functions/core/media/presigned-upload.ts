import { ApiError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { MediaRecord } from '../../ports/media.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { cleanFileName, extensionOf, formatBytes, formatOfMimeType, MAX_MEDIA_BYTES } from './formats.ts';
import {
  checkDeclared,
  checkRoom,
  checkSize,
  cleanAltText,
  findMedia,
  type MediaDeps,
  mediaView,
  storageLimitOf,
  UPLOAD_EXPIRY_SECONDS,
  UPLOAD_URL_SECONDS,
} from './media-context.ts';
import { objectKeys } from './object-keys.ts';
import { SNIFF_BYTES, sniffMediaFormat } from './sniff.ts';
import type { StartUploadBody } from './start-upload-body.ts';

const warn = (what: string) => (error: unknown) => logger.warn(what, { error: error as Error });

/**
 * POST /v1/media/uploads: checks what the client declares (type, name, size, room in the plan),
 * records a pending upload that expires after a day, and hands back a presigned PUT for the
 * bytes. Nothing is counted toward storage until `complete`.
 */
export const startUpload = async (deps: MediaDeps, auth: AuthContext, body: StartUploadBody) => {
  const fileName = cleanFileName(body.fileName);
  if (!fileName) throw new ApiError('validation_failed', 'fileName must name a file.', 'fileName');
  const format = formatOfMimeType(body.mimeType);
  if (!format) {
    throw new ApiError(
      'media_type_unsupported',
      `${body.mimeType} is not a supported type (JPEG, PNG, WebP, GIF, MP4, MOV, PDF, VTT, SRT).`,
      'mimeType',
    );
  }
  const extension = extensionOf(fileName);
  if (extension !== undefined && !format.extensions.includes(extension)) {
    throw new ApiError(
      'media_type_mismatch',
      `The file name ${fileName} does not fit ${format.mimeType} (.${format.extensions.join(', .')}).`,
      'fileName',
    );
  }
  if (body.size > MAX_MEDIA_BYTES) {
    throw new ApiError(
      'payload_too_large',
      `No file may be larger than ${formatBytes(MAX_MEDIA_BYTES)}.`,
      'size',
    );
  }
  checkSize(format, body.size, 'size');
  const altText = cleanAltText(body.altText, 'altText');
  checkRoom(await storageLimitOf(deps, auth), body.size);

  const now = deps.clock.now();
  const mediaId = newId('med');
  const record: MediaRecord = {
    mediaId,
    workspaceId: auth.workspaceId,
    accountId: auth.accountId,
    fileName,
    mimeType: format.mimeType,
    size: body.size,
    status: 'pending',
    altText,
    objectKey: objectKeys.upload(auth.workspaceId, mediaId),
    createdAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + UPLOAD_EXPIRY_SECONDS,
  };
  await deps.media.createPending(record);
  const upload = await deps.blobs().uploadUrl(record.objectKey, {
    contentType: format.mimeType,
    size: body.size,
    expiresInSeconds: UPLOAD_URL_SECONDS,
  });
  return {
    media: await mediaView(deps, record),
    upload: {
      url: upload.url,
      method: 'PUT' as const,
      headers: upload.headers,
      expiresAt: upload.expiresAt.toISOString(),
    },
  };
};

/** Removes a refused or abandoned upload: its bytes and its record. */
const discard = async (deps: MediaDeps, record: MediaRecord): Promise<void> => {
  await Promise.all([
    deps.blobs().delete(record.objectKey).catch(warn('Could not remove upload bytes')),
    deps.media.remove(record).catch(warn('Could not remove upload record')),
  ]);
};

/**
 * POST /v1/media/{id}/complete: checks the uploaded object against what was declared (its size,
 * and its real type read from its first bytes), copies it into the library and, in one
 * transaction, marks the file ready and adds its size to the account (refused at the plan's
 * limit). A refused upload is removed, bytes and record. Completing a ready file answers it again.
 */
export const completeUpload = async (deps: MediaDeps, auth: AuthContext, mediaId: string) => {
  const record = await findMedia(deps, auth, mediaId);
  if (record.status === 'ready') return mediaView(deps, record);

  const blobs = deps.blobs();
  const size = await blobs.size(record.objectKey);
  if (size === null) {
    throw new ApiError(
      'media_not_uploaded',
      'PUT the file to the upload URL first, then complete the upload.',
    );
  }
  try {
    if (size !== record.size) {
      throw new ApiError(
        'media_size_mismatch',
        `The upload was declared as ${record.size} bytes but ${size} bytes arrived; start a new upload.`,
        'size',
      );
    }
    const head = await blobs.readStart(record.objectKey, Math.min(SNIFF_BYTES, size));
    checkDeclared(
      await sniffMediaFormat(head),
      { mimeType: record.mimeType, fileName: record.fileName },
      'file',
    );
  } catch (error) {
    await discard(deps, record);
    throw error;
  }

  const storage = await storageLimitOf(deps, auth);
  const libraryKey = objectKeys.library(record.workspaceId, record.mediaId);
  const now = deps.clock.now();
  let completed: boolean;
  try {
    checkRoom(storage, record.size);
    await blobs.copy(record.objectKey, libraryKey, record.mimeType);
    completed = await deps.media.completeUpload(
      record,
      { objectKey: libraryKey, createdAt: now.toISOString(), nowSeconds: Math.floor(now.getTime() / 1000) },
      storage.limit,
    );
  } catch (error) {
    if (error instanceof ApiError && error.code === 'quota_exceeded') {
      await Promise.all([
        blobs.delete(libraryKey).catch(warn('Could not remove refused media bytes')),
        discard(deps, record),
      ]);
    }
    throw error;
  }
  // Lost a race: another call completed it (same library key, keep it) or it was deleted or expired.
  const current = completed ? null : await deps.media.get(record.workspaceId, record.mediaId);
  if (!completed && current?.status !== 'ready') {
    await blobs.delete(libraryKey).catch(warn('Could not remove orphan media bytes'));
    throw new ApiError('not_found', `No media ${mediaId} exists in this workspace.`);
  }
  await blobs.delete(record.objectKey).catch(warn('Could not remove completed upload bytes'));
  return mediaView(
    deps,
    current ?? { ...record, status: 'ready', objectKey: libraryKey, createdAt: now.toISOString() },
  );
};
