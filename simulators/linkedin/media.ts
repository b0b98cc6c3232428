import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { objectOf, type SimContext, type SimResponse, type SimRoute } from '../framework/framework.ts';

/**
 * LinkedIn's Images, Videos and Documents APIs as the LinkedIn simulator serves them:
 * `POST /rest/{images|videos|documents}?action=initializeUpload` registers a file for an owner and
 * answers with upload URL(s) on a separate upload host (like `www.linkedin.com/dms-uploads/…`),
 * which take the raw bytes by PUT. A video is uploaded in parts of `videoPartBytes` (LinkedIn:
 * 4 MiB) at the byte ranges the `uploadInstructions` give; each part's PUT answers with an `ETag`,
 * and `finalizeUpload` must list those ETags in order. Each file is `PROCESSING` for `processingMs`
 * after its bytes (or finalize) arrived, then `AVAILABLE`; `GET /rest/{images|videos|documents}/{urn}`
 * reports it. Posts may only use `AVAILABLE` files of their author.
 */

export type LinkedInMediaKind = 'image' | 'video' | 'document';

export interface SimLinkedInMedia {
  urn: string;
  kind: LinkedInMediaKind;
  owner: string;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  /** Bytes received so far (all parts, for a video). */
  size: number;
  /** Declared by the video's initializeUpload. */
  declaredSize: number | null;
  sha256: string | null;
  availableAt: number | null;
  /** Video: the parts' ETags by index, and their byte ranges. */
  parts: { firstByte: number; lastByte: number; etag: string | null; bytes: Buffer | null }[];
  uploadToken: string;
}

export interface LinkedInMediaOptions {
  /** Bytes per video part (LinkedIn: 4,194,304). */
  videoPartBytes?: number;
  /** How long a file is PROCESSING before it becomes AVAILABLE (default 300 ms). */
  processingMs?: number;
}

const PREFIX: Record<LinkedInMediaKind, string> = {
  image: 'urn:li:image:',
  video: 'urn:li:video:',
  document: 'urn:li:document:',
};

const assetId = () => `D4E${randomBytes(9).toString('base64url')}`;

const readRaw = (req: IncomingMessage, max: number): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > max ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });

export const linkedInMediaSimulator = (
  error: (status: number, code: string, message: string) => SimResponse,
  options: LinkedInMediaOptions = {},
) => {
  const partBytes = options.videoPartBytes ?? 4 * 1024 * 1024;
  const processingMs = options.processingMs ?? 300;
  const media = new Map<string, SimLinkedInMedia>();
  /** A half-way failure switch: the PUT of this video part index (0-based) fails once with 500. */
  let failPartOnce: number | null = null;
  let uploadServer: Server | null = null;
  let uploadBase = '';
  /** The scope check `routes()` was given. */
  let authorizeOf: (ctx: SimContext, owner: string) => void = () => {};

  const settle = (item: SimLinkedInMedia) => {
    if (item.status === 'PROCESSING' && item.availableAt !== null && Date.now() >= item.availableAt) {
      item.status = 'AVAILABLE';
    }
    return item;
  };

  const startUploads = async () => {
    const server = createServer(async (req, res) => {
      const match = /^\/dms-uploads\/(image|video|document)\/([^/]+)(?:\/(\d+))?$/.exec(req.url ?? '');
      const body = await readRaw(req, 600 * 1024 * 1024);
      const item = match ? media.get(`${PREFIX[match[1] as LinkedInMediaKind]}${match[2]}`) : undefined;
      if (req.method !== 'PUT' || !match || !item || body === null) {
        res.writeHead(404).end();
        return;
      }
      if (item.kind === 'video') {
        const index = Number(match[3]);
        const part = item.parts[index];
        if (!part || body.length !== part.lastByte - part.firstByte + 1) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end('Part size does not match its byte range');
          return;
        }
        if (failPartOnce === index) {
          failPartOnce = null;
          res.writeHead(500, { 'content-type': 'text/plain' }).end('Upload failed');
          return;
        }
        part.bytes = body;
        part.etag = `/ambry-video/signedId/${createHash('md5').update(body).digest('hex')}/${index}`;
        res.writeHead(200, { etag: part.etag }).end();
        return;
      }
      // Images and documents need the member's token on the upload, as LinkedIn's do.
      if (!/^Bearer\s+\S+/i.test(req.headers.authorization ?? '')) {
        res.writeHead(401).end();
        return;
      }
      item.size = body.length;
      item.sha256 = createHash('sha256').update(body).digest('hex');
      item.status = 'PROCESSING';
      item.availableAt = Date.now() + processingMs;
      res.writeHead(201).end();
    });
    uploadServer = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    uploadBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  const register = (
    kind: LinkedInMediaKind,
    owner: string,
    declaredSize: number | null,
  ): SimLinkedInMedia => {
    const id = assetId();
    const item: SimLinkedInMedia = {
      urn: `${PREFIX[kind]}${id}`,
      kind,
      owner,
      status: 'WAITING_UPLOAD',
      size: 0,
      declaredSize,
      sha256: null,
      availableAt: null,
      parts: [],
      uploadToken: kind === 'video' ? randomBytes(8).toString('hex') : '',
    };
    if (kind === 'video' && declaredSize !== null) {
      for (let first = 0; first < declaredSize; first += partBytes) {
        item.parts.push({
          firstByte: first,
          lastByte: Math.min(first + partBytes, declaredSize) - 1,
          etag: null,
          bytes: null,
        });
      }
    }
    media.set(item.urn, item);
    return item;
  };

  const ownerOf = (ctx: SimContext) => {
    const request = objectOf(objectOf(ctx.body)?.initializeUploadRequest);
    const owner = request?.owner;
    return {
      request,
      owner: typeof owner === 'string' && /^urn:li:(person|organization):[\w-]+$/.test(owner) ? owner : null,
    };
  };

  const uploadUrlOf = (item: SimLinkedInMedia, part?: number) =>
    `${uploadBase}/dms-uploads/${item.kind}/${item.urn.slice(PREFIX[item.kind].length)}${part === undefined ? '' : `/${part}`}`;

  const initialize =
    (kind: LinkedInMediaKind) =>
    (ctx: SimContext): SimResponse => {
      const { request, owner } = ownerOf(ctx);
      if (!owner)
        return error(
          422,
          'UNPROCESSABLE_ENTITY',
          'ERROR :: /initializeUploadRequest/owner :: field is required',
        );
      authorizeOf(ctx, owner);
      if (kind === 'video') {
        const size = request?.fileSizeBytes;
        if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
          return error(
            422,
            'UNPROCESSABLE_ENTITY',
            'ERROR :: /initializeUploadRequest/fileSizeBytes :: field is required',
          );
        }
        const item = register('video', owner, size);
        return {
          status: 200,
          body: {
            value: {
              uploadUrlsExpireAt: Date.now() + 86_400_000,
              video: item.urn,
              uploadInstructions: item.parts.map((part, index) => ({
                uploadUrl: uploadUrlOf(item, index),
                firstByte: part.firstByte,
                lastByte: part.lastByte,
              })),
              uploadToken: item.uploadToken,
            },
          },
        };
      }
      const item = register(kind, owner, null);
      return {
        status: 200,
        body: {
          value: {
            uploadUrlExpiresAt: Date.now() + 86_400_000,
            uploadUrl: uploadUrlOf(item),
            [kind]: item.urn,
          },
        },
      };
    };

  const finalize = (ctx: SimContext): SimResponse => {
    const request = objectOf(objectOf(ctx.body)?.finalizeUploadRequest);
    const item = typeof request?.video === 'string' ? media.get(request.video) : undefined;
    if (item?.kind !== 'video')
      return error(404, 'NOT_FOUND', `Video ${String(request?.video)} does not exist`);
    if ((request?.uploadToken ?? '') !== item.uploadToken) {
      return error(400, 'ILLEGAL_ARGUMENT', 'uploadToken does not match the upload');
    }
    const ids = request?.uploadedPartIds;
    const expected = item.parts.map((part) => part.etag);
    if (
      !Array.isArray(ids) ||
      expected.some((etag) => etag === null) ||
      ids.length !== expected.length ||
      ids.some((id, i) => id !== expected[i])
    ) {
      return error(400, 'ILLEGAL_ARGUMENT', 'uploadedPartIds must list the ETag of every part, in order');
    }
    const whole = Buffer.concat(item.parts.map((part) => part.bytes as Buffer));
    item.size = whole.length;
    item.sha256 = createHash('sha256').update(whole).digest('hex');
    for (const part of item.parts) part.bytes = null;
    item.status = 'PROCESSING';
    item.availableAt = Date.now() + processingMs;
    return { status: 200 };
  };

  const action =
    (kind: LinkedInMediaKind) =>
    (ctx: SimContext): SimResponse => {
      const what = ctx.query.get('action');
      if (what === 'initializeUpload') return initialize(kind)(ctx);
      if (what === 'finalizeUpload' && kind === 'video') return finalize(ctx);
      return error(400, 'ILLEGAL_ARGUMENT', `Unknown action ${String(what)}`);
    };

  const read =
    (kind: LinkedInMediaKind) =>
    (ctx: SimContext): SimResponse => {
      const item = media.get(ctx.params.urn as string);
      if (!item || item.kind !== kind) return error(404, 'NOT_FOUND', `${ctx.params.urn} does not exist`);
      authorizeOf(ctx, item.owner);
      settle(item);
      return {
        status: 200,
        body: {
          id: item.urn,
          owner: item.owner,
          status: item.status,
          ...(item.kind === 'video' ? { duration: 0, aspectRatioWidth: 16, aspectRatioHeight: 9 } : {}),
        },
      };
    };

  return {
    media,
    start: startUploads,
    stop: () =>
      new Promise<void>((resolve) => {
        if (!uploadServer) return resolve();
        uploadServer.closeAllConnections();
        uploadServer.close(() => resolve());
      }),
    reset: () => {
      media.clear();
      failPartOnce = null;
    },
    /** The file a post (or a comment, at `field`) may use: AVAILABLE and owned by the author; else LinkedIn's 422. */
    usable: (
      urn: unknown,
      author: string,
      kinds: LinkedInMediaKind[],
      field = '/content/media/id',
    ): SimLinkedInMedia | SimResponse => {
      const item = typeof urn === 'string' ? media.get(urn) : undefined;
      if (!item || !kinds.includes(item.kind)) {
        return error(
          422,
          'UNPROCESSABLE_ENTITY',
          `ERROR :: ${field} :: ${String(urn)} is not a usable media URN`,
        );
      }
      settle(item);
      if (item.owner !== author) return error(403, 'ACCESS_DENIED', `${item.urn} belongs to another owner`);
      if (item.status !== 'AVAILABLE') {
        return error(
          422,
          'UNPROCESSABLE_ENTITY',
          `ERROR :: ${field} :: ${item.urn} is ${item.status}, not AVAILABLE`,
        );
      }
      return item;
    },
    /**
     * The routes, each behind `check` (the versioned-API headers); `authorize(ctx, owner)` is asked
     * whether the token may upload or read a file of `owner` (the scopes of its grant).
     */
    routes: (
      check: (ctx: SimContext) => void,
      authorize: (ctx: SimContext, owner: string) => void = () => {},
    ): SimRoute[] => {
      authorizeOf = authorize;
      const guarded = (handler: (ctx: SimContext) => SimResponse) => (ctx: SimContext) => {
        check(ctx);
        return handler(ctx);
      };
      return [
        { method: 'POST', path: '/rest/images', handler: guarded(action('image')) },
        { method: 'POST', path: '/rest/videos', handler: guarded(action('video')) },
        { method: 'POST', path: '/rest/documents', handler: guarded(action('document')) },
        { method: 'GET', path: '/rest/images/:urn', handler: guarded(read('image')) },
        { method: 'GET', path: '/rest/videos/:urn', handler: guarded(read('video')) },
        { method: 'GET', path: '/rest/documents/:urn', handler: guarded(read('document')) },
        {
          method: 'GET',
          path: '/_sim/linkedin/media',
          auth: false,
          handler: () => ({
            status: 200,
            body: {
              data: [...media.values()].map((item) => {
                settle(item);
                const { parts, uploadToken: _token, ...rest } = item;
                return { ...rest, parts: parts.map(({ bytes: _b, ...part }) => part) };
              }),
            },
          }),
        },
        {
          method: 'POST',
          path: '/_sim/linkedin/switches',
          auth: false,
          handler: (ctx) => {
            const value = objectOf(ctx.body)?.failPartOnce;
            failPartOnce = typeof value === 'number' ? value : null;
            return { status: 204 };
          },
        },
      ];
    },
  };
};
