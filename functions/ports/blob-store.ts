/** The bytes of media files (S3 on AWS, an S3-compatible server locally). */
export interface BlobStore {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** The object's size in bytes, or null when there is no such object. */
  size(key: string): Promise<number | null>;
  /** The first `length` bytes of the object (all of it when shorter). */
  readStart(key: string, length: number): Promise<Uint8Array>;
  /** Copies an object inside the store (server side: the bytes do not pass through the caller). */
  copy(fromKey: string, toKey: string, contentType: string): Promise<void>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /**
   * A presigned GET valid for `expiresInSeconds`, or until the signing credentials expire when
   * sooner (`expiresAt` says which), different on every call.
   */
  downloadUrl(key: string, expiresInSeconds: number): Promise<PresignedUrl>;
  /**
   * A presigned PUT valid as `downloadUrl`'s. The request must carry `headers` and exactly `size`
   * bytes: both are part of the signature, so S3 refuses anything else.
   */
  uploadUrl(
    key: string,
    options: { contentType: string; size: number; expiresInSeconds: number },
  ): Promise<PresignedUrl & { headers: Record<string, string> }>;
}

/** A presigned URL and the moment it stops working (what a client is told). */
export interface PresignedUrl {
  readonly url: string;
  readonly expiresAt: Date;
}
