/**
 * Presigned GETs without the S3 client (functions/adapters/aws/s3-presigned-get.ts): the URL must
 * be the very one the SDK's getSignedUrl gives for a GetObjectCommand, on AWS (virtual-hosted,
 * with the Lambda role's session token) and on the local stand-in (path-style at its endpoint).
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { presignedGetUrls } from '../../functions/adapters/aws/s3-presigned-get.ts';

const signingDate = new Date('2026-11-26T04:00:00Z');
const role = { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret/with+chars', sessionToken: 'token/+=' };
const KEYS = [
  'media/acct_1/med_1/video.mp4',
  "media/acct_1/med_2/a file (1) with 'quotes'*!.png",
  'media/acct_1/med_3/日本語 ü+é%20.jpg',
  'media/a//double/slash~tilde',
];

describe('presigned GET URLs without the S3 client', () => {
  it.each(['us-east-1', 'eu-west-1', 'ap-southeast-2'])('match getSignedUrl on AWS (%s)', async (region) => {
    const bucket = 'herald-stateful-dev-mediabucket1a2b3c-4d5e6f';
    // Configured as functions/runtime/parts/blobs.ts configures the media bucket's client.
    const sdk = new S3Client({
      region,
      credentials: role,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const ours = presignedGetUrls({ bucket, region, credentials: role });
    for (const key of KEYS) {
      const expected = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: bucket, Key: key }), {
        expiresIn: 3600,
        signingDate,
      });
      expect(await ours(key, { expiresIn: 3600, signingDate })).toBe(expected);
    }
  });

  it('match getSignedUrl on the local stand-in (path-style at its endpoint)', async () => {
    const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    const endpoint = 'http://127.0.0.1:4569';
    const sdk = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const ours = presignedGetUrls({ bucket: 'herald-media', region: 'us-east-1', credentials, endpoint });
    for (const key of KEYS) {
      const expected = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: 'herald-media', Key: key }), {
        expiresIn: 900,
        signingDate,
      });
      expect(await ours(key, { expiresIn: 900, signingDate })).toBe(expected);
    }
  });
});
