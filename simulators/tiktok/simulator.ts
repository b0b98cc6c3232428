import { createHash, randomBytes } from 'node:crypto';
import { simTokenOf } from '../../functions/ports/network-client.ts';
import {
  type LostAnswer,
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimRecord,
  type SimResponse,
  type Simulator,
  startSimulator,
} from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { tiktokOAuthSimulator } from './oauth.ts';
import { type SimUpload, tiktokUploadSimulator } from './upload.ts';

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

const MiB = 1024 * 1024;
export const TIKTOK_MIN_CHUNK = 5 * MiB;
export const TIKTOK_MAX_CHUNK = 64 * MiB;
export const TIKTOK_MAX_LAST_CHUNK = 128 * MiB;
const MAX_VIDEO_BYTES = 4 * 1024 * MiB;
const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
const MAX_TITLE = 2200;

/**
 * A post id as TikTok writes it in status/fetch: a bare JSON number of 19 digits (more than a
 * JavaScript number holds), where the runtime can write one (`JSON.rawJSON`, Node 22); a string
 * on Node 20.
 */
const rawJson = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
const postIdJson = (id: string): unknown => (rawJson ? rawJson(id) : id);

const logId = () => `2026SIM${Date.now()}${randomBytes(3).toString('hex').toUpperCase()}`;

export const tiktokError = (
  status: number,
  code: string,
  message: string,
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: { error: { code, message, log_id: logId() } },
  ...(headers ? { headers } : {}),
});

const ok = (data: unknown): SimResponse => ({
  status: 200,
  body: { data, error: { code: 'ok', message: '', log_id: logId() } },
});

export const tiktokErrors: SimErrorBodies = {
  unauthorized: (reason) =>
    tiktokError(
      401,
      'access_token_invalid',
      reason === 'expired'
        ? 'The access token is invalid or not found in the request. (expired)'
        : 'The access token is invalid or not found in the request.',
    ),
  refused: () => tiktokError(403, 'spam_risk_text', 'The post title was flagged as spam (sim:fail).'),
  unavailable: () => tiktokError(503, 'internal_error', 'Service is temporarily unavailable. Please retry.'),
  // TikTok's 429 carries no Retry-After: the limits are per minute.
  // A short throttle (per-minute limits), or the creator's spent daily post cap.
  rateLimited: (_resetAt, _seconds, kind) =>
    kind === 'daily'
      ? tiktokError(
          403,
          'spam_risk_too_many_posts',
          'The daily post cap from the API is reached for the current user.',
        )
      : tiktokError(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.'),
  badRequest: (message) => tiktokError(400, 'invalid_params', message),
  notFound: (message) => tiktokError(404, 'invalid_params', message),
};

export interface TikTokCreatorSettings {
  /** A private account offers no PUBLIC_TO_EVERYONE. */
  privateAccount: boolean;
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
}

const DEFAULT_CREATOR: TikTokCreatorSettings = {
  privateAccount: false,
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
  maxVideoPostDurationSec: 600,
};

export type TikTokPublishStatus = 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'PUBLISH_COMPLETE' | 'FAILED';

interface SimVideo {
  publishId: string;
  account: string;
  token: string;
  title: string;
  privacyLevel: string;
  disableComment: boolean;
  disableDuet: boolean;
  disableStitch: boolean;
  videoCoverTimestampMs: number | null;
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  upload: SimUpload | null;
  status: TikTokPublishStatus;
  failReason: string | null;
  /** When the last chunk arrived (processing runs from then). */
  completedAt: number | null;
  videoId: string | null;
  createdAt: number;
  publishedAt: number | null;
}

export interface TikTokSimulatorOptions {
  port?: number;
  holdMs?: number;
  /** How long a video is processed after its last chunk (default 300 ms). */
  processingMs?: number;
  /** Inits per token per minute (TikTok: 6). */
  initsPerMinute?: number;
  /** Videos per creator per 24 hours before `spam_risk_too_many_posts` (TikTok does not publish it; default 25). */
  dailyPostCap?: number;
  /** Whether the app passed TikTok's audit (default true); an unaudited app may post SELF_ONLY only. */
  audited?: boolean;
  /** Lifetime of an upload URL (TikTok: one hour). */
  uploadUrlLifetimeMs?: number;
  /** Hosts whose URLs PULL_FROM_URL takes (TikTok: the app's verified domains). */
  verifiedDomains?: string[];
  oauth?: Parameters<typeof tiktokOAuthSimulator>[0];
}

export type TikTokSimulator = Simulator & {
  /** The videos the simulator holds (inspection), by publish id. */
  videos(): ReturnType<typeof viewOf>[];
};

const viewOf = (video: SimVideo) => ({
  publishId: video.publishId,
  account: video.account,
  title: video.title,
  privacyLevel: video.privacyLevel,
  disableComment: video.disableComment,
  disableDuet: video.disableDuet,
  disableStitch: video.disableStitch,
  videoCoverTimestampMs: video.videoCoverTimestampMs,
  source: video.source,
  videoSize: video.upload?.videoSize ?? null,
  chunkSize: video.upload?.chunkSize ?? null,
  totalChunkCount: video.upload?.totalChunkCount ?? null,
  receivedBytes: video.upload?.uploadedBytes ?? 0,
  droppedBytes: video.upload?.droppedBytes ?? 0,
  interruptions: video.upload?.interruptions ?? 0,
  sha256: video.upload?.sha256 ?? null,
  mimeType: video.upload?.mimeType ?? null,
  status: video.status,
  failReason: video.failReason,
  videoId: video.videoId,
});

/** Checks FILE_UPLOAD's chunk rules; the refusal message, or null. */
export const chunkRuleError = (videoSize: unknown, chunkSize: unknown, count: unknown): string | null => {
  const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
  if (!isInt(videoSize) || videoSize <= 0) return 'source_info.video_size must be a positive integer';
  if (videoSize > MAX_VIDEO_BYTES) return 'source_info.video_size is larger than 4 GB';
  if (!isInt(chunkSize) || chunkSize <= 0) return 'source_info.chunk_size must be a positive integer';
  if (!isInt(count) || count <= 0) return 'source_info.total_chunk_count must be a positive integer';
  if (videoSize < TIKTOK_MIN_CHUNK && (chunkSize !== videoSize || count !== 1)) {
    return 'A video smaller than 5 MB must be uploaded whole: chunk_size equal to video_size, total_chunk_count 1';
  }
  if (chunkSize === videoSize) {
    if (videoSize > TIKTOK_MAX_CHUNK) return 'A video larger than 64 MB must be uploaded in several chunks';
    return count === 1 ? null : 'total_chunk_count must be 1 when chunk_size is the whole video';
  }
  if (chunkSize < TIKTOK_MIN_CHUNK || chunkSize > TIKTOK_MAX_CHUNK) {
    return 'chunk_size must be between 5 MB and 64 MB';
  }
  const expected = Math.floor(videoSize / chunkSize);
  if (count !== expected) return `total_chunk_count must be floor(video_size / chunk_size) = ${expected}`;
  if (count > 1000) return 'total_chunk_count must be at most 1000';
  if (videoSize - (count - 1) * chunkSize > TIKTOK_MAX_LAST_CHUNK)
    return 'The last chunk may be at most 128 MB';
  return null;
};

export const startTikTokSimulator = async (
  options: TikTokSimulatorOptions = {},
): Promise<TikTokSimulator> => {
  const processingMs = options.processingMs ?? 300;
  const initsPerMinute = options.initsPerMinute ?? 6;
  const dailyPostCap = options.dailyPostCap ?? 25;
  const uploadUrlLifetimeMs = options.uploadUrlLifetimeMs ?? 3_600_000;
  const oauth = tiktokOAuthSimulator(options.oauth);
  const uploads = tiktokUploadSimulator({ holdMs: options.holdMs });
  const videos = new Map<string, SimVideo>();
  const initsByToken = new Map<string, number[]>();
  let creator: TikTokCreatorSettings = { ...DEFAULT_CREATOR };
  let audited = options.audited ?? true;
  let failProcessing: string | null = null;
  let verifiedDomains = options.verifiedDomains ?? [];

  /** The creator behind a token: the account its grant names, else one derived from the token. */
  const accountOf = (token: string) =>
    oauth.accountOf(token) ?? `sim${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
  const scopesOf = (token: string) => oauth.scopesOf(token);

  const requireScope = (ctx: SimContext, scope: string) => {
    const scopes = scopesOf(ctx.token as string);
    if (scopes && !scopes.includes(scope)) {
      throw new SimHttpError(
        tiktokError(401, 'scope_not_authorized', `The user did not authorize the scope required: ${scope}.`),
      );
    }
  };

  /** Moves a video along by the clock: processed `processingMs` after its last chunk; recorded once published. */
  const settle = (video: SimVideo, record: (entry: Omit<SimRecord, 'at'>) => SimRecord) => {
    if (video.status !== 'PROCESSING_UPLOAD' && video.status !== 'PROCESSING_DOWNLOAD') return video;
    if (video.completedAt === null || Date.now() < video.completedAt + processingMs) return video;
    if (failProcessing) {
      video.status = 'FAILED';
      video.failReason = failProcessing;
      return video;
    }
    video.status = 'PUBLISH_COMPLETE';
    video.publishedAt = Date.now();
    video.videoId = `7${(BigInt(Date.now()) * 1000n + BigInt(randomBytes(2).readUInt16BE(0) % 1000)).toString().padStart(18, '0')}`;
    record({
      kind: 'post',
      id: video.videoId,
      parentId: null,
      rootId: null,
      text: video.title,
      account: video.account,
    });
    return video;
  };

  const creatorInfo = (ctx: SimContext): SimResponse => {
    requireScope(ctx, 'video.publish');
    const account = accountOf(ctx.token as string);
    return ok({
      creator_avatar_url: `https://p16-sign.tiktokcdn-us.com/sim/${account}.jpeg`,
      creator_username: `sim_${account.slice(-8)}`,
      creator_nickname: 'Simulated creator',
      privacy_level_options: creator.privateAccount
        ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
        : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      comment_disabled: creator.commentDisabled,
      duet_disabled: creator.duetDisabled,
      stitch_disabled: creator.stitchDisabled,
      max_video_post_duration_sec: creator.maxVideoPostDurationSec,
    });
  };

  const init = (ctx: SimContext): SimResponse => {
    requireScope(ctx, 'video.publish');
    const token = ctx.token as string;
    const account = accountOf(token);
    // 6 inits per minute per token, counted whether or not the init succeeds.
    const now = Date.now();
    const recent = (initsByToken.get(token) ?? []).filter((at) => at > now - 60_000);
    if (recent.length >= initsPerMinute) {
      initsByToken.set(token, recent);
      throw new SimHttpError(tiktokErrors.rateLimited(new Date((recent[0] as number) + 60_000), 60, 'short'));
    }
    recent.push(now);
    initsByToken.set(token, recent);

    const body = objectOf(ctx.body);
    const post = objectOf(body?.post_info);
    const source = objectOf(body?.source_info);
    if (!post || !source) return tiktokErrors.badRequest('post_info and source_info are required');
    const title = typeof post.title === 'string' ? post.title : '';
    if ([...title].length > MAX_TITLE)
      return tiktokErrors.badRequest(`post_info.title is longer than ${MAX_TITLE} characters`);
    const privacy = post.privacy_level;
    if (typeof privacy !== 'string' || !PRIVACY_LEVELS.includes(privacy)) {
      return tiktokErrors.badRequest('post_info.privacy_level is required and must be a privacy level');
    }
    for (const key of ['disable_comment', 'disable_duet', 'disable_stitch']) {
      if (post[key] !== undefined && typeof post[key] !== 'boolean') {
        return tiktokErrors.badRequest(`post_info.${key} must be a boolean`);
      }
    }
    const cover = post.video_cover_timestamp_ms;
    if (cover !== undefined && (typeof cover !== 'number' || !Number.isInteger(cover) || cover < 0)) {
      return tiktokErrors.badRequest('post_info.video_cover_timestamp_ms must be a non-negative integer');
    }
    const offered = creator.privateAccount
      ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
      : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
    if (!audited && privacy !== 'SELF_ONLY') {
      return tiktokError(
        403,
        'unaudited_client_can_only_post_to_private_accounts',
        'Please review our integration guidelines at https://developers.tiktok.com/doc/content-sharing-guidelines/',
      );
    }
    if (!offered.includes(privacy)) {
      return tiktokError(
        400,
        'privacy_level_option_mismatch',
        `privacy_level ${privacy} is not one of the creator's options`,
      );
    }
    const published = [...videos.values()].filter(
      (video) => video.account === account && video.createdAt > now - 86_400_000 && video.status !== 'FAILED',
    ).length;
    if (published >= dailyPostCap) {
      return tiktokError(
        403,
        'spam_risk_too_many_posts',
        'The daily post cap from the API is reached for the current user.',
      );
    }
    let lost: LostAnswer | null = null;
    // The sim tokens on the title: refusals here; lost answers on the last chunk.
    if (simTokenOf(title)) lost = ctx.screen(title, account);

    const publishId = `v_pub_file~v2-1.${now}${randomBytes(4).readUInt32BE(0)}`;
    const video: SimVideo = {
      publishId,
      account,
      token,
      title,
      privacyLevel: privacy,
      disableComment: post.disable_comment === true,
      disableDuet: post.disable_duet === true,
      disableStitch: post.disable_stitch === true,
      videoCoverTimestampMs: typeof cover === 'number' ? cover : null,
      source: 'FILE_UPLOAD',
      upload: null,
      status: 'PROCESSING_UPLOAD',
      failReason: null,
      completedAt: null,
      videoId: null,
      createdAt: now,
      publishedAt: null,
    };
    if (source.source === 'PULL_FROM_URL') {
      const url = typeof source.video_url === 'string' ? source.video_url : '';
      let host = '';
      try {
        host = new URL(url).hostname;
      } catch {
        return tiktokErrors.badRequest('source_info.video_url must be a URL');
      }
      if (!verifiedDomains.includes(host)) {
        return tiktokError(
          403,
          'url_ownership_unverified',
          `The domain of video_url (${host}) is not verified for this app.`,
        );
      }
      video.source = 'PULL_FROM_URL';
      video.status = 'PROCESSING_DOWNLOAD';
      video.completedAt = now;
      videos.set(publishId, video);
      return ok({ publish_id: publishId });
    }
    if (source.source !== 'FILE_UPLOAD') {
      return tiktokErrors.badRequest('source_info.source must be FILE_UPLOAD or PULL_FROM_URL');
    }
    const refusal = chunkRuleError(source.video_size, source.chunk_size, source.total_chunk_count);
    if (refusal) return tiktokErrors.badRequest(refusal);
    const upload: SimUpload = {
      publishId,
      uploadId: randomBytes(12).toString('hex'),
      uploadToken: randomBytes(16).toString('hex'),
      videoSize: source.video_size as number,
      chunkSize: source.chunk_size as number,
      totalChunkCount: source.total_chunk_count as number,
      uploadedBytes: 0,
      droppedBytes: 0,
      interruptions: 0,
      hash: uploads.newHash(),
      sha256: null,
      mimeType: null,
      expiresAt: now + uploadUrlLifetimeMs,
      lost,
      onComplete: () => {
        video.completedAt = Date.now();
      },
    };
    video.upload = upload;
    videos.set(publishId, video);
    uploads.uploads.set(upload.uploadId, upload);
    return ok({ publish_id: publishId, upload_url: uploads.urlOf(upload) });
  };

  const statusFetch = (ctx: SimContext): SimResponse => {
    const publishId = objectOf(ctx.body)?.publish_id;
    const video = typeof publishId === 'string' ? videos.get(publishId) : undefined;
    if (!video || video.account !== accountOf(ctx.token as string)) {
      return tiktokErrors.badRequest(`publish_id ${String(publishId)} does not exist`);
    }
    settle(video, ctx.record);
    return ok({
      status: video.status,
      ...(video.status === 'FAILED' ? { fail_reason: video.failReason } : {}),
      publicaly_available_post_id:
        video.status === 'PUBLISH_COMPLETE' && video.privacyLevel === 'PUBLIC_TO_EVERYONE' && video.videoId
          ? [postIdJson(video.videoId)]
          : [],
      uploaded_bytes: video.upload?.uploadedBytes ?? 0,
    });
  };

  const videoQuery = (ctx: SimContext): SimResponse => {
    requireScope(ctx, 'video.list');
    const fields = (ctx.query.get('fields') ?? '').split(',').filter((field) => field !== '');
    if (fields.length === 0) return tiktokErrors.badRequest('fields is required');
    const ids = objectOf(objectOf(ctx.body)?.filters)?.video_ids;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 20) {
      return tiktokErrors.badRequest('filters.video_ids must list 1 to 20 video ids');
    }
    const account = accountOf(ctx.token as string);
    for (const video of videos.values()) settle(video, ctx.record);
    const found = [...videos.values()].filter(
      (video) =>
        video.videoId !== null && video.account === account && ids.map(String).includes(video.videoId),
    );
    return ok({
      videos: found.map((video) => {
        const m = simulatorMetrics(
          'tiktok',
          video.videoId as string,
          new Date(video.publishedAt ?? video.createdAt),
        );
        const all: Record<string, unknown> = {
          id: video.videoId,
          title: video.title,
          create_time: Math.floor(video.createdAt / 1000),
          like_count: m.likes ?? 0,
          comment_count: m.comments ?? 0,
          share_count: m.shares ?? 0,
          view_count: m.views ?? 0,
        };
        return Object.fromEntries(fields.filter((field) => field in all).map((field) => [field, all[field]]));
      }),
      cursor: 0,
      has_more: false,
    });
  };

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
      creator = { ...DEFAULT_CREATOR };
      audited = options.audited ?? true;
      failProcessing = null;
      verifiedDomains = options.verifiedDomains ?? [];
    },
    routes: [
      { method: 'POST', path: '/v2/post/publish/creator_info/query', handler: creatorInfo },
      { method: 'POST', path: '/v2/post/publish/video/init', handler: init },
      { method: 'POST', path: '/v2/post/publish/status/fetch', handler: statusFetch },
      { method: 'POST', path: '/v2/video/query', handler: videoQuery },
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
          creator = {
            privateAccount: bool(body.privateAccount, creator.privateAccount),
            commentDisabled: bool(body.commentDisabled, creator.commentDisabled),
            duetDisabled: bool(body.duetDisabled, creator.duetDisabled),
            stitchDisabled: bool(body.stitchDisabled, creator.stitchDisabled),
            maxVideoPostDurationSec:
              typeof body.maxVideoPostDurationSec === 'number'
                ? body.maxVideoPostDurationSec
                : creator.maxVideoPostDurationSec,
          };
          return { status: 200, body: { data: creator } };
        },
      },
      {
        method: 'POST',
        path: '/_sim/tiktok/switches',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body) ?? {};
          uploads.setSwitches(body);
          if (body.audited !== undefined) audited = body.audited !== false;
          if (body.failProcessing !== undefined) {
            failProcessing = typeof body.failProcessing === 'string' ? body.failProcessing : null;
          }
          if (Array.isArray(body.verifiedDomains)) verifiedDomains = body.verifiedDomains.map(String);
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
