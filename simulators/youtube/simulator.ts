import { createHash, randomBytes } from 'node:crypto';
import {
  headerOf,
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimResponse,
  type Simulator,
  startSimulator,
} from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { SimProjectAudit } from './audit.ts';
import { youtubeOAuthSimulator } from './oauth.ts';
import { requireYouTubeScope, type YouTubeMethod } from './scopes.ts';
import { type ResumableOptions, resumableUploads, type UploadSession } from './upload.ts';

/**
 * A local YouTube Data API v3 (www.googleapis.com/youtube/v3 and /upload/youtube/v3):
 *
 * - `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with the video
 *   resource and `X-Upload-Content-Length` / `X-Upload-Content-Type`: 200 with the session URI in
 *   `Location` (upload-simulator.ts serves its PUTs); the metadata is checked as YouTube does
 *   (`invalidTitle`, `invalidDescription`, `invalidTags`, `invalidCategoryId`, `invalidPrivacyStatus`).
 * - `GET /youtube/v3/videos?part=snippet,status,processingDetails,statistics&id=`: a new video is
 *   `processing` for `processingMs`, then `succeeded` (upload status `processed`); `failNextProcessing`
 *   makes the next one `failed` (or `rejected`).
 * - `PUT /youtube/v3/videos?part=snippet,status`: replaces the whole snippet (title and categoryId
 *   required; tags left out are removed) and status. `DELETE /youtube/v3/videos?id=`: 204.
 * - `POST /upload/youtube/v3/thumbnails/set?videoId=` (JPEG/PNG bytes, at most 2 MiB) and
 *   `POST /upload/youtube/v3/captions?part=snippet` (multipart/related: the caption resource, then
 *   the file; a second track with the same language and name is 409 `captionExists`).
 * - `GET /youtube/v3/channels?part=contentDetails&mine=true` and `GET /youtube/v3/playlistItems`
 *   (the uploads playlist, newest first).
 * - Errors in Google's shape `{ error: { code, message, errors: [{ message, domain, reason }] } }`:
 *   401 `authError` for a missing, expired or revoked token (Google does not tell them apart),
 *   403 `quotaExceeded` while the daily quota is spent (`setQuotaExceeded`), 403
 *   `rateLimitExceeded` for the rate-limit switch, 503 `backendError`.
 *
 * Sim tokens are read from the title and description when a session opens: refusals there, lost
 * answers (`sim:timeout`, `sim:reset`, `sim:bad-gateway`) on the chunk that completes the video.
 * Inspection: `GET /_sim/youtube/videos` lists each video with its received size, SHA-256,
 * metadata, thumbnail, captions and status; `POST /_sim/youtube/drop-next-chunk { keep }`,
 * `POST /_sim/youtube/fail-next-processing { outcome }`, `POST /_sim/youtube/quota { exceeded }`,
 * `POST /_sim/youtube/statistics { id, viewCount, likeCount, commentCount, favoriteCount }` (else
 * the statistics grow with the video's age, a real second counting as a simulated hour).
 *
 * Grants (issue 26), each in a module of its own:
 * - scopes (scopes-simulator.ts): every data route requires one of its method's scopes from a
 *   token the OAuth simulator issued, else 403 `insufficientPermissions`;
 * - the project audit (audit-simulator.ts): the app's project is unaudited unless `audited`, and
 *   its uploads are locked to private (`POST /_sim/youtube/project { audited }` switches it);
 * - the clock: refresh tokens die after six months unused on the simulator's clock, which
 *   `POST /_sim/youtube/clock { advanceSeconds }` moves forward (oauth-simulator.ts).
 */

export const YOUTUBE_CATEGORY_IDS = [
  '1',
  '2',
  '10',
  '15',
  '17',
  '19',
  '20',
  '22',
  '23',
  '24',
  '25',
  '26',
  '27',
  '28',
  '29',
];
const PRIVACY = ['public', 'unlisted', 'private'];
const THUMBNAIL_MAX_BYTES = 2 * 1024 * 1024;

export const googleError = (
  status: number,
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
): SimResponse => ({
  status,
  body: {
    error: { code: status, message, errors: [{ message, domain: 'youtube.video', reason, ...extra }] },
  },
});

export const youtubeErrors: SimErrorBodies = {
  unauthorized: () => ({
    status: 401,
    body: {
      error: {
        code: 401,
        message:
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        errors: [
          {
            message: 'Invalid Credentials',
            domain: 'global',
            reason: 'authError',
            location: 'Authorization',
            locationType: 'header',
          },
        ],
        status: 'UNAUTHENTICATED',
      },
    },
  }),
  refused: () =>
    googleError(400, 'invalidDescription', 'The request metadata specifies an invalid video description.'),
  unavailable: () => googleError(503, 'backendError', 'Backend Error'),
  // A short throttle (`rateLimitExceeded`), or the project's spent daily quota (`quotaExceeded`,
  // which resets at midnight Pacific time). Neither announces its reset.
  rateLimited: (_resetAt, _seconds, kind) =>
    kind === 'daily'
      ? googleError(
          403,
          'quotaExceeded',
          'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        )
      : googleError(
          403,
          'rateLimitExceeded',
          'The request cannot be completed because you have exceeded your quota.',
        ),
  badRequest: (message) => googleError(400, 'badRequest', message),
  // A request the discovery document refuses: Google's error with the parameter in `location`
  // (reasons from https://developers.google.com/youtube/v3/docs/errors: `required`/
  // `missingRequiredParameter`, `unexpectedParameter`, `invalidParameter`).
  invalidRequest: (issue) => {
    const reason =
      { unknown: 'unexpectedParameter', required: 'required' }[issue.kind as string] ?? 'invalidParameter';
    const location = issue.location === 'body' ? issue.path.join('.') : issue.name;
    return {
      status: 400,
      body: {
        error: {
          code: 400,
          message: issue.message,
          errors: [
            {
              message: issue.message,
              domain: 'global',
              reason,
              location,
              locationType: issue.location === 'body' ? 'other' : 'parameter',
            },
          ],
          status: 'INVALID_ARGUMENT',
        },
      },
    };
  },
  notFound: (message) => googleError(404, 'notFound', message),
  badGateway: () => ({ status: 502, body: { error: { code: 502, message: 'Bad Gateway' } } }),
};

interface SimCaption {
  id: string;
  language: string;
  name: string;
  format: 'vtt' | 'srt' | 'other';
  size: number;
  sha256: string;
}

export interface SimYouTubeVideo {
  id: string;
  account: string;
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: string;
  madeForKids: boolean;
  publishedAt: string;
  size: number;
  sha256: string;
  contentType: string;
  uploadStatus: 'uploaded' | 'processed' | 'failed' | 'rejected' | 'deleted';
  processingStatus: 'processing' | 'succeeded' | 'failed' | 'terminated';
  failureReason: string | null;
  rejectionReason: string | null;
  readyAt: number;
  /** `failed` or `rejected` once processing ends (the fail-next-processing switch). */
  outcome: 'failed' | 'rejected' | null;
  thumbnail: { size: number; sha256: string; mimeType: string } | null;
  captions: SimCaption[];
  /** Set with `POST /_sim/youtube/statistics`; null: counts that grow with the video's age. */
  statistics: { viewCount: number; likeCount: number; commentCount: number; favoriteCount: number } | null;
  /** Chunks the upload took (resumes included). */
  chunks: number;
  /** The privacy the upload (or the last update) asked for; `privacyStatus` is what YouTube applied. */
  requestedPrivacyStatus: string;
  /** Uploaded from an unaudited project: private whatever is asked (audit-simulator.ts). */
  privacyLocked: boolean;
}

export interface YouTubeSimulatorOptions extends ResumableOptions {
  /** The OAuth app (its credentials and registered redirect URIs). */
  oauth?: Parameters<typeof youtubeOAuthSimulator>[0];
  /** How long a new video is `processing` (default 300 ms). */
  processingMs?: number;
  /** Largest chunk a PUT may carry (default 64 MiB). */
  maxChunkBytes?: number;
  /** The OAuth app's Google Cloud project passed YouTube's audit (default false: uploads are locked to private). */
  audited?: boolean;
  /** How long a refresh token may go unused (default six months). */
  refreshIdleSeconds?: number;
}

export type YouTubeSimulator = Simulator & {
  videos(): SimYouTubeVideo[];
  dropNextChunk(keep: number): void;
  failNextProcessing(outcome: 'failed' | 'rejected'): void;
  setQuotaExceeded(exceeded: boolean): void;
  /** Makes the OAuth app's project audited (uploads as asked) or not (uploads locked to private). */
  setAudited(audited: boolean): void;
  /** Moves the simulator's clock forward (the refresh tokens' idle limit reads it). */
  advanceClock(seconds: number): void;
};

const videoIdOf = () => randomBytes(8).toString('base64url').slice(0, 11);

/** Parses a multipart/related body: its parts' headers and bytes. */
const multipartOf = (body: Buffer, contentType: string) => {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return null;
  const marker = Buffer.from(`--${boundary}`);
  const parts: { headers: Record<string, string>; body: Buffer }[] = [];
  let at = body.indexOf(marker);
  while (at !== -1) {
    const start = at + marker.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(marker, start);
    if (next === -1) return null;
    const raw = body.subarray(start, next);
    const split = raw.indexOf('\r\n\r\n');
    if (split === -1) return null;
    const headers: Record<string, string> = {};
    for (const line of raw.subarray(0, split).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let content = raw.subarray(split + 4);
    if (content.subarray(-2).toString() === '\r\n') content = content.subarray(0, -2);
    parts.push({ headers, body: content });
    at = next;
  }
  return parts;
};

export const startYouTubeSimulator = async (
  options: YouTubeSimulatorOptions = {},
): Promise<YouTubeSimulator> => {
  const processingMs = options.processingMs ?? 300;
  const videos = new Map<string, SimYouTubeVideo>();
  // --- Grants (issue 26): the simulator's clock, the project's audit, the scopes of each route. ---
  let clockOffsetMs = 0;
  const oauth = youtubeOAuthSimulator({
    ...options.oauth,
    now: () => Date.now() + clockOffsetMs,
    ...(options.refreshIdleSeconds !== undefined ? { refreshIdleSeconds: options.refreshIdleSeconds } : {}),
  });
  const audit = new SimProjectAudit(options.audited ?? false);
  const requireScope = (ctx: SimContext, method: YouTubeMethod) =>
    requireYouTubeScope(oauth.scopesOf, ctx.token, method);
  // --- end of grants ---
  let quotaExceeded = false;
  let nextOutcome: 'failed' | 'rejected' | null = null;

  /** The channel behind the request's token: the OAuth grant's, else one derived from the token. */
  const channelOf = (ctx: SimContext) => {
    if (quotaExceeded) {
      throw new SimHttpError(
        googleError(
          403,
          'quotaExceeded',
          'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        ),
      );
    }
    const token = ctx.token ?? '';
    return (
      oauth.channelOf(token) ?? {
        id: `UC${createHash('sha256').update(`yt-token:${token}`).digest('base64url').slice(0, 22)}`,
        title: 'Simulated channel',
        customUrl: '@simulated',
      }
    );
  };

  const settle = (video: SimYouTubeVideo) => {
    if (video.processingStatus === 'processing' && Date.now() >= video.readyAt) {
      if (video.outcome === 'failed') {
        video.processingStatus = 'failed';
        video.uploadStatus = 'failed';
        video.failureReason = 'codec';
      } else if (video.outcome === 'rejected') {
        video.processingStatus = 'terminated';
        video.uploadStatus = 'rejected';
        video.rejectionReason = 'duplicate';
      } else {
        video.processingStatus = 'succeeded';
        video.uploadStatus = 'processed';
      }
    }
    return video;
  };

  const resourceOf = (id: string, parts = ['snippet', 'status']) => {
    const video = settle(videos.get(id) as SimYouTubeVideo);
    const resource: Record<string, unknown> = { kind: 'youtube#video', etag: video.sha256.slice(0, 27), id };
    if (parts.includes('snippet')) {
      resource.snippet = {
        publishedAt: video.publishedAt,
        channelId: video.account,
        title: video.title,
        description: video.description,
        ...(video.tags.length > 0 ? { tags: video.tags } : {}),
        categoryId: video.categoryId,
        liveBroadcastContent: 'none',
      };
    }
    if (parts.includes('status')) {
      resource.status = {
        uploadStatus: video.uploadStatus,
        ...(video.failureReason ? { failureReason: video.failureReason } : {}),
        ...(video.rejectionReason ? { rejectionReason: video.rejectionReason } : {}),
        privacyStatus: video.privacyStatus,
        license: 'youtube',
        embeddable: true,
        publicStatsViewable: true,
        madeForKids: video.madeForKids,
        selfDeclaredMadeForKids: video.madeForKids,
      };
    }
    if (parts.includes('processingDetails')) {
      resource.processingDetails = {
        processingStatus: video.processingStatus,
        ...(video.processingStatus === 'processing'
          ? {
              processingProgress: {
                partsTotal: 1000,
                partsProcessed: Math.max(
                  0,
                  Math.min(999, 1000 - Math.ceil(((video.readyAt - Date.now()) / processingMs) * 1000)),
                ),
                timeLeftMs: String(Math.max(0, video.readyAt - Date.now())),
              },
            }
          : {}),
        ...(video.processingStatus === 'failed' ? { processingFailureReason: 'transcodeFailed' } : {}),
      };
    }
    if (parts.includes('statistics')) {
      const grown = simulatorMetrics('youtube', id, new Date(video.publishedAt));
      const s = video.statistics ?? {
        viewCount: grown.views ?? 0,
        likeCount: grown.likes ?? 0,
        commentCount: grown.comments ?? 0,
        favoriteCount: 0,
      };
      resource.statistics = {
        viewCount: String(s.viewCount),
        likeCount: String(s.likeCount),
        favoriteCount: String(s.favoriteCount),
        commentCount: String(s.commentCount),
      };
    }
    return resource;
  };

  /** Checks a snippet and status as YouTube does; returns the normalized fields. */
  const metadataOf = (body: unknown, requireCategory: boolean) => {
    const snippet = objectOf(objectOf(body)?.snippet);
    const status = objectOf(objectOf(body)?.status) ?? {};
    const bad = (reason: string, message: string) => new SimHttpError(googleError(400, reason, message));
    const title = snippet?.title;
    if (typeof title !== 'string' || title.trim() === '')
      throw bad('invalidTitle', 'The request metadata specifies an empty video title.');
    if ([...title].length > 100 || /[<>]/.test(title))
      throw bad('invalidTitle', 'The request metadata specifies an invalid video title.');
    const description = snippet?.description ?? '';
    if (typeof description !== 'string' || Buffer.byteLength(description) > 5000 || /[<>]/.test(description))
      throw bad('invalidDescription', 'The request metadata specifies an invalid video description.');
    const tags = snippet?.tags ?? [];
    if (
      !Array.isArray(tags) ||
      tags.some((t) => typeof t !== 'string' || /[<>]/.test(t)) ||
      (tags as string[]).reduce((n, t) => n + [...t].length + (t.includes(' ') ? 2 : 0), 0) +
        Math.max(0, tags.length - 1) >
        500
    )
      throw bad('invalidTags', 'The request metadata specifies invalid video keywords.');
    const categoryId = snippet?.categoryId;
    if (categoryId === undefined && requireCategory)
      throw bad('invalidCategoryId', 'The snippet.categoryId property must be specified.');
    if (categoryId !== undefined && !YOUTUBE_CATEGORY_IDS.includes(String(categoryId)))
      throw bad('invalidCategoryId', 'The snippet.categoryId property specifies an invalid category ID.');
    const privacyStatus = status.privacyStatus ?? 'public';
    if (typeof privacyStatus !== 'string' || !PRIVACY.includes(privacyStatus))
      throw bad('invalidPrivacyStatus', 'The request metadata specifies an invalid privacy status.');
    const kids = status.selfDeclaredMadeForKids ?? false;
    if (typeof kids !== 'boolean')
      throw bad('invalidVideoMetadata', 'selfDeclaredMadeForKids must be a boolean.');
    return {
      title,
      description,
      tags: tags as string[],
      categoryId: categoryId === undefined ? '22' : String(categoryId),
      privacyStatus,
      madeForKids: kids,
    };
  };

  let record: SimContext['record'] | null = null;
  const complete = (session: UploadSession, sha256: string) => {
    const meta = metadataOf(session.resource, false);
    const id = videoIdOf();
    const locked = audit.locks(session.id);
    const video: SimYouTubeVideo = {
      id,
      account: session.account,
      ...meta,
      privacyStatus: locked ? 'private' : meta.privacyStatus,
      requestedPrivacyStatus: meta.privacyStatus,
      privacyLocked: locked,
      publishedAt: new Date().toISOString(),
      size: session.received,
      sha256,
      contentType: session.contentType,
      uploadStatus: 'uploaded',
      processingStatus: 'processing',
      failureReason: null,
      rejectionReason: null,
      readyAt: Date.now() + processingMs,
      outcome: nextOutcome,
      thumbnail: null,
      captions: [],
      statistics: null,
      chunks: session.chunks,
    };
    nextOutcome = null;
    videos.set(id, video);
    record?.({
      kind: 'post',
      id,
      parentId: null,
      rootId: null,
      text: meta.description,
      account: session.account,
    });
    return { id, resource: resourceOf(id) };
  };
  const uploads = resumableUploads(complete, (id) => resourceOf(id), options);

  const ownVideo = (ctx: SimContext, id: string | null, account: string) => {
    const video = id ? videos.get(id) : undefined;
    if (!video)
      throw new SimHttpError(
        googleError(404, 'videoNotFound', 'The video identified by the id parameter could not be found.'),
      );
    if (video.account !== account)
      throw new SimHttpError(googleError(403, 'forbidden', 'The video cannot be modified by this channel.'));
    record = ctx.record;
    return video;
  };

  const sim = await startSimulator({
    name: 'YouTube',
    errors: youtubeErrors,
    spec: requestSpecFor('youtube'),
    oauth,
    onReset: () => {
      videos.clear();
      uploads.reset();
      audit.reset();
      quotaExceeded = false;
      nextOutcome = null;
    },
    routes: [
      {
        method: 'POST',
        path: '/upload/youtube/v3/videos',
        handler: (ctx) => {
          record = ctx.record;
          requireScope(ctx, 'videos.insert');
          const channel = channelOf(ctx);
          if (ctx.query.get('uploadType') !== 'resumable')
            return googleError(400, 'badRequest', 'Herald sends videos with uploadType=resumable only.');
          const parts = (ctx.query.get('part') ?? '').split(',');
          if (!parts.includes('snippet') || !parts.includes('status'))
            return googleError(400, 'unexpectedPart', 'The part parameter must name snippet and status.');
          const size = Number(headerOf(ctx.headers, 'x-upload-content-length'));
          if (!Number.isInteger(size) || size <= 0)
            return googleError(400, 'badRequest', 'X-Upload-Content-Length must be the size of the video.');
          const type = headerOf(ctx.headers, 'x-upload-content-type') ?? 'application/octet-stream';
          if (!/^video\/|^application\/octet-stream$/.test(type))
            return googleError(400, 'invalidContentType', `Media type '${type}' is not supported.`);
          const meta = metadataOf(ctx.body, false);
          const lose = ctx.screen(`${meta.title}\n${meta.description}`, channel.id);
          const session = uploads.open(channel.id, objectOf(ctx.body) ?? {}, size, type, lose);
          audit.opened(session.id, oauth.scopesOf(ctx.token ?? '') !== null);
          const host = headerOf(ctx.headers, 'host') ?? '127.0.0.1';
          return {
            status: 200,
            headers: {
              location: `http://${host}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${session.id}`,
              'x-guploader-uploadid': session.id,
            },
          };
        },
      },
      {
        method: 'PUT',
        path: '/upload/youtube/v3/videos',
        // The session URI is the credential; chunks may be large.
        auth: false,
        rawBody: true,
        maxBodyBytes: options.maxChunkBytes ?? 64 * 1024 * 1024,
        handler: (ctx) => {
          record = ctx.record;
          return uploads.put(ctx);
        },
      },
      {
        method: 'GET',
        path: '/youtube/v3/videos',
        handler: (ctx) => {
          requireScope(ctx, 'videos.list');
          channelOf(ctx);
          const parts = (ctx.query.get('part') ?? '').split(',');
          const ids = (ctx.query.get('id') ?? '').split(',').filter((id) => id !== '');
          if (ids.length === 0) return googleError(400, 'missingRequiredParameter', 'No filter selected.');
          const items = ids.filter((id) => videos.has(id)).map((id) => resourceOf(id, parts));
          return {
            status: 200,
            body: {
              kind: 'youtube#videoListResponse',
              items,
              pageInfo: { totalResults: items.length, resultsPerPage: items.length },
            },
          };
        },
      },
      {
        method: 'PUT',
        path: '/youtube/v3/videos',
        handler: (ctx) => {
          requireScope(ctx, 'videos.update');
          const channel = channelOf(ctx);
          const parts = (ctx.query.get('part') ?? '').split(',');
          const body = objectOf(ctx.body);
          const video = ownVideo(ctx, typeof body?.id === 'string' ? body.id : null, channel.id);
          if (!parts.includes('snippet'))
            return googleError(400, 'unexpectedPart', 'Herald updates snippet and status together.');
          const meta = metadataOf(body, true);
          const lose = ctx.screen(`${meta.title}\n${meta.description}`, channel.id);
          // The whole snippet is replaced: what the request leaves out is gone.
          video.title = meta.title;
          video.description = meta.description;
          video.tags = meta.tags;
          video.categoryId = meta.categoryId;
          if (parts.includes('status')) {
            // A video locked to private stays private (audit-simulator.ts).
            video.requestedPrivacyStatus = meta.privacyStatus;
            video.privacyStatus = video.privacyLocked ? 'private' : meta.privacyStatus;
            video.madeForKids = meta.madeForKids;
          }
          ctx.record({
            kind: 'edit',
            id: video.id,
            parentId: null,
            rootId: null,
            text: meta.description,
            account: channel.id,
          });
          return { status: 200, body: resourceOf(video.id, parts), lost: lose };
        },
      },
      {
        method: 'DELETE',
        path: '/youtube/v3/videos',
        handler: (ctx) => {
          requireScope(ctx, 'videos.delete');
          const channel = channelOf(ctx);
          const video = ownVideo(ctx, ctx.query.get('id'), channel.id);
          videos.delete(video.id);
          ctx.record({
            kind: 'delete',
            id: video.id,
            parentId: null,
            rootId: null,
            text: null,
            account: channel.id,
          });
          return { status: 204 };
        },
      },
      {
        method: 'POST',
        path: '/upload/youtube/v3/thumbnails/set',
        rawBody: true,
        maxBodyBytes: 8 * 1024 * 1024,
        handler: (ctx) => {
          requireScope(ctx, 'thumbnails.set');
          const channel = channelOf(ctx);
          const video = ownVideo(ctx, ctx.query.get('videoId'), channel.id);
          const type = headerOf(ctx.headers, 'content-type') ?? '';
          if (!/^image\/(jpeg|png)$|^application\/octet-stream$/.test(type))
            return googleError(400, 'invalidImage', 'The provided image content is invalid.');
          if (ctx.rawBody.length > THUMBNAIL_MAX_BYTES)
            return googleError(400, 'mediaBodyTooLarge', 'The thumbnail image file is larger than 2 MB.');
          if (ctx.rawBody.length === 0)
            return googleError(400, 'mediaBodyRequired', 'The request does not include the image content.');
          video.thumbnail = {
            size: ctx.rawBody.length,
            sha256: createHash('sha256').update(ctx.rawBody).digest('hex'),
            mimeType: type,
          };
          const url = `https://i.ytimg.com/vi/${video.id}/maxresdefault.jpg`;
          return {
            status: 200,
            body: {
              kind: 'youtube#thumbnailSetResponse',
              items: [{ default: { url, width: 120, height: 90 } }],
            },
          };
        },
      },
      {
        method: 'POST',
        path: '/upload/youtube/v3/captions',
        rawBody: true,
        maxBodyBytes: 100 * 1024 * 1024,
        handler: (ctx) => {
          requireScope(ctx, 'captions.insert');
          const channel = channelOf(ctx);
          if (ctx.query.get('uploadType') !== 'multipart')
            return googleError(400, 'badRequest', 'Send the caption with uploadType=multipart.');
          const parts = multipartOf(ctx.rawBody, headerOf(ctx.headers, 'content-type') ?? '');
          if (parts?.length !== 2 || !parts[0] || !parts[1])
            return googleError(
              400,
              'badRequest',
              'A multipart/related body with metadata and media is required.',
            );
          let resource: unknown;
          try {
            resource = JSON.parse((parts[0] as { body: Buffer }).body.toString('utf8'));
          } catch {
            return googleError(400, 'parseError', 'The caption resource is not valid JSON.');
          }
          const snippet = objectOf(objectOf(resource)?.snippet);
          const video = ownVideo(
            ctx,
            typeof snippet?.videoId === 'string' ? snippet.videoId : null,
            channel.id,
          );
          const language = snippet?.language;
          if (typeof language !== 'string' || !/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(language))
            return googleError(400, 'invalidMetadata', 'The caption track language is missing or invalid.');
          const name = typeof snippet?.name === 'string' ? snippet.name : '';
          if ([...name].length > 150)
            return googleError(400, 'nameTooLong', 'The caption track name is longer than 150 characters.');
          const file = (parts[1] as { body: Buffer }).body;
          if (file.length === 0) return googleError(400, 'contentRequired', 'The caption file is empty.');
          if (video.captions.some((c) => c.language === language && c.name === name))
            return googleError(
              409,
              'captionExists',
              'The video already has a caption track with this language and name.',
            );
          const text = file.toString('utf8');
          const caption: SimCaption = {
            id: `AUieDa${randomBytes(12).toString('base64url')}`,
            language,
            name,
            format: /^\uFEFF?WEBVTT/.test(text)
              ? 'vtt'
              : /^\uFEFF?\d+\r?\n\d\d:\d\d:\d\d,\d{3} --> /.test(text)
                ? 'srt'
                : 'other',
            size: file.length,
            sha256: createHash('sha256').update(file).digest('hex'),
          };
          if (caption.format === 'other')
            return googleError(400, 'invalidCaptionFormat', 'The caption file is in an unsupported format.');
          video.captions.push(caption);
          return {
            status: 200,
            body: {
              kind: 'youtube#caption',
              id: caption.id,
              snippet: {
                videoId: video.id,
                lastUpdated: new Date().toISOString(),
                trackKind: 'standard',
                language,
                name,
                audioTrackType: 'unknown',
                isCC: false,
                isDraft: false,
                status: 'serving',
              },
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/youtube/v3/channels',
        handler: (ctx) => {
          requireScope(ctx, 'channels.list');
          const channel = channelOf(ctx);
          if (ctx.query.get('mine') !== 'true')
            return googleError(400, 'missingRequiredParameter', 'No filter selected.');
          return {
            status: 200,
            body: {
              kind: 'youtube#channelListResponse',
              pageInfo: { totalResults: 1, resultsPerPage: 5 },
              items: [
                {
                  kind: 'youtube#channel',
                  id: channel.id,
                  snippet: { title: channel.title, customUrl: channel.customUrl },
                  contentDetails: { relatedPlaylists: { likes: '', uploads: `UU${channel.id.slice(2)}` } },
                },
              ],
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/youtube/v3/playlistItems',
        handler: (ctx) => {
          requireScope(ctx, 'playlistItems.list');
          channelOf(ctx);
          const playlistId = ctx.query.get('playlistId') ?? '';
          if (!playlistId.startsWith('UU'))
            return googleError(
              404,
              'playlistNotFound',
              'The playlist identified with the request cannot be found.',
            );
          const account = `UC${playlistId.slice(2)}`;
          const max = Math.min(50, Number(ctx.query.get('maxResults') ?? 5) || 5);
          const items = [...videos.values()]
            .filter((v) => v.account === account)
            .reverse()
            .slice(0, max)
            .map((v) => ({
              kind: 'youtube#playlistItem',
              id: `UExI${v.id}`,
              snippet: {
                publishedAt: v.publishedAt,
                channelId: v.account,
                title: v.title,
                description: v.description,
                playlistId,
                resourceId: { kind: 'youtube#video', videoId: v.id },
              },
            }));
          return {
            status: 200,
            body: {
              kind: 'youtube#playlistItemListResponse',
              items,
              pageInfo: { totalResults: items.length, resultsPerPage: max },
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/_sim/youtube/videos',
        auth: false,
        handler: () => ({
          status: 200,
          body: {
            data: [...videos.values()].map((v) => ({ ...settle(v), captions: [...v.captions] })),
          },
        }),
      },
      {
        method: 'POST',
        path: '/_sim/youtube/drop-next-chunk',
        auth: false,
        handler: (ctx) => {
          const keep = Number(objectOf(ctx.body)?.keep);
          if (!Number.isInteger(keep) || keep < 0)
            return googleError(400, 'badRequest', 'Send { "keep": <bytes> }');
          uploads.dropNextChunk(keep);
          return { status: 204 };
        },
      },
      {
        method: 'POST',
        path: '/_sim/youtube/fail-next-processing',
        auth: false,
        handler: (ctx) => {
          const outcome = objectOf(ctx.body)?.outcome;
          if (outcome !== 'failed' && outcome !== 'rejected')
            return googleError(400, 'badRequest', 'Send { "outcome": "failed" | "rejected" }');
          nextOutcome = outcome;
          return { status: 204 };
        },
      },
      {
        method: 'POST',
        path: '/_sim/youtube/quota',
        auth: false,
        handler: (ctx) => {
          quotaExceeded = objectOf(ctx.body)?.exceeded === true;
          return { status: 204 };
        },
      },
      // --- Grants (issue 26): the project's audit and the simulator's clock. ---
      {
        method: 'POST',
        path: '/_sim/youtube/project',
        auth: false,
        handler: (ctx) => {
          const audited = objectOf(ctx.body)?.audited;
          if (typeof audited !== 'boolean')
            return googleError(400, 'badRequest', 'Send { "audited": true | false }');
          audit.audited = audited;
          return { status: 204 };
        },
      },
      {
        method: 'POST',
        path: '/_sim/youtube/clock',
        auth: false,
        handler: (ctx) => {
          const seconds = objectOf(ctx.body)?.advanceSeconds;
          if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
            return googleError(400, 'badRequest', 'Send { "advanceSeconds": <seconds, at least 0> }');
          clockOffsetMs += seconds * 1000;
          return { status: 204 };
        },
      },
      {
        method: 'POST',
        path: '/_sim/youtube/statistics',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body) ?? {};
          const video = typeof body.id === 'string' ? videos.get(body.id) : undefined;
          if (!video) return googleError(404, 'videoNotFound', 'No such video');
          const stats = { viewCount: 0, likeCount: 0, commentCount: 0, favoriteCount: 0 };
          for (const key of Object.keys(stats) as (keyof typeof stats)[]) {
            const value = body[key];
            if (typeof value === 'number' && Number.isInteger(value) && value >= 0) stats[key] = value;
          }
          video.statistics = stats;
          return { status: 204 };
        },
      },
    ],
  });
  return Object.assign(sim, {
    videos: () => [...videos.values()].map((v) => ({ ...settle(v), captions: [...v.captions] })),
    dropNextChunk: (keep: number) => uploads.dropNextChunk(keep),
    failNextProcessing: (outcome: 'failed' | 'rejected') => {
      nextOutcome = outcome;
    },
    setQuotaExceeded: (exceeded: boolean) => {
      quotaExceeded = exceeded;
    },
    setAudited: (audited: boolean) => {
      audit.audited = audited;
    },
    advanceClock: (seconds: number) => {
      clockOffsetMs += seconds * 1000;
    },
  });
};
