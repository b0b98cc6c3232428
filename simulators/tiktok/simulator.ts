import { objectOf, startSimulator } from '../framework/framework.ts';
import { tiktokErrors } from './errors.ts';
import { DEFAULT_CREATOR, type TikTokSimulator, type TikTokSimulatorOptions, viewOf } from './records.ts';
import { tiktokPublishRoutes } from './routes-publish.ts';
import { tiktokStatusRoutes } from './routes-status.ts';
import { tiktokState } from './state.ts';

export { tiktokError, tiktokErrors } from './errors.ts';
export { chunkRuleError, TIKTOK_MAX_CHUNK, TIKTOK_MAX_LAST_CHUNK, TIKTOK_MIN_CHUNK } from './limits.ts';
export type {
  TikTokCreatorSettings,
  TikTokPublishStatus,
  TikTokSimulator,
  TikTokSimulatorOptions,
} from './records.ts';
/**
 * A local TikTok Content Posting API (open.tiktokapis.com/v2), Direct Post:
 * - `POST /v2/post/publish/creator_info/query/` → the creator's privacy level options, whether
 *   comments, duets and stitches are off, the longest video allowed (settable per simulator with
 *   `POST /_sim/tiktok/creator`);
 * - `POST /v2/post/publish/video/init/` with `post_info` and `source_info`: `FILE_UPLOAD` with
 *   TikTok's chunk rules (chunks of 5 MiB to 64 MiB, `total_chunk_count = floor(video_size /
 *   chunk_size)`, the last chunk taking the trailing bytes up to 128 MiB, a video under 5 MiB in
 *   one chunk, 1 to 1000 chunks) → `{ publish_id, upload_url }` on a separate upload host
 *   (upload-simulator.ts); `PULL_FROM_URL` is refused `url_ownership_unverified` unless the URL's
 *   host is among `verifiedDomains`; 6 inits per minute per token (429 `rate_limit_exceeded`),
 *   a daily cap per creator (403 `spam_risk_too_many_posts`), an unaudited app only `SELF_ONLY`
 *   (403 `unaudited_client_can_only_post_to_private_accounts`), a privacy level the creator does
 *   not offer (400 `privacy_level_option_mismatch`);
 * - `POST /v2/post/publish/status/fetch/ { publish_id }` → `PROCESSING_UPLOAD` (with
 *   `uploaded_bytes`) while chunks come, then for `processingMs` after the last one, then
 *   `PUBLISH_COMPLETE` (`publicaly_available_post_id` only for a public video) or `FAILED`
 *   (`fail_reason`, with the `failProcessing` switch);
 * - `POST /v2/video/query/?fields=…` `{ filters: { video_ids } }` → counts that grow with age.
 * Errors are TikTok's `{ error: { code, message, log_id } }` with its HTTP statuses. The sim tokens
 * act on the title at init: `sim:fail` refuses it (`spam_risk_text`), `sim:flaky` is a 503 once,
 * `sim:reconnect` an expired token; the lost answers (`sim:timeout`, `sim:reset`,
 * `sim:bad-gateway`) hit the last chunk's PUT after the video was kept, so it is posted all the
 * same. A video is recorded (`kind: 'post'`) once it is published; `GET /_sim/tiktok/videos`
 * lists every init with its received bytes, SHA-256, metadata and status.
 */

export const startTikTokSimulator = async (
  options: TikTokSimulatorOptions = {},
): Promise<TikTokSimulator> => {
  const s = tiktokState(options);
  const { oauth, uploads, videos, initsByToken, tuning, settle } = s;
  const { creatorInfo, init } = tiktokPublishRoutes(s);
  const { statusFetch, videoQuery } = tiktokStatusRoutes(s);
  const bool = (value: unknown, fallback: boolean) => (typeof value === 'boolean' ? value : fallback);

  const simulator = await startSimulator({
    name: 'TikTok',
    errors: tiktokErrors,
    port: options.port,
    holdMs: options.holdMs,
    oauth,
    onReset: () => {
      videos.clear();
      initsByToken.clear();
      uploads.reset();
      tuning.creator = { ...DEFAULT_CREATOR };
      tuning.audited = options.audited ?? true;
      tuning.failProcessing = null;
      tuning.verifiedDomains = options.verifiedDomains ?? [];
    },
    routes: [
      {
        method: 'POST',
        path: '/v2/post/publish/creator_info/query',
        scopes: ['video.publish'],
        handler: creatorInfo,
      },
      { method: 'POST', path: '/v2/post/publish/video/init', scopes: ['video.publish'], handler: init },
      { method: 'POST', path: '/v2/post/publish/status/fetch', handler: statusFetch },
      { method: 'POST', path: '/v2/video/query', scopes: ['video.list'], handler: videoQuery },
      {
        method: 'GET',
        path: '/_sim/tiktok/videos',
        auth: false,
        handler: (ctx) => {
          for (const video of videos.values()) settle(video, ctx.record);
          return { status: 200, body: { data: [...videos.values()].map(viewOf) } };
        },
      },
      {
        method: 'POST',
        path: '/_sim/tiktok/creator',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body) ?? {};
          tuning.creator = {
            privateAccount: bool(body.privateAccount, tuning.creator.privateAccount),
            commentDisabled: bool(body.commentDisabled, tuning.creator.commentDisabled),
            duetDisabled: bool(body.duetDisabled, tuning.creator.duetDisabled),
            stitchDisabled: bool(body.stitchDisabled, tuning.creator.stitchDisabled),
            maxVideoPostDurationSec:
              typeof body.maxVideoPostDurationSec === 'number'
                ? body.maxVideoPostDurationSec
                : tuning.creator.maxVideoPostDurationSec,
          };
          return { status: 200, body: { data: tuning.creator } };
        },
      },
      {
        method: 'POST',
        path: '/_sim/tiktok/switches',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body) ?? {};
          uploads.setSwitches(body);
          if (body.audited !== undefined) tuning.audited = body.audited !== false;
          if (body.failProcessing !== undefined) {
            tuning.failProcessing = typeof body.failProcessing === 'string' ? body.failProcessing : null;
          }
          if (Array.isArray(body.verifiedDomains)) tuning.verifiedDomains = body.verifiedDomains.map(String);
          return { status: 204 };
        },
      },
    ],
  });
  await uploads.start();
  const stop = simulator.stop.bind(simulator);
  return Object.assign(simulator, {
    videos: () => [...videos.values()].map(viewOf),
    stop: async () => {
      await uploads.stop();
      await stop();
    },
  });
};
