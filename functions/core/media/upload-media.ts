import { ApiError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { cleanFileName, formatBytes, MAX_DIRECT_UPLOAD_BYTES } from './formats.ts';
import {
  checkDeclared,
  checkRoom,
  checkSize,
  cleanAltText,
  type MediaDeps,
  mediaView,
  storageLimitOf,
} from './media-context.ts';
import { parseMediaForm } from './multipart.ts';
import { objectKeys } from './object-keys.ts';
import { sniffMediaFormat } from './sniff.ts';

/** Room for the multipart framing around the file (boundaries, part headers, an alt text). */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const tooLargeForForm = (size: number) =>
  new ApiError(
    'payload_too_large',
    `POST /v1/media takes files up to ${formatBytes(MAX_DIRECT_UPLOAD_BYTES)} (${MAX_DIRECT_UPLOAD_BYTES} bytes)${size > 0 ? `; this one has ${size} bytes` : ''}. Upload larger files with POST /v1/media/uploads.`,
    'file',
  );

/**
 * POST /v1/media: one small file in a multipart form. The bytes decide the type; the file is
 * stored, then its record and its size on the account are written in one transaction (refused at
 * the plan's storage limit, and the stored bytes removed again).
 */
export const uploadMedia = async (
  deps: MediaDeps,
  auth: AuthContext,
  input: { contentType: string | undefined; body: Uint8Array },
) => {
  if (input.body.length > MAX_DIRECT_UPLOAD_BYTES + FORM_OVERHEAD_BYTES) throw tooLargeForForm(0);
  const form = await parseMediaForm(input.contentType, input.body);
  const size = form.bytes.length;
  if (size === 0) throw new ApiError('validation_failed', 'The file is empty.', 'file');
  if (size > MAX_DIRECT_UPLOAD_BYTES) throw tooLargeForForm(size);
  const fileName = cleanFileName(form.fileName);
  if (!fileName) throw new ApiError('validation_failed', 'The file part needs a file name.', 'file');
  const altText = cleanAltText(form.altText, 'altText');
  const format = checkDeclared(
    await sniffMediaFormat(form.bytes),
    { mimeType: form.declaredType, fileName },
    'file',
  );
  checkSize(format, size, 'file');
  const storage = await storageLimitOf(deps, auth);
  checkRoom(storage, size);

  const mediaId = newId('med');
  const record = {
    mediaId,
    workspaceId: auth.workspaceId,
    accountId: auth.accountId,
    fileName,
    mimeType: format.mimeType,
    size,
    status: 'ready' as const,
    altText,
    objectKey: objectKeys.library(auth.workspaceId, mediaId),
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.blobs().put(record.objectKey, form.bytes, format.mimeType);
  try {
    await deps.media.createReady(record, storage.limit);
  } catch (error) {
    await deps
      .blobs()
      .delete(record.objectKey)
      .catch((cleanup: unknown) =>
        logger.warn('Could not remove refused media bytes', { error: cleanup as Error }),
      );
    throw error;
  }
  return mediaView(deps, record);
};
