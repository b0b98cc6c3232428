import { createHash, createHmac } from 'node:crypto';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, SourceData } from '@smithy/types';

const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** SHA-256 (and HMAC-SHA-256 with a secret) as the SDK's signer asks for it. */
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

/** One path segment as S3's serializer writes a `{Key+}` label (RFC 3986, `!'()*` escaped too). */
const encodeSegment = (segment: string): string =>
  encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface PresignedGetConfig {
  bucket: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /**
   * An S3-compatible endpoint (`http://127.0.0.1:4569`) addressed by path, as the local stand-in
   * needs; absent: the bucket's regional virtual-hosted address on AWS.
   */
  endpoint?: string;
}

/**
 * Presigned GET URLs of one bucket's objects, without the S3 client: the SDK's own presigner
 * (`S3RequestPresigner`, "presign an existing request" in @aws-sdk/s3-request-presigner's README)
 * signs the one request a GetObject makes. The URL is the one `getSignedUrl` gives for a
 * GetObjectCommand (test/unit/s3-presigned-get.test.ts compares them), at a fraction of the
 * bundle: the S3 client with its XML protocol and endpoint rules is about 170 KiB minified.
 */
export const presignedGetUrls = (config: PresignedGetConfig) => {
  const signer = new S3RequestPresigner({
    credentials: config.credentials,
    region: config.region,
    sha256: Sha256,
  });
  const endpoint = config.endpoint ? new URL(config.endpoint) : undefined;
  return async (key: string, options: { expiresIn: number; signingDate?: Date }): Promise<string> => {
    const path = key.split('/').map(encodeSegment).join('/');
    const hostname = endpoint ? endpoint.hostname : `${config.bucket}.s3.${config.region}.amazonaws.com`;
    const port = endpoint?.port ? Number(endpoint.port) : undefined;
    const presigned = await signer.presign(
      {
        method: 'GET',
        protocol: endpoint ? endpoint.protocol : 'https:',
        hostname,
        ...(port !== undefined ? { port } : {}),
        path: endpoint ? `/${encodeSegment(config.bucket)}/${path}` : `/${path}`,
        query: { 'x-id': 'GetObject' },
        headers: { host: port !== undefined ? `${hostname}:${port}` : hostname },
      },
      { expiresIn: options.expiresIn, ...(options.signingDate ? { signingDate: options.signingDate } : {}) },
    );
    // Sorted by name, as the SDK's formatUrl writes them.
    const query = Object.entries(presigned.query ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map(
          (v) => `${encodeSegment(name)}=${encodeSegment(String(v))}`,
        ),
      )
      .join('&');
    return `${presigned.protocol}//${presigned.hostname}${presigned.port ? `:${presigned.port}` : ''}${presigned.path}?${query}`;
  };
};
