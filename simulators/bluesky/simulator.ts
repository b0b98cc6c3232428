import { createHash } from 'node:crypto';
import { imageMimeType } from '../../functions/platforms/bluesky/image-header.ts';
import {
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimResponse,
  type Simulator,
  startSimulator,
} from '../framework/framework.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { getPosts } from './metrics.ts';
import { blueskyOAuthSimulator } from './oauth.ts';

/**
 * A local Bluesky PDS for `app.bsky.feed.post` records: `com.atproto.repo.createRecord`,
 * `getRecord` and `deleteRecord` over XRPC, `com.atproto.repo.uploadBlob` and
 * `com.atproto.identity.resolveHandle`, `com.atproto.server.getServiceAuth`, and the video
 * service's `app.bsky.video.uploadVideo` / `getJobStatus` (a job completes after two polls; a
 * repeated upload is 409 `already_exists` with its job), with the PDS's error bodies (`{ error, message }`),
 * its record-key checks (the syntax, and a TID for posts: `app.bsky.feed.post` declares
 * `key: tid`), lexicon checks on posts (300 graphemes and 3000 UTF-8 bytes, datetime, at most 3
 * langs, strong refs, facets, `app.bsky.embed.images` with at most 4 images of at most
 * 2,000,000 bytes each, every blob uploaded first by the same account), HTTP 500 "There is already
 * a value at key" for a taken record key (as a PDS answers it), 413 for a blob over the upload
 * limit, `ratelimit-*` headers on 429, and the
 * PDS's token answers (an expired or unverifiable access JWT is HTTP 400 `ExpiredToken` /
 * `InvalidToken`; a missing one 401 `AuthMissing`). A repo may be a DID or a handle (a handle maps
 * to a stable `did:plc`). When the token is a JWT, its `sub` must be the repo's DID.
 */

const S32 = 'abcdefghijklmnopqrstuvwxyz234567';
const TID_CHARS = '234567abcdefghijklmnopqrstuvwxyz';

const base32 = (bytes: Buffer) => {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += S32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += S32[(value << (5 - bits)) & 31];
  return out;
};

/** A CID-shaped string (CIDv1, dag-cbor, sha-256, base32) from the record's JSON. */
const cidOf = (value: unknown) =>
  `bafyrei${base32(createHash('sha256').update(JSON.stringify(value)).digest()).slice(0, 52)}`;

/** The record-key syntax (atproto spec): 1-512 of `A-Za-z0-9 . - _ : ~`, not `.` or `..`. */
export const isValidRecordKey = (rkey: string) =>
  /^[A-Za-z0-9._:~-]{1,512}$/.test(rkey) && rkey !== '.' && rkey !== '..';

/** The DID a handle resolves to in the simulator. */
export const simDidForHandle = (handle: string) =>
  `did:plc:${base32(createHash('sha256').update(handle.toLowerCase()).digest()).slice(0, 24)}`;

const didOf = (repo: string) => (repo.startsWith('did:') ? repo : simDidForHandle(repo));

/** A TID: 13 base32-sortable characters, the top bit zero. */
const isSimTid = (rkey: string) => /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(rkey);

let tidClock = 0;
const nextTid = () => {
  const micros = Math.max(Date.now() * 1000, tidClock + 1);
  tidClock = micros;
  let value = (BigInt(micros) << 10n) | 7n;
  let key = '';
  for (let i = 0; i < 13; i++) {
    key = (TID_CHARS[Number(value & 31n)] as string) + key;
    value >>= 5n;
  }
  return key;
};

const xrpcError = (
  status: number,
  error: string,
  message: string,
  headers?: SimResponse['headers'],
  extra?: Record<string, unknown>,
): SimResponse => ({
  status,
  body: { error, message, ...(extra ?? {}) },
  ...(headers ? { headers } : {}),
});

export const blueskyErrors: SimErrorBodies = {
  unauthorized: (reason) =>
    reason === 'missing'
      ? xrpcError(401, 'AuthMissing', 'Authentication Required')
      : reason === 'expired'
        ? xrpcError(400, 'ExpiredToken', 'Token has expired')
        : xrpcError(400, 'InvalidToken', 'Token could not be verified'),
  refused: () =>
    xrpcError(400, 'InvalidRequest', 'Invalid app.bsky.feed.post record: rejected by the PDS (sim:fail)'),
  unavailable: () => xrpcError(503, 'InternalServerError', 'Service temporarily unavailable'),
  // The PDS's write limits per account (docs.bsky.app, "Rate Limits"): 5,000 points an hour and
  // 35,000 a day; the headers name the limit that is spent (the daily one for a spent daily cap or
  // a wait of over an hour). Both announce their reset.
  rateLimited: (resetAt, seconds, kind) => {
    const [limit, window] = kind === 'daily' || seconds > 3600 ? [35_000, 86_400] : [5_000, 3_600];
    return xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded', {
      'ratelimit-limit': limit,
      'ratelimit-remaining': 0,
      'ratelimit-reset': Math.ceil(resetAt.getTime() / 1000),
      'ratelimit-policy': `${limit};w=${window}`,
    });
  },
  badRequest: (message) => xrpcError(400, 'InvalidRequest', message),
  // A request its Lexicon refuses: the PDS answers InvalidRequest with the validator's message
  // (xrpc-server wraps lexicon's ValidationError: `Input must have the property "repo"`).
  invalidRequest: (issue) => xrpcError(400, 'InvalidRequest', issue.message),
  notFound: () => xrpcError(404, 'XRPCNotSupported', 'XRPCNotSupported'),
};

interface StoredRecord {
  uri: string;
  cid: string;
  value: Record<string, unknown>;
}

const isAtUri = (value: unknown): value is string =>
  typeof value === 'string' && /^at:\/\/[^/]+\/[^/]+\/[^/]+$/.test(value);

const graphemes = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length;

/** An uploaded blob as the PDS keeps it until a record references it. */
export interface StoredBlob {
  /** The uploader: its DID, or `token:<token>` for a token that is not a JWT. */
  did: string;
  cid: string;
  mimeType: string;
  size: number;
}

/** The largest video `app.bsky.embed.video` takes (lexicon `maxSize`). */
export const VIDEO_MAX_BYTES = 100_000_000;

/** The largest image `app.bsky.embed.images` takes (lexicon `maxSize`). */
export const IMAGE_MAX_BYTES = 2_000_000;

const isNonNegativeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

const isDid = (value: unknown) => typeof value === 'string' && /^did:[a-z]+:[a-zA-Z0-9._:%-]+$/.test(value);

const isUri = (value: unknown) => typeof value === 'string' && /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(value);

/**
 * `app.bsky.richtext.facet` checks. The lexicon part (byte slices of non-negative integers, a
 * known feature with a DID, a URI or a tag of at most 64 graphemes / 640 characters) is what a PDS
 * validates. The range part is this simulator's own strictness: a PDS stores a facet whose range
 * falls outside the text or does not cut it at a character boundary, and the app then shows it
 * unlinked or linked on the wrong characters; here such a facet is refused, so a client that
 * counts UTF-16 units instead of UTF-8 bytes fails in tests.
 */
const facetProblem = (text: string, facets: unknown, prefix: string): string | null => {
  if (!Array.isArray(facets)) return `${prefix} Record/facets must be an array`;
  const bytes = Buffer.from(text, 'utf8');
  const isBoundary = (at: number) => at === bytes.length || ((bytes[at] as number) & 0xc0) !== 0x80;
  for (const [i, value] of facets.entries()) {
    const path = `Record/facets/${i}`;
    const facet = objectOf(value);
    if (!facet) return `${prefix} ${path} must be an object`;
    const index = objectOf(facet.index);
    if (!index) return `${prefix} ${path} must have the property "index"`;
    for (const key of ['byteStart', 'byteEnd'] as const) {
      if (!isNonNegativeInteger(index[key]))
        return `${prefix} ${path}/index/${key} must be an integer of at least 0`;
    }
    const start = index.byteStart as number;
    const end = index.byteEnd as number;
    if (start >= end || end > bytes.length || !isBoundary(start) || !isBoundary(end)) {
      return `${prefix} ${path}/index is not a range of the text (bytes ${start}-${end} of ${bytes.length})`;
    }
    if (!Array.isArray(facet.features)) return `${prefix} ${path} must have the property "features"`;
    for (const [j, raw] of facet.features.entries()) {
      const feature = objectOf(raw);
      const at = `${path}/features/${j}`;
      if (!feature) return `${prefix} ${at} must be an object`;
      switch (feature.$type) {
        case 'app.bsky.richtext.facet#mention':
          if (!isDid(feature.did)) return `${prefix} ${at}/did must be a valid did`;
          break;
        case 'app.bsky.richtext.facet#link':
          if (!isUri(feature.uri)) return `${prefix} ${at}/uri must be a uri`;
          break;
        case 'app.bsky.richtext.facet#tag':
          if (typeof feature.tag !== 'string') return `${prefix} ${at} must have the property "tag"`;
          if (feature.tag.length > 640) return `${prefix} ${at}/tag must not be longer than 640 characters`;
          if (graphemes(feature.tag) > 64) return `${prefix} ${at}/tag must not be longer than 64 graphemes`;
          break;
        default:
          return `${prefix} ${at} $type must be one of app.bsky.richtext.facet#mention, app.bsky.richtext.facet#link, app.bsky.richtext.facet#tag`;
      }
    }
  }
  return null;
};

/** `app.bsky.embed.images` checks: blob refs to this account's uploads, sizes, alt text, aspect ratio. */
const imagesProblem = (
  embed: Record<string, unknown>,
  prefix: string,
  blobOf: (cid: string) => StoredBlob | undefined,
): { status: number; error: string; message: string } | null => {
  const invalid = (message: string) => ({
    status: 400,
    error: 'InvalidRequest',
    message: `${prefix} ${message}`,
  });
  if (!Array.isArray(embed.images)) return invalid('Record/embed must have the property "images"');
  if (embed.images.length > 4) return invalid('Record/embed/images must not have more than 4 elements');
  for (const [i, raw] of embed.images.entries()) {
    const path = `Record/embed/images/${i}`;
    const image = objectOf(raw);
    if (!image) return invalid(`${path} must be an object`);
    if (typeof image.alt !== 'string') return invalid(`${path} must have the property "alt"`);
    const blob = objectOf(image.image);
    const link = objectOf(blob?.ref)?.$link;
    if (blob?.$type !== 'blob' || typeof link !== 'string' || !isNonNegativeInteger(blob.size)) {
      return invalid(`${path}/image should be a blob ref`);
    }
    if (typeof blob.mimeType !== 'string' || !blob.mimeType.startsWith('image/')) {
      return invalid(`${path}/image mime type should be image/* (got ${String(blob.mimeType)})`);
    }
    if (blob.size > IMAGE_MAX_BYTES) {
      return invalid(`${path}/image blob too big (maximum ${IMAGE_MAX_BYTES}, got ${blob.size})`);
    }
    if (image.aspectRatio !== undefined) {
      const ratio = objectOf(image.aspectRatio);
      if (!ratio || !Number.isInteger(ratio.width) || !Number.isInteger(ratio.height))
        return invalid(`${path}/aspectRatio must have integer width and height`);
      if ((ratio.width as number) < 1 || (ratio.height as number) < 1)
        return invalid(`${path}/aspectRatio width and height must be at least 1`);
    }
    const stored = blobOf(link);
    if (!stored) return { status: 400, error: 'BlobNotFound', message: `Could not find blob: ${link}` };
    if (stored.size !== blob.size || stored.mimeType !== blob.mimeType) {
      return invalid(`${path}/image does not match the uploaded blob ${link}`);
    }
  }
  return null;
};

/** Lexicon checks of `app.bsky.feed.post`, with the PDS's messages; null when valid. */
const postProblem = (record: Record<string, unknown>): string | null => {
  const prefix = 'Invalid app.bsky.feed.post record:';
  if (typeof record.text !== 'string') return `${prefix} Record must have the property "text"`;
  if (Buffer.byteLength(record.text) > 3000)
    return `${prefix} Record/text must not be longer than 3000 characters`;
  if (graphemes(record.text) > 300) return `${prefix} Record/text must not be longer than 300 graphemes`;
  if (typeof record.createdAt !== 'string') return `${prefix} Record must have the property "createdAt"`;
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(record.createdAt)) {
    return `${prefix} Record/createdAt must be an valid atproto datetime (both RFC-3339 and ISO-8601)`;
  }
  if (record.langs !== undefined) {
    if (!Array.isArray(record.langs) || record.langs.some((lang) => typeof lang !== 'string')) {
      return `${prefix} Record/langs must be an array`;
    }
    if (record.langs.length > 3) return `${prefix} Record/langs must not have more than 3 elements`;
  }
  if (record.facets !== undefined) {
    const problem = facetProblem(record.text, record.facets, prefix);
    if (problem) return problem;
  }
  if (record.reply !== undefined) {
    const reply = objectOf(record.reply);
    if (!reply) return `${prefix} Record/reply must be an object`;
    for (const key of ['root', 'parent'] as const) {
      const ref = objectOf(reply[key]);
      if (!ref) return `${prefix} Record/reply must have the property "${key}"`;
      if (!isAtUri(ref.uri)) return `${prefix} Record/reply/${key}/uri must be a valid at-uri`;
      if (typeof ref.cid !== 'string' || ref.cid === '')
        return `${prefix} Record/reply/${key}/cid must be a cid string`;
    }
  }
  return null;
};

/** The `sub` of a JWT-shaped token, or null when the token is not a JWT. */
const jwtSubject = (token: string): string | null => {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as {
      sub?: unknown;
    };
    return typeof payload.sub === 'string' ? payload.sub : null;
  } catch {
    return null;
  }
};

export interface BlueskySimulatorOptions {
  port?: number;
  holdMs?: number;
  /** The PDS's blob upload limit (its `PDS_BLOB_UPLOAD_LIMIT`); default 5,000,000 bytes. */
  blobUploadLimit?: number;
  /** Session token lifetimes (bluesky/oauth-simulator.ts). */
  oauth?: { lifetimes?: Parameters<typeof blueskyOAuthSimulator>[0]['lifetimes'] };
}

export interface BlueskySimulator extends Simulator {
  /**
   * The next `count` createRecord calls store their record, then answer 500 InternalServerError
   * (a PDS failing after its commit: the write happened, the answer says it did not).
   */
  failAfterStore(count: number): void;
  /** The blobs uploaded so far. */
  blobs(): StoredBlob[];
  /** The records stored now (deleted ones are gone), as `getRecord` would answer them. */
  storedRecords(): SimStoredRecord[];
}

/** A stored record for inspection: its at-uri, CID and value (embed included). */
export interface SimStoredRecord {
  uri: string;
  cid: string;
  value: Record<string, unknown>;
}

/** Handles whose first label starts with `nobody` do not resolve (resolveHandle answers 400). */
export const isUnresolvableSimHandle = (handle: string) => /^nobody/i.test(handle);

export const startBlueskySimulator = async (
  options: BlueskySimulatorOptions = {},
): Promise<BlueskySimulator> => {
  /** `did/collection/rkey` → record. */
  const records = new Map<string, StoredRecord>();
  /** `did/cid` → blob. */
  const blobs = new Map<string, StoredBlob>();
  const blobUploadLimit = options.blobUploadLimit ?? 5_000_000;
  let failAfterStore = 0;
  /** Video service: job id → job; processed video blobs by cid. */
  const jobs = new Map<
    string,
    { did: string; polls: number; blob: Record<string, unknown> | null; error: string | null }
  >();
  const videoBlobs = new Set<string>();

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

  const createRecord = (ctx: SimContext): SimResponse => {
    const body = requireFields(ctx, ['repo', 'collection']);
    const did = didOf(body.repo as string);
    const refused = authorize(ctx, did);
    if (refused) return refused;
    const collection = body.collection as string;
    const record = objectOf(body.record);
    if (!record) return blueskyErrors.badRequest('Input must have the property "record"');
    if (body.validate === false) return blueskyErrors.badRequest('Unvalidated writes are not yet supported.');
    if (body.rkey !== undefined && (typeof body.rkey !== 'string' || !isValidRecordKey(body.rkey))) {
      return blueskyErrors.badRequest(`Invalid record key: ${String(body.rkey)}`);
    }
    if (record.$type !== collection) {
      return blueskyErrors.badRequest(`Invalid $type: expected ${collection}, got ${String(record.$type)}`);
    }
    if (collection === 'app.bsky.feed.post') {
      // The lexicon declares `key: tid`: a PDS refuses any other key for a post.
      if (typeof body.rkey === 'string' && !isSimTid(body.rkey)) {
        return blueskyErrors.badRequest(
          `Invalid record key for app.bsky.feed.post: Invalid TID string (got ${JSON.stringify(body.rkey)})`,
        );
      }
      const problem = postProblem(record);
      if (problem) return blueskyErrors.badRequest(problem);
      const embed = objectOf(record.embed);
      if (record.embed !== undefined && !embed)
        return blueskyErrors.badRequest('Invalid app.bsky.feed.post record: Record/embed must be an object');
      if (embed?.$type === 'app.bsky.embed.video') {
        const video = objectOf(embed.video);
        const link = objectOf(video?.ref)?.$link;
        if (video?.$type !== 'blob' || typeof link !== 'string')
          return blueskyErrors.badRequest(
            'Invalid app.bsky.feed.post record: Record/embed/video should be a blob ref',
          );
        if (video.mimeType !== 'video/mp4')
          return blueskyErrors.badRequest(
            `Invalid app.bsky.feed.post record: Record/embed/video mime type should be video/mp4 (got ${String(video.mimeType)})`,
          );
        if (embed.alt !== undefined && typeof embed.alt !== 'string')
          return blueskyErrors.badRequest(
            'Invalid app.bsky.feed.post record: Record/embed/alt must be a string',
          );
        if (!videoBlobs.has(link)) return xrpcError(400, 'BlobNotFound', `Could not find blob: ${link}`);
      } else if (embed) {
        if (embed.$type !== 'app.bsky.embed.images') {
          return blueskyErrors.badRequest(
            `Invalid app.bsky.feed.post record: Record/embed $type ${String(embed.$type)} is not supported by this simulator`,
          );
        }
        const problem = imagesProblem(embed, 'Invalid app.bsky.feed.post record:', (cid) =>
          blobs.get(`${blobOwner(ctx)}/${cid}`),
        );
        if (problem) return xrpcError(problem.status, problem.error, problem.message);
      }
    }
    const rkey = (body.rkey as string | undefined) ?? nextTid();
    const outcome = ctx.screen(typeof record.text === 'string' ? record.text : '', did);
    const key = `${did}/${collection}/${rkey}`;
    // A PDS fails a write to a taken record key deep in its repo code: HTTP 500, not a 400.
    if (records.has(key))
      return xrpcError(500, 'InternalServerError', `There is already a value at key: ${collection}/${rkey}`);
    const uri = `at://${key}`;
    const cid = cidOf(record);
    records.set(key, { uri, cid, value: record });
    const failing = failAfterStore > 0;
    if (failing) failAfterStore -= 1;
    const reply = objectOf(record.reply);
    const parentUri = (objectOf(reply?.parent)?.uri as string | undefined) ?? null;
    const rootUri = (objectOf(reply?.root)?.uri as string | undefined) ?? null;
    ctx.record({
      kind: reply ? 'reply' : 'post',
      id: uri,
      parentId: parentUri,
      rootId: rootUri,
      text: typeof record.text === 'string' ? record.text : null,
      account: did,
    });
    if (failing) return xrpcError(500, 'InternalServerError', 'Internal Server Error');
    return {
      status: 200,
      body: { uri, cid, commit: { cid: cidOf({ commit: uri }), rev: nextTid() }, validationStatus: 'valid' },
      lost: outcome,
    };
  };

  const getRecord = (ctx: SimContext): SimResponse => {
    for (const name of ['repo', 'collection', 'rkey']) {
      if (!ctx.query.get(name)) return blueskyErrors.badRequest(`Params must have the property "${name}"`);
    }
    const did = didOf(ctx.query.get('repo') as string);
    const key = `${did}/${ctx.query.get('collection')}/${ctx.query.get('rkey')}`;
    const stored = records.get(key);
    if (!stored) return xrpcError(400, 'RecordNotFound', `Could not locate record: at://${key}`);
    return { status: 200, body: { uri: stored.uri, cid: stored.cid, value: stored.value } };
  };

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

  const resolveHandle = (ctx: SimContext): SimResponse => {
    const handle = ctx.query.get('handle');
    if (!handle) return blueskyErrors.badRequest('Params must have the property "handle"');
    if (!/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(handle)) {
      return blueskyErrors.badRequest(`Error: handle must be a valid handle`);
    }
    if (isUnresolvableSimHandle(handle)) return blueskyErrors.badRequest('Unable to resolve handle');
    return { status: 200, body: { did: simDidForHandle(handle) } };
  };

  const deleteRecord = (ctx: SimContext): SimResponse => {
    const body = requireFields(ctx, ['repo', 'collection', 'rkey']);
    const did = didOf(body.repo as string);
    const refused = authorize(ctx, did);
    if (refused) return refused;
    const key = `${did}/${body.collection}/${body.rkey}`;
    const stored = records.get(key);
    // Deleting a record that does not exist is a successful no-op on a PDS.
    if (stored) {
      records.delete(key);
      const reply = objectOf(stored.value.reply);
      ctx.record({
        kind: 'delete',
        id: stored.uri,
        parentId: (objectOf(reply?.parent)?.uri as string | undefined) ?? null,
        rootId: (objectOf(reply?.root)?.uri as string | undefined) ?? null,
        text: null,
        account: did,
      });
    }
    return { status: 200, body: { commit: { cid: cidOf({ delete: key }), rev: nextTid() } } };
  };

  const failAfterStoreRoute = (ctx: SimContext): SimResponse => {
    const count = Number(objectOf(ctx.body)?.count ?? 1);
    if (!Number.isInteger(count) || count < 0)
      return blueskyErrors.badRequest('Send { "count": <non-negative integer> }');
    failAfterStore = count;
    return { status: 204 };
  };

  const sim = await startSimulator({
    name: 'Bluesky',
    errors: blueskyErrors,
    spec: requestSpecFor('bluesky'),
    port: options.port,
    holdMs: options.holdMs,
    onReset: () => {
      records.clear();
      blobs.clear();
      jobs.clear();
      videoBlobs.clear();
      failAfterStore = 0;
    },
    oauth: blueskyOAuthSimulator({ didForHandle: simDidForHandle, lifetimes: options.oauth?.lifetimes }),
    routes: [
      { method: 'POST', path: '/xrpc/com.atproto.repo.createRecord', handler: createRecord },
      // Public on a real PDS: reading a record needs no token.
      { method: 'GET', path: '/xrpc/com.atproto.repo.getRecord', auth: false, handler: getRecord },
      { method: 'POST', path: '/xrpc/com.atproto.repo.deleteRecord', handler: deleteRecord },
      { method: 'GET', path: '/xrpc/app.bsky.feed.getPosts', handler: (ctx) => getPosts(records, ctx) },
      { method: 'POST', path: '/xrpc/com.atproto.repo.uploadBlob', rawBody: true, handler: uploadBlob },
      {
        method: 'GET',
        path: '/xrpc/com.atproto.identity.resolveHandle',
        auth: false,
        handler: resolveHandle,
      },
      { method: 'GET', path: '/xrpc/com.atproto.server.getServiceAuth', handler: getServiceAuth },
      // The video service (video.bsky.app), served on the same address.
      // `app.bsky.embed.video` takes an MP4 of at most 100,000,000 bytes (lexicon `maxSize`).
      {
        method: 'POST',
        path: '/xrpc/app.bsky.video.uploadVideo',
        rawBody: true,
        maxBodyBytes: VIDEO_MAX_BYTES,
        handler: uploadVideo,
      },
      { method: 'GET', path: '/xrpc/app.bsky.video.getJobStatus', auth: false, handler: getJobStatus },
      // Inspection: the stored records with their embeds, and the uploaded blobs.
      {
        method: 'GET',
        path: '/_sim/bluesky/records',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...records.values()] } }),
      },
      {
        method: 'GET',
        path: '/_sim/bluesky/blobs',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...blobs.values()] } }),
      },
      // Test control: the next createRecord calls store, then answer 500.
      { method: 'POST', path: '/_sim/bluesky/fail-after-store', auth: false, handler: failAfterStoreRoute },
    ],
  });
  return {
    ...sim,
    failAfterStore: (count) => {
      failAfterStore = count;
    },
    blobs: () => [...blobs.values()].map((blob) => ({ ...blob })),
    storedRecords: () => [...records.values()].map((r) => structuredClone(r)),
  };
};
