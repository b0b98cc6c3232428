import { createHash } from 'node:crypto';
import {
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimResponse,
  type Simulator,
  startSimulator,
} from '../simulator/framework.ts';
import { blueskyOAuthSimulator } from './oauth-simulator.ts';
import { getPosts } from './sim-metrics.ts';

/**
 * A local Bluesky PDS for `app.bsky.feed.post` records: `com.atproto.repo.createRecord`,
 * `getRecord` and `deleteRecord` over XRPC, with the PDS's error bodies (`{ error, message }`),
 * its record-key syntax check, lexicon checks on posts (300 graphemes, datetime, at most 3 langs,
 * strong refs), HTTP 500 "There is already a value at key" for a taken record key (as a PDS
 * answers it), `ratelimit-*` headers on 429, and the
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
): SimResponse => ({
  status,
  body: { error, message },
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
  rateLimited: (resetAt) =>
    xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded', {
      'ratelimit-limit': 5000,
      'ratelimit-remaining': 0,
      'ratelimit-reset': Math.ceil(resetAt.getTime() / 1000),
      'ratelimit-policy': '5000;w=3600',
    }),
  badRequest: (message) => xrpcError(400, 'InvalidRequest', message),
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
  /** Session token lifetimes (bluesky/oauth-simulator.ts). */
  oauth?: { lifetimes?: Parameters<typeof blueskyOAuthSimulator>[0]['lifetimes'] };
}

export const startBlueskySimulator = async (options: BlueskySimulatorOptions = {}): Promise<Simulator> => {
  /** `did/collection/rkey` → record. */
  const records = new Map<string, StoredRecord>();

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
      const problem = postProblem(record);
      if (problem) return blueskyErrors.badRequest(problem);
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

  return startSimulator({
    name: 'Bluesky',
    errors: blueskyErrors,
    port: options.port,
    holdMs: options.holdMs,
    onReset: () => records.clear(),
    oauth: blueskyOAuthSimulator({ didForHandle: simDidForHandle, lifetimes: options.oauth?.lifetimes }),
    routes: [
      { method: 'POST', path: '/xrpc/com.atproto.repo.createRecord', handler: createRecord },
      // Public on a real PDS: reading a record needs no token.
      { method: 'GET', path: '/xrpc/com.atproto.repo.getRecord', auth: false, handler: getRecord },
      { method: 'POST', path: '/xrpc/com.atproto.repo.deleteRecord', handler: deleteRecord },
      { method: 'GET', path: '/xrpc/app.bsky.feed.getPosts', handler: (ctx) => getPosts(records, ctx) },
    ],
  });
};
