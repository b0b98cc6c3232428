import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { simTokenOf } from '../../ports/network-client.ts';
import { getPlatform } from '../catalog.ts';
import type { SimOAuthMount } from '../simulator/framework.ts';
import { oauthSimulatorFor } from '../simulator/network-oauth.ts';
import { dispatchOAuth } from '../simulator/oauth.ts';
import { exceedsLimit } from '../text-length.ts';
import type { Platform, PlatformId } from '../types.ts';

/**
 * A generic simulated social-network API, for the networks that have no client of their own yet
 * (instagram, facebook, threads, tiktok, youtube, vimeo, pinterest, reddit, linkedin_page). One
 * server simulates one network and enforces that network's rules from the catalog: thread depth
 * and continuation kind (reply / comment), required media, accepted file types, remote edit and
 * remote delete. It stands alone: no dependency on any other simulator.
 *
 * API (JSON bodies; every `/v1` route needs `Authorization: Bearer <token>`; the network-side
 * account is named by `X-Account-Id`, `me` when absent):
 * - `POST /v1/posts` `{ text, title?, postType?, options?, media?: [{ url, mimeType }], parentId?, rootId?, clientKey }`
 *   → 201 `{ id, url }`. A `parentId` (with `rootId`, the first block of the thread) makes a
 *   reply (continuation `reply`) or a comment on the first block (continuation `comment`); refused
 *   (422 `threads_unsupported`) when the network has maxBlocks 1, and beyond maxBlocks. The first
 *   block is also checked for required media and title, file types and count, post type and text
 *   length (422 with a code and message).
 *   The simulator does not deduplicate by `clientKey`: like most networks, a resend is a second
 *   post; `GET /v1/posts?clientKey=` is how a lost answer is found.
 * - `PATCH /v1/posts/:id` `{ text?, title?, options? }` → 200 `{ id, url }`; 405 when the network has no remote edit.
 * - `DELETE /v1/posts/:id` → 204; 405 when the network has no remote delete.
 * - `GET /v1/posts?clientKey=` → 200 `{ data: [{ id, url, text, parentId, rootId, createdAt }] }`, oldest first.
 * - Errors: `{ error: { code, message } }`. 401 `token_expired` for a token starting `revoked` or
 *   `expired`; 429 with `Retry-After` while rate-limited (see `setRateLimited`).
 * - OAuth: the network's own OAuth endpoints, real paths and shapes (simulator/network-oauth.ts,
 *   `<network>/oauth-simulator.ts`); a token they issued is refused on `/v1` once expired
 *   (401 `token_expired`) or revoked (401 `token_revoked`).
 * - Inspection (no auth): `GET /_sim/records` → `{ data: SimRecord[] }` in order;
 *   `POST /_sim/reset` → 204; `POST /_sim/rate-limit` `{ seconds }` → 204.
 *
 * Sim tokens in the text (publish and edit): `sim:fail` → 422 refusal; `sim:fail-once` → 422 the
 * first time that text is sent for that account, accepted after; `sim:flaky` → one 503 the first
 * time, accepted after; `sim:reconnect` → 401 `token_expired`; `sim:timeout` → the post is stored
 * (and recorded) but no answer ever comes: the socket is held, then destroyed after `holdMs`;
 * `sim:reset` → stored, then the connection is reset; `sim:bad-gateway` → stored, then a gateway's
 * 502 `bad_gateway`.
 */

export type SimRecordKind = 'post' | 'reply' | 'comment' | 'edit' | 'delete';

export interface SimRecord {
  kind: SimRecordKind;
  id: string;
  parentId: string | null;
  rootId: string | null;
  text: string;
  /** ISO 8601 time the simulator acted. */
  at: string;
  account: string;
  /** The files a post, reply or comment was created with, as sent (absent on edits and deletes). */
  media?: { url: string; mimeType: string }[];
}

export interface GenericSimulator {
  /** Base address, e.g. `http://127.0.0.1:34567` (no trailing slash). */
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Everything the simulator did, in order (copies). */
  records(): SimRecord[];
  /** Forgets posts, records, sim-token memory and any rate limit. */
  reset(): void;
  /** Answers every `/v1` request with 429 for the next `seconds` (0 lifts it). */
  setRateLimited(seconds: number): void;
}

export interface GenericSimulatorOptions {
  platform: PlatformId;
  /** How long a `sim:timeout` request is held before its socket is destroyed. At most 30 s. */
  holdMs?: number;
  /** The network's OAuth endpoints (simulator/network-oauth.ts); default: the network's own. */
  oauth?: SimOAuthMount | null;
}

interface StoredPost {
  id: string;
  url: string;
  account: string;
  clientKey: string;
  kind: 'post' | 'reply' | 'comment';
  text: string;
  title: string | null;
  postType: string | null;
  options: Record<string, unknown>;
  media: { url: string; mimeType: string }[];
  parentId: string | null;
  rootId: string | null;
  createdAt: string;
  deleted: boolean;
}

class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Thrown by a handler to leave the request unanswered (`sim:timeout`, `sim:reset`). */
class HoldRequest extends Error {}

/** How the answer to a stored post or edit is lost, from its text's sim token. */
type LostAnswer = 'sim:timeout' | 'sim:reset' | 'sim:bad-gateway' | null;
const lostAnswerOf = (text: string): LostAnswer => {
  const token = simTokenOf(text);
  return token === 'sim:timeout' || token === 'sim:reset' || token === 'sim:bad-gateway' ? token : null;
};

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_HOLD_MS = 30_000;

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new SimHttpError(413, 'payload_too_large', 'The request body is too large.'));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const parseJson = (raw: string): Record<string, unknown> => {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new SimHttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (!isRecord(parsed))
    throw new SimHttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  return parsed;
};

const optionalString = (body: Record<string, unknown>, key: string): string | null => {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new SimHttpError(400, 'invalid_request', `"${key}" must be a string.`);
  return value;
};

const codePoints = (text: string): number => Array.from(text).length;

export const startGenericSimulator = async (options: GenericSimulatorOptions): Promise<GenericSimulator> => {
  const found = getPlatform(options.platform);
  if (!found) throw new Error(`Unknown platform: ${options.platform}`);
  const platform: Platform = found;
  const limits = platform.limits;
  const holdMs = Math.min(Math.max(options.holdMs ?? MAX_HOLD_MS, 0), MAX_HOLD_MS);

  const posts = new Map<string, StoredPost>();
  let records: SimRecord[] = [];
  /** `fail-once` / `flaky` texts already refused once, keyed by operation, account and text. */
  let refusedOnce = new Set<string>();
  let rateLimitedUntil = 0;
  const held = new Set<Socket>();
  const oauth = options.oauth === undefined ? oauthSimulatorFor(options.platform) : options.oauth;

  const record = (entry: Omit<SimRecord, 'at'>): void => {
    records.push({ ...entry, at: new Date().toISOString() });
  };

  const newId = (): string => `${platform.id}_${randomBytes(9).toString('hex')}`;
  // Simulated addresses only: real post URLs come with each network's real client.
  const urlOf = (account: string, id: string): string =>
    `https://${platform.id}.example/${encodeURIComponent(account)}/posts/${id}`;

  /** Applies the content's sim token, before anything is stored. `sim:timeout` is the caller's. */
  const applyToken = (operation: string, account: string, text: string): void => {
    const token = simTokenOf(text);
    const onceKey = `${operation}\n${account}\n${text}`;
    switch (token) {
      case 'sim:fail':
        throw new SimHttpError(422, 'content_refused', `${platform.name} refused this post (sim:fail).`);
      case 'sim:fail-once':
        if (!refusedOnce.has(onceKey)) {
          refusedOnce.add(onceKey);
          throw new SimHttpError(
            422,
            'content_refused',
            `${platform.name} refused this post this time (sim:fail-once).`,
          );
        }
        return;
      case 'sim:flaky':
        if (!refusedOnce.has(onceKey)) {
          refusedOnce.add(onceKey);
          throw new SimHttpError(503, 'unavailable', `${platform.name} is briefly unavailable (sim:flaky).`);
        }
        return;
      case 'sim:reconnect':
        throw new SimHttpError(401, 'token_expired', 'The access token has expired (sim:reconnect).');
      default:
        return;
    }
  };

  const authenticate = (req: IncomingMessage): string => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match?.[1];
    if (!token) throw new SimHttpError(401, 'unauthorized', 'A Bearer token is required.');
    if (token.startsWith('revoked') || token.startsWith('expired'))
      throw new SimHttpError(401, 'token_expired', 'The access token has expired or was revoked.');
    const refusal = oauth?.refusal(token) ?? null;
    if (refusal === 'expired') throw new SimHttpError(401, 'token_expired', 'The access token has expired.');
    if (refusal) throw new SimHttpError(401, 'token_revoked', 'The access token was revoked.');
    const account = req.headers['x-account-id'];
    return typeof account === 'string' && account !== '' ? account : 'me';
  };

  const checkRateLimit = (): void => {
    const remainingMs = rateLimitedUntil - Date.now();
    if (remainingMs > 0) {
      const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
      throw new SimHttpError(429, 'rate_limited', 'Too many requests.', { 'Retry-After': String(seconds) });
    }
  };

  const ownPost = (account: string, id: string): StoredPost => {
    const post = posts.get(id);
    if (!post || post.deleted || post.account !== account)
      throw new SimHttpError(404, 'not_found', `No post ${id} for this account.`);
    return post;
  };

  const parseMedia = (value: unknown): { url: string; mimeType: string }[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new SimHttpError(400, 'invalid_request', '"media" must be an array.');
    return value.map((item, i) => {
      if (!isRecord(item) || typeof item.url !== 'string' || typeof item.mimeType !== 'string')
        throw new SimHttpError(400, 'invalid_request', `"media[${i}]" must be { url, mimeType }.`);
      return { url: item.url, mimeType: item.mimeType };
    });
  };

  const createPost = (
    account: string,
    body: Record<string, unknown>,
  ): { post: StoredPost; lost: LostAnswer } => {
    const text = body.text;
    if (typeof text !== 'string') throw new SimHttpError(400, 'invalid_request', '"text" must be a string.');
    const clientKey = body.clientKey;
    if (typeof clientKey !== 'string' || clientKey === '')
      throw new SimHttpError(400, 'invalid_request', '"clientKey" is required.');
    const title = optionalString(body, 'title');
    const postType = optionalString(body, 'postType');
    const parentId = optionalString(body, 'parentId');
    const rootId = optionalString(body, 'rootId');
    const media = parseMedia(body.media);
    if (body.options !== undefined && body.options !== null && !isRecord(body.options))
      throw new SimHttpError(400, 'invalid_request', '"options" must be an object.');
    const postOptions = isRecord(body.options) ? body.options : {};

    let kind: StoredPost['kind'] = 'post';
    let root: string | null = null;
    if (parentId !== null) {
      if (limits.maxBlocks <= 1 || limits.continuation === null)
        throw new SimHttpError(
          422,
          'threads_unsupported',
          `${platform.name} takes no replies or comments to a post (maxBlocks 1).`,
        );
      if (rootId === null)
        throw new SimHttpError(400, 'invalid_request', '"rootId" is required with "parentId".');
      const parent = ownPost(account, parentId);
      const parentRoot = parent.rootId ?? parent.id;
      if (rootId !== parentRoot)
        throw new SimHttpError(422, 'root_mismatch', `rootId ${rootId} is not the root of ${parentId}.`);
      if (limits.continuation === 'comment' && parent.kind !== 'post')
        throw new SimHttpError(
          422,
          'invalid_parent',
          'Comments attach to the post itself, not to a comment.',
        );
      const blocksSoFar =
        1 +
        [...posts.values()].filter((p) => p.rootId === parentRoot && !p.deleted && p.kind !== 'post').length;
      if (blocksSoFar >= limits.maxBlocks)
        throw new SimHttpError(
          422,
          'too_many_blocks',
          `${platform.name} allows at most ${limits.maxBlocks} blocks (the post and its ${limits.continuation === 'comment' ? 'comments' : 'replies'}).`,
        );
      kind = limits.continuation;
      root = parentRoot;
    } else {
      if (rootId !== null) throw new SimHttpError(400, 'invalid_request', '"rootId" needs a "parentId".');
      if (limits.requiresMedia && media.length === 0)
        throw new SimHttpError(422, 'media_required', `${platform.name} needs at least one file on a post.`);
      if (limits.title?.required && (title === null || title.trim() === ''))
        throw new SimHttpError(422, 'title_required', `${platform.name} needs a title.`);
      if (postType !== null && !platform.postTypes.some((t) => t.key === postType))
        throw new SimHttpError(422, 'invalid_post_type', `${platform.name} has no post type "${postType}".`);
    }
    if (media.length > limits.maxMedia)
      throw new SimHttpError(
        422,
        'too_many_media',
        `${platform.name} takes at most ${limits.maxMedia} files per post.`,
      );
    for (const file of media) {
      if (!limits.acceptedMimeTypes.includes(file.mimeType))
        throw new SimHttpError(
          422,
          'unsupported_media',
          `${platform.name} does not accept ${file.mimeType}.`,
        );
    }
    if (title !== null && limits.title && codePoints(title) > limits.title.maxLength)
      throw new SimHttpError(422, 'title_too_long', `The title is longer than ${limits.title.maxLength}.`);
    if (exceedsLimit(text, platform))
      throw new SimHttpError(422, 'text_too_long', `The text is longer than ${limits.maxLength}.`);
    if (text === '' && media.length === 0)
      throw new SimHttpError(422, 'empty_post', 'A post needs text or a file.');

    applyToken('publish', account, text);

    const id = newId();
    const post: StoredPost = {
      id,
      url: urlOf(account, id),
      account,
      clientKey,
      kind,
      text,
      title,
      postType,
      options: postOptions,
      media,
      parentId,
      rootId: root,
      createdAt: new Date().toISOString(),
      deleted: false,
    };
    posts.set(id, post);
    record({ kind, id, parentId, rootId: root, text, account, media });
    return { post, lost: lostAnswerOf(text) };
  };

  const editPost = (
    account: string,
    id: string,
    body: Record<string, unknown>,
  ): { post: StoredPost; lost: LostAnswer } => {
    const editable = limits.remoteEdit;
    if (editable === null)
      throw new SimHttpError(405, 'edit_unsupported', `${platform.name} does not allow editing a live post.`);
    const post = ownPost(account, id);
    const text = optionalString(body, 'text');
    const title = optionalString(body, 'title');
    const hasOptions = body.options !== undefined && body.options !== null;
    if (hasOptions && !isRecord(body.options))
      throw new SimHttpError(400, 'invalid_request', '"options" must be an object.');
    if (text === null && title === null && !hasOptions)
      throw new SimHttpError(400, 'invalid_request', 'Nothing to change.');
    if (text !== null && !editable.includes('text'))
      throw new SimHttpError(422, 'field_not_editable', `${platform.name} does not allow editing the text.`);
    if (title !== null && (!editable.includes('title') || post.kind !== 'post'))
      throw new SimHttpError(
        422,
        'field_not_editable',
        `${platform.name} does not allow editing the title here.`,
      );
    if (hasOptions && (!editable.includes('options') || post.kind !== 'post'))
      throw new SimHttpError(
        422,
        'field_not_editable',
        `${platform.name} does not allow editing options here.`,
      );
    if (text !== null && exceedsLimit(text, platform))
      throw new SimHttpError(422, 'text_too_long', `The text is longer than ${limits.maxLength}.`);
    if (title !== null && limits.title && codePoints(title) > limits.title.maxLength)
      throw new SimHttpError(422, 'title_too_long', `The title is longer than ${limits.title.maxLength}.`);
    const newText = text ?? post.text;
    applyToken(`edit\n${id}`, account, newText);

    post.text = newText;
    if (title !== null) post.title = title;
    if (isRecord(body.options)) post.options = { ...post.options, ...body.options };
    record({ kind: 'edit', id, parentId: post.parentId, rootId: post.rootId, text: newText, account });
    return { post, lost: lostAnswerOf(newText) };
  };

  const deletePost = (account: string, id: string): void => {
    if (!limits.supportsRemoteDelete)
      throw new SimHttpError(405, 'delete_unsupported', `${platform.name} does not allow deleting a post.`);
    const post = ownPost(account, id);
    post.deleted = true;
    record({ kind: 'delete', id, parentId: post.parentId, rootId: post.rootId, text: post.text, account });
  };

  const sendJson = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      ...(payload ? { 'Content-Type': 'application/json; charset=utf-8' } : {}),
      'Content-Length': String(Buffer.byteLength(payload)),
      ...headers,
    });
    res.end(payload);
  };

  const hold = (req: IncomingMessage): never => {
    const socket = req.socket;
    held.add(socket);
    const timer = setTimeout(() => socket.destroy(), holdMs);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      held.delete(socket);
    });
    throw new HoldRequest();
  };

  /** After the post or edit was stored: no answer (held), a reset connection, or a gateway's 502. */
  const loseAnswer = (req: IncomingMessage, lost: LostAnswer): void => {
    if (lost === 'sim:timeout') hold(req);
    if (lost === 'sim:reset') {
      req.socket.resetAndDestroy();
      throw new HoldRequest();
    }
    if (lost === 'sim:bad-gateway')
      throw new SimHttpError(502, 'bad_gateway', 'The gateway got no valid answer from the network.');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const path = url.pathname.replace(/\/+$/, '') || '/';

    if (path === '/_sim/records') {
      if (method !== 'GET') throw new SimHttpError(405, 'method_not_allowed', 'Use GET.');
      return sendJson(res, 200, { data: records });
    }
    if (path === '/_sim/reset') {
      if (method !== 'POST') throw new SimHttpError(405, 'method_not_allowed', 'Use POST.');
      sim.reset();
      return sendJson(res, 204, undefined);
    }
    if (path === '/_sim/rate-limit') {
      if (method !== 'POST') throw new SimHttpError(405, 'method_not_allowed', 'Use POST.');
      const seconds = parseJson(raw).seconds;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
        throw new SimHttpError(400, 'invalid_request', '"seconds" must be a number >= 0.');
      sim.setRateLimited(seconds);
      return sendJson(res, 204, undefined);
    }

    if (path === '/v1/posts') {
      if (method !== 'POST' && method !== 'GET')
        throw new SimHttpError(405, 'method_not_allowed', 'Use POST or GET.');
      const account = authenticate(req);
      checkRateLimit();
      if (method === 'GET') {
        const clientKey = url.searchParams.get('clientKey');
        if (!clientKey)
          throw new SimHttpError(400, 'invalid_request', 'The "clientKey" query parameter is required.');
        const data = [...posts.values()]
          .filter((p) => p.account === account && p.clientKey === clientKey && !p.deleted)
          .map((p) => ({
            id: p.id,
            url: p.url,
            text: p.text,
            parentId: p.parentId,
            rootId: p.rootId,
            createdAt: p.createdAt,
          }));
        return sendJson(res, 200, { data });
      }
      const created = createPost(account, parseJson(raw));
      loseAnswer(req, created.lost);
      return sendJson(res, 201, { id: created.post.id, url: created.post.url });
    }

    const match = /^\/v1\/posts\/([^/]+)$/.exec(path);
    if (match?.[1]) {
      const id = decodeURIComponent(match[1]);
      if (method !== 'PATCH' && method !== 'DELETE')
        throw new SimHttpError(405, 'method_not_allowed', 'Use PATCH or DELETE.');
      const account = authenticate(req);
      checkRateLimit();
      if (method === 'PATCH') {
        const edited = editPost(account, id, parseJson(raw));
        loseAnswer(req, edited.lost);
        return sendJson(res, 200, { id: edited.post.id, url: edited.post.url });
      }
      deletePost(account, id);
      return sendJson(res, 204, undefined);
    }
    const answered = oauth ? await dispatchOAuth(oauth, { method, url, headers: req.headers, raw }) : null;
    if (answered) {
      const payload = answered.body === undefined ? undefined : answered.body;
      const headers = Object.fromEntries(
        Object.entries(answered.headers ?? {}).map(([k, v]) => [k, String(v)]),
      );
      return sendJson(res, answered.status, payload, headers);
    }
    throw new SimHttpError(404, 'not_found', `No route ${method} ${path}.`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HoldRequest) return;
      if (res.headersSent) return;
      if (error instanceof SimHttpError) {
        sendJson(res, error.status, { error: { code: error.code, message: error.message } }, error.headers);
        return;
      }
      sendJson(res, 500, { error: { code: 'internal', message: 'Simulator error.' } });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('Simulator has no TCP address');
  const port = address.port;

  const sim: GenericSimulator = {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of held) socket.destroy();
        held.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    records: () => records.map((r) => ({ ...r })),
    reset: () => {
      posts.clear();
      oauth?.reset();
      records = [];
      refusedOnce = new Set();
      rateLimitedUntil = 0;
    },
    setRateLimited: (seconds: number) => {
      rateLimitedUntil = seconds > 0 ? Date.now() + seconds * 1000 : 0;
    },
  };
  return sim;
};
