import { objectOf, type SimContext, SimHttpError, type SimResponse } from '../framework/framework.ts';
import { blueskyErrors, xrpcError } from './errors.ts';
import { jwtSubject, type StoredBlob, type StoredRecord } from './lexicon.ts';
import type { BlueskySimulatorOptions } from './records.ts';

/** The Bluesky simulator's in-memory PDS: records, blobs, video jobs, the fault switch, and the checks every route shares. */
export const blueskyState = (options: BlueskySimulatorOptions) => {
  /** `did/collection/rkey` → record. */
  const records = new Map<string, StoredRecord>();
  /** `did/cid` → blob. */
  const blobs = new Map<string, StoredBlob>();
  const blobUploadLimit = options.blobUploadLimit ?? 5_000_000;
  /** The fault switch: how many next createRecord calls store their record, then answer 500. */
  const faults = { failAfterStore: 0 };
  /** Video service: job id → job; processed video blobs by cid. */
  const jobs = new Map<
    string,
    { did: string; polls: number; blob: Record<string, unknown> | null; error: string | null }
  >();
  const videoBlobs = new Set<string>();
  /** What the AppView knows of each account: its handle and display name, by DID. */
  const profiles = new Map<string, { handle: string; displayName?: string }>();
  /** Posts the viewer may not see (a block, a takedown): the common comment hook's `hidden`. */
  const blocked = new Set<string>();

  /** The JSON input with these string properties, or throws the PDS's 400. */
  const requireFields = (ctx: SimContext, names: string[]): Record<string, unknown> => {
    const body = objectOf(ctx.body);
    if (!body) throw new SimHttpError(blueskyErrors.badRequest('Input must be an object'));
    for (const name of names) {
      if (typeof body[name] !== 'string') {
        throw new SimHttpError(blueskyErrors.badRequest(`Input must have the property "${name}"`));
      }
    }
    return body;
  };

  /** Blobs belong to the uploading account: the token's DID, or the token itself when it is not a JWT. */
  const blobOwner = (ctx: SimContext) => jwtSubject(ctx.token as string) ?? `token:${ctx.token}`;

  const authorize = (ctx: SimContext, did: string): SimResponse | null => {
    const subject = jwtSubject(ctx.token as string);
    return subject !== null && subject !== did
      ? xrpcError(401, 'AuthRequired', 'Authentication Required')
      : null;
  };

  return {
    records,
    blobs,
    blobUploadLimit,
    faults,
    jobs,
    videoBlobs,
    profiles,
    blocked,
    requireFields,
    blobOwner,
    authorize,
  };
};

export type BlueskyState = ReturnType<typeof blueskyState>;
