import { WARNING_META_PREFIX } from '../../domain/post.ts';
import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteBlockInput,
  type DeleteReplyInput,
  type EditBlockInput,
  type LookupBlockInput,
  type LookupReplyInput,
  type MediaForNetwork,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import { mediaBytes, streamUpload } from '../media-stream.ts';
import {
  baseUrlOf,
  DEFAULT_TIMEOUT_MS,
  type HttpAnswer,
  type HttpCall,
  type HttpFailure,
  retryAfterSeconds,
  sendOrClassify,
  serverError,
  transportError,
} from '../network-http.ts';
import { YouTubeComments } from './comments.ts';
import { readYouTubeMetrics } from './metrics.ts';
import {
  continueLater,
  DEFAULT_YOUTUBE_CHUNK_BYTES,
  querySession,
  type ResumableDeps,
  StateKeeper,
  stateOf,
  uploadFrom,
  YOUTUBE_CHUNK_GRANULARITY,
} from './upload.ts';

/**
 * YouTube Data API v3 client. A block is one video: its description is the block's text, the
 * channel's title the video's title, the options `privacy` (public/unlisted/private), `madeForKids`,
 * `tags`, `categoryId` (default 22, People & Blogs), `thumbnail` (an uploaded JPEG or PNG, at most
 * 2 MiB, set with `thumbnails.set`) and `captionLanguage` (the language of the subtitle files,
 * default `en`; a subtitle file whose alt text starts with a language tag and a colon, `fr: Français`,
 * takes that language and the rest as the track's name). The video goes up with the resumable
 * protocol (upload.ts), then every subtitle file of the block with `captions.insert`, then the
 * thumbnail; then the client waits for processing (see `publish`).
 *
 * Errors: 401 → reconnect with `tokenExpired` (Google answers an expired and a revoked token alike:
 * the token service refreshes, and a refused refresh asks for a reconnect); 403 `quotaExceeded` →
 * rate-limited until the daily quota resets at midnight Pacific time; `uploadLimitExceeded` →
 * rate-limited for 24 hours; `rateLimitExceeded`/`userRateLimitExceeded`/429 → rate-limited for
 * `Retry-After` or a minute; 5xx → transient (unknown outcome only where a video may have been
 * made); other 4xx → permanent with YouTube's reason.
 *
 * A project that has not passed YouTube's API audit gets its uploads locked to private (see
 * `visibilityWarning`): the video is on YouTube, so the block is published, with a warning kept in
 * its meta (`warning.visibility_restricted`) that GET /v1/posts/{id} shows on the channel.
 *
 * Edits read the video first and send the whole snippet back (YouTube's `videos.update` replaces
 * it); deletes are `videos.delete`. `lookup` asks the saved session (a completed session answers
 * with its video), else searches the channel's uploads playlist for the description since the send.
 * Comments (reading them, replying, deleting replies) are in comments.ts.
 */

export interface YouTubeClientOptions {
  /** Default `https://www.googleapis.com`. */
  baseUrl?: string;
  timeoutMs?: number;
  /** Bytes per chunk (a multiple of 256 KiB; default 8 MiB). */
  chunkBytes?: number;
  /** Kept free before an attempt's deadline: the upload saves and continues later (default 10 s). */
  reserveSeconds?: number;
  /** Longest processing wait within one attempt without a deadline (default 20 s). */
  processingWaitSeconds?: number;
  /** Longest processing wait across attempts from the end of the upload (default 15 min). */
  maxProcessingSeconds?: number;
  /** Between processing polls (default 2 s). */
  pollMs?: number;
  /** How long the uploads playlist may lag behind an upload (default 60 s). */
  consistencyWindowSeconds?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const NETWORK = 'YouTube';
const THUMBNAIL_MAX_BYTES = 2 * 1024 * 1024;
const CAPTION_MAX_BYTES = 100 * 1024 * 1024;
const SUBTITLE_TYPES = new Set(['text/vtt', 'application/x-subrip']);
const LANGUAGE = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/;

/** Seconds from `now` until the next midnight in America/Los_Angeles (YouTube's daily quota reset), DST included. */
export const secondsToPacificMidnight = (now: Date): number => {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const wall = (t: number) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(t)).map((p) => [p.type, p.value]));
    return {
      y: Number(parts.year),
      m: Number(parts.month),
      d: Number(parts.day),
      asUtc: Date.UTC(
        Number(parts.year),
        Number(parts.month) - 1,
        Number(parts.day),
        Number(parts.hour),
        Number(parts.minute),
        Number(parts.second),
      ),
    };
  };
  const today = wall(now.getTime());
  const offsetAt = (t: number) => wall(t).asUtc - Math.floor(t / 1000) * 1000;
  // Midnight of the next Pacific day as wall time, corrected by the offset in force then.
  const target = Date.UTC(today.y, today.m - 1, today.d + 1);
  let guess = target - offsetAt(target);
  guess = target - offsetAt(guess);
  return Math.max(1, Math.ceil((guess - now.getTime()) / 1000));
};

const reasonOf = (body: unknown): string | undefined => {
  const errors = (body as { error?: { errors?: unknown } } | null)?.error?.errors;
  const first = Array.isArray(errors) ? (errors[0] as { reason?: unknown } | undefined) : undefined;
  return typeof first?.reason === 'string' ? first.reason : undefined;
};

const messageOf = (body: unknown, status: number): string => {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  const text =
    typeof message === 'string' ? message.replace(/<[^>]+>/g, '') : `YouTube answered HTTP ${status}`;
  const reason = reasonOf(body);
  return reason ? `${text} (${reason})` : text;
};

/** How the engine handles a failed YouTube call (see the class comment). */
export const classifyYouTubeFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const reason = reasonOf(body);
  const message = messageOf(body, status);
  if (status === 401) return new NetworkError('reconnect', message, { status, tokenExpired: true });
  if (reason === 'quotaExceeded' || reason === 'dailyLimitExceeded') {
    return new NetworkError(
      'transient',
      `${message}: YouTube's daily quota resets at midnight Pacific time.`,
      { status, retryAfterSeconds: secondsToPacificMidnight(now), rateLimited: true },
    );
  }
  if (reason === 'uploadLimitExceeded') {
    return new NetworkError('transient', `${message}: the channel may upload again within a day.`, {
      status,
      retryAfterSeconds: 86_400,
      rateLimited: true,
    });
  }
  if (status === 429 || reason === 'rateLimitExceeded' || reason === 'userRateLimitExceeded') {
    return new NetworkError('transient', message, {
      status,
      retryAfterSeconds: retryAfterSeconds(headers['retry-after'], now) ?? 60,
      rateLimited: true,
    });
  }
  if (status >= 500) return serverError(message, status, retryAfterSeconds(headers['retry-after'], now));
  return new NetworkError('permanent', message, { status });
};

/** The error without `outcomeUnknown`: for calls that cannot have made a video. */
const known = (error: unknown): unknown => {
  if (!(error instanceof NetworkError) || !error.details.outcomeUnknown) return error;
  const { outcomeUnknown: _unknown, ...rest } = error.details;
  return new NetworkError(error.kind, error.message, rest);
};

const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${id}`;

interface VideoResource {
  id?: string;
  snippet?: {
    title?: string;
    description?: string;
    tags?: string[];
    categoryId?: string;
    channelId?: string;
    publishedAt?: string;
  };
  status?: {
    uploadStatus?: string;
    failureReason?: string;
    rejectionReason?: string;
    privacyStatus?: string;
    selfDeclaredMadeForKids?: boolean;
    madeForKids?: boolean;
  };
  processingDetails?: { processingStatus?: string; processingFailureReason?: string };
}

const optionText = (options: Record<string, unknown>, key: string) =>
  typeof options[key] === 'string' ? (options[key] as string) : undefined;

/** A refusal of the video by YouTube after upload or processing, or null. */
const refusalOf = (video: VideoResource): string | null => {
  const upload = video.status?.uploadStatus;
  const processing = video.processingDetails?.processingStatus;
  if (upload === 'rejected')
    return `YouTube rejected the video (${video.status?.rejectionReason ?? 'no reason given'}).`;
  if (upload === 'failed' || processing === 'failed' || processing === 'terminated') {
    const why = video.status?.failureReason ?? video.processingDetails?.processingFailureReason ?? processing;
    return `YouTube could not process the video (${why}).`;
  }
  return null;
};

/**
 * The warning for a video YouTube made private although the upload asked for `requested`, or
 * null. Google locks to private every video `videos.insert` uploads from an API project created
 * after 28 July 2020 that has not passed its audit
 * (https://developers.google.com/youtube/v3/docs/videos/insert); the API shows it only as
 * `status.privacyStatus: "private"` in the insert's answer and in `videos.list`.
 */
export const visibilityWarning = (requested: string, applied: string | undefined): string | null => {
  if (requested === 'private' || applied !== 'private') return null;
  return (
    `YouTube made the video private although it was sent as ${requested}: videos uploaded through ` +
    "the YouTube Data API by a Google Cloud project that has not passed YouTube's API audit are " +
    'locked to private. The project owner must apply for the audit ' +
    '(https://support.google.com/youtube/contact/yt_api_form); this video stays private and must ' +
    'be uploaded again once the project is audited.'
  );
};

export class YouTubeClient implements NetworkClient {
  readonly platform = 'youtube' as const;
  readonly consistencyWindowSeconds: number;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly chunkBytes: number;
  private readonly reserveMs: number;
  private readonly processingWaitMs: number;
  private readonly maxProcessingMs: number;
  private readonly pollMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly commentsApi = new YouTubeComments((credentials, request) =>
    this.call(credentials, request),
  );

  constructor(options: YouTubeClientOptions = {}) {
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://www.googleapis.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.chunkBytes = options.chunkBytes ?? DEFAULT_YOUTUBE_CHUNK_BYTES;
    if (this.chunkBytes <= 0 || this.chunkBytes % YOUTUBE_CHUNK_GRANULARITY !== 0)
      throw new RangeError('chunkBytes must be a positive multiple of 262144 (256 KiB)');
    this.reserveMs = (options.reserveSeconds ?? 10) * 1000;
    this.processingWaitMs = (options.processingWaitSeconds ?? 20) * 1000;
    this.maxProcessingMs = (options.maxProcessingSeconds ?? 900) * 1000;
    this.pollMs = options.pollMs ?? 2_000;
    this.consistencyWindowSeconds = options.consistencyWindowSeconds ?? 60;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
  }

  private async call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; path: string; json?: unknown; headers?: Record<string, string> },
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.baseUrl}${request.path}`,
        headers: { authorization: `Bearer ${credentials.accessToken}`, ...(request.headers ?? {}) },
        ...(request.json !== undefined ? { json: request.json } : {}),
        timeoutMs: this.timeoutMs,
      },
      (failure) => classifyYouTubeFailure(failure),
    );
  }

  /** A raw body (thumbnail, caption) sent with node:http; the answer classified like any call. */
  private async sendBody(
    credentials: NetworkCredentials,
    path: string,
    contentType: string,
    body: Uint8Array,
  ): Promise<HttpAnswer> {
    let answer: Awaited<ReturnType<typeof streamUpload>>;
    try {
      answer = await streamUpload(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': contentType },
        body: (async function* () {
          yield body;
        })(),
        contentLength: body.length,
        timeoutMs: this.timeoutMs,
      });
    } catch (error) {
      throw classifyYouTubeFailure({
        type: 'transport',
        sent: true,
        code: (error as NodeJS.ErrnoException).code ?? 'ECONNRESET',
      });
    }
    let parsed: unknown;
    try {
      parsed = answer.text.trim() === '' ? undefined : JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    if (answer.status >= 200 && answer.status < 300)
      return { status: answer.status, headers: answer.headers, text: answer.text, body: parsed };
    throw classifyYouTubeFailure({
      type: 'answer',
      status: answer.status,
      headers: answer.headers,
      body: parsed,
    });
  }

  private resumableDeps(input: { credentials: NetworkCredentials; deadline?: Date }): ResumableDeps {
    return {
      credentials: input.credentials,
      timeoutMs: this.timeoutMs,
      chunkBytes: this.chunkBytes,
      classify: (failure) => classifyYouTubeFailure(failure),
      ...(input.deadline ? { deadline: input.deadline } : {}),
      reserveMs: this.reserveMs,
      now: this.now,
      sleep: this.sleep,
    };
  }

  /** The video resource the upload creates: snippet and status from the block and the channel's options. */
  private resourceOf(input: PublishBlockInput) {
    const { options } = input;
    const tags = Array.isArray(options.tags) ? options.tags : undefined;
    return {
      snippet: {
        title: input.title ?? '',
        description: input.content,
        ...(tags ? { tags } : {}),
        categoryId: optionText(options, 'categoryId') ?? '22',
      },
      status: {
        privacyStatus: optionText(options, 'privacy') ?? 'public',
        selfDeclaredMadeForKids: optionText(options, 'madeForKids') === 'true',
      },
    };
  }

  /**
   * Publishes the block's video: upload (continuing a saved session), captions, thumbnail, then
   * processing. The processing wait is bounded: within an attempt until `reserveSeconds` before
   * its deadline (or `processingWaitSeconds` without one); a video still processing then is
   * continued in the next attempt (`continueLater`, progress saved) until `maxProcessingSeconds`
   * after the upload, after which the block is published as it is and YouTube finishes processing
   * on its own (the video goes live with its privacy once processed). A failed or rejected
   * processing is a permanent error. Without saved progress the client does not wait past the
   * attempt: the block is published after one bounded wait.
   */
  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.parent) {
      throw new NetworkError('permanent', 'A YouTube post is one video: it has no further blocks.');
    }
    const videos = input.media.filter((m) => !SUBTITLE_TYPES.has(m.mimeType));
    const subtitles = input.media.filter((m) => SUBTITLE_TYPES.has(m.mimeType));
    const video = videos[0];
    if (!video || videos.length > 1 || !video.mimeType.startsWith('video/')) {
      throw new NetworkError('permanent', 'A YouTube post needs exactly one video file (MP4 or MOV).');
    }
    if (!input.title?.trim()) throw new NetworkError('permanent', 'A YouTube video needs a title.');
    const captionLanguage = optionText(input.options, 'captionLanguage') ?? 'en';
    if (!LANGUAGE.test(captionLanguage)) {
      throw new NetworkError(
        'permanent',
        `captionLanguage must be a BCP-47 language tag such as "en" or "pt-BR", not "${captionLanguage}".`,
      );
    }
    const keeper = new StateKeeper(input.progress, stateOf(input.progress?.saved));
    const deps = this.resumableDeps(input);

    let resource = keeper.state.videoId ? null : await this.upload(input, video, keeper, deps);
    const videoId = keeper.state.videoId ?? resource?.id;
    if (!videoId) {
      throw new NetworkError('transient', 'YouTube finished the upload without naming the video.', {
        outcomeUnknown: true,
      });
    }
    if (!keeper.state.videoId) {
      await keeper.save({
        videoId,
        uploadedAt: this.now(),
        ...(resource?.snippet?.channelId ? { channelId: resource.snippet.channelId } : {}),
        ...(resource?.status?.privacyStatus ? { appliedPrivacy: resource.status.privacyStatus } : {}),
      });
    }
    const block: RemoteBlock = {
      remoteId: videoId,
      remoteUrl: watchUrl(videoId),
      meta: { videoId, ...(keeper.state.channelId ? { channelId: keeper.state.channelId } : {}) },
    };
    const refused = resource ? refusalOf(resource) : null;
    if (refused) throw new NetworkError('permanent', refused);

    // Extras: each done once (kept in the progress), a refusal noted on the block, never a second video.
    for (const [i, file] of subtitles.entries()) {
      if (keeper.state.captionsDone?.includes(file.mediaId)) continue;
      const outcome = await this.extra(keeper, deps, () =>
        this.caption(input.credentials, videoId, file, i, captionLanguage),
      );
      if (outcome) block.meta[`caption${i + 1}`] = outcome;
      await keeper.save({ captionsDone: [...(keeper.state.captionsDone ?? []), file.mediaId] });
    }
    const thumbnail = input.optionMedia?.thumbnail;
    if (thumbnail && !keeper.state.thumbnailDone) {
      const outcome = await this.extra(keeper, deps, () =>
        this.thumbnail(input.credentials, videoId, thumbnail),
      );
      if (outcome) block.meta.thumbnail = outcome;
      await keeper.save({ thumbnailDone: true });
    }
    const inserted = resource;
    resource = await this.awaitProcessing(input, videoId, keeper, deps);
    const failed = resource ? refusalOf(resource) : null;
    if (failed) throw new NetworkError('permanent', failed);
    const warning = visibilityWarning(
      this.resourceOf(input).status.privacyStatus,
      resource?.status?.privacyStatus ?? inserted?.status?.privacyStatus,
    );
    if (warning) block.meta[`${WARNING_META_PREFIX}visibility_restricted`] = warning;
    return block;
  }

  /** Runs an extra step; a permanent refusal is returned as a note, anything else thrown (after a deadline check). */
  private async extra(
    keeper: StateKeeper,
    deps: ResumableDeps,
    run: () => Promise<void>,
  ): Promise<string | null> {
    if (keeper.saving && deps.deadline && deps.deadline.getTime() - this.now() < this.reserveMs) {
      throw continueLater('the video is uploaded; its captions and thumbnail follow');
    }
    try {
      await run();
      return null;
    } catch (error) {
      if (error instanceof NetworkError && error.kind === 'permanent') return `refused: ${error.message}`;
      // Transient: with saved progress the next attempt does the rest; without it, the video stands.
      if (!keeper.saving && error instanceof NetworkError && error.kind === 'transient')
        return `not set: ${error.message}`;
      throw known(error);
    }
  }

  /** The upload: a saved session continued, or a new one. Returns the video resource. */
  private async upload(
    input: PublishBlockInput,
    video: MediaForNetwork,
    keeper: StateKeeper,
    deps: ResumableDeps,
  ): Promise<VideoResource | null> {
    const saved = keeper.state;
    let session: string | undefined;
    let offset = 0;
    if (saved.session && saved.mediaId === video.mediaId && saved.size === video.size) {
      const status = await querySession(deps, saved.session, video.size).catch((error: unknown) => {
        // Asking is harmless: the session is asked again next time.
        throw known(error);
      });
      if ('gone' in status) {
        // An expired session never completed (its video would be saved): start over.
      } else if (status.done) {
        return status.video as VideoResource;
      } else {
        session = saved.session;
        offset = status.offset;
      }
    }
    if (!session) {
      const opened = await this.call(input.credentials, {
        method: 'POST',
        path: '/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status',
        headers: {
          'x-upload-content-length': String(video.size),
          'x-upload-content-type': video.mimeType,
        },
        json: this.resourceOf(input),
      }).catch((error: unknown) => {
        // Opening a session makes no video.
        throw known(error);
      });
      session = opened.headers.location;
      if (!session) throw new NetworkError('transient', 'YouTube opened no upload session (no Location).');
      await keeper.save({
        session,
        mediaId: video.mediaId,
        size: video.size,
        offset: 0,
        privacy: this.resourceOf(input).status.privacyStatus,
      });
    }
    return (await uploadFrom(deps, keeper, session, video, offset)) as VideoResource | null;
  }

  private async caption(
    credentials: NetworkCredentials,
    videoId: string,
    file: MediaForNetwork,
    index: number,
    defaultLanguage: string,
  ): Promise<void> {
    const alt = file.altText?.trim() ?? '';
    const tagged = /^([a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8})*)\s*:\s*(.*)$/s.exec(alt);
    const language = tagged ? (tagged[1] as string) : defaultLanguage;
    const name = (tagged ? (tagged[2] as string) : alt) || `Subtitles ${index + 1}`;
    const bytes = await mediaBytes(file.url, CAPTION_MAX_BYTES);
    const boundary = `herald_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    const metadata = JSON.stringify({ snippet: { videoId, language, name: name.slice(0, 150) } });
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${metadata}\r\n--${boundary}\r\nContent-Type: ${file.mimeType}\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    try {
      await this.sendBody(
        credentials,
        '/upload/youtube/v3/captions?uploadType=multipart&part=snippet',
        `multipart/related; boundary=${boundary}`,
        body,
      );
    } catch (error) {
      // A track with this language and name is there already (an earlier attempt's): done.
      if (error instanceof NetworkError && error.details.status === 409) return;
      throw error;
    }
  }

  private async thumbnail(credentials: NetworkCredentials, videoId: string, file: MediaForNetwork) {
    if (file.mimeType !== 'image/jpeg' && file.mimeType !== 'image/png')
      throw new NetworkError('permanent', 'A YouTube thumbnail must be a JPEG or PNG image.');
    if (file.size > THUMBNAIL_MAX_BYTES)
      throw new NetworkError('permanent', 'A YouTube thumbnail must be at most 2 MB.');
    const bytes = await mediaBytes(file.url, THUMBNAIL_MAX_BYTES);
    await this.sendBody(
      credentials,
      `/upload/youtube/v3/thumbnails/set?videoId=${encodeURIComponent(videoId)}`,
      file.mimeType,
      bytes,
    );
  }

  private async readVideo(
    credentials: NetworkCredentials,
    id: string,
    parts: string,
  ): Promise<VideoResource | null> {
    const answer = await this.call(credentials, {
      method: 'GET',
      path: `/youtube/v3/videos?part=${parts}&id=${encodeURIComponent(id)}`,
    }).catch((error: unknown) => {
      throw known(error);
    });
    const items = (answer.body as { items?: unknown } | undefined)?.items;
    return Array.isArray(items) && items.length > 0 ? (items[0] as VideoResource) : null;
  }

  /** Polls processing (see `publish`); returns the last resource read. */
  private async awaitProcessing(
    input: PublishBlockInput,
    videoId: string,
    keeper: StateKeeper,
    deps: ResumableDeps,
  ): Promise<VideoResource | null> {
    const started = this.now();
    const uploadedAt = keeper.state.uploadedAt ?? started;
    let lastSave = started;
    const until = deps.deadline ? deps.deadline.getTime() - this.reserveMs : started + this.processingWaitMs;
    for (;;) {
      const resource = await this.readVideo(input.credentials, videoId, 'status,processingDetails');
      if (!resource) throw new NetworkError('permanent', `The uploaded YouTube video ${videoId} is gone.`);
      const processing = resource.processingDetails?.processingStatus;
      if (processing !== 'processing' || refusalOf(resource)) return resource;
      if (this.now() - uploadedAt >= this.maxProcessingMs) return resource;
      if (this.now() + this.pollMs > until) {
        if (keeper.saving && deps.deadline) throw continueLater('YouTube is processing the video');
        return resource;
      }
      // A save extends the block's lease: a long wait is not taken for a dead worker's.
      if (keeper.saving && this.now() - lastSave >= 5_000) {
        await keeper.save({});
        lastSave = this.now();
      }
      await this.sleep(this.pollMs);
    }
  }

  async edit(input: EditBlockInput): Promise<void> {
    const id = input.block.remoteId;
    const current = await this.readVideo(input.credentials, id, 'snippet,status');
    if (!current)
      throw new NetworkError('permanent', `The YouTube video ${id} no longer exists.`, { status: 404 });
    const options = input.options ?? {};
    const tags = Array.isArray(options.tags) ? options.tags : current.snippet?.tags;
    const title = input.title?.trim() ? input.title : current.snippet?.title;
    const kids = optionText(options, 'madeForKids');
    await this.call(input.credentials, {
      method: 'PUT',
      path: '/youtube/v3/videos?part=snippet,status',
      json: {
        id,
        snippet: {
          title,
          description: input.content,
          ...(tags ? { tags } : {}),
          categoryId: optionText(options, 'categoryId') ?? current.snippet?.categoryId ?? '22',
        },
        status: {
          privacyStatus: optionText(options, 'privacy') ?? current.status?.privacyStatus ?? 'public',
          selfDeclaredMadeForKids:
            kids !== undefined ? kids === 'true' : (current.status?.selfDeclaredMadeForKids ?? false),
        },
      },
    });
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    try {
      await this.call(input.credentials, {
        method: 'DELETE',
        path: `/youtube/v3/videos?id=${encodeURIComponent(input.block.remoteId)}`,
      });
    } catch (error) {
      // Deleted already (on YouTube or by an earlier attempt whose answer was lost).
      if (error instanceof NetworkError && error.details.status === 404) return;
      throw error;
    }
  }

  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    if (input.parent) return null;
    const saved = stateOf(input.saved);
    const found = (id: string, channelId?: string, applied = saved.appliedPrivacy): RemoteBlock => {
      // The upload's own answer said whether YouTube locked the video (see `visibilityWarning`).
      const warning = saved.privacy ? visibilityWarning(saved.privacy, applied) : null;
      return {
        remoteId: id,
        remoteUrl: watchUrl(id),
        meta: {
          videoId: id,
          ...(channelId ? { channelId } : {}),
          ...(warning ? { [`${WARNING_META_PREFIX}visibility_restricted`]: warning } : {}),
        },
      };
    };
    if (saved.videoId) return found(saved.videoId, saved.channelId);
    if (saved.session && saved.size) {
      const status = await querySession(this.resumableDeps(input), saved.session, saved.size);
      if (!('gone' in status)) {
        if (status.done) {
          const video = status.video as VideoResource | undefined;
          if (video?.id) return found(video.id, video.snippet?.channelId, video.status?.privacyStatus);
        } else {
          // The upload has not completed: no video exists.
          return null;
        }
      }
    }
    const channels = await this.call(input.credentials, {
      method: 'GET',
      path: '/youtube/v3/channels?part=contentDetails&mine=true',
    });
    const channel = ((channels.body as { items?: unknown[] } | undefined)?.items?.[0] ?? null) as {
      id?: string;
      contentDetails?: { relatedPlaylists?: { uploads?: string } };
    } | null;
    const uploads = channel?.contentDetails?.relatedPlaylists?.uploads;
    if (!uploads) return null;
    const items = await this.call(input.credentials, {
      method: 'GET',
      path: `/youtube/v3/playlistItems?part=snippet&maxResults=50&playlistId=${encodeURIComponent(uploads)}`,
    });
    const since = input.since.getTime() - 60_000;
    for (const item of ((items.body as { items?: unknown[] } | undefined)?.items ?? []) as {
      snippet?: { description?: string; publishedAt?: string; resourceId?: { videoId?: string } };
    }[]) {
      const snippet = item.snippet;
      const id = snippet?.resourceId?.videoId;
      if (!id || snippet?.description !== input.content) continue;
      if (snippet.publishedAt && Date.parse(snippet.publishedAt) < since) continue;
      return found(id, channel?.id);
    }
    return null;
  }

  async metrics(input: MetricsInput): Promise<MetricsReading> {
    return readYouTubeMetrics((request) => this.call(input.credentials, request), input.block.remoteId);
  }

  /** The video's comments and Herald's replies to them: see comments.ts. */
  comments(input: CommentsInput): Promise<CommentsPage> {
    return this.commentsApi.comments(input);
  }

  findComment(input: CommentInput): Promise<RemoteComment | null> {
    return this.commentsApi.findComment(input);
  }

  reply(input: ReplyInput): Promise<RemoteComment> {
    return this.commentsApi.reply(input);
  }

  lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    return this.commentsApi.lookupReply(input);
  }

  deleteReply(input: DeleteReplyInput): Promise<void> {
    return this.commentsApi.deleteReply(input);
  }
}
