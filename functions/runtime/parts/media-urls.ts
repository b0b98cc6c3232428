import { fromEnv } from '@aws-sdk/credential-provider-env';
import { presignedGetUrls } from '../../adapters/aws/s3-presigned-get.ts';
import type { MediaRecord } from '../../ports/media.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

/** A presigned URL a network can fetch a media file from (an hour). */
export type MediaUrl = (record: MediaRecord) => Promise<string>;

/**
 * Presigned GETs of the media bucket, for the networks to fetch media from: the publishing engine
 * needs only these, so it does not carry the S3 client (`blobs`). The URL is the one the S3
 * client's getSignedUrl gives (adapters/aws/s3-presigned-get.ts). On AWS the credentials are the
 * function role's, from the environment; the endpoint follows AWS_ENDPOINT_URL_S3 (or
 * AWS_ENDPOINT_URL), as the SDK's clients do: the local runtime points it at its S3 stand-in, which
 * is addressed by path and knows only its own key pair.
 */
export const mediaUrls = part({
  name: 'media-urls',
  keys: ['mediaUrl'],
  build: (_deps, { decorators, lazy }): { mediaUrl: MediaUrl } => {
    const sign = lazy(() => {
      const region = env.awsRegion;
      if (!region) throw new Error('AWS_REGION is not set: presigned media URLs need the bucket region');
      return presignedGetUrls({
        bucket: env.mediaBucket,
        region,
        credentials:
          env.runtime === 'local' ? { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } : fromEnv(),
        ...env.awsEndpoint('S3'),
      });
    });
    const mediaUrl: MediaUrl = (record) => sign()(record.objectKey, { expiresIn: 3600 });
    return { mediaUrl: decorators.mediaUrl?.(mediaUrl) ?? mediaUrl };
  },
});
