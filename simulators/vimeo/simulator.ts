import { objectOf, type SimContext, type SimResponse, startSimulator } from '../framework/framework.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { vimeoErrors } from './errors.ts';
import type { SimVimeoVideo, VimeoSimulator, VimeoSimulatorOptions } from './records.ts';
import { vimeoTrackRoutes } from './routes-tracks.ts';
import { vimeoVideoRoutes } from './routes-videos.ts';
import { vimeoState } from './state.ts';

export { VIMEO_PRIVACY, vimeoErrors } from './errors.ts';
export { filterFields } from './fields.ts';
export type { SimVimeoTrack, SimVimeoVideo, VimeoSimulator, VimeoSimulatorOptions } from './records.ts';
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

export const startVimeoSimulator = async (options: VimeoSimulatorOptions = {}): Promise<VimeoSimulator> => {
  const s = await vimeoState(options);
  const { videos, hosts, oauth, tuning, readable, settle, statusOf, own, links } = s;
  const { create, list, read, edit, remove } = vimeoVideoRoutes(s);
  const { trackBody, addTrack, editTrack } = vimeoTrackRoutes(s);
  const switches = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body) ?? {};
    if ('dropAfterBytes' in body) {
      hosts.setDropAfterBytes(typeof body.dropAfterBytes === 'number' ? body.dropAfterBytes : null);
    }
    if ('failTranscode' in body) tuning.failTranscode = body.failTranscode === true;
    if (body.expireUploadLinks === true) hosts.expireLinks();
    if ('freeSpaceBytes' in body) {
      tuning.freeSpaceBytes = typeof body.freeSpaceBytes === 'number' ? body.freeSpaceBytes : null;
    }
    if (typeof body.processingMs === 'number') tuning.processingMs = body.processingMs;
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
      tuning.failTranscode = false;
      tuning.freeSpaceBytes = null;
      tuning.processingMs = options.processingMs ?? 300;
    },
    routes: [
      { method: 'POST', path: '/me/videos', scopes: ['upload'], handler: create },
      { method: 'GET', path: '/me/videos', scopes: ['public'], handler: list },
      { method: 'GET', path: '/videos/:id', handler: readable(read) },
      { method: 'PATCH', path: '/videos/:id', scopes: ['edit'], handler: edit },
      { method: 'DELETE', path: '/videos/:id', scopes: ['delete'], handler: remove },
      { method: 'POST', path: '/videos/:id/texttracks', scopes: ['upload'], handler: addTrack },
      {
        method: 'GET',
        path: '/videos/:id/texttracks',
        handler: readable((ctx) => {
          const video = own(ctx);
          return { status: 200, body: { total: video.tracks.length, data: video.tracks.map(trackBody) } };
        }),
      },
      { method: 'PATCH', path: '/videos/:id/texttracks/:track', scopes: ['edit'], handler: editTrack },
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
