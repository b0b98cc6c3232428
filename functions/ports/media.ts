import type { MediaInfo } from '../core/posts/model.ts';

/** A file of the media library, as stored. */
export interface MediaRecord extends MediaInfo {
  workspaceId: string;
  accountId: string;
  fileName: string;
  altText: string | null;
  /** S3 object key of the bytes. */
  objectKey: string;
  createdAt: string;
}

/** The media library's records (bytes live in the blob store). */
export interface MediaStore {
  put(record: MediaRecord): Promise<void>;
  /** The workspace's files among `mediaIds`, by id; ids of other workspaces are simply absent. */
  getMany(workspaceId: string, mediaIds: string[]): Promise<Map<string, MediaRecord>>;
}
