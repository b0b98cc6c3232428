/**
 * Where media bytes live in the bucket. Uploads not yet completed live under their own prefix,
 * which an S3 lifecycle rule empties after a day (see lib/constructs/media-storage.ts), so an
 * upload never completed leaves nothing behind; `complete` copies the bytes to the library.
 */
export const UPLOADS_PREFIX = 'uploads/';
export const LIBRARY_PREFIX = 'media/';

export const objectKeys = {
  /** A file of the library. */
  library: (workspaceId: string, mediaId: string) => `${LIBRARY_PREFIX}${workspaceId}/${mediaId}`,
  /** Where the client PUTs the bytes of an upload in progress. */
  upload: (workspaceId: string, mediaId: string) => `${UPLOADS_PREFIX}${workspaceId}/${mediaId}`,
};
