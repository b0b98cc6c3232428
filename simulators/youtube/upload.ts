import { createHash, type Hash, randomBytes } from 'node:crypto';
import type { LostAnswer, SimContext, SimResponse } from '../framework/framework.ts';

/**
 * YouTube's resumable upload protocol (Google's resumable media upload) as the YouTube simulator
 * serves it. `POST /upload/youtube/v3/videos?uploadType=resumable` (in simulator.ts) opens a
 * session; this module keeps the sessions and answers the session URI's PUTs:
 *
 * - `Content-Range: bytes a-b/total` with `b - a + 1` bytes: `a` must be the stored offset, every
 *   chunk but the last a multiple of 256 KiB (262,144 bytes), `total` the declared size; otherwise
 *   400. An incomplete upload answers `308 Resume Incomplete` with `Range: bytes=0-N` (no `Range`
 *   when nothing is stored); the last byte creates the video and answers 200 with its resource.
 * - `Content-Range: bytes *\/total` with an empty body: the status query, 308 + `Range`, or 200
 *   with the video once the upload completed.
 * - An unknown session is 404; an expired one (sessions live about a week) 410.
 *
 * The bytes are counted and hashed as they arrive (a size and a running SHA-256), never kept.
 * `dropNextChunk(keep)` makes the next chunk store only its first `keep` bytes and then reset the
 * connection, as a connection lost mid-chunk does: the status query then reports what was stored.
 */

export const CHUNK_GRANULARITY = 256 * 1024;

export interface UploadSession {
  id: string;
  account: string;
  /** The video resource's parts as the POST gave them (snippet, status). */
  resource: Record<string, unknown>;
  declaredSize: number;
  contentType: string;
  received: number;
  hash: Hash;
  expiresAt: number;
  /** The video the completed upload created. */
  videoId: string | null;
  /** How the answer of the completing chunk is lost (`sim:timeout`, `sim:reset`, `sim:bad-gateway`). */
  lose: LostAnswer | null;
  chunks: number;
}

export interface ResumableOptions {
  /** How long a session lives (YouTube: about a week). */
  sessionLifetimeMs?: number;
}

const googleError = (status: number, reason: string, message: string): SimResponse => ({
  status,
  body: { error: { code: status, message, errors: [{ message, domain: 'global', reason }] } },
});

export const resumableUploads = (
  complete: (session: UploadSession, sha256: string) => { id: string; resource: unknown },
  resourceOf: (videoId: string) => unknown,
  options: ResumableOptions = {},
) => {
  const lifetimeMs = options.sessionLifetimeMs ?? 7 * 86_400_000;
  const sessions = new Map<string, UploadSession>();
  let dropKeep: number | null = null;

  const open = (
    account: string,
    resource: Record<string, unknown>,
    declaredSize: number,
    contentType: string,
    lose: LostAnswer | null,
  ): UploadSession => {
    const session: UploadSession = {
      id: `AHVrFT${randomBytes(24).toString('base64url')}`,
      account,
      resource,
      declaredSize,
      contentType,
      received: 0,
      hash: createHash('sha256'),
      expiresAt: Date.now() + lifetimeMs,
      videoId: null,
      lose,
      chunks: 0,
    };
    sessions.set(session.id, session);
    return session;
  };

  const incomplete = (session: UploadSession): SimResponse => ({
    status: 308,
    headers: session.received > 0 ? { range: `bytes=0-${session.received - 1}` } : {},
  });

  const done = (session: UploadSession): SimResponse => ({
    status: 200,
    body: resourceOf(session.videoId as string),
  });

  /** The PUT on a session URI: a chunk or the status query. */
  const put = (ctx: SimContext): SimResponse => {
    const id = ctx.query.get('upload_id') ?? '';
    const session = sessions.get(id);
    if (!session) return googleError(404, 'notFound', 'Not Found');
    if (Date.now() > session.expiresAt) {
      sessions.delete(id);
      return googleError(410, 'gone', 'The upload session has expired.');
    }
    const range = String(ctx.headers['content-range'] ?? '');
    const query = /^bytes \*\/(\d+|\*)$/.exec(range);
    if (query) {
      if (ctx.rawBody.length > 0) return googleError(400, 'badRequest', 'A status query has no body.');
      return session.videoId ? done(session) : incomplete(session);
    }
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
    if (!match) return googleError(400, 'badRequest', `Invalid Content-Range header: "${range}"`);
    const first = Number(match[1]);
    const last = Number(match[2]);
    const total = Number(match[3]);
    if (session.videoId) return done(session);
    if (total !== session.declaredSize) {
      return googleError(
        400,
        'badRequest',
        `The Content-Range total ${total} differs from X-Upload-Content-Length ${session.declaredSize}.`,
      );
    }
    if (first !== session.received) {
      return googleError(
        400,
        'badRequest',
        `The chunk starts at byte ${first}, but the upload has ${session.received} bytes: resume from the offset the status query reports.`,
      );
    }
    const length = last - first + 1;
    if (last < first || ctx.rawBody.length !== length) {
      return googleError(
        400,
        'badRequest',
        `The chunk has ${ctx.rawBody.length} bytes, but Content-Range names ${length}.`,
      );
    }
    const final = last + 1 === total;
    if (last + 1 > total) return googleError(400, 'badRequest', 'The chunk ends past the declared size.');
    if (!final && length % CHUNK_GRANULARITY !== 0) {
      return googleError(
        400,
        'badRequest',
        `Chunks other than the last must be a multiple of ${CHUNK_GRANULARITY} bytes; this one has ${length}.`,
      );
    }
    if (dropKeep !== null) {
      // The connection is lost mid-chunk: what arrived before it is stored.
      const keep = Math.min(dropKeep, length - 1);
      dropKeep = null;
      session.hash.update(ctx.rawBody.subarray(0, keep));
      session.received += keep;
      return { status: 500, lost: 'reset' };
    }
    session.hash.update(ctx.rawBody);
    session.received += length;
    session.chunks += 1;
    if (!final) return incomplete(session);
    const video = complete(session, session.hash.digest('hex'));
    session.videoId = video.id;
    const lose = session.lose;
    session.lose = null;
    return { status: 200, body: video.resource, lost: lose };
  };

  return {
    open,
    put,
    sessions: () => [...sessions.values()],
    /** The next chunk stores its first `keep` bytes, then the connection is reset. */
    dropNextChunk: (keep: number) => {
      dropKeep = keep;
    },
    reset: () => {
      sessions.clear();
      dropKeep = null;
    },
  };
};
