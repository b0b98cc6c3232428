import { S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../adapters/aws/s3-blob-store.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

export interface BlobDeps {
  s3: () => S3Client;
  /** Media bytes (the media bucket). */
  blobs: () => BlobStore;
}

/** S3: the media bucket (the networks' presigned GETs are `mediaUrls`, without the client). */
export const blobs = part({
  name: 'blobs',
  keys: ['s3', 'blobs'],
  build: (_deps, { decorated, lazy }): BlobDeps => {
    // The local S3 stand-in serves buckets by path, not by host name, and knows only its own key
    // pair (LOCAL_CREDENTIALS of adapters/local/aws-services.ts). Checksums only where S3 requires
    // them: otherwise the SDK signs a CRC32 of the empty body into presigned PUTs and S3 refuses the upload.
    const s3 = lazy(() =>
      decorated(
        new S3Client({
          ...env.awsEndpoint('S3'),
          ...(env.runtime === 'local'
            ? { forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
            : {}),
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }),
      ),
    );
    return {
      s3,
      blobs: lazy(() => new S3BlobStore(s3(), env.mediaBucket)),
    };
  },
});
