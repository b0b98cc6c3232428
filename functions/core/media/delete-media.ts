import { ApiError } from '../../domain/errors.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { findMedia, type MediaDeps } from './media-context.ts';

/**
 * DELETE /v1/media/{id}: removes the record and, in the same transaction, its size from the
 * account's storage, then the bytes. Posts already live keep their copy on the networks; a post
 * not yet published that uses the file fails on that channel at publish time. Deleting a pending
 * upload cancels it.
 */
export const deleteMedia = async (deps: MediaDeps, auth: AuthContext, mediaId: string) => {
  const record = await findMedia(deps, auth, mediaId);
  if (!(await deps.media.remove(record))) {
    throw new ApiError('not_found', `No media ${mediaId} exists in this workspace.`);
  }
  // After the record: a failure here leaves unreachable bytes, never a record without bytes.
  await deps
    .blobs()
    .delete(record.objectKey)
    .catch((error: unknown) =>
      logger.warn('Could not remove deleted media bytes', { error: error as Error }),
    );
  return { id: mediaId, deleted: true };
};
