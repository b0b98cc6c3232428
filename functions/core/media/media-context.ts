import { ApiError } from '../../domain/errors.ts';
import { planLimits } from '../../domain/plans.ts';
import type { AccountStore } from '../../ports/accounts.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MediaRecord, MediaStore } from '../../ports/media.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { fileNameAgrees, formatBytes, type MediaFormat, mimeTypeAgrees } from './formats.ts';

/** What the media use cases need. */
export interface MediaDeps {
  accounts: AccountStore;
  media: MediaStore;
  blobs: () => BlobStore;
  clock: Clock;
}

/** How long a `url` of a media response works: short, it is handed out on every read. */
export const MEDIA_URL_SECONDS = 15 * 60;
/** How long the presigned PUT of an upload works (an hour: 100 MiB over a slow line). */
export const UPLOAD_URL_SECONDS = 60 * 60;
/** How long a started upload may wait for `complete` before it is void (the record's TTL). */
export const UPLOAD_EXPIRY_SECONDS = 24 * 60 * 60;

const MEDIA_ID = /^med_[0-9A-Za-z]{22}$/;

/** A file (ready or pending) of the caller's workspace; another workspace's id is as absent as a missing one. */
export const findMedia = async (
  deps: Pick<MediaDeps, 'media' | 'clock'>,
  auth: AuthContext,
  mediaId: string,
): Promise<MediaRecord> => {
  const record = MEDIA_ID.test(mediaId) ? await deps.media.get(auth.workspaceId, mediaId) : null;
  // DynamoDB deletes expired items lazily (within days): an expired upload is already gone to clients.
  const expired =
    record?.status === 'pending' && (record.expiresAt ?? 0) <= Math.floor(deps.clock.now().getTime() / 1000);
  if (!record || expired) throw new ApiError('not_found', `No media ${mediaId} exists in this workspace.`);
  return record;
};

/** The plan's storage limit of the caller's account (null: unlimited). */
export const storageLimitOf = async (deps: Pick<MediaDeps, 'accounts'>, auth: AuthContext) => {
  const account = await deps.accounts.getAccount(auth.accountId);
  if (!account) throw new ApiError('unauthorized');
  return { limit: planLimits(account.plan).storageBytes, used: account.storageBytes ?? 0 };
};

/**
 * Refuses early, before any byte is stored, a file that cannot fit the plan's storage. The
 * transaction that counts the file checks again: this read only saves a wasted upload.
 */
export const checkRoom = (storage: { limit: number | null; used: number }, size: number): void => {
  if (storage.limit !== null && storage.used + size > storage.limit) {
    throw new ApiError(
      'quota_exceeded',
      `Storing this file (${size} bytes) would pass the plan's storage limit: ${storage.used} of ${storage.limit} bytes are used; delete files to make room.`,
    );
  }
};

/** 413 when a file is larger than its type allows. */
export const checkSize = (format: MediaFormat, size: number, field: string): void => {
  if (size > format.maxBytes) {
    throw new ApiError(
      'payload_too_large',
      `${format.mimeType} files may be at most ${formatBytes(format.maxBytes)} (${format.maxBytes} bytes); this one has ${size} bytes.`,
      field,
    );
  }
};

/**
 * A media record as the API returns it (spec 2.3) plus `status`, and for a ready file the time
 * its `url` stops working. `url` is presigned anew on every response and never stored; a pending
 * upload has no url and no createdAt yet, but says when it expires.
 */
export const mediaView = async (deps: Pick<MediaDeps, 'blobs'>, record: MediaRecord) => {
  const common = {
    id: record.mediaId,
    status: record.status,
    fileName: record.fileName,
    mimeType: record.mimeType,
    size: record.size,
    altText: record.altText,
  };
  if (record.status === 'pending') {
    return {
      ...common,
      url: null,
      urlExpiresAt: null,
      createdAt: null,
      expiresAt: new Date((record.expiresAt ?? 0) * 1000).toISOString(),
    };
  }
  // The signature's clock is the system's, whatever clock the use cases run on.
  const download = await deps.blobs().downloadUrl(record.objectKey, MEDIA_URL_SECONDS);
  return {
    ...common,
    url: download.url,
    urlExpiresAt: download.expiresAt.toISOString(),
    createdAt: record.createdAt,
  };
};

/** Most characters of alt text, as for `mediaAltText` on posts (Pinterest's 500 and X's 1000 fit). */
export const MAX_ALT_TEXT_LENGTH = 1000;

/** Alt text as kept: null for none or blank; refused beyond the limit. */
export const cleanAltText = (value: string | null | undefined, field: string): string | null => {
  if (value === null || value === undefined || value.trim() === '') return null;
  const length = [...value].length;
  if (length > MAX_ALT_TEXT_LENGTH) {
    throw new ApiError(
      'validation_failed',
      `Alt text may be at most ${MAX_ALT_TEXT_LENGTH} characters; this one has ${length}.`,
      field,
    );
  }
  return value;
};

/**
 * What the client said about a file must agree with what its bytes are: an unknown content is
 * `media_type_unsupported` (415), a declared type or a file name extension of another type is
 * `media_type_mismatch` (422).
 */
export const checkDeclared = (
  real: MediaFormat | undefined,
  declared: { mimeType: string; fileName: string },
  field: string,
): MediaFormat => {
  if (!real) {
    throw new ApiError(
      'media_type_unsupported',
      'The content of the file is none of the supported types (JPEG, PNG, WebP, GIF, MP4, MOV, PDF, VTT, SRT).',
      field,
    );
  }
  if (!mimeTypeAgrees(declared.mimeType, real)) {
    throw new ApiError(
      'media_type_mismatch',
      `The file is declared as ${declared.mimeType} but its content is ${real.mimeType}.`,
      field,
    );
  }
  if (!fileNameAgrees(declared.fileName, real)) {
    throw new ApiError(
      'media_type_mismatch',
      `The file name ${declared.fileName} does not fit its content, which is ${real.mimeType} (.${real.extensions.join(', .')}).`,
      field,
    );
  }
  return real;
};
