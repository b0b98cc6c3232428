/**
 * A presigned URL works only as long as the credentials that signed it: the media bucket's store
 * (functions/adapters/aws/s3-blob-store.ts) never announces, nor signs for, a lifetime beyond them.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../functions/adapters/aws/s3-blob-store.ts';

const HOUR = 3600;
const role = { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };

const storeWith = (credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider) =>
  new S3BlobStore(
    new S3Client({ region: 'eu-west-1', credentials, requestChecksumCalculation: 'WHEN_REQUIRED' }),
    'media-bucket',
  );

/** When S3 stops honouring a presigned URL: its signing time plus its X-Amz-Expires. */
const validUntil = (url: string): number => {
  const query = new URL(url).searchParams;
  const date = query.get('X-Amz-Date') as string;
  const signedAt = Date.parse(
    `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
  );
  return signedAt + Number(query.get('X-Amz-Expires')) * 1000;
};

const upload = (store: S3BlobStore) =>
  store.uploadUrl('uploads/med_1', { contentType: 'image/png', size: 10, expiresInSeconds: HOUR });

describe('presigned URLs and the credentials that sign them', () => {
  it('announce and sign the requested hour when the credentials outlive it', async () => {
    const expiration = new Date(Date.now() + 6 * HOUR * 1000);
    const before = Date.now();
    const { url, expiresAt } = await upload(storeWith({ ...role, expiration }));
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe(String(HOUR));
    expect(expiresAt.getTime()).toBeGreaterThanOrEqual(before + HOUR * 1000);
    expect(expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + HOUR * 1000);
  });

  it('end both an upload and a download URL when credentials expiring in 20 minutes do', async () => {
    const expiration = new Date(Date.now() + 20 * 60 * 1000);
    const store = storeWith(async () => ({ ...role, expiration }));
    for (const { url, expiresAt } of [await upload(store), await store.downloadUrl('media/med_1', HOUR)]) {
      expect(expiresAt.getTime()).toBeLessThanOrEqual(expiration.getTime());
      expect(expiresAt.getTime()).toBeGreaterThan(expiration.getTime() - 2000);
      // What the signature says agrees with what is announced (to the signature's second).
      expect(Math.abs(validUntil(url) - expiresAt.getTime())).toBeLessThan(1000);
      expect(Number(new URL(url).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(20 * 60);
    }
  });

  it('read the expiry Lambda-style credentials give in the environment (AWS_CREDENTIAL_EXPIRATION)', async () => {
    const names = [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_CREDENTIAL_EXPIRATION',
    ];
    const saved = names.map((name) => [name, process.env[name]] as const);
    const expiration = new Date(Date.now() + 30 * 60 * 1000);
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: role.accessKeyId,
      AWS_SECRET_ACCESS_KEY: role.secretAccessKey,
      AWS_SESSION_TOKEN: role.sessionToken,
      AWS_CREDENTIAL_EXPIRATION: expiration.toISOString(),
    });
    try {
      const { expiresAt } = await upload(storeWith(fromEnv()));
      expect(expiresAt.getTime()).toBeLessThanOrEqual(expiration.getTime());
      expect(expiresAt.getTime()).toBeGreaterThan(expiration.getTime() - 2000);
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('keep the requested lifetime for credentials that never expire (long-term keys, the local stand-in)', async () => {
    const { url, expiresAt } = await storeWith({
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    }).downloadUrl('media/med_1', 15 * 60);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe(String(15 * 60));
    expect(Math.abs(expiresAt.getTime() - (Date.now() + 15 * 60 * 1000))).toBeLessThan(2000);
  });
});
