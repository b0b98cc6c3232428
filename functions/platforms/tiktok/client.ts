import type { OptionValue } from '../../domain/post.ts';
import {
  type DeleteBlockInput,
  type EditBlockInput,
  type LookupBlockInput,
  type MediaForNetwork,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
  type UploadProgress,
} from '../../ports/network-client.ts';
import {
  baseUrlOf,
  DEFAULT_TIMEOUT_MS,
  details,
  type HttpAnswer,
  type HttpFailure,
  retryAfterSeconds,
  sendOrClassify,
  serverError,
  transportError,
} from '../network-http.ts';
import { readTikTokMetrics } from './metrics.ts';
import { type ChunkPlan, chunkPlan, MediaReader, putChunk, rangeOf, TIKTOK_CHUNK_BYTES } from './upload.ts';

/**
 * TikTok Content Posting API client (Direct Post, open.tiktokapis.com/v2). A TikTok post is one
 * video with its caption (`post_info.title`) and the creator's choices:
 * 1. `POST /v2/post/publish/creator_info/query/`: the channel's options are checked against what
 *    the creator may choose now (privacy levels offered, comments/duets/stitches turned off);
 *    a mismatch is a permanent refusal naming the option, before anything is sent;
 * 2. `POST /v2/post/publish/video/init/` with `source_info.source: FILE_UPLOAD` (`video_size`,
 *    `chunk_size`, `total_chunk_count` by TikTok's chunk rules) → `publish_id` and `upload_url`;
 *    PULL_FROM_URL is not used: TikTok only pulls from the app's verified domains, and presigned
 *    S3 URLs are not on one;
 * 3. each chunk `PUT` to `upload_url` with `Content-Range`, streamed from the media URL
 *    (upload.ts); after a chunk fails (a dropped connection, a 5xx, a lost answer) the client asks
 *    `POST /v2/post/publish/status/fetch/` for `uploaded_bytes` and continues from there;
 * 4. status/fetch until `PUBLISH_COMPLETE` (the video id, for a public video) or `FAILED`.
 *
 * Nothing is posted until the last chunk is in: a lost init or a half-sent upload leaves no video,
 * so those failures are never `outcomeUnknown` and a fresh init is safe. The session (publish_id,
 * upload URL, plan, confirmed offset) is saved in `progress` after the init and after every chunk;
 * the next attempt continues it (never a second video) unless the upload URL has expired (it lives
 * about an hour; the half-sent upload is then abandoned, which posts nothing, and a new init
 * starts). Close to `deadline` the client saves and throws `continueLater`; processing that takes
 * longer than `maxProcessingSeconds` is waited for the same way in the next invocation.
 *
 * TikTok has no edit or delete for posted videos: both are refused. `lookup` reads the saved
 * publish_id's status (the only way TikTok tells what became of an upload).
 */

const NETWORK = 'TikTok';
/** A saved upload URL is not trusted after this long (TikTok: about an hour). */
const UPLOAD_URL_LIFETIME_MS = 55 * 60_000;
/** Leave at least this much before `deadline` (a chunk of 10 MiB and a save fit in it). */
const DEADLINE_MARGIN_MS = 10_000;
/** Sessions a client keeps in memory for `lookup` (the latest ones). */
const MAX_REMEMBERED = 1000;
const VIDEO_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'];

export interface TikTokClientOptions {
  baseUrl?: string;
  timeoutMs?: number;
  /** Bytes per chunk (default 10 MiB; TikTok takes 5–64 MB). */
  chunkBytes?: number;
  /** Longest wait for TikTok to process the video within one call (default 20 s). */
  maxProcessingSeconds?: number;
  /**
   * How long invocations keep coming back for a video still processing (default 1 h; TikTok's
   * moderation of a public video may take hours), after which the block is recorded as its
   * publish_id and TikTok posts the video by itself.
   */
  processingGiveUpSeconds?: number;
  /** Between status reads (default 2 s: status/fetch allows 30 a minute). */
  pollMs?: number;
  /** Chunk attempts after a failure before the call gives up (default 3). */
  maxChunkRetries?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a publish keeps in `progress` between attempts. */
export interface TikTokSession {
  publishId: string;
  uploadUrl: string;
  uploadUrlExpiresAt: string;
  mediaId: string;
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
  /** Bytes TikTok confirmed. */
  offset: number;
  /** `upload` while chunks go; `processing` once the last chunk is in (the video will be posted). */
  phase: 'upload' | 'processing';
  username: string;
  /** When the client first found the video still processing after its wait. */
  processingSince?: string;
}

interface PublishStatus {
  status: string;
  failReason: string | null;
  postIds: string[];
  uploadedBytes: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const errorOf = (body: unknown) => {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    code: typeof error?.code === 'string' ? error.code : '',
    message: typeof error?.message === 'string' ? error.message : '',
  };
};

/** Strips `outcomeUnknown`: before the last chunk is in, nothing can have been posted. */
const nothingPosted = (error: unknown): unknown => {
  if (!(error instanceof NetworkError) || !error.details.outcomeUnknown) return error;
  const { outcomeUnknown: _unknown, ...rest } = error.details;
  return new NetworkError(error.kind, error.message, rest);
};

/**
 * How the engine handles a failed TikTok call (TikTok's v2 error table): 401
 * `access_token_invalid` reconnect with `tokenExpired` (TikTok says the same for an expired and a
 * bad token: the token service refreshes, and only a refused refresh needs the user),
 * `scope_not_authorized`/`scope_permission_missed` reconnect; 429 `rate_limit_exceeded` a rate limit
 * (`Retry-After`, else a minute: the limits are per minute); 403 `spam_risk_too_many_posts` and
 * `spam_risk_too_many_pending_share` the creator's daily cap (a rate limit, looked at again hourly:
 * TikTok does not say when it lifts); the other 4xx permanent with TikTok's code and message
 * (`unaudited_client_can_only_post_to_private_accounts` explained); 5xx transient with
 * `outcomeUnknown`; no answer transient (`outcomeUnknown` once sent).
 */
export const classifyTikTokFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const { code, message } = errorOf(body);
  const said = `TikTok refused the request: ${code || `HTTP ${status}`}${message ? ` (${message})` : ''}`;
  if (status === 429 || code === 'rate_limit_exceeded') {
    const wait = retryAfterSeconds(headers['retry-after'], now) ?? 60;
    return new NetworkError(
      'transient',
      `TikTok rate limit reached (${code || status}); waiting ${wait} s.`,
      {
        ...details(status, wait),
        rateLimited: true,
      },
    );
  }
  if (status >= 500)
    return serverError(`TikTok failed (${code || `HTTP ${status}`}${message ? `: ${message}` : ''})`, status);
  if (code === 'access_token_invalid' || (status === 401 && code === '')) {
    return new NetworkError('reconnect', 'TikTok refused the access token (access_token_invalid).', {
      status,
      tokenExpired: true,
    });
  }
  if (code === 'scope_not_authorized' || code === 'scope_permission_missed' || status === 401) {
    return new NetworkError(
      'reconnect',
      `TikTok says the account did not grant the permission this needs (${code}); reconnect the channel and allow video.publish, video.upload and video.list.`,
      { status },
    );
  }
  if (code === 'spam_risk_too_many_posts' || code === 'spam_risk_too_many_pending_share') {
    return new NetworkError(
      'transient',
      `TikTok's daily posting cap for this account is reached (${code}); publishing waits and tries again.`,
      { ...details(status, 3600), rateLimited: true },
    );
  }
  if (code === 'unaudited_client_can_only_post_to_private_accounts') {
    return new NetworkError(
      'permanent',
      'TikTok lets an app it has not audited post private videos only: set the privacy option to SELF_ONLY, or have the TikTok app audited (unaudited_client_can_only_post_to_private_accounts).',
      { status },
    );
  }
  if (code === 'reached_active_user_cap') {
    return new NetworkError(
      'permanent',
      'TikTok limits an unaudited app to 5 posting accounts a day, and that cap is reached (reached_active_user_cap).',
      { status },
    );
  }
  if (code === 'privacy_level_option_mismatch') {
    return new NetworkError(
      'permanent',
      `TikTok does not offer this privacy level to the account (${message || code}).`,
      {
        status,
      },
    );
  }
  return new NetworkError('permanent', said, { status });
};

/**
 * `publicaly_available_post_id` (TikTok's spelling) read from the answer's text: TikTok sends the
 * ids as JSON numbers of 19 digits, beyond what a JavaScript number holds exactly, so they are
 * taken as the digits written (quoted ids work too).
 */
export const postIdsOf = (text: string): string[] => {
  const list = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(text)?.[1] ?? '';
  return list
    .split(',')
    .map((id) => id.trim().replace(/^"(.*)"$/, '$1'))
    .filter((id) => /^\d+$/.test(id));
};

const isSession = (
  value: Record<string, unknown> | null | undefined,
): value is Record<string, unknown> & TikTokSession =>
  !!value &&
  typeof value.publishId === 'string' &&
  typeof value.uploadUrl === 'string' &&
  typeof value.videoSize === 'number' &&
  typeof value.chunkSize === 'number' &&
  typeof value.totalChunkCount === 'number' &&
  typeof value.offset === 'number';

/** A boolean option (Herald's options carry them as the strings "true" and "false"). */
const bool = (options: Record<string, OptionValue>, key: string): boolean | undefined =>
  options[key] === 'true' ? true : options[key] === 'false' ? false : undefined;

export class TikTokClient implements NetworkClient {
  readonly platform = 'tiktok' as const;
  /** status/fetch reads TikTok's own record of the publish_id. */
  readonly consistencyWindowSeconds = 0;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly chunkBytes: number;
  private readonly maxProcessingMs: number;
  private readonly processingGiveUpMs: number;
  private readonly pollMs: number;
  private readonly maxChunkRetries: number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Sessions by account and block key, for a `lookup` whose caller keeps no progress (same process only). */
  private readonly sessions = new Map<string, TikTokSession>();

  constructor(options: TikTokClientOptions = {}) {
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://open.tiktokapis.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.chunkBytes = options.chunkBytes ?? TIKTOK_CHUNK_BYTES;
    this.maxProcessingMs = (options.maxProcessingSeconds ?? 20) * 1000;
    this.processingGiveUpMs = (options.processingGiveUpSeconds ?? 3600) * 1000;
    this.pollMs = options.pollMs ?? 2000;
    this.maxChunkRetries = options.maxChunkRetries ?? 3;
    this.sleep = options.sleep ?? defaultSleep;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.parent) {
      throw new NetworkError(
        'permanent',
        'A TikTok post is one video: it has no replies or comments to publish.',
      );
    }
    const file = this.videoOf(input.media);
    const key = `${input.credentials.remoteAccountId}\u0000${input.idempotencyKey}`;
    const saved = input.progress?.saved;
    let session: TikTokSession | null = null;
    if (isSession(saved) && saved.mediaId === file.mediaId && saved.videoSize === file.size) {
      session = await this.resumable(input.credentials, saved);
    }
    if (!session) {
      const creator = await this.creatorInfo(input.credentials);
      const postInfo = this.postInfo(input, creator);
      session = await this.init(input.credentials, file, postInfo, creator.username);
      await this.save(input.progress, session);
    }
    this.remember(key, session);
    if (session.phase === 'upload') await this.upload(input, file, session);
    return this.processed(input, session);
  }

  /** Keeps the latest sessions (a bounded number) for `lookup`. */
  private remember(key: string, session: TikTokSession) {
    this.sessions.delete(key);
    this.sessions.set(key, session);
    if (this.sessions.size > MAX_REMEMBERED) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
  }

  /** The one video a TikTok post carries. */
  private videoOf(media: MediaForNetwork[]): MediaForNetwork {
    const file = media[0];
    if (media.length !== 1 || !file) {
      throw new NetworkError('permanent', 'A TikTok post needs exactly one video.');
    }
    if (!VIDEO_TYPES.includes(file.mimeType)) {
      throw new NetworkError('permanent', `TikTok takes MP4, MOV or WebM videos, not ${file.mimeType}.`);
    }
    return file;
  }

  /** What TikTok allows this creator now (creator_info/query). */
  private async creatorInfo(credentials: NetworkCredentials) {
    const answer = await this.step(() => this.call(credentials, '/v2/post/publish/creator_info/query/', {}));
    const data = (answer.body as { data?: Record<string, unknown> } | undefined)?.data ?? {};
    const options = Array.isArray(data.privacy_level_options) ? data.privacy_level_options.map(String) : [];
    return {
      username: typeof data.creator_username === 'string' ? data.creator_username : '',
      privacyOptions: options,
      commentDisabled: data.comment_disabled === true,
      duetDisabled: data.duet_disabled === true,
      stitchDisabled: data.stitch_disabled === true,
      maxDurationSec:
        typeof data.max_video_post_duration_sec === 'number' ? data.max_video_post_duration_sec : null,
    };
  }

  /**
   * `post_info` from the block and the channel's options, checked against the creator's settings:
   * a privacy level the account does not offer, or comments/duets/stitches explicitly allowed
   * (`"false"`) where the creator turned them off, is refused; left unset, they follow the creator.
   */
  private postInfo(input: PublishBlockInput, creator: Awaited<ReturnType<TikTokClient['creatorInfo']>>) {
    const privacy = typeof input.options.privacy === 'string' ? input.options.privacy : null;
    if (!privacy)
      throw new NetworkError('permanent', 'TikTok needs the privacy option (who can watch the video).');
    if (!creator.privacyOptions.includes(privacy)) {
      throw new NetworkError(
        'permanent',
        `The TikTok account does not offer privacy ${privacy} now; it offers ${creator.privacyOptions.join(', ') || 'none'}.`,
      );
    }
    const interaction = (option: string, off: boolean, what: string) => {
      const value = bool(input.options, option);
      if (off && value === false) {
        throw new NetworkError(
          'permanent',
          `The TikTok account has ${what} turned off in its settings, so ${option}: false cannot be honoured; leave ${option} unset or "true".`,
        );
      }
      return value ?? off;
    };
    return {
      title: input.content,
      privacy_level: privacy,
      disable_comment: interaction('disableComment', creator.commentDisabled, 'comments'),
      disable_duet: interaction('disableDuet', creator.duetDisabled, 'duets'),
      disable_stitch: interaction('disableStitch', creator.stitchDisabled, 'stitches'),
      brand_content_toggle: false,
      brand_organic_toggle: false,
    };
  }

  private async init(
    credentials: NetworkCredentials,
    file: MediaForNetwork,
    postInfo: Record<string, unknown>,
    username: string,
  ): Promise<TikTokSession> {
    const plan = chunkPlan(file.size, this.chunkBytes);
    const answer = await this.step(() =>
      this.call(credentials, '/v2/post/publish/video/init/', {
        post_info: postInfo,
        source_info: {
          source: 'FILE_UPLOAD',
          video_size: plan.videoSize,
          chunk_size: plan.chunkSize,
          total_chunk_count: plan.totalChunkCount,
        },
      }),
    );
    const data = (answer.body as { data?: { publish_id?: unknown; upload_url?: unknown } } | undefined)?.data;
    if (typeof data?.publish_id !== 'string' || typeof data.upload_url !== 'string') {
      // No upload URL: nothing can be uploaded, so nothing is posted.
      throw new NetworkError(
        'transient',
        'TikTok accepted the upload but gave no publish_id or upload_url.',
        {
          status: answer.status,
        },
      );
    }
    return {
      publishId: data.publish_id,
      uploadUrl: data.upload_url,
      uploadUrlExpiresAt: new Date(Date.now() + UPLOAD_URL_LIFETIME_MS).toISOString(),
      mediaId: file.mediaId,
      videoSize: plan.videoSize,
      chunkSize: plan.chunkSize,
      totalChunkCount: plan.totalChunkCount,
      offset: 0,
      phase: 'upload',
      username,
    };
  }

  /**
   * A saved session, brought up to date from status/fetch; null when a new init is needed and safe
   * (the upload never finished, so TikTok posts nothing from it: its URL expired, or TikTok failed it).
   */
  private async resumable(
    credentials: NetworkCredentials,
    saved: TikTokSession,
  ): Promise<TikTokSession | null> {
    let status: PublishStatus;
    try {
      status = await this.status(credentials, saved.publishId);
    } catch (error) {
      // TikTok no longer knows an upload that never finished: nothing was posted from it.
      if (error instanceof NetworkError && error.kind === 'permanent' && saved.phase === 'upload')
        return null;
      throw nothingPosted(error);
    }
    const complete = status.uploadedBytes >= saved.videoSize || saved.phase === 'processing';
    if (status.status === 'FAILED' && !complete) return null;
    if (status.status === 'PROCESSING_UPLOAD' && !complete) {
      if (Date.parse(saved.uploadUrlExpiresAt) <= Date.now()) return null;
      return { ...saved, offset: this.boundary(saved, status.uploadedBytes), phase: 'upload' };
    }
    return { ...saved, offset: saved.videoSize, phase: 'processing' };
  }

  /** The chunk boundary at or below what TikTok confirmed. */
  private boundary(plan: ChunkPlan, uploaded: number) {
    const index = Math.min(Math.floor(uploaded / plan.chunkSize), plan.totalChunkCount - 1);
    return Math.max(0, index * plan.chunkSize);
  }

  /** Sends the chunks from the confirmed offset, saving after each; resumes from TikTok's offset after a failure. */
  private async upload(
    input: PublishBlockInput,
    file: MediaForNetwork,
    session: TikTokSession,
  ): Promise<void> {
    let failures = 0;
    let reader: MediaReader | null = null;
    try {
      while (session.offset < session.videoSize) {
        this.checkDeadline(input, session);
        const index = Math.floor(session.offset / session.chunkSize);
        const { first, last } = rangeOf(session, index);
        reader ??= new MediaReader(file.url, first, file.mediaId, file.size);
        let failure: string;
        try {
          const answer = await putChunk(session.uploadUrl, {
            body: reader.take(last - first + 1),
            first,
            last,
            total: session.videoSize,
            mimeType: file.mimeType,
            timeoutMs: this.timeoutMs,
          });
          if (
            answer.status === 201 ||
            answer.status === 206 ||
            (answer.status >= 200 && answer.status < 300)
          ) {
            session.offset = last + 1;
            if (session.offset >= session.videoSize) session.phase = 'processing';
            await this.save(input.progress, session);
            failures = 0;
            continue;
          }
          if (answer.status === 404 || answer.status === 403) {
            // The upload URL is gone (expired): the half-sent upload posts nothing.
            throw new NetworkError(
              'transient',
              `TikTok no longer takes this upload (HTTP ${answer.status}); the next attempt starts a new one.`,
              { status: answer.status },
            );
          }
          failure = `HTTP ${answer.status}${answer.text ? ` ${answer.text.slice(0, 200)}` : ''}`;
        } catch (error) {
          if (error instanceof NetworkError) throw error;
          failure = (error as Error).message;
        }
        // A dropped connection, a 5xx or a refused range: ask TikTok where the upload stands.
        await reader.close();
        reader = null;
        failures++;
        const status = await this.status(input.credentials, session.publishId).catch((error: unknown) => {
          if (index === session.totalChunkCount - 1) {
            // The last chunk may be in (the video would be posted) and TikTok cannot say: unknown.
            throw new NetworkError(
              'transient',
              `TikTok did not confirm the last chunk (${failure}) and its status could not be read; publish ${session.publishId} is checked before anything is sent again.`,
              { outcomeUnknown: true },
            );
          }
          throw nothingPosted(error);
        });
        if (status.uploadedBytes >= session.videoSize || status.status === 'PUBLISH_COMPLETE') {
          // The last chunk went in although its answer was lost.
          session.offset = session.videoSize;
          session.phase = 'processing';
          await this.save(input.progress, session);
          return;
        }
        if (status.status === 'FAILED') {
          throw new NetworkError(
            'transient',
            `TikTok failed the upload (${status.failReason ?? 'no reason'}); the next attempt starts a new one.`,
          );
        }
        session.offset = this.boundary(session, status.uploadedBytes);
        await this.save(input.progress, session);
        if (failures > this.maxChunkRetries) {
          throw new NetworkError(
            'transient',
            `TikTok upload failed ${failures} times in a row (${failure}); the next attempt continues from byte ${session.offset}.`,
          );
        }
      }
    } finally {
      await reader?.close();
    }
  }

  /** Close to the deadline: the session is saved, and the next invocation continues it. */
  private checkDeadline(input: PublishBlockInput, session: TikTokSession) {
    if (!input.deadline || !input.progress) return;
    if (input.deadline.getTime() - Date.now() > DEADLINE_MARGIN_MS) return;
    throw new NetworkError(
      'transient',
      session.phase === 'upload'
        ? `Upload continues in the next run (TikTok has ${session.offset} of ${session.videoSize} bytes).`
        : 'TikTok is still processing the video; publishing checks again in the next run.',
      { continueLater: true },
    );
  }

  /** Waits for TikTok to post the video (bounded), then the block. */
  private async processed(input: PublishBlockInput, session: TikTokSession): Promise<RemoteBlock> {
    const until = Date.now() + this.maxProcessingMs;
    for (;;) {
      const status = await this.status(input.credentials, session.publishId).catch((error: unknown) => {
        // The video is in: a failed status read cannot undo it; the next attempt reads again.
        if (
          input.progress &&
          error instanceof NetworkError &&
          error.kind === 'transient' &&
          !error.details.rateLimited
        ) {
          throw new NetworkError('transient', `${error.message}; publishing checks again in the next run.`, {
            ...error.details,
            outcomeUnknown: false,
            continueLater: true,
          });
        }
        throw error;
      });
      if (status.status === 'PUBLISH_COMPLETE') return this.blockOf(session, status.postIds[0] ?? null);
      if (status.status === 'FAILED') {
        throw new NetworkError(
          'permanent',
          `TikTok could not publish the video (${status.failReason ?? 'no reason given'}).`,
        );
      }
      const deadline =
        input.deadline && input.progress ? input.deadline.getTime() - DEADLINE_MARGIN_MS : Infinity;
      if (Date.now() + this.pollMs > Math.min(until, deadline)) {
        session.processingSince ??= new Date().toISOString();
        const waited = Date.now() - Date.parse(session.processingSince);
        if (input.progress && waited < this.processingGiveUpMs) {
          await this.save(input.progress, session);
          throw new NetworkError(
            'transient',
            `TikTok is still processing the video (${status.status}); publishing checks again in the next run.`,
            { continueLater: true },
          );
        }
        // No place to keep the session, or TikTok's moderation takes hours: the video is in, and
        // TikTok posts it by itself; the block is its publish_id (metrics find the video id later).
        return this.blockOf(session, null);
      }
      await this.sleep(this.pollMs);
    }
  }

  private blockOf(session: TikTokSession, videoId: string | null): RemoteBlock {
    const profile = `https://www.tiktok.com/@${session.username}`;
    return {
      remoteId: videoId ?? session.publishId,
      remoteUrl: videoId ? `${profile}/video/${videoId}` : profile,
      meta: {
        publishId: session.publishId,
        username: session.username,
        ...(videoId ? { videoId } : {}),
      },
    };
  }

  private async status(credentials: NetworkCredentials, publishId: string): Promise<PublishStatus> {
    const answer = await this.call(credentials, '/v2/post/publish/status/fetch/', { publish_id: publishId });
    const data = (answer.body as { data?: Record<string, unknown> } | undefined)?.data ?? {};
    return {
      status: typeof data.status === 'string' ? data.status : '',
      failReason: typeof data.fail_reason === 'string' ? data.fail_reason : null,
      postIds: postIdsOf(answer.text),
      uploadedBytes: typeof data.uploaded_bytes === 'number' ? data.uploaded_bytes : 0,
    };
  }

  private async save(progress: UploadProgress | undefined, session: TikTokSession): Promise<void> {
    if (progress) await progress.save({ ...session });
  }

  /**
   * What became of a block whose answer was lost, by its saved publish_id: the block once
   * PUBLISH_COMPLETE; null when the upload never finished or TikTok failed it (nothing was
   * posted: sending again is safe); still processing is a transient error (look again later).
   * Without a publish_id TikTok offers no way to find a video (its video list shows public,
   * moderated videos only), so the outcome stays unknown.
   */
  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const saved = input.saved;
    const session = isSession(saved)
      ? (saved as TikTokSession)
      : this.sessions.get(`${input.credentials.remoteAccountId}\u0000${input.idempotencyKey}`);
    if (!session) {
      // The session is saved before the first byte goes: with the progress kept and empty, nothing was uploaded.
      if (saved === null) return null;
      throw new NetworkError(
        'permanent',
        'TikTok offers no way to find a video without the publish_id of its upload, which was not kept.',
      );
    }
    const status = await this.status(input.credentials, session.publishId);
    if (status.status === 'PUBLISH_COMPLETE') return this.blockOf(session, status.postIds[0] ?? null);
    if (status.status === 'FAILED') return null;
    if (status.uploadedBytes < session.videoSize && status.status === 'PROCESSING_UPLOAD') return null;
    throw new NetworkError(
      'transient',
      `TikTok is still processing publish ${session.publishId} (${status.status}).`,
    );
  }

  async edit(_input: EditBlockInput): Promise<void> {
    throw new NetworkError('permanent', 'TikTok does not let apps edit a posted video.');
  }

  async delete(_input: DeleteBlockInput): Promise<void> {
    throw new NetworkError('permanent', 'TikTok does not let apps delete a posted video.');
  }

  /** Views, likes, comments and shares (metrics.ts). */
  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readTikTokMetrics({ baseUrl: this.baseUrl, timeoutMs: this.timeoutMs }, input, (publishId) =>
      this.status(input.credentials, publishId),
    );
  }

  /** Steps before the last chunk: nothing can have been posted, whatever the failure. */
  private async step<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw nothingPosted(error);
    }
  }

  /** A JSON POST; TikTok's `{ error: { code } }` other than `ok` is a failure even on a 2xx. */
  private async call(credentials: NetworkCredentials, path: string, json: unknown): Promise<HttpAnswer> {
    return tiktokCall({ baseUrl: this.baseUrl, timeoutMs: this.timeoutMs }, credentials, path, json);
  }
}

/** One TikTok API call (shared with metrics.ts). */
export const tiktokCall = async (
  connection: { baseUrl: string; timeoutMs: number },
  credentials: NetworkCredentials,
  path: string,
  json: unknown,
): Promise<HttpAnswer> => {
  const answer = await sendOrClassify(
    {
      method: 'POST',
      url: `${connection.baseUrl}${path}`,
      headers: { authorization: `Bearer ${credentials.accessToken}` },
      json,
      timeoutMs: connection.timeoutMs,
    },
    (failure) => classifyTikTokFailure(failure),
  );
  const { code } = errorOf(answer.body);
  if (code !== '' && code !== 'ok') {
    throw classifyTikTokFailure({
      type: 'answer',
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
    });
  }
  return answer;
};

export const createTikTokClient = (options: TikTokClientOptions = {}) => new TikTokClient(options);
