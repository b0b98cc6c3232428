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
import { vimeoOAuthSimulator, vimeoScopeRefusal } from './oauth.ts';
import { vimeoUploadHosts } from './upload.ts';

/**
 * A local Vimeo API (api.vimeo.com, version 3.4):
 * - `POST /me/videos {upload:{approach:'tus', size}, name, description, privacy:{view}, password}`
 *   → 200 with the video (`uri` `/videos/{id}`, `link`, `upload.upload_link` on the tus host, see
 *   upload-simulator.ts). The video exists from this call on, before any byte: it is the post
 *   (recorded with its description as text; the sim tokens apply to the description);
 * - `GET /me/videos?sort=date&direction=desc&fields=…` (the account's videos, newest first, paged
 *   with `page`/`per_page`), `GET /videos/{id}?fields=…` (Vimeo's `fields` filter: dotted paths),
 *   `PATCH /videos/{id} {name, description, privacy, password}` → 200, `DELETE /videos/{id}` → 204;
 * - text tracks: `POST /videos/{id}/texttracks {type, language, name}` → 201 with a `link` on the
 *   captions host to PUT the file to, `PATCH /videos/{id}/texttracks/{track} {active}` → 200,
 *   `GET /videos/{id}/texttracks`;
 * - after the last byte arrives, `upload.status` is `complete` and `transcode.status`
 *   `in_progress` for `processingMs`, then `complete` (or `error` when the `failTranscode` switch
 *   is on); `status` follows (`uploading`, `transcoding`, `available`, `transcoding_error`);
 * - metrics on the video: `stats.plays` and `metadata.connections.{likes,comments}.total`,
 *   growing with the video's age (simulator/metrics.ts);
 * - errors as Vimeo's `{ error, link, developer_message, error_code }`: 401 (8003), 404 (5000),
 *   400 (2204, a parameter Vimeo refuses), 403 when the account lacks space for the upload
 *   (4101, the `freeSpaceBytes` switch), 429 with `X-RateLimit-Limit`, `X-RateLimit-Remaining`
 *   and `X-RateLimit-Reset` (an ISO 8601 time), 503. The error codes are indicative.
 * The account is the token's user (OAuth mount), or one derived from a token it did not issue.
 * Inspection: `GET /_sim/vimeo/videos` (each video with its bytes received, SHA-256, metadata,
 * text tracks and status), `POST /_sim/vimeo/switches {dropAfterBytes, failTranscode,
 * freeSpaceBytes, processingMs}`.
 */

const vimeoError = (
  status: number,
  code: number,
  error: string,
  developerMessage = error,
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: { error, link: null, developer_message: developerMessage, error_code: code },
  ...(headers ? { headers } : {}),
});

const RATE_LIMIT = 250;

export const vimeoErrors: SimErrorBodies = {
  unauthorized: (reason) =>
    reason === 'missing'
      ? vimeoError(
          401,
          8002,
          'You must provide a valid authenticated access token.',
          'No access token was sent.',
        )
      : vimeoError(
          401,
          8003,
          'You must provide a valid authenticated access token.',
          'The access token is invalid or has been revoked.',
        ),
  refused: () =>
    vimeoError(
      400,
      2204,
      'The parameters passed to this API endpoint did not pass Vimeo’s validation.',
      'The description was refused (sim:fail).',
    ),
  unavailable: () =>
    vimeoError(
      503,
      9000,
      'Vimeo is temporarily unavailable.',
      'Something strange occurred. Please try again.',
    ),
  rateLimited: (resetAt) =>
    vimeoError(
      429,
      9000,
      'You have made too many requests.',
      'You have exceeded the rate limit for this application. Try again after X-RateLimit-Reset.',
      {
        'x-ratelimit-limit': RATE_LIMIT,
        'x-ratelimit-remaining': 0,
        'x-ratelimit-reset': resetAt.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      },
    ),
  badRequest: (message) =>
    vimeoError(
      400,
      2204,
      'The parameters passed to this API endpoint did not pass Vimeo’s validation.',
      message,
    ),
  // A request the OpenAPI description refuses: 2204 with the field in `invalid_parameters`.
  invalidRequest: (issue) => {
    const answer = vimeoErrors.badRequest(issue.message);
    const field = issue.location === 'body' ? issue.path.join('.') : issue.name;
    const invalid = { field, error_code: 2205, error: issue.message, developer_message: issue.message };
    return { ...answer, body: { ...(answer.body as object), invalid_parameters: [invalid] } };
  },
  notFound: (message) => vimeoError(404, 5000, 'The requested video couldn’t be found.', message),
  badGateway: () => ({ status: 502, body: { message: 'Bad Gateway' } }),
};

export const VIMEO_PRIVACY = ['anybody', 'nobody', 'unlisted', 'password', 'users', 'disable'] as const;

export interface SimVimeoTrack {
  id: string;
  uri: string;
  type: 'captions' | 'subtitles' | 'chapters' | 'descriptions' | 'metadata';
  language: string;
  name: string;
  active: boolean;
  /** Bytes PUT to the track's link (null until then) and their SHA-256. */
  size: number | null;
  sha256: string | null;
  text: string | null;
}

export interface SimVimeoVideo {
  id: string;
  /** Inspection only: PATCH connections the drop switch cut. */
  droppedConnections?: number;
  uri: string;
  link: string;
  account: string;
  name: string;
  description: string;
  privacy: string;
  password: string | null;
  createdTime: string;
  modifiedTime: string;
  /** Upload-Length given at creation, and the bytes received so far. */
  size: number;
  received: number;
  sha256: string | null;
  uploadStatus: 'in_progress' | 'complete' | 'error';
  transcodeStatus: 'in_progress' | 'complete' | 'error';
  /** When transcoding ends (ms since the epoch), once the upload is complete. */
  transcodedAt: number | null;
  transcodeFails: boolean;
  tracks: SimVimeoTrack[];
  deleted: boolean;
  uploadToken: string;
}

export interface VimeoSimulatorOptions {
  port?: number;
  /** The OAuth app (its credentials and registered redirect URIs). */
  oauth?: Parameters<typeof vimeoOAuthSimulator>[0];
  holdMs?: number;
  /** How long a complete upload is transcoding (default 300 ms). */
  processingMs?: number;
}

export interface VimeoSimulator extends Simulator {
  videos(): SimVimeoVideo[];
}

/** Vimeo's JSON filter: keeps only the dotted `fields` paths of an object. */
export const filterFields = (
  value: Record<string, unknown>,
  fields: string | null,
): Record<string, unknown> => {
  if (!fields) return value;
  const out: Record<string, unknown> = {};
  for (const path of fields
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)) {
    const keys = path.split('.');
    let from: unknown = value;
    for (const key of keys) from = objectOf(from)?.[key];
    if (from === undefined) continue;
    let into = out;
    keys.slice(0, -1).forEach((key) => {
      into[key] = objectOf(into[key]) ?? {};
      into = into[key] as Record<string, unknown>;
    });
    into[keys.at(-1) as string] = from;
  }
  return out;
};

const vimeoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export const startVimeoSimulator = async (options: VimeoSimulatorOptions = {}): Promise<VimeoSimulator> => {
  const videos = new Map<string, SimVimeoVideo>();
  const hosts = vimeoUploadHosts();
  await hosts.start();
  const oauth = vimeoOAuthSimulator(options.oauth);
  let processingMs = options.processingMs ?? 300;
  let failTranscode = false;
  /** Free space per account (bytes); null: unlimited. */
  let freeSpaceBytes: number | null = null;
  let nextId = 100_000_000 + Math.floor(Math.random() * 800_000_000);

  const accountOf = (ctx: SimContext) =>
    oauth.accountOf(ctx.token ?? '')?.id ?? numericIdFor(`vimeo:${ctx.token ?? ''}`, 9);

  // --- Scopes (Vimeo's OpenAPI reference, https://github.com/vimeo/openapi `api.yaml`): each data
  // route takes the scope its operation's `security` names (`upload` to create a video or add a
  // text track, `edit` to change one, `delete` to delete one); reads take `public`, and a video
  // that is not public (`privacy.view` other than `anybody`) is seen only with `private` as well.
  // A token the OAuth half did not issue (tests' made-up tokens) carries no scope list: allowed.
  const scopesOf = (ctx: SimContext) => oauth.scopesOf(ctx.token ?? '');
  const requireScope = (ctx: SimContext, scope: string) => {
    const scopes = scopesOf(ctx);
    if (scopes && !scopes.includes(scope)) throw new SimHttpError(vimeoScopeRefusal(scope));
  };
  const seesPrivate = (ctx: SimContext) => scopesOf(ctx)?.includes('private') ?? true;
  /** A route's handler behind its scope. */
  const scoped =
    (scope: string, handler: (ctx: SimContext) => SimResponse) =>
    (ctx: SimContext): SimResponse => {
      requireScope(ctx, scope);
      return handler(ctx);
    };
  /** A read of one video: `public`, and `private` too when the video is not public. */
  const readable =
    (handler: (ctx: SimContext) => SimResponse) =>
    (ctx: SimContext): SimResponse => {
      requireScope(ctx, 'public');
      const video = videos.get(ctx.params.id as string);
      if (video && video.privacy !== 'anybody') requireScope(ctx, 'private');
      return handler(ctx);
    };

  const settle = (video: SimVimeoVideo) => {
    if (
      video.transcodeStatus === 'in_progress' &&
      video.transcodedAt !== null &&
      Date.now() >= video.transcodedAt
    ) {
      video.transcodeStatus = video.transcodeFails ? 'error' : 'complete';
    }
    return video;
  };

  const statusOf = (video: SimVimeoVideo) =>
    video.uploadStatus !== 'complete'
      ? 'uploading'
      : video.transcodeStatus === 'in_progress'
        ? 'transcoding'
        : video.transcodeStatus === 'error'
          ? 'transcoding_error'
          : 'available';

  const own = (ctx: SimContext): SimVimeoVideo => {
    const video = videos.get(ctx.params.id as string);
    if (!video || video.deleted) {
      throw new SimHttpError(vimeoErrors.notFound(`No video exists with the id ${ctx.params.id}.`));
    }
    if (video.account !== accountOf(ctx)) {
      throw new SimHttpError(
        vimeoError(
          403,
          3200,
          'You don’t have permission to access this video.',
          'The video belongs to another user.',
        ),
      );
    }
    return settle(video);
  };

  const representation = (video: SimVimeoVideo): Record<string, unknown> => {
    settle(video);
    const metrics = simulatorMetrics('vimeo', video.id, new Date(video.createdTime));
    return {
      uri: video.uri,
      name: video.name,
      description: video.description,
      type: 'video',
      link: video.link,
      player_embed_url: `https://player.vimeo.com/video/${video.id}`,
      duration: 0,
      created_time: video.createdTime,
      modified_time: video.modifiedTime,
      privacy: { view: video.privacy, embed: 'public', download: false, add: true, comments: 'anybody' },
      status: statusOf(video),
      user: { uri: `/users/${video.account}` },
      upload: {
        status: video.uploadStatus,
        approach: 'tus',
        size: video.size,
        upload_link: video.uploadStatus === 'complete' ? null : hostsLink(video),
        form: null,
        complete_uri: null,
        redirect_url: null,
        link: null,
      },
      transcode: { status: video.uploadStatus === 'complete' ? video.transcodeStatus : 'in_progress' },
      stats: { plays: video.privacy === 'nobody' ? null : (metrics.views ?? 0) },
      metadata: {
        connections: {
          comments: { uri: `${video.uri}/comments`, options: ['GET', 'POST'], total: metrics.comments ?? 0 },
          likes: { uri: `${video.uri}/likes`, options: ['GET'], total: metrics.likes ?? 0 },
          texttracks: {
            uri: `${video.uri}/texttracks`,
            options: ['GET', 'POST'],
            total: video.tracks.length,
          },
        },
      },
    };
  };

  const links = new Map<string, string>();
  const hostsLink = (video: SimVimeoVideo) => links.get(video.id) ?? null;

  const privacyOf = (
    body: Record<string, unknown>,
  ): { view: string | undefined; password: string | null } => {
    const privacy = body.privacy;
    if (privacy !== undefined && objectOf(privacy) === null) {
      throw new SimHttpError(vimeoErrors.badRequest('privacy must be an object.'));
    }
    const view = objectOf(privacy)?.view;
    if (view !== undefined && !VIMEO_PRIVACY.includes(view as (typeof VIMEO_PRIVACY)[number])) {
      throw new SimHttpError(
        vimeoErrors.badRequest(`privacy.view must be one of ${VIMEO_PRIVACY.join(', ')}.`),
      );
    }
    const password = body.password;
    if (password !== undefined && (typeof password !== 'string' || password === '')) {
      throw new SimHttpError(vimeoErrors.badRequest('password must be a non-empty string.'));
    }
    return { view: view as string | undefined, password: (password as string | undefined) ?? null };
  };

  const textField = (body: Record<string, unknown>, key: string, max: number | null) => {
    const value = body[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || (max !== null && [...value].length > max)) {
      throw new SimHttpError(
        vimeoErrors.badRequest(
          `${key} must be a string${max === null ? '' : ` of at most ${max} characters`}.`,
        ),
      );
    }
    return value;
  };

  const create = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body);
    if (!body) return vimeoErrors.badRequest('The body must be a JSON object.');
    const upload = objectOf(body.upload);
    if (upload?.approach !== 'tus') {
      return vimeoErrors.badRequest('upload.approach must be tus (the simulator serves tus uploads only).');
    }
    const size = upload.size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
      return vimeoError(
        400,
        2204,
        'The upload size is missing or invalid.',
        'upload.size must be a positive integer.',
      );
    }
    const name = textField(body, 'name', 128) ?? 'Untitled';
    const description = textField(body, 'description', 5000) ?? '';
    const { view, password } = privacyOf(body);
    if (view === 'password' && !password) {
      return vimeoErrors.badRequest('A password is required when privacy.view is password.');
    }
    const account = accountOf(ctx);
    if (freeSpaceBytes !== null) {
      const used = [...videos.values()]
        .filter((v) => v.account === account && !v.deleted)
        .reduce((sum, v) => sum + v.size, 0);
      if (used + size > freeSpaceBytes) {
        return vimeoError(
          403,
          4101,
          'The user doesn’t have enough free space to upload this video.',
          `The video needs ${size} bytes; the account has ${Math.max(0, freeSpaceBytes - used)} bytes free.`,
        );
      }
    }
    const lost = ctx.screen(description, account);
    const id = String(nextId++);
    const now = Date.now();
    const privacy = view ?? 'anybody';
    const video: SimVimeoVideo = {
      id,
      uri: `/videos/${id}`,
      link: `https://vimeo.com/${id}${privacy === 'unlisted' ? `/${randomBytes(5).toString('hex')}` : ''}`,
      account,
      name,
      description,
      privacy,
      password: privacy === 'password' ? password : null,
      createdTime: vimeoTime(now),
      modifiedTime: vimeoTime(now),
      size,
      received: 0,
      sha256: null,
      uploadStatus: 'in_progress',
      transcodeStatus: 'in_progress',
      transcodedAt: null,
      transcodeFails: false,
      tracks: [],
      deleted: false,
      uploadToken: '',
    };
    const opened = hosts.openUpload(
      size,
      (sha256) => {
        video.received = size;
        video.sha256 = sha256;
        video.uploadStatus = 'complete';
        video.transcodedAt = Date.now() + processingMs;
        video.transcodeFails = failTranscode;
        video.modifiedTime = vimeoTime(Date.now());
      },
      () => !video.deleted,
    );
    video.uploadToken = opened.token;
    links.set(id, opened.link);
    videos.set(id, video);
    ctx.record({ kind: 'post', id, parentId: null, rootId: null, text: description, account });
    return { status: 200, body: representation(video), lost };
  };

  const list = (ctx: SimContext): SimResponse => {
    const account = accountOf(ctx);
    const direction = ctx.query.get('direction') ?? 'desc';
    const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 25) || 25));
    const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1);
    const mine = [...videos.values()]
      .filter((v) => v.account === account && !v.deleted)
      // Without the `private` scope only public videos are listed (see requireScope).
      .filter((v) => v.privacy === 'anybody' || seesPrivate(ctx))
      .sort((a, b) =>
        a.createdTime === b.createdTime
          ? Number(a.id) - Number(b.id)
          : a.createdTime < b.createdTime
            ? -1
            : 1,
      );
    if (direction === 'desc') mine.reverse();
    const slice = mine.slice((page - 1) * perPage, page * perPage);
    const last = Math.max(1, Math.ceil(mine.length / perPage));
    const pageLink = (n: number) => `/me/videos?page=${n}&per_page=${perPage}`;
    return {
      status: 200,
      body: {
        total: mine.length,
        page,
        per_page: perPage,
        paging: {
          next: page < last ? pageLink(page + 1) : null,
          previous: page > 1 ? pageLink(page - 1) : null,
          first: pageLink(1),
          last: pageLink(last),
        },
        data: slice.map((video) => filterFields(representation(video), ctx.query.get('fields'))),
      },
    };
  };

  const read = (ctx: SimContext): SimResponse => ({
    status: 200,
    body: filterFields(representation(own(ctx)), ctx.query.get('fields')),
  });

  const edit = (ctx: SimContext): SimResponse => {
    const video = own(ctx);
    const body = objectOf(ctx.body);
    if (!body) return vimeoErrors.badRequest('The body must be a JSON object.');
    const name = textField(body, 'name', 128);
    const description = textField(body, 'description', 5000);
    const { view, password } = privacyOf(body);
    const privacy = view ?? video.privacy;
    if (privacy === 'password' && !(password ?? video.password)) {
      return vimeoErrors.badRequest('A password is required when privacy.view is password.');
    }
    if (name !== undefined) video.name = name;
    if (description !== undefined) video.description = description;
    video.privacy = privacy;
    video.password = privacy === 'password' ? (password ?? video.password) : null;
    video.modifiedTime = vimeoTime(Date.now());
    ctx.record({
      kind: 'edit',
      id: video.id,
      parentId: null,
      rootId: null,
      text: video.description,
      account: video.account,
    });
    return { status: 200, body: representation(video) };
  };

  const remove = (ctx: SimContext): SimResponse => {
    const video = own(ctx);
    video.deleted = true;
    ctx.record({
      kind: 'delete',
      id: video.id,
      parentId: null,
      rootId: null,
      text: null,
      account: video.account,
    });
    return { status: 204 };
  };

  const trackBody = (track: SimVimeoTrack) => ({
    uri: track.uri,
    active: track.active,
    type: track.type,
    language: track.language,
    name: track.name,
    link: track.size === null ? null : `https://captions.cloud.vimeo.com/captions/${track.id}.vtt`,
    link_expires_time: null,
    hls_link: null,
  });

  const addTrack = (ctx: SimContext): SimResponse => {
    const video = own(ctx);
    const body = objectOf(ctx.body) ?? Object.fromEntries(ctx.query);
    const type = body.type;
    const language = body.language;
    if (!['captions', 'subtitles', 'chapters', 'descriptions', 'metadata'].includes(type as string)) {
      return vimeoErrors.badRequest('type must be captions, subtitles, chapters, descriptions or metadata.');
    }
    if (typeof language !== 'string' || !/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(language)) {
      return vimeoErrors.badRequest('language must be a language code (en, fr-CA, ...).');
    }
    const id = String(nextId++);
    const track: SimVimeoTrack = {
      id,
      uri: `${video.uri}/texttracks/${id}`,
      type: type as SimVimeoTrack['type'],
      language,
      name: typeof body.name === 'string' ? body.name : '',
      active: false,
      size: null,
      sha256: null,
      text: null,
    };
    video.tracks.push(track);
    const link = hosts.openTrack(
      (bytes) => {
        track.size = bytes.length;
        track.sha256 = createHash('sha256').update(bytes).digest('hex');
        track.text = bytes.toString('utf8');
      },
      () => !video.deleted && video.tracks.includes(track),
    );
    return { status: 201, body: { ...trackBody(track), link } };
  };

  const trackOf = (ctx: SimContext) => {
    const video = own(ctx);
    const track = video.tracks.find((t) => t.id === ctx.params.track);
    if (!track) throw new SimHttpError(vimeoErrors.notFound(`No text track ${ctx.params.track}.`));
    return track;
  };

  const editTrack = (ctx: SimContext): SimResponse => {
    const track = trackOf(ctx);
    const body = objectOf(ctx.body) ?? {};
    if (body.active !== undefined) {
      if (typeof body.active !== 'boolean') return vimeoErrors.badRequest('active must be a boolean.');
      if (body.active && track.size === null) {
        return vimeoErrors.badRequest('The text track has no file yet: PUT it to the link first.');
      }
      track.active = body.active;
    }
    if (typeof body.name === 'string') track.name = body.name;
    return { status: 200, body: trackBody(track) };
  };

  const switches = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body) ?? {};
    if ('dropAfterBytes' in body) {
      hosts.setDropAfterBytes(typeof body.dropAfterBytes === 'number' ? body.dropAfterBytes : null);
    }
    if ('failTranscode' in body) failTranscode = body.failTranscode === true;
    if (body.expireUploadLinks === true) hosts.expireLinks();
    if ('freeSpaceBytes' in body) {
      freeSpaceBytes = typeof body.freeSpaceBytes === 'number' ? body.freeSpaceBytes : null;
    }
    if (typeof body.processingMs === 'number') processingMs = body.processingMs;
    return { status: 204 };
  };

  const inspect = (video: SimVimeoVideo) => {
    settle(video);
    const { uploadToken: _token, transcodeFails: _fails, ...rest } = video;
    return {
      ...rest,
      received: video.uploadStatus === 'complete' ? video.size : hosts.offsetOf(video.uploadToken),
      droppedConnections: hosts.dropsOf(video.uploadToken),
      status: statusOf(video),
    };
  };

  const simulator = await startSimulator({
    name: 'Vimeo',
    errors: vimeoErrors,
    spec: requestSpecFor('vimeo'),
    port: options.port,
    holdMs: options.holdMs,
    oauth,
    onReset: () => {
      videos.clear();
      links.clear();
      hosts.reset();
      failTranscode = false;
      freeSpaceBytes = null;
      processingMs = options.processingMs ?? 300;
    },
    routes: [
      { method: 'POST', path: '/me/videos', handler: scoped('upload', create) },
      { method: 'GET', path: '/me/videos', handler: scoped('public', list) },
      { method: 'GET', path: '/videos/:id', handler: readable(read) },
      { method: 'PATCH', path: '/videos/:id', handler: scoped('edit', edit) },
      { method: 'DELETE', path: '/videos/:id', handler: scoped('delete', remove) },
      { method: 'POST', path: '/videos/:id/texttracks', handler: scoped('upload', addTrack) },
      {
        method: 'GET',
        path: '/videos/:id/texttracks',
        handler: readable((ctx) => {
          const video = own(ctx);
          return { status: 200, body: { total: video.tracks.length, data: video.tracks.map(trackBody) } };
        }),
      },
      { method: 'PATCH', path: '/videos/:id/texttracks/:track', handler: scoped('edit', editTrack) },
      {
        method: 'GET',
        path: '/_sim/vimeo/videos',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...videos.values()].map(inspect) } }),
      },
      { method: 'POST', path: '/_sim/vimeo/switches', auth: false, handler: switches },
    ],
  });
  const stop = simulator.stop.bind(simulator);
  return Object.assign(simulator, {
    videos: () => [...videos.values()].map((video) => inspect(video) as unknown as SimVimeoVideo),
    stop: async () => {
      await hosts.stop();
      await stop();
    },
  });
};
