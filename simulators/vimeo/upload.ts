import { createHash, type Hash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Vimeo's upload hosts as the Vimeo simulator serves them, on a port of their own (Vimeo's are
 * `*.tus.vimeo.com` and `captions.cloud.vimeo.com`, not api.vimeo.com; the links are signed, so
 * they take no bearer token):
 * - a tus 1.0.0 server for video bytes: `PATCH /files/{token}` with `Tus-Resumable: 1.0.0`,
 *   `Upload-Offset` and `Content-Type: application/offset+octet-stream` → 204 and the new
 *   `Upload-Offset`; `HEAD /files/{token}` → `Upload-Offset` and `Upload-Length`. A missing
 *   `Tus-Resumable` is 412 (with `Tus-Version`), another content type 415, an `Upload-Offset`
 *   that is not the stored offset 409, a body past `Upload-Length` 413, an unknown or deleted
 *   upload 404. A connection that drops during a PATCH keeps the bytes that arrived (the offset
 *   moves), as tus servers do: the client asks `HEAD` and continues from there.
 * - the text track host: `PUT /texttracks/{token}` with the caption file.
 *
 * Bytes are counted and hashed as they stream (SHA-256), never kept: a 100 MB video costs the
 * simulator a hash state, not 100 MB.
 */

export interface TusUpload {
  token: string;
  /** Upload-Length: the size given at creation. */
  length: number;
  offset: number;
  /** PATCH connections dropped part-way by the `dropAfterBytes` switch. */
  drops: number;
  /** The running hash of the bytes received so far. */
  hash: Hash;
  /** Called once the last byte arrived, with the SHA-256 of the whole file. */
  onComplete(sha256: string): void;
  /** false once the video is deleted: the link answers 404. */
  live(): boolean;
}

export interface TrackUpload {
  token: string;
  onUpload(bytes: Buffer): void;
  live(): boolean;
}

const MAX_TRACK_BYTES = 5 * 1024 * 1024;

const tusHeaders = { 'tus-resumable': '1.0.0', 'cache-control': 'no-store' };

export const vimeoUploadHosts = () => {
  const uploads = new Map<string, TusUpload>();
  const tracks = new Map<string, TrackUpload>();
  /** The next PATCH keeps this many bytes of its body, then its connection is dropped (once). */
  let dropAfterBytes: number | null = null;
  /** PATCH requests answered so far (all uploads), for tests. */
  let patches = 0;
  /** Links opened before this moment answer 404, as Vimeo's expired upload links do. */
  let expiredBefore = 0;
  const opened = new Map<string, number>();
  let server: Server | null = null;
  let base = '';

  const answer = (res: ServerResponse, status: number, headers: Record<string, string> = {}, text = '') => {
    res.writeHead(status, { ...tusHeaders, ...headers, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  /** Reads and forgets a body (a refused request's). */
  const drain = (req: IncomingMessage) =>
    new Promise<void>((resolve) => {
      req.resume();
      req.once('end', resolve);
      req.once('close', resolve);
    });

  const patch = async (req: IncomingMessage, res: ServerResponse, upload: TusUpload) => {
    const refuse = async (status: number, text: string, headers: Record<string, string> = {}) => {
      await drain(req);
      answer(res, status, headers, text);
    };
    if (req.headers['tus-resumable'] !== '1.0.0') {
      return refuse(412, 'Tus-Resumable 1.0.0 is required', { 'tus-version': '1.0.0' });
    }
    if ((req.headers['content-type'] ?? '').split(';')[0]?.trim() !== 'application/offset+octet-stream') {
      return refuse(415, 'Content-Type must be application/offset+octet-stream');
    }
    const offsetHeader = req.headers['upload-offset'];
    if (typeof offsetHeader !== 'string' || !/^\d+$/.test(offsetHeader)) {
      return refuse(400, 'Upload-Offset is required');
    }
    if (Number(offsetHeader) !== upload.offset) {
      return refuse(409, `Upload-Offset ${offsetHeader} does not match the upload's offset ${upload.offset}`);
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && upload.offset + Number(declared) > upload.length) {
      return refuse(413, 'The body goes past Upload-Length');
    }
    const drop = dropAfterBytes;
    dropAfterBytes = null;
    let taken = 0;
    let dropped = false;
    await new Promise<void>((resolve) => {
      req.on('data', (chunk: Buffer) => {
        if (dropped) return;
        let part = chunk;
        if (upload.offset + part.length > upload.length)
          part = part.subarray(0, upload.length - upload.offset);
        if (drop !== null && taken + part.length >= drop) {
          part = part.subarray(0, drop - taken);
          dropped = true;
        }
        upload.hash.update(part);
        upload.offset += part.length;
        taken += part.length;
        if (dropped) {
          upload.drops++;
          // The bytes so far are stored; the connection goes before any answer.
          req.socket.destroy();
          resolve();
        }
      });
      req.once('end', resolve);
      req.once('close', resolve);
    });
    if (dropped) return;
    patches++;
    if (upload.offset === upload.length) upload.onComplete(upload.hash.copy().digest('hex'));
    answer(res, 204, { 'upload-offset': String(upload.offset) });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = /^\/files\/([\w-]+)$/.exec(url.pathname);
    if (file) {
      const upload = uploads.get(file[1] as string);
      if (!upload?.live() || (opened.get(upload.token) ?? 0) < expiredBefore) {
        await drain(req);
        return answer(res, 404, {}, 'Upload not found');
      }
      if (req.method === 'HEAD') {
        await drain(req);
        res.writeHead(200, {
          ...tusHeaders,
          'upload-offset': String(upload.offset),
          'upload-length': String(upload.length),
        });
        return res.end();
      }
      if (req.method === 'PATCH') return patch(req, res, upload);
      if (req.method === 'OPTIONS') {
        await drain(req);
        return answer(res, 204, { 'tus-version': '1.0.0', 'tus-extension': 'creation' });
      }
      await drain(req);
      return answer(res, 405, {}, 'Method not allowed');
    }
    const track = /^\/texttracks\/([\w-]+)$/.exec(url.pathname);
    if (track && req.method === 'PUT') {
      const target = tracks.get(track[1] as string);
      const chunks: Buffer[] = [];
      let size = 0;
      await new Promise<void>((resolve) => {
        req.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_TRACK_BYTES) chunks.push(chunk);
        });
        req.once('end', resolve);
        req.once('close', resolve);
      });
      if (!target?.live()) return answer(res, 404, {}, 'Not found');
      if (size > MAX_TRACK_BYTES) return answer(res, 413, {}, 'The file is too large');
      target.onUpload(Buffer.concat(chunks));
      return answer(res, 200);
    }
    await drain(req);
    answer(res, 404, {}, 'Not found');
  };

  return {
    start: async () => {
      const created = createServer((req, res) => {
        handle(req, res).catch(() => res.destroy());
      });
      server = created;
      await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(created.address() as AddressInfo).port}`;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    /** A tus upload for a new video: its `upload_link`. */
    openUpload: (length: number, onComplete: (sha256: string) => void, live: () => boolean) => {
      const token = randomBytes(12).toString('hex');
      uploads.set(token, {
        token,
        length,
        offset: 0,
        drops: 0,
        hash: createHash('sha256'),
        onComplete,
        live,
      });
      return { token, link: `${base}/files/${token}` };
    },
    offsetOf: (token: string) => uploads.get(token)?.offset ?? 0,
    dropsOf: (token: string) => uploads.get(token)?.drops ?? 0,
    openTrack: (onUpload: (bytes: Buffer) => void, live: () => boolean) => {
      const token = randomBytes(12).toString('hex');
      tracks.set(token, { token, onUpload, live });
      return `${base}/texttracks/${token}`;
    },
    setDropAfterBytes: (bytes: number | null) => {
      dropAfterBytes = bytes;
    },
    patchCount: () => patches,
    /** Every upload link opened so far answers 404 from now on. */
    expireLinks: () => {
      expiredBefore = Date.now() + 1;
    },
    reset: () => {
      uploads.clear();
      tracks.clear();
      dropAfterBytes = null;
      patches = 0;
      expiredBefore = 0;
      opened.clear();
    },
  };
};

export type VimeoUploadHosts = ReturnType<typeof vimeoUploadHosts>;
