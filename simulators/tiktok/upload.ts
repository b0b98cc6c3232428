import { createHash, type Hash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { LostAnswer } from '../framework/framework.ts';

/**
 * TikTok's media transfer host (`open-upload.tiktokapis.com`) as the TikTok simulator serves it:
 * the `upload_url` a FILE_UPLOAD init answers with takes the video's chunks by `PUT`, each with
 * `Content-Range: bytes {first}-{last}/{total}`, a video `Content-Type` and the chunk's exact
 * `Content-Length`. Like TikTok:
 * - chunks go in order, at the byte ranges the init's `chunk_size` and `total_chunk_count` fix
 *   (every chunk `chunk_size` bytes, the last one taking the trailing bytes); another range is a
 *   400;
 * - a chunk that arrives whole is kept and answered `206 Partial Content`, the last one
 *   `201 Created` (the video then goes to processing);
 * - a chunk cut off half-way is not kept: the upload stays at the last whole chunk, which
 *   `status/fetch` reports as `uploaded_bytes`, and the chunk is sent again from its first byte;
 * - an upload URL lives one hour (`uploadUrlLifetimeMs`), then answers 404.
 *
 * Bytes are never kept: the video's running SHA-256 and size are (a 100 MB video stays a hash).
 * Switches (`/_sim/tiktok/switches`): `dropChunk: { index, afterBytes }` takes that many bytes of
 * that chunk, then destroys the connection (once); `failChunkOnce: index` answers that chunk 500
 * once, keeping nothing.
 */

export interface SimUpload {
  publishId: string;
  uploadId: string;
  uploadToken: string;
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
  /** Bytes of whole chunks received, in order. */
  uploadedBytes: number;
  /** Bytes of the last chunk that was cut off (not kept). */
  droppedBytes: number;
  /** Chunks cut off or failed so far (each sent again). */
  interruptions: number;
  /** SHA-256 of the kept bytes so far (hex once complete). */
  hash: Hash;
  sha256: string | null;
  mimeType: string | null;
  expiresAt: number;
  /** The answer to the last chunk is lost once (the `sim:timeout`/`reset`/`bad-gateway` tokens on the title). */
  lost: LostAnswer | null;
  /** Called once the last chunk is kept. */
  onComplete: () => void;
}

const VIDEO_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'];

/** The byte range of chunk `index`: every chunk is `chunkSize` bytes, the last takes the rest. */
export const chunkRange = (
  upload: Pick<SimUpload, 'videoSize' | 'chunkSize' | 'totalChunkCount'>,
  index: number,
) => {
  const first = index * upload.chunkSize;
  const last = index === upload.totalChunkCount - 1 ? upload.videoSize - 1 : first + upload.chunkSize - 1;
  return { first, last };
};

const errorBody = (code: string, message: string) =>
  JSON.stringify({ error: { code, message, log_id: `2026SIMUP${Date.now()}` } });

export const tiktokUploadSimulator = (options: { holdMs?: number } = {}) => {
  const holdMs = Math.min(options.holdMs ?? 30_000, 30_000);
  const uploads = new Map<string, SimUpload>();
  let dropChunk: { index: number; afterBytes: number } | null = null;
  let failChunkOnce: number | null = null;
  let server: Server | null = null;
  let base = '';
  const held = new Set<Socket>();

  const answer = (
    res: ServerResponse,
    status: number,
    body?: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, {
      ...headers,
      ...(body === undefined
        ? { 'content-length': '0' }
        : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
    });
    res.end(body);
  };

  /** Reads the rest of a refused request's body, so the answer reaches a client still sending. */
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, body?: string) => {
    req.resume();
    const send = () => answer(res, status, body, { connection: 'close' });
    if (req.complete) send();
    else req.once('end', send);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const upload = uploads.get(url.searchParams.get('upload_id') ?? '');
    if (req.method !== 'PUT' || url.pathname !== '/upload/' || !upload) return refuse(req, res, 404);
    if (url.searchParams.get('upload_token') !== upload.uploadToken || Date.now() > upload.expiresAt) {
      return refuse(req, res, 404);
    }
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(req.headers['content-range'] ?? '');
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (!range) {
      return refuse(
        req,
        res,
        400,
        errorBody('invalid_params', 'Content-Range must be bytes {first}-{last}/{total}'),
      );
    }
    if (!VIDEO_TYPES.includes(type)) {
      return refuse(
        req,
        res,
        400,
        errorBody('invalid_params', `Content-Type ${type || '(none)'} is not a video type`),
      );
    }
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (upload.uploadedBytes === upload.videoSize) {
      return refuse(req, res, 400, errorBody('invalid_params', 'The video is already uploaded'));
    }
    const index = Math.floor(upload.uploadedBytes / upload.chunkSize);
    const expected = chunkRange(upload, index);
    if (total !== upload.videoSize || first !== expected.first || last !== expected.last) {
      return refuse(
        req,
        res,
        400,
        errorBody(
          'invalid_params',
          `Expected chunk ${index + 1} of ${upload.totalChunkCount}: bytes ${expected.first}-${expected.last}/${upload.videoSize}`,
        ),
      );
    }
    const length = last - first + 1;
    if (Number(req.headers['content-length']) !== length) {
      return refuse(req, res, 400, errorBody('invalid_params', `Content-Length must be ${length}`));
    }
    const drop = dropChunk?.index === index ? dropChunk : null;
    if (drop) dropChunk = null;
    const fail = failChunkOnce === index;
    if (fail) failChunkOnce = null;
    const hash = upload.hash.copy();
    let received = 0;
    let cut = false;
    req.on('data', (piece: Buffer) => {
      if (cut) return;
      if (drop && received + piece.length >= drop.afterBytes) {
        // The connection dies half-way: what arrived is not kept.
        cut = true;
        upload.droppedBytes = drop.afterBytes;
        upload.interruptions++;
        req.socket.destroy();
        return;
      }
      received += piece.length;
      hash.update(piece);
    });
    req.on('end', () => {
      if (cut) return;
      if (fail) upload.interruptions++;
      if (fail) return answer(res, 500, errorBody('internal_error', 'Upload failed, please retry'));
      if (received !== length) {
        return answer(
          res,
          400,
          errorBody('invalid_params', `Received ${received} bytes, expected ${length}`),
        );
      }
      upload.hash = hash;
      upload.uploadedBytes += received;
      upload.mimeType = type;
      if (upload.uploadedBytes < upload.videoSize) {
        return answer(res, 206, undefined, {
          'content-range': `bytes 0-${upload.uploadedBytes - 1}/${upload.videoSize}`,
        });
      }
      upload.sha256 = upload.hash.digest('hex');
      upload.onComplete();
      const lost = upload.lost;
      upload.lost = null;
      if (lost === 'timeout') {
        const socket = res.socket;
        if (!socket) return;
        held.add(socket);
        const timer = setTimeout(() => socket.destroy(), holdMs);
        socket.once('close', () => {
          clearTimeout(timer);
          held.delete(socket);
        });
        return;
      }
      if (lost === 'reset') return res.socket?.resetAndDestroy();
      if (lost === 'bad-gateway') return answer(res, 502, JSON.stringify({ message: 'Bad Gateway' }));
      answer(res, 201);
    });
    req.on('error', () => undefined);
  };

  return {
    uploads,
    start: async () => {
      const started = createServer(handle);
      server = started;
      await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(started.address() as AddressInfo).port}`;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of held) socket.destroy();
        held.clear();
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    reset: () => {
      uploads.clear();
      dropChunk = null;
      failChunkOnce = null;
    },
    urlOf: (upload: Pick<SimUpload, 'uploadId' | 'uploadToken'>) =>
      `${base}/upload/?upload_id=${upload.uploadId}&upload_token=${upload.uploadToken}`,
    newHash: () => createHash('sha256'),
    setSwitches: (value: { dropChunk?: unknown; failChunkOnce?: unknown }) => {
      const drop = value.dropChunk as { index?: unknown; afterBytes?: unknown } | null | undefined;
      if (drop !== undefined) {
        dropChunk =
          drop && typeof drop.index === 'number' && typeof drop.afterBytes === 'number'
            ? { index: drop.index, afterBytes: drop.afterBytes }
            : null;
      }
      if (value.failChunkOnce !== undefined) {
        failChunkOnce = typeof value.failChunkOnce === 'number' ? value.failChunkOnce : null;
      }
    },
  };
};
