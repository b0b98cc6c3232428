import { objectOf, startSimulator } from '../framework/framework.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { NETWORK, pinterestErrors } from './errors.ts';
import { pinterestAnalyticsRoutes } from './routes-analytics.ts';
import { pinterestMediaRoutes } from './routes-media.ts';
import { pinterestPinRoutes } from './routes-pins.ts';
import { pinterestState } from './state.ts';
import type { PinterestSimulator, PinterestSimulatorOptions, PinterestSwitches } from './switches.ts';

export { pinterestErrors, simPinterestUserFor } from './errors.ts';
export type { SimPin, SimPinImage, SimPinterestMedia } from './records.ts';
export type { PinterestSimulator, PinterestSimulatorOptions, PinterestSwitches } from './switches.ts';
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

export const startPinterestSimulator = async (
  options: PinterestSimulatorOptions = {},
): Promise<PinterestSimulator> => {
  const s = pinterestState(options);
  const { oauth, pins, media, boardOwners, switches, site, setSwitches, settle, pinView, livePin } = s;
  const { createPin, updatePin, deletePin, listPins, boardPins, listBoards } = pinterestPinRoutes(s);
  const { analytics } = pinterestAnalyticsRoutes(s);
  const { registerMedia, getMedia, s3Upload } = pinterestMediaRoutes(s);
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
      site.dailyLimitedUntil = 0;
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
  site.baseUrl = simulator.url;
  return {
    ...simulator,
    setSwitches,
    pins: () => [...pins.values()].map((pin) => structuredClone(pin)),
    media: () => [...media.values()].map((item) => structuredClone(settle(item))),
  };
};
