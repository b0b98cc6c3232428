import { createHash } from 'node:crypto';
import { imageMimeType } from '../../functions/platforms/bluesky/image-header.ts';
import type { SimContext, SimResponse } from '../framework/framework.ts';
import { blueskyErrors, xrpcError } from './errors.ts';
import { base32 } from './ids.ts';
import { jwtSubject, type StoredBlob } from './lexicon.ts';
import type { BlueskyState } from './state.ts';

/** Blobs and video: `uploadBlob`, service auth, the video service's upload and job status. */
export const blueskyBlobRoutes = (s: BlueskyState) => {
  const { blobs, blobUploadLimit, jobs, videoBlobs, blobOwner } = s;

  /** Raw bytes in, a blob ref out; the MIME type is sniffed from the bytes, else the header. */
  const uploadBlob = (ctx: SimContext): SimResponse => {
    const owner = blobOwner(ctx);
    const bytes = ctx.rawBody;
    if (bytes.length > blobUploadLimit) return xrpcError(413, 'PayloadTooLarge', 'request entity too large');
    const declared = (ctx.headers['content-type'] ?? '').split(';')[0]?.trim() || 'application/octet-stream';
    const mimeType = imageMimeType(bytes) ?? declared;
    const cid = `bafkrei${base32(createHash('sha256').update(bytes).digest()).slice(0, 52)}`;
    const blob: StoredBlob = { did: owner, cid, mimeType, size: bytes.length };
    blobs.set(`${owner}/${cid}`, blob);
    return {
      status: 200,
      body: { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: bytes.length } },
    };
  };

  /** A service-auth token for another service (`aud`) and one method (`lxm`), signed by the account. */
  const getServiceAuth = (ctx: SimContext): SimResponse => {
    const aud = ctx.query.get('aud');
    if (!aud) return blueskyErrors.badRequest('Params must have the property "aud"');
    const lxm = ctx.query.get('lxm');
    const iss = jwtSubject(ctx.token as string) ?? `token:${ctx.token}`;
    const exp = Number(ctx.query.get('exp') ?? Math.floor(Date.now() / 1000) + 60);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return {
      status: 200,
      body: { token: `${part({ typ: 'JWT', alg: 'ES256K' })}.${part({ iss, aud, lxm, exp })}.sim-signature` },
    };
  };

  const serviceClaims = (ctx: SimContext) => {
    const parts = (ctx.token ?? '').split('.');
    try {
      return JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as {
        iss?: string;
        aud?: string;
        lxm?: string;
        exp?: number;
      };
    } catch {
      return {};
    }
  };

  /**
   * The video service's upload: a service-auth token for `com.atproto.repo.uploadBlob`, MP4 bytes;
   * answers a job that completes after two status polls (an earlier identical upload: 409
   * `already_exists` with its job id, as the service does).
   */
  const uploadVideo = (ctx: SimContext): SimResponse => {
    const claims = serviceClaims(ctx);
    if (claims.lxm !== 'com.atproto.repo.uploadBlob' || !claims.aud?.startsWith('did:web:'))
      return xrpcError(401, 'AuthRequired', 'Bad service auth token');
    if ((claims.exp ?? 0) * 1000 < Date.now()) return xrpcError(401, 'AuthRequired', 'Service token expired');
    const did = ctx.query.get('did');
    if (!did || !ctx.query.get('name')) return blueskyErrors.badRequest('Params must have "did" and "name"');
    const bytes = ctx.rawBody;
    const cid = `bafkrei${base32(createHash('sha256').update(bytes).digest()).slice(0, 52)}`;
    const jobId = `job_${cid.slice(7, 23)}`;
    if (jobs.has(jobId))
      return xrpcError(409, 'already_exists', 'Video already processed', undefined, { jobId });
    const isMp4 = bytes.length >= 12 && bytes.subarray(4, 8).toString('latin1') === 'ftyp';
    jobs.set(jobId, {
      did,
      polls: 0,
      blob: isMp4 ? { $type: 'blob', ref: { $link: cid }, mimeType: 'video/mp4', size: bytes.length } : null,
      error: isMp4 ? null : 'Unsupported video format',
    });
    return { status: 200, body: { jobStatus: { jobId, did, state: 'JOB_STATE_CREATED' } } };
  };

  const getJobStatus = (ctx: SimContext): SimResponse => {
    const jobId = ctx.query.get('jobId') ?? '';
    const job = jobs.get(jobId);
    if (!job) return xrpcError(404, 'NotFound', 'Job not found');
    job.polls += 1;
    if (job.polls < 2)
      return {
        status: 200,
        body: { jobStatus: { jobId, did: job.did, state: 'JOB_STATE_ENCODING', progress: 50 } },
      };
    if (!job.blob) {
      return {
        status: 200,
        body: {
          jobStatus: {
            jobId,
            did: job.did,
            state: 'JOB_STATE_FAILED',
            error: job.error,
            failureCode: 'validation_failure',
          },
        },
      };
    }
    videoBlobs.add((job.blob.ref as { $link: string }).$link);
    return {
      status: 200,
      body: { jobStatus: { jobId, did: job.did, state: 'JOB_STATE_COMPLETED', blob: job.blob } },
    };
  };

  return { uploadBlob, getServiceAuth, uploadVideo, getJobStatus };
};
