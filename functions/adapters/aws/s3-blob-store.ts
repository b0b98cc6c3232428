import { randomBytes } from 'node:crypto';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobStore, PresignedUrl } from '../../ports/blob-store.ts';

const isNotFound = (error: unknown): boolean =>
  error instanceof Error &&
  (error.name === 'NotFound' ||
    error.name === 'NoSuchKey' ||
    (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404);

/**
 * Media bytes in one S3 bucket. The client must be built with `requestChecksumCalculation:
 * 'WHEN_REQUIRED'`: otherwise the SDK signs a CRC32 of the empty body into presigned PUT URLs and
 * S3 refuses the real upload.
 */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
    );
  }

  async size(key: string): Promise<number | null> {
    try {
      const out = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async readStart(key: string, length: number): Promise<Uint8Array> {
    const out = await this.s3.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${length - 1}` }),
    );
    const bytes = (await out.Body?.transformToByteArray()) ?? new Uint8Array();
    // A server that ignores Range sends everything: keep only what was asked for.
    return bytes.length > length ? bytes.subarray(0, length) : bytes;
  }

  async copy(fromKey: string, toKey: string, contentType: string): Promise<void> {
    await this.s3.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: toKey,
        CopySource: `${this.bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}`,
        ContentType: contentType,
        MetadataDirective: 'REPLACE',
      }),
    );
  }

  async delete(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /**
   * How long a URL signed now works: the requested lifetime, or less when the credentials it is
   * signed with expire sooner (a presigned URL dies with them: ExpiredToken). The function role's
   * credentials on Lambda are temporary; the client refreshes them 5 minutes before they expire, so
   * `credentials()` gives the very identity getSignedUrl signs with. Credentials that do not say
   * when they expire (no AWS_CREDENTIAL_EXPIRATION beside them) leave the lifetime as asked.
   */
  private async lifetime(requestedSeconds: number): Promise<{ seconds: number; expiresAt: Date }> {
    const now = Date.now();
    const { expiration } = await this.s3.config.credentials();
    const left = expiration ? Math.floor((expiration.getTime() - now) / 1000) : requestedSeconds;
    const seconds = Math.max(1, Math.min(requestedSeconds, left));
    return { seconds, expiresAt: new Date(now + seconds * 1000) };
  }

  async downloadUrl(key: string, expiresInSeconds: number): Promise<PresignedUrl> {
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key });
    // X-Amz-Date has one-second resolution, so two answers in the same second would carry the
    // same URL; a signed random parameter (S3 ignores unknown ones) makes every URL new.
    const nonce = randomBytes(8).toString('hex');
    command.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { query?: Record<string, string> };
        if (request.query) request.query['herald-nonce'] = nonce;
        return next(args);
      },
      { step: 'build', name: 'heraldUrlNonce' },
    );
    const { seconds, expiresAt } = await this.lifetime(expiresInSeconds);
    return { url: await getSignedUrl(this.s3, command, { expiresIn: seconds }), expiresAt };
  }

  async uploadUrl(
    key: string,
    options: { contentType: string; size: number; expiresInSeconds: number },
  ): Promise<PresignedUrl & { headers: Record<string, string> }> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ContentType: options.contentType,
      ContentLength: options.size,
    });
    const { seconds, expiresAt } = await this.lifetime(options.expiresInSeconds);
    const url = await getSignedUrl(this.s3, command, {
      expiresIn: seconds,
      // Content-Length is signed anyway; signing Content-Type too makes S3 store the declared type.
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, expiresAt, headers: { 'Content-Type': options.contentType } };
  }
}
