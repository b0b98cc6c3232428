import { seedComments, simCommentRoutes } from '../framework/comments.ts';
import { objectOf, startSimulator } from '../framework/framework.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { youtubeComments } from './comments.ts';
import { googleError, youtubeErrors } from './errors.ts';
import type { YouTubeSimulator, YouTubeSimulatorOptions } from './records.ts';
import { youtubeChannelRoutes } from './routes-channels.ts';
import { youtubeMediaRoutes } from './routes-media.ts';
import { youtubeVideoRoutes } from './routes-videos.ts';
import { youtubeState } from './state.ts';

export { googleError, YOUTUBE_CATEGORY_IDS, youtubeErrors } from './errors.ts';
export type { SimYouTubeVideo, YouTubeSimulator, YouTubeSimulatorOptions } from './records.ts';
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
 * - Comments (comments.ts): `GET /youtube/v3/commentThreads`, `GET|POST|DELETE /youtube/v3/comments`,
 *   the common `/_sim/comments` hooks (a video whose description holds `sim:comments` gets three),
 *   and `POST /_sim/youtube/comments-disabled { videoId, disabled }`.
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

export const startYouTubeSimulator = async (
  options: YouTubeSimulatorOptions = {},
): Promise<YouTubeSimulator> => {
  const s = youtubeState(options);
  const { videos, live, oauth, audit, settle, uploads } = s;
  const comments = youtubeComments(s);
  s.onStored.push((video) => seedComments(comments.store, video.id, video.description, new Date()));
  const sim = await startSimulator({
    name: 'YouTube',
    errors: youtubeErrors,
    spec: requestSpecFor('youtube'),
    oauth,
    onReset: () => {
      videos.clear();
      comments.reset();
      uploads.reset();
      audit.reset();
      live.quotaExceeded = false;
      live.nextOutcome = null;
    },
    routes: [
      ...youtubeVideoRoutes(s),
      ...youtubeMediaRoutes(s),
      ...youtubeChannelRoutes(s),
      ...comments.routes,
      ...simCommentRoutes(comments.store),
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
          live.nextOutcome = outcome;
          return { status: 204 };
        },
      },
      {
        method: 'POST',
        path: '/_sim/youtube/quota',
        auth: false,
        handler: (ctx) => {
          live.quotaExceeded = objectOf(ctx.body)?.exceeded === true;
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
          live.clockOffsetMs += seconds * 1000;
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
      live.nextOutcome = outcome;
    },
    setQuotaExceeded: (exceeded: boolean) => {
      live.quotaExceeded = exceeded;
    },
    setAudited: (audited: boolean) => {
      audit.audited = audited;
    },
    advanceClock: (seconds: number) => {
      live.clockOffsetMs += seconds * 1000;
    },
    setCommentsDisabled: comments.setCommentsDisabled,
  });
};
