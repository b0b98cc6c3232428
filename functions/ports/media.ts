import type { MediaInfo } from '../domain/post.ts';

/** A file of the media library, as stored. */
export interface MediaRecord extends MediaInfo {
  workspaceId: string;
  accountId: string;
  fileName: string;
  altText: string | null;
  /** S3 object key of the bytes (under `uploads/` while pending, `media/` once ready). */
  objectKey: string;
  /** When the file entered the library (for a pending upload: when the upload started). */
  createdAt: string;
  /** Pending uploads only: epoch seconds after which the upload is void (the table's TTL attribute). */
  expiresAt?: number;
}

/** One page of the library, newest first; `next` is where the following page starts, null at the end. */
export interface MediaPage {
  records: MediaRecord[];
  next: string | null;
}

/** The media library's records (bytes live in the blob store) and the account's storage counter. */
export interface MediaStore {
  /** Saves a record as is, without counting storage (fixtures and tools). */
  put(record: MediaRecord): Promise<void>;
  /** The workspace's files among `mediaIds`, by id; ids of other workspaces are simply absent. */
  getMany(workspaceId: string, mediaIds: string[]): Promise<Map<string, MediaRecord>>;
  /** One file of the workspace (ready or pending), read consistently; null when absent. */
  get(workspaceId: string, mediaId: string): Promise<MediaRecord | null>;
  /** The workspace's ready files, newest first; `after` is a `next` of an earlier page. */
  list(workspaceId: string, options: { limit: number; after?: string }): Promise<MediaPage>;
  /**
   * Saves a ready file and adds its size to the account's storage in one transaction; refuses
   * with `quota_exceeded` (and saves nothing) when the account would pass `storageLimit` bytes.
   */
  createReady(record: MediaRecord, storageLimit: number | null): Promise<void>;
  /** Saves a pending upload; it counts toward nothing until it is completed. */
  createPending(record: MediaRecord): Promise<void>;
  /**
   * Turns a pending, unexpired upload into a ready file at `objectKey` and adds its size to the
   * account's storage in one transaction (`quota_exceeded` past `storageLimit`). False when the
   * record is no longer a pending upload (completed, deleted or expired meanwhile).
   */
  completeUpload(
    record: MediaRecord,
    ready: { objectKey: string; createdAt: string; nowSeconds: number },
    storageLimit: number | null,
  ): Promise<boolean>;
  /** Sets the alt text of a ready file; null when there is no ready file of that id. */
  setAltText(workspaceId: string, mediaId: string, altText: string | null): Promise<MediaRecord | null>;
  /**
   * Deletes the record; a ready file's size leaves the account's storage in the same transaction.
   * False when it was already gone (or changed state meanwhile).
   */
  remove(record: MediaRecord): Promise<boolean>;
}
