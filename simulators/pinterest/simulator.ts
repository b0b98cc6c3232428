import { createHash, randomBytes } from 'node:crypto';
import {
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimResponse,
  type Simulator,
  startSimulator,
} from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { numericIdFor } from '../framework/oauth.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { pinterestOAuthSimulator, simPinterestBoards } from './oauth.ts';

/**
 * A local Pinterest API v5: pins (`POST /v5/pins`, `GET|PATCH|DELETE /v5/pins/{id}`,
 * `GET /v5/pins`, `GET /v5/boards/{id}/pins`), boards (`GET /v5/boards`), video uploads
 * (`POST /v5/media` → an S3-style form POST to `upload_url` → `GET /v5/media/{id}`:
 * `registered`, `processing`, `succeeded` or `failed`) and pin analytics
 * (`GET /v5/pins/{id}/analytics`), with Pinterest's `{ code, message }` error bodies and its
 * 429 (`code` 8, `x-ratelimit-limit`, `x-ratelimit-remaining`, `x-ratelimit-reset` in seconds).
 *
 * Like Pinterest it pulls `image_url` media itself while creating the pin (an address that does
 * not answer 200 with an image refuses the pin) and takes only boards of the token's user
 * (another user's board: 403; an unknown one: 404). The user behind a token is the OAuth half's
 * account for tokens it issued; any other token stands for a user derived from it
 * (`simPinterestUserFor`), with two boards (`simPinterestBoards`).
 *
 * Switches (`POST /_sim/pinterest/switches` or `setSwitches`): the daily cap spent
 * (`dailyLimitSeconds`), video processing failing (`processingFails`) or slow (`processingMs`), the
 * upload form's S3 policy lifetime (`uploadLifetimeSeconds`; an expired one answers 403).
 * `GET /_sim/pinterest/pins` and `GET /_sim/pinterest/media` list what arrived, with the media
 * each pin carries (sizes and digests of the bytes fetched, alt text).
 */

const NETWORK = 'Pinterest';
const RATE_LIMIT = 100;

const pinError = (status: number, code: number, message: string, headers?: SimResponse['headers']) => ({
  status,
  body: { code, message },
  ...(headers ? { headers } : {}),
});

const rateLimited = (seconds: number): SimResponse =>
  pinError(429, 8, 'You have exceeded your rate limit. Try again later.', {
    'x-ratelimit-limit': RATE_LIMIT,
    'x-ratelimit-remaining': 0,
    'x-ratelimit-reset': Math.max(1, Math.ceil(seconds)),
  });

export const pinterestErrors: SimErrorBodies = {
  // Pinterest answers a missing, unknown, expired or revoked token alike.
  unauthorized: () => pinError(401, 2, 'Authentication failed.'),
  refused: () =>
    pinError(
      400,
      1,
      "Invalid request: this Pin can't be saved because it goes against Pinterest's community guidelines (sim:fail).",
    ),
  unavailable: () => pinError(503, 0, 'Service unavailable. Please try again later.'),
  rateLimited: (_resetAt, seconds) => rateLimited(seconds),
  badRequest: (message) => pinError(400, 1, message),
  // A request the OpenAPI description (pinterest/api-description) refuses: Pinterest's error
  // object `{ code, message }` (its `Error` schema), code 1 as for its other invalid requests.
  invalidRequest: (issue) => pinError(400, 1, `Invalid request: ${issue.message}.`),
  notFound: (message) => pinError(404, 404, message),
};

/** The simulated user behind a token the OAuth half did not issue: a stable id and username. */
export const simPinterestUserFor = (token: string) => {
  const hash = createHash('sha256').update(token).digest('hex');
  return { id: numericIdFor(`pin-token:${token}`, 18), username: `sim_${hash.slice(0, 8)}` };
};

export interface SimPinImage {
  url: string;
  /** Bytes Pinterest fetched from `url`, and their SHA-256. */
  size: number;
  sha256: string;
  contentType: string;
}

export interface SimPin {
  id: string;
  owner: string;
  boardId: string;
  boardSectionId: string | null;
  title: string | null;
  description: string | null;
  link: string | null;
  altText: string | null;
  createdAt: string;
  deleted: boolean;
  media:
    | { type: 'image'; images: SimPinImage[] }
    | { type: 'multiple_images'; images: SimPinImage[] }
    | {
        type: 'video';
        mediaId: string;
        cover: SimPinImage | null;
        coverKeyFrameTime: number | null;
      };
}

export interface SimPinterestMedia {
  mediaId: string;
  owner: string;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  /** Fields of the upload form besides the file, as Pinterest handed them out. */
  key: string;
  size: number | null;
  sha256: string | null;
  contentType: string | null;
  /** When processing ends (ms epoch), once the file arrived. */
  readyAt: number | null;
  /** When the upload form's policy expires (ms epoch). */
  uploadExpiresAt: number;
  failing: boolean;
  /** Pins made with it. */
  pins: string[];
}

export interface PinterestSwitches {
  /** The daily cap is spent for this many seconds from now (0: not spent). */
  dailyLimitSeconds?: number;
  /** Video processing ends `failed`. */
  processingFails?: boolean;
  /** How long an uploaded video is `processing` (default 300 ms). */
  processingMs?: number;
  /** How long a registration's upload form is valid (its S3 policy; default 3,600 s). */
  uploadLifetimeSeconds?: number;
}

export interface PinterestSimulator extends Simulator {
  setSwitches(switches: PinterestSwitches): void;
  pins(): SimPin[];
  media(): SimPinterestMedia[];
}

export interface PinterestSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof pinterestOAuthSimulator>[0];
  /** Initial switches (reset restores them). */
  switches?: PinterestSwitches;
  /** The largest video the upload form takes (default 200 MiB). */
  maxUploadBytes?: number;
}

const TITLE_MAX = 100;
const DESCRIPTION_MAX = 800;
const LINK_MAX = 2048;
const ALT_MAX = 500;
const MAX_IMAGE_BYTES = 20_000_000;

let pinSequence = 0n;
/** Pin ids look like Pinterest's: 18 digits, increasing. */
const pinId = () => {
  pinSequence += 1n;
  return (BigInt(Date.now()) * 100000n + (pinSequence % 100000n)).toString();
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The image type its first bytes say (Pinterest reads the file, not the Content-Type), or null. */
const imageTypeOf = (bytes: Buffer): string | null => {
  if (bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'image/jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (/^GIF8[79]a/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  if (bytes.subarray(0, 2).toString('latin1') === 'BM') return 'image/bmp';
  if (['II*\0', 'MM\0*'].includes(bytes.subarray(0, 4).toString('latin1'))) return 'image/tiff';
  return null;
};

/** Fetches an image the way Pinterest pulls `image_url`: a 200 with an image, else the pin is refused. */
const pullImage = async (url: unknown, what: string): Promise<SimPinImage> => {
  const refuse = (detail: string) =>
    new SimHttpError(
      pinError(400, 1, `Invalid request: Sorry we could not fetch the image (${what}: ${detail}).`),
    );
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw refuse('not an http(s) URL');
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw refuse((error as Error).message);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw refuse(`HTTP ${res.status}`);
  }
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const bytes = Buffer.from(await res.arrayBuffer());
  const sniffed = imageTypeOf(bytes);
  if (!sniffed) throw refuse(`not an image (${contentType || 'no content type'})`);
  if (bytes.length === 0 || bytes.length > MAX_IMAGE_BYTES) throw refuse('empty or too large');
  return { url, size: bytes.length, sha256: sha256(bytes), contentType: sniffed };
};

/** A multipart/form-data body split into its fields (strings) and its `file` part (bytes). */
const parseForm = (raw: Buffer, contentType: string | undefined) => {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  const mark = boundary ? (boundary[1] ?? boundary[2]) : undefined;
  if (!mark) return null;
  const delimiter = Buffer.from(`--${mark}`);
  const fields: Record<string, string> = {};
  const order: string[] = [];
  let file: { bytes: Buffer; contentType: string | null } | null = null;
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) return null;
    const part = raw.subarray(start + 2, next - 2); // after CRLF, before CRLF
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) return null;
    const head = part.subarray(0, split).toString('utf8');
    const body = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) return null;
    order.push(name);
    if (/filename="/i.test(head) || name === 'file') {
      file = { bytes: Buffer.from(body), contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? null };
    } else {
      fields[name] = body.toString('utf8');
    }
    at = next;
  }
  return { fields, order, file };
};

export const startPinterestSimulator = async (
  options: PinterestSimulatorOptions = {},
): Promise<PinterestSimulator> => {
  const oauth = pinterestOAuthSimulator(options.oauth);
  const pins = new Map<string, SimPin>();
  const media = new Map<string, SimPinterestMedia>();
  /** Every board handed out, with its owner: a board of another user is refused with 403. */
  const boardOwners = new Map<string, string>();
  const switches: Required<PinterestSwitches> = {
    dailyLimitSeconds: 0,
    processingFails: false,
    processingMs: 300,
    uploadLifetimeSeconds: 3600,
  };
  let dailyLimitedUntil = 0;
  const setSwitches = (next: PinterestSwitches) => {
    if (next.processingFails !== undefined) switches.processingFails = next.processingFails;
    if (next.processingMs !== undefined) switches.processingMs = next.processingMs;
    if (next.uploadLifetimeSeconds !== undefined) switches.uploadLifetimeSeconds = next.uploadLifetimeSeconds;
    if (next.dailyLimitSeconds !== undefined) {
      switches.dailyLimitSeconds = next.dailyLimitSeconds;
      dailyLimitedUntil = next.dailyLimitSeconds > 0 ? Date.now() + next.dailyLimitSeconds * 1000 : 0;
    }
  };
  setSwitches(options.switches ?? {});
  let baseUrl = '';

  const userOf = (ctx: SimContext): { id: string; username: string; scopes?: string[] } => {
    const token = ctx.token as string;
    return oauth.accountOf(token) ?? simPinterestUserFor(token);
  };
  /** Tokens the OAuth half issued carry their scopes; Pinterest refuses a call the grant lacks (403, code 3). */
  const requireScope = (ctx: SimContext, scope: string) => {
    const user = userOf(ctx);
    if (user.scopes && !user.scopes.includes(scope)) {
      throw new SimHttpError(pinError(403, 3, `Not authorized: this token lacks the ${scope} scope.`));
    }
    return user;
  };
  const boardsOf = (userId: string) => {
    const boards = simPinterestBoards(userId);
    for (const board of boards) boardOwners.set(board.id, userId);
    return boards;
  };

  /** The user's own board, or Pinterest's 404/403. */
  const ownBoard = (boardId: unknown, userId: string): string => {
    if (typeof boardId !== 'string' || !/^\d+$/.test(boardId)) {
      throw new SimHttpError(pinError(400, 1, 'Invalid request: board_id must be a string of digits.'));
    }
    if (boardsOf(userId).some((board) => board.id === boardId)) return boardId;
    if (boardOwners.has(boardId)) {
      throw new SimHttpError(pinError(403, 29, 'You are not permitted to access that resource.'));
    }
    throw new SimHttpError(pinError(404, 404, 'Board not found.'));
  };

  const textField = (body: Record<string, unknown>, key: string, max: number): string | null => {
    const value = body[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string')
      throw new SimHttpError(pinError(400, 1, `Invalid request: ${key} must be a string.`));
    if ([...value].length > max) {
      throw new SimHttpError(pinError(400, 1, `Invalid request: ${key} must be at most ${max} characters.`));
    }
    return value;
  };

  const linkField = (body: Record<string, unknown>) => {
    const link = textField(body, 'link', LINK_MAX);
    if (link !== null && !/^https?:\/\/[^\s]+$/i.test(link)) {
      throw new SimHttpError(pinError(400, 1, 'Invalid request: link must be a valid http(s) URL.'));
    }
    return link;
  };

  const settle = (item: SimPinterestMedia) => {
    if (item.status === 'processing' && item.readyAt !== null && Date.now() >= item.readyAt) {
      item.status = item.failing ? 'failed' : 'succeeded';
    }
    return item;
  };

  const mediaSource = async (raw: unknown, userId: string): Promise<SimPin['media']> => {
    const source = objectOf(raw);
    if (!source) throw new SimHttpError(pinError(400, 1, 'Invalid request: media_source is required.'));
    switch (source.source_type) {
      case 'image_url':
        return { type: 'image', images: [await pullImage(source.url, 'media_source.url')] };
      case 'multiple_image_urls': {
        const items = source.items;
        if (!Array.isArray(items) || items.length < 2 || items.length > 5) {
          throw new SimHttpError(
            pinError(400, 1, 'Invalid request: media_source.items must have between 2 and 5 images.'),
          );
        }
        const images: SimPinImage[] = [];
        for (const [i, item] of items.entries()) {
          images.push(await pullImage(objectOf(item)?.url, `media_source.items[${i}].url`));
        }
        return { type: 'multiple_images', images };
      }
      case 'video_id': {
        const id = source.media_id;
        const item = typeof id === 'string' ? media.get(id) : undefined;
        if (!item || item.owner !== userId) {
          throw new SimHttpError(pinError(404, 404, 'Media not found.'));
        }
        settle(item);
        if (item.status !== 'succeeded') {
          throw new SimHttpError(
            pinError(400, 1, `Invalid request: the video upload is ${item.status}, not succeeded.`),
          );
        }
        const frame = source.cover_image_key_frame_time;
        if (frame !== undefined && (typeof frame !== 'number' || !Number.isInteger(frame) || frame < 0)) {
          throw new SimHttpError(
            pinError(
              400,
              1,
              'Invalid request: cover_image_key_frame_time must be a whole number of seconds.',
            ),
          );
        }
        if (source.cover_image_url === undefined && frame === undefined) {
          throw new SimHttpError(
            pinError(
              400,
              1,
              'Invalid request: a video Pin needs cover_image_url or cover_image_key_frame_time.',
            ),
          );
        }
        const cover =
          source.cover_image_url === undefined
            ? null
            : await pullImage(source.cover_image_url, 'media_source.cover_image_url');
        return {
          type: 'video',
          mediaId: item.mediaId,
          cover,
          coverKeyFrameTime: typeof frame === 'number' ? frame : null,
        };
      }
      default:
        throw new SimHttpError(
          pinError(
            400,
            1,
            `Invalid request: media_source.source_type ${String(source.source_type)} is not supported.`,
          ),
        );
    }
  };

  const pinView = (pin: SimPin, withMetrics = false) => ({
    id: pin.id,
    created_at: pin.createdAt,
    link: pin.link,
    title: pin.title,
    description: pin.description,
    dominant_color: '#6E7874',
    alt_text: pin.altText,
    creative_type:
      pin.media.type === 'video' ? 'VIDEO' : pin.media.type === 'multiple_images' ? 'CAROUSEL' : 'REGULAR',
    board_id: pin.boardId,
    board_section_id: pin.boardSectionId,
    board_owner: { username: pin.owner },
    is_owner: true,
    is_standard: true,
    has_been_promoted: false,
    parent_pin_id: null,
    media:
      pin.media.type === 'video'
        ? { media_type: 'video', cover_image_url: pin.media.cover?.url ?? null }
        : pin.media.type === 'image'
          ? { media_type: 'image', images: { originals: { url: pin.media.images[0]?.url } } }
          : { media_type: 'multiple_images', items: pin.media.images.map((image) => ({ url: image.url })) },
    ...(withMetrics ? { pin_metrics: { lifetime_metrics: lifetimeOf(pin) } } : {}),
  });

  const countsOf = (pin: SimPin) => simulatorMetrics('pinterest', pin.id, new Date(pin.createdAt));
  const lifetimeOf = (pin: SimPin) => {
    const m = countsOf(pin);
    return { impression: m.impressions ?? 0, save: m.saves ?? 0, pin_click: m.clicks ?? 0 };
  };

  const livePin = (ctx: SimContext): SimPin => {
    const pin = pins.get(ctx.params.id as string);
    if (!pin || pin.deleted) throw new SimHttpError(pinError(404, 404, 'Pin not found.'));
    if (pin.owner !== userOf(ctx).id) {
      throw new SimHttpError(pinError(403, 29, 'You are not permitted to access that resource.'));
    }
    return pin;
  };

  const createPin = async (ctx: SimContext): Promise<SimResponse> => {
    if (Date.now() < dailyLimitedUntil) return rateLimited((dailyLimitedUntil - Date.now()) / 1000);
    const body = objectOf(ctx.body);
    if (!body) return pinterestErrors.badRequest('Invalid request: the body must be a JSON object.');
    const user = requireScope(ctx, 'pins:write');
    const boardId = ownBoard(body.board_id, user.id);
    const boardSectionId = body.board_section_id;
    if (boardSectionId !== undefined && boardSectionId !== null) {
      return pinError(404, 404, 'Board section not found.');
    }
    const title = textField(body, 'title', TITLE_MAX);
    const description = textField(body, 'description', DESCRIPTION_MAX);
    const altText = textField(body, 'alt_text', ALT_MAX);
    const link = linkField(body);
    // Sim tokens act on the pin's text before Pinterest does any work on it.
    const lost = ctx.screen(description ?? title ?? '', user.id);
    const source = await mediaSource(body.media_source, user.id);
    const pin: SimPin = {
      id: pinId(),
      owner: user.id,
      boardId,
      boardSectionId: null,
      title,
      description,
      link,
      altText,
      createdAt: new Date().toISOString(),
      deleted: false,
      media: source,
    };
    pins.set(pin.id, pin);
    if (source.type === 'video') media.get(source.mediaId)?.pins.push(pin.id);
    ctx.record({
      kind: 'post',
      id: pin.id,
      parentId: null,
      rootId: null,
      text: description,
      account: user.id,
    });
    return { status: 201, body: pinView(pin), lost };
  };

  const updatePin = (ctx: SimContext): SimResponse => {
    const pin = livePin(ctx);
    const body = objectOf(ctx.body);
    if (!body) return pinterestErrors.badRequest('Invalid request: the body must be a JSON object.');
    const known = [
      'title',
      'description',
      'link',
      'alt_text',
      'board_id',
      'board_section_id',
      'carousel_slots',
    ];
    const unknown = Object.keys(body).find((key) => !known.includes(key));
    if (unknown) return pinterestErrors.badRequest(`Invalid request: ${unknown} cannot be updated.`);
    const next = {
      title: 'title' in body ? textField(body, 'title', TITLE_MAX) : pin.title,
      description: 'description' in body ? textField(body, 'description', DESCRIPTION_MAX) : pin.description,
      altText: 'alt_text' in body ? textField(body, 'alt_text', ALT_MAX) : pin.altText,
      link: 'link' in body ? linkField(body) : pin.link,
      boardId: body.board_id !== undefined ? ownBoard(body.board_id, pin.owner) : pin.boardId,
    };
    const lost = ctx.screen(next.description ?? next.title ?? '', pin.owner);
    Object.assign(pin, next);
    ctx.record({
      kind: 'edit',
      id: pin.id,
      parentId: null,
      rootId: null,
      text: pin.description,
      account: pin.owner,
    });
    return { status: 200, body: pinView(pin), lost };
  };

  const deletePin = (ctx: SimContext): SimResponse => {
    const pin = livePin(ctx);
    pin.deleted = true;
    ctx.record({ kind: 'delete', id: pin.id, parentId: null, rootId: null, text: null, account: pin.owner });
    return { status: 204 };
  };

  /** A page of pins, newest first, with Pinterest's `bookmark` cursor. */
  const page = (ctx: SimContext, list: SimPin[]): SimResponse => {
    const size = Number(ctx.query.get('page_size') ?? 25);
    if (!Number.isInteger(size) || size < 1 || size > 250) {
      return pinterestErrors.badRequest('Invalid request: page_size must be between 1 and 250.');
    }
    const bookmark = ctx.query.get('bookmark');
    const start = bookmark ? Number(Buffer.from(bookmark, 'base64url').toString('utf8')) : 0;
    if (!Number.isInteger(start) || start < 0)
      return pinterestErrors.badRequest('Invalid request: bad bookmark.');
    const sorted = [...list].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const withMetrics = ctx.query.get('pin_metrics') === 'true';
    const items = sorted.slice(start, start + size).map((pin) => pinView(pin, withMetrics));
    const more = start + size < sorted.length;
    return {
      status: 200,
      body: { items, bookmark: more ? Buffer.from(String(start + size)).toString('base64url') : null },
    };
  };

  const listPins = (ctx: SimContext) => {
    const user = userOf(ctx).id;
    return page(
      ctx,
      [...pins.values()].filter((pin) => !pin.deleted && pin.owner === user),
    );
  };

  const boardPins = (ctx: SimContext) => {
    const user = userOf(ctx).id;
    const boardId = ownBoard(ctx.params.board_id, user);
    return page(
      ctx,
      [...pins.values()].filter((pin) => !pin.deleted && pin.boardId === boardId),
    );
  };

  const listBoards = (ctx: SimContext): SimResponse => {
    const user = requireScope(ctx, 'boards:read');
    const items = boardsOf(user.id).map((board) => ({
      ...board,
      description: '',
      privacy: 'PUBLIC',
      owner: { username: user.username },
    }));
    return { status: 200, body: { items, bookmark: null } };
  };

  const DAY_MS = 86_400_000;
  const analytics = (ctx: SimContext): SimResponse => {
    const pin = livePin(ctx);
    const start = ctx.query.get('start_date') ?? '';
    const end = ctx.query.get('end_date') ?? '';
    const types = (ctx.query.get('metric_types') ?? '').split(',').filter(Boolean);
    const invalid = () => pinError(400, 400, 'Invalid pins analytics parameters.');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || types.length === 0) {
      return invalid();
    }
    const startMs = Date.parse(`${start}T00:00:00Z`);
    const endMs = Date.parse(`${end}T00:00:00Z`);
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    if (Number.isNaN(startMs) || Number.isNaN(endMs) || endMs < startMs) return invalid();
    if (today - startMs > 90 * DAY_MS || endMs - startMs > 90 * DAY_MS) return invalid();
    const m = countsOf(pin);
    const values: Record<string, number> = {
      IMPRESSION: m.impressions ?? 0,
      SAVE: m.saves ?? 0,
      PIN_CLICK: m.clicks ?? 0,
      OUTBOUND_CLICK: Math.floor((m.clicks ?? 0) / 3),
    };
    const known = [
      'IMPRESSION',
      'OUTBOUND_CLICK',
      'PIN_CLICK',
      'SAVE',
      'SAVE_RATE',
      'TOTAL_COMMENTS',
      'TOTAL_REACTIONS',
      'VIDEO_MRC_VIEW',
      'VIDEO_START',
      'VIDEO_10S_VIEW',
      'USER_FOLLOW',
      'PROFILE_VISIT',
    ];
    if (types.some((type) => !known.includes(type))) return invalid();
    // Counts before the pin existed or after the report's end are not in it.
    const created = Date.parse(pin.createdAt);
    const covered = endMs + DAY_MS > created;
    const summary: Record<string, number> = {};
    for (const type of types) {
      if (type in values) summary[type] = covered ? (values[type] as number) : 0;
    }
    return {
      status: 200,
      body: {
        all: {
          daily_metrics: [{ date: end, data_status: 'READY', metrics: summary }],
          summary_metrics: summary,
          lifetime_metrics: {},
        },
      },
    };
  };

  const registerMedia = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body);
    if (body?.media_type !== 'video') {
      return pinterestErrors.badRequest('Invalid request: media_type must be video.');
    }
    const user = userOf(ctx);
    const mediaId = numericIdFor(`media:${randomBytes(8).toString('hex')}`, 19);
    const key = `uploads/${mediaId.slice(0, 2)}/${mediaId.slice(2, 4)}/2:video:${user.id}:${mediaId}`;
    media.set(mediaId, {
      mediaId,
      owner: user.id,
      status: 'registered',
      key,
      size: null,
      sha256: null,
      contentType: null,
      readyAt: null,
      uploadExpiresAt: Date.now() + switches.uploadLifetimeSeconds * 1000,
      failing: false,
      pins: [],
    });
    const date = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    return {
      status: 201,
      body: {
        media_id: mediaId,
        media_type: 'video',
        upload_url: `${baseUrl}/_s3/pinterest-media-upload`,
        upload_parameters: {
          'x-amz-date': date,
          'x-amz-signature': signatureOf(key),
          'x-amz-security-token': randomBytes(12).toString('base64'),
          'x-amz-algorithm': 'AWS4-HMAC-SHA256',
          key,
          policy: Buffer.from(
            JSON.stringify({ expiration: new Date(Date.now() + switches.uploadLifetimeSeconds * 1000) }),
          ).toString('base64'),
          'x-amz-credential': `ASIASIM/${date.slice(0, 8)}/us-east-1/s3/aws4_request`,
          'Content-Type': 'multipart/form-data',
        },
      },
    };
  };
  const secret = randomBytes(16);
  const signatureOf = (key: string) => createHash('sha256').update(secret).update(key).digest('hex');

  const getMedia = (ctx: SimContext): SimResponse => {
    const item = media.get(ctx.params.id as string);
    if (!item || item.owner !== userOf(ctx).id) return pinError(404, 404, 'Media not found.');
    settle(item);
    return { status: 200, body: { media_id: item.mediaId, media_type: 'video', status: item.status } };
  };

  /** The S3 form POST: the upload parameters as fields, then `file`; 204 as S3 answers. */
  const s3Upload = (ctx: SimContext): SimResponse => {
    const s3Error = (status: number, code: string, message: string): SimResponse => ({
      status,
      body: { Error: { Code: code, Message: message } },
    });
    const form = parseForm(ctx.rawBody, ctx.headers['content-type']);
    if (!form?.file)
      return s3Error(
        400,
        'MalformedPOSTRequest',
        'The body of your POST request is not well-formed multipart/form-data.',
      );
    if (form.order[form.order.length - 1] !== 'file') {
      return s3Error(400, 'InvalidArgument', 'The file must be the last field of the form.');
    }
    const key = form.fields.key ?? '';
    const item = [...media.values()].find((candidate) => candidate.key === key);
    if (!item || form.fields['x-amz-signature'] !== signatureOf(key)) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    for (const field of ['policy', 'x-amz-credential', 'x-amz-algorithm', 'x-amz-date']) {
      if (!form.fields[field]) return s3Error(400, 'InvalidArgument', `Missing form field ${field}.`);
    }
    if (item.status !== 'registered') return s3Error(403, 'AccessDenied', 'The upload was already used.');
    if (Date.now() >= item.uploadExpiresAt) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
    }
    item.size = form.file.bytes.length;
    item.sha256 = sha256(form.file.bytes);
    item.contentType = form.file.contentType;
    item.status = 'processing';
    item.failing = switches.processingFails;
    item.readyAt = Date.now() + switches.processingMs;
    return { status: 204 };
  };

  const simulator = await startSimulator({
    name: NETWORK,
    errors: pinterestErrors,
    spec: requestSpecFor('pinterest'),
    port: options.port,
    holdMs: options.holdMs,
    oauth: { ...oauth, routes: oauth.routes.filter((route) => route.path !== '/v5/boards') },
    onReset: () => {
      pins.clear();
      media.clear();
      boardOwners.clear();
      dailyLimitedUntil = 0;
      switches.processingFails = false;
      switches.processingMs = 300;
      switches.uploadLifetimeSeconds = 3600;
      setSwitches(options.switches ?? {});
    },
    routes: [
      { method: 'POST', path: '/v5/pins', handler: createPin },
      { method: 'GET', path: '/v5/pins', handler: listPins },
      {
        method: 'GET',
        path: '/v5/pins/:id',
        handler: (ctx) => ({
          status: 200,
          body: pinView(livePin(ctx), ctx.query.get('pin_metrics') === 'true'),
        }),
      },
      { method: 'PATCH', path: '/v5/pins/:id', handler: updatePin },
      { method: 'DELETE', path: '/v5/pins/:id', handler: deletePin },
      { method: 'GET', path: '/v5/pins/:id/analytics', handler: analytics },
      { method: 'GET', path: '/v5/boards', handler: listBoards },
      { method: 'GET', path: '/v5/boards/:board_id/pins', handler: boardPins },
      { method: 'POST', path: '/v5/media', handler: registerMedia },
      { method: 'GET', path: '/v5/media/:id', handler: getMedia },
      {
        method: 'POST',
        path: '/_s3/pinterest-media-upload',
        auth: false,
        rawBody: true,
        maxBodyBytes: options.maxUploadBytes ?? 200 * 1024 * 1024,
        handler: s3Upload,
      },
      {
        method: 'GET',
        path: '/_sim/pinterest/pins',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...pins.values()] } }),
      },
      {
        method: 'GET',
        path: '/_sim/pinterest/media',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...media.values()].map(settle) } }),
      },
      {
        method: 'POST',
        path: '/_sim/pinterest/switches',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body);
          const types: Record<string, string> = {
            dailyLimitSeconds: 'number',
            processingFails: 'boolean',
            processingMs: 'number',
            uploadLifetimeSeconds: 'number',
          };
          if (!body) return { status: 400, body: { message: 'Send a JSON object of switches' } };
          for (const [key, value] of Object.entries(body)) {
            if (types[key] === undefined || typeof value !== types[key]) {
              return { status: 400, body: { message: `Unknown switch or bad value: ${key}` } };
            }
          }
          setSwitches(body as PinterestSwitches);
          return { status: 204 };
        },
      },
    ],
  });
  baseUrl = simulator.url;
  return {
    ...simulator,
    setSwitches,
    pins: () => [...pins.values()].map((pin) => structuredClone(pin)),
    media: () => [...media.values()].map((item) => structuredClone(settle(item))),
  };
};
