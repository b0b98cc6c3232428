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
import { mediaBytes } from '../media-stream.ts';
import {
  baseUrlOf,
  DEFAULT_TIMEOUT_MS,
  details,
  type HttpAnswer,
  type HttpCall,
  type HttpFailure,
  retryAfterSeconds,
  sendOrClassify,
  serverError,
  stringField,
  transportError,
} from '../network-http.ts';
import { readVimeoMetrics } from './metrics.ts';
import { tusOffset, tusPatch, UploadGone, UploadInterrupted } from './upload.ts';

/**
 * Vimeo API client (api.vimeo.com, `Accept: application/vnd.vimeo.*+json;version=3.4`). A Vimeo
 * post is one video: the first (only) block's video file, named by the channel's title, described
 * by the block's text, with the `privacy` and `password` options; subtitle files of the block
 * (WebVTT or SRT) become text tracks.
 *
 * Publishing:
 * 1. `POST /me/videos {upload:{approach:'tus', size}, name, description, privacy:{view}, password}`
 *    creates the video (it exists from then on, before any byte). Before creating, the account's
 *    newest videos are searched (`GET /me/videos?sort=date&direction=desc`) for an unfinished
 *    upload with the same name, description and size, made in the last day: that video is ours
 *    from an earlier attempt whose answer was lost, and it is continued, never a second one. A
 *    create whose answer is lost (timeout, reset, 5xx) is searched for at once the same way.
 * 2. The bytes go by tus (upload.ts) in chunks of `chunkBytes`, each streamed from the presigned
 *    URL; after a dropped connection the upload continues from the offset `HEAD` reports.
 *    The video's uri and upload link are saved with the block's claim (`progress`) right after
 *    the create and after each chunk, so a later attempt continues where this one stopped. When
 *    the worker's `deadline` is less than `deadlineMarginMs` away, the progress is saved and the
 *    call ends with `continueLater`.
 * 3. Each subtitle file: `POST /videos/{id}/texttracks {type, language, name}` → `link`, the file
 *    PUT there, then `PATCH {active:true}`. The language is the file's alt text when it starts
 *    with a language tag (`fr`, `pt-BR`; the rest names the track), else `en`; a name or alt text
 *    with "caption" or "CC" makes it `captions`, else `subtitles`.
 * 4. Transcoding: `GET /videos/{id}?fields=upload.status,transcode.status` until `complete`, for
 *    at most `transcodeWaitSeconds` (and never past the deadline). `error` deletes the video and
 *    fails the channel (the file cannot be played); still `in_progress` then: the video is
 *    published as it is (it exists and Vimeo finishes transcoding on its own; its page says it is
 *    being processed meanwhile).
 *
 * A permanent refusal after the create (steps 2 to 4) deletes the video: a failed channel leaves
 * nothing on Vimeo.
 *
 * Edits `PATCH /videos/{id}` (name, description, privacy, password); deletes `DELETE
 * /videos/{id}` (404: already gone). `lookup` reads the video the block's sends saved (`saved`),
 * else finds a video with the block's text created since the send; either counts once its upload
 * is complete (an unfinished one is left to `publish`, which continues it).
 * Vimeo tokens do not expire: a 401 means revoked (reconnect).
 */

const NETWORK = 'Vimeo';
export const VIMEO_ACCEPT = 'application/vnd.vimeo.*+json;version=3.4';
const SUBTITLE_TYPES = ['text/vtt', 'application/x-subrip'];
/** Vimeo's error codes for an account without space or upload quota left (403). */
const QUOTA_CODES = new Set([4101, 4102, 3428, 3429]);
/** The smallest PATCH sized to the time left (a smaller one is left to the next invocation). */
const MIN_CHUNK_BYTES = 1024 * 1024;
/** How long an unfinished upload may be continued (Vimeo's upload links last about a day). */
const UNFINISHED_MAX_AGE_MS = 24 * 3600 * 1000;

export interface VimeoClientOptions {
  /** Default `https://api.vimeo.com`. */
  baseUrl?: string;
  /** Per API request, default 10 s. */
  timeoutMs?: number;
  /** Bytes per tus PATCH (default 16 MiB: a few seconds each, so the deadline is checked often). */
  chunkBytes?: number;
  /** Per PATCH (default 120 s). */
  uploadTimeoutMs?: number;
  /** Longest wait for transcoding within one call (default 20 s). */
  transcodeWaitSeconds?: number;
  /** Between transcoding status reads (default 2 s). */
  pollMs?: number;
  /** Ends the call with `continueLater` when the deadline is closer than this (default 10 s). */
  deadlineMarginMs?: number;
  /** Dropped connections in a row without progress before the call gives up (default 5). */
  resumeTries?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a publish keeps with the block's claim between attempts. */
export interface VimeoUploadState {
  /** The video (`/videos/{id}`), its page and tus upload link. */
  uri: string;
  link: string;
  uploadLink: string;
  /** The file uploaded (a saved state for another file is ignored). */
  mediaId: string;
  size: number;
  /** Bytes Vimeo confirmed. */
  offset: number;
  /** Subtitle files whose text track is done. */
  tracks: string[];
  /** Every subtitle file of the block (the publication is finished once all are in `tracks`). */
  subtitles?: string[];
  /** A text track created but not finished: its uri and link (reused, not created again). */
  pendingTrack?: { mediaId: string; uri: string; link: string };
}

const secondsUntilDate = (value: string | undefined, now: Date): number | undefined => {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    // Epoch seconds (not what Vimeo documents, but unambiguous).
    return Math.max(1, Math.ceil(Number(trimmed) - now.getTime() / 1000));
  }
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - now.getTime()) / 1000));
};

/**
 * How the engine handles a failed Vimeo call: 429 is a rate limit until `X-RateLimit-Reset` (an
 * ISO 8601 time; `Retry-After` if sent, else a minute); 401 reconnect (Vimeo tokens do not
 * expire: the token was revoked); 403 for a scope the grant lacks is reconnect; 403 with a quota
 * or space error code is permanent, saying so;
 * 5xx transient with `outcomeUnknown`; other 4xx permanent with Vimeo's `developer_message`;
 * failures without an answer transient, `outcomeUnknown` once the request was sent.
 */
export const classifyVimeoFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const message =
    stringField(body, 'developer_message') ?? stringField(body, 'error') ?? `Vimeo answered HTTP ${status}`;
  const code = (body as { error_code?: unknown } | undefined)?.error_code;
  if (status === 429) {
    const wait =
      secondsUntilDate(headers['x-ratelimit-reset'], now) ??
      retryAfterSeconds(headers['retry-after'], now) ??
      60;
    return new NetworkError('transient', `Vimeo rate limit: ${message}`, {
      ...details(status, wait),
      rateLimited: true,
    });
  }
  if (status >= 500) return serverError(`Vimeo answered HTTP ${status}: ${message}`, status);
  if (status === 401) {
    return new NetworkError(
      'reconnect',
      `Vimeo refused the access token (${message}); reconnect the channel.`,
      {
        status,
      },
    );
  }
  // A token without the scope the call needs (Vimeo: 403 `Your access token does not have the
  // "upload" scope`): only a new consent grants it, so the channel must be reconnected.
  const missingScope = /does not have the "?([a-z_]+)"? scope/i.exec(stringField(body, 'error') ?? '')?.[1];
  if (status === 403 && missingScope) {
    return new NetworkError(
      'reconnect',
      `Vimeo refused the call: the channel's grant lacks the "${missingScope}" scope; reconnect the channel to grant it.`,
      { status, missingPermission: true },
    );
  }
  if (status === 403 && (QUOTA_CODES.has(Number(code)) || /quota|space|storage/i.test(message))) {
    const what = stringField(body, 'error') ?? message;
    return new NetworkError(
      'permanent',
      `The Vimeo account has no upload quota or space left for this video: ${what} (${message}). Free space or upgrade the Vimeo plan, then publish again.`,
      { status },
    );
  }
  return new NetworkError('permanent', `Vimeo refused the request: ${message}`, { status });
};

/** The subtitle track's language, name and type from the file's alt text (see the class comment). */
export const trackOf = (file: MediaForNetwork) => {
  const alt = (file.altText ?? '').trim();
  const match = /^([a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8})*)(?:$|[\s:,;–-]+(.*)$)/.exec(alt);
  const language = match ? (match[1] as string) : 'en';
  const name = (match ? (match[2] ?? '') : alt).trim();
  const type = /caption|\bcc\b/i.test(alt) ? 'captions' : 'subtitles';
  return { language, name, type } as const;
};

const videoIdOf = (uri: string) => /\/videos\/(\d+)/.exec(uri)?.[1] ?? uri;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Turns an error into the same error without `outcomeUnknown` (nothing is posted by this step). */
const known = (error: unknown): unknown => {
  if (!(error instanceof NetworkError) || !error.details.outcomeUnknown) return error;
  const { outcomeUnknown: _unknown, ...rest } = error.details;
  return new NetworkError(error.kind, error.message, rest);
};

interface VideoSummary {
  uri: string;
  link: string;
  name: string;
  description: string;
  createdAt: number;
  uploadStatus: string | null;
  uploadSize: number | null;
  uploadLink: string | null;
}

const summaryOf = (value: unknown): VideoSummary | null => {
  const uri = stringField(value, 'uri');
  if (!uri) return null;
  const upload = (value as { upload?: Record<string, unknown> }).upload ?? {};
  return {
    uri,
    link: stringField(value, 'link') ?? `https://vimeo.com/${videoIdOf(uri)}`,
    name: stringField(value, 'name') ?? '',
    description: stringField(value, 'description') ?? '',
    createdAt: Date.parse(stringField(value, 'created_time') ?? ''),
    uploadStatus: typeof upload.status === 'string' ? upload.status : null,
    uploadSize: typeof upload.size === 'number' ? upload.size : null,
    uploadLink: typeof upload.upload_link === 'string' ? upload.upload_link : null,
  };
};

const blockOf = (uri: string, link: string): RemoteBlock => ({
  remoteId: videoIdOf(uri),
  remoteUrl: link,
  meta: { uri },
});

export class VimeoClient implements NetworkClient {
  readonly platform = 'vimeo' as const;
  /** Lookups read the account's video list, which shows a video as soon as it is created. */
  readonly consistencyWindowSeconds = 0;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly chunkBytes: number;
  private readonly uploadTimeoutMs: number;
  private readonly transcodeWaitMs: number;
  private readonly pollMs: number;
  private readonly marginMs: number;
  private readonly resumeTries: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: VimeoClientOptions = {}) {
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://api.vimeo.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.chunkBytes = options.chunkBytes ?? 16 * 1024 * 1024;
    this.uploadTimeoutMs = options.uploadTimeoutMs ?? 120_000;
    this.transcodeWaitMs = (options.transcodeWaitSeconds ?? 20) * 1000;
    this.pollMs = options.pollMs ?? 2000;
    this.marginMs = options.deadlineMarginMs ?? 10_000;
    this.resumeTries = options.resumeTries ?? 5;
    this.sleep = options.sleep ?? defaultSleep;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.parent) {
      throw new NetworkError('permanent', 'A Vimeo post is one video: it has no replies or comments.');
    }
    const videos = input.media.filter((file) => file.mimeType.startsWith('video/'));
    const subtitles = input.media.filter((file) => SUBTITLE_TYPES.includes(file.mimeType));
    const other = input.media.find((file) => !videos.includes(file) && !subtitles.includes(file));
    if (other) throw new NetworkError('permanent', `Vimeo does not take ${other.mimeType} files.`);
    const video = videos[0];
    if (!video || videos.length > 1) {
      throw new NetworkError('permanent', 'A Vimeo post needs exactly one video file (plus subtitle files).');
    }
    const run = new PublishRun(this, input, video);
    const state = await run.session();
    try {
      await run.upload(state);
      for (const file of subtitles) await run.textTrack(state, file);
      await run.transcoded(state);
    } catch (error) {
      // Refused for good after the video was created: the failed channel leaves no video behind
      // (a retry of the post starts with a new one).
      if (error instanceof NetworkError && error.kind === 'permanent') await run.discard(state);
      throw error;
    }
    return blockOf(state.uri, state.link);
  }

  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    if (input.parent) return null;
    const saved = input.saved as Partial<VimeoUploadState> | null | undefined;
    if (typeof saved?.uri === 'string') {
      // The block's own video, saved by its sends: found when Vimeo has all of it (an unfinished
      // one is continued by the next attempt, which has the same saved session).
      const answer = await this.call(
        input.credentials,
        { method: 'GET', path: `/videos/${videoIdOf(saved.uri)}?fields=uri,link,upload.status` },
        [404],
      );
      const video = answer.status === 404 ? null : summaryOf(answer.body);
      // Its text tracks too: a send that stopped before them is finished by the next attempt.
      const tracksDone = (saved.subtitles ?? []).every((id) => saved.tracks?.includes(id));
      return video?.uploadStatus === 'complete' && tracksDone ? blockOf(video.uri, video.link) : null;
    }
    const since = input.since.getTime() - 2_000;
    for await (const video of this.newestVideos(input.credentials, since)) {
      if (video.description !== input.content) continue;
      if (video.uploadStatus !== 'complete') return null;
      return blockOf(video.uri, video.link);
    }
    return null;
  }

  async edit(input: EditBlockInput): Promise<void> {
    const privacy = typeof input.options?.privacy === 'string' ? input.options.privacy : undefined;
    const password = typeof input.options?.password === 'string' ? input.options.password : undefined;
    await this.call(input.credentials, {
      method: 'PATCH',
      path: `/videos/${encodeURIComponent(input.block.remoteId)}`,
      json: {
        description: input.content,
        ...(input.title ? { name: input.title } : {}),
        ...(privacy ? { privacy: { view: privacy } } : {}),
        ...(password && (privacy === undefined || privacy === 'password') ? { password } : {}),
      },
    });
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    // Already gone counts as deleted: a retried delete after a lost answer must not fail.
    await this.call(
      input.credentials,
      { method: 'DELETE', path: `/videos/${encodeURIComponent(input.block.remoteId)}` },
      [404],
    );
  }

  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readVimeoMetrics((credentials, path) => this.call(credentials, { method: 'GET', path }), input);
  }

  /** The account's videos, newest first, down to `since` (at most 4 pages of 25). */
  async *newestVideos(credentials: NetworkCredentials, since: number): AsyncGenerator<VideoSummary> {
    const fields = 'uri,name,description,link,created_time,upload.status,upload.size,upload.upload_link';
    for (let page = 1; page <= 4; page++) {
      const answer = await this.call(credentials, {
        method: 'GET',
        path: `/me/videos?sort=date&direction=desc&per_page=25&page=${page}&fields=${fields}`,
      });
      const data = (answer.body as { data?: unknown } | undefined)?.data;
      const list = Array.isArray(data) ? data : [];
      for (const item of list) {
        const video = summaryOf(item);
        if (!video) continue;
        if (video.createdAt < since) return;
        yield video;
      }
      if (!(answer.body as { paging?: { next?: unknown } } | undefined)?.paging?.next) return;
    }
  }

  /** @internal An API call with the token; `alsoFine` statuses are returned, not thrown. */
  call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; path: string; json?: unknown },
    alsoFine: number[] = [],
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.baseUrl}${request.path}`,
        headers: {
          authorization: `Bearer ${credentials.accessToken}`,
          accept: VIMEO_ACCEPT,
          'user-agent': 'Herald/0.1',
        },
        json: request.json,
        timeoutMs: this.timeoutMs,
      },
      (failure) => classifyVimeoFailure(failure),
      (answer) => alsoFine.includes(answer.status),
    );
  }

  /** @internal */
  get settings() {
    return {
      timeoutMs: this.timeoutMs,
      chunkBytes: this.chunkBytes,
      uploadTimeoutMs: this.uploadTimeoutMs,
      transcodeWaitMs: this.transcodeWaitMs,
      pollMs: this.pollMs,
      marginMs: this.marginMs,
      resumeTries: this.resumeTries,
      sleep: this.sleep,
    };
  }
}

/** One publish call: the video's session, its upload, text tracks and transcoding wait. */
class PublishRun {
  private readonly progress: UploadProgress | undefined;
  /** The video was created by this call: Vimeo holds none of its bytes yet. */
  private createdNow = false;
  private readonly settings: VimeoClient['settings'];

  constructor(
    private readonly client: VimeoClient,
    private readonly input: PublishBlockInput,
    private readonly file: MediaForNetwork,
  ) {
    this.progress = input.progress;
    this.settings = client.settings;
  }

  private get credentials() {
    return this.input.credentials;
  }

  private get name() {
    return this.input.title?.trim() || 'Untitled';
  }

  /** Saves the state with the claim (no-op where the caller keeps none). */
  private async save(state: VimeoUploadState | Record<string, never>): Promise<void> {
    await this.progress?.save({ ...state });
  }

  /** Ends the call with `continueLater` when the deadline is near (or `now`), after saving `state`. */
  private async checkDeadline(state: VimeoUploadState | null, what: string, now = false): Promise<void> {
    const deadline = this.input.deadline;
    if (!now && (!deadline || deadline.getTime() - Date.now() > this.settings.marginMs)) return;
    if (state) await this.save(state);
    throw new NetworkError('transient', `Upload continues in the next attempt (${what}).`, {
      continueLater: true,
    });
  }

  /** The saved state, if it is for this file. */
  private saved(): VimeoUploadState | null {
    const saved = this.progress?.saved as Partial<VimeoUploadState> | null | undefined;
    if (
      !saved ||
      typeof saved.uri !== 'string' ||
      typeof saved.uploadLink !== 'string' ||
      typeof saved.link !== 'string' ||
      saved.mediaId !== this.file.mediaId ||
      saved.size !== this.file.size
    ) {
      return null;
    }
    return {
      uri: saved.uri,
      link: saved.link,
      uploadLink: saved.uploadLink,
      mediaId: saved.mediaId,
      size: saved.size,
      offset: typeof saved.offset === 'number' ? saved.offset : 0,
      tracks: Array.isArray(saved.tracks)
        ? saved.tracks.filter((t): t is string => typeof t === 'string')
        : [],
      subtitles: this.subtitleIds(),
      ...(saved.pendingTrack ? { pendingTrack: saved.pendingTrack } : {}),
    };
  }

  private subtitleIds(): string[] {
    return this.input.media.filter((f) => SUBTITLE_TYPES.includes(f.mimeType)).map((f) => f.mediaId);
  }

  /**
   * A saved session for another file (the block's video was replaced between rounds): its video,
   * if still unfinished, is deleted, so the block never leaves two videos.
   */
  private async dropStale(): Promise<void> {
    const uri = (this.progress?.saved as { uri?: unknown } | null | undefined)?.uri;
    if (typeof uri !== 'string') return;
    const id = videoIdOf(uri);
    const answer = await this.client
      .call(this.credentials, { method: 'GET', path: `/videos/${id}?fields=uri,upload.status` }, [404])
      .catch(() => null);
    if (!answer || answer.status === 404 || summaryOf(answer.body)?.uploadStatus === 'complete') return;
    await this.client
      .call(this.credentials, { method: 'DELETE', path: `/videos/${id}` }, [404])
      .catch(() => undefined);
  }

  private stateOf(video: { uri: string; link: string; uploadLink: string }): VimeoUploadState {
    return {
      ...video,
      mediaId: this.file.mediaId,
      size: this.file.size,
      offset: 0,
      tracks: [],
      subtitles: this.subtitleIds(),
    };
  }

  /** An unfinished video of an earlier attempt of this block (same name, text and size), if any. */
  private async unfinished(): Promise<VimeoUploadState | null> {
    for await (const video of this.client.newestVideos(
      this.credentials,
      Date.now() - UNFINISHED_MAX_AGE_MS,
    )) {
      if (
        video.name === this.name &&
        video.description === this.input.content &&
        video.uploadSize === this.file.size &&
        video.uploadStatus !== 'complete' &&
        video.uploadLink
      ) {
        return this.stateOf({ uri: video.uri, link: video.link, uploadLink: video.uploadLink });
      }
    }
    return null;
  }

  /** The video to upload into: the saved one, an unfinished one of an earlier attempt, or a new one. */
  async session(): Promise<VimeoUploadState> {
    const saved = this.saved();
    if (saved) return saved;
    await this.checkDeadline(null, 'not started');
    await this.dropStale();
    const found = await this.unfinished().catch((error: unknown) => {
      throw known(error);
    });
    if (found) {
      await this.save(found);
      return found;
    }
    const privacy = typeof this.input.options.privacy === 'string' ? this.input.options.privacy : undefined;
    const password =
      typeof this.input.options.password === 'string' ? this.input.options.password : undefined;
    let answer: HttpAnswer;
    try {
      answer = await this.client.call(this.credentials, {
        method: 'POST',
        path: '/me/videos',
        json: {
          upload: { approach: 'tus', size: this.file.size },
          name: this.name,
          description: this.input.content,
          ...(privacy ? { privacy: { view: privacy } } : {}),
          ...(password ? { password } : {}),
        },
      });
    } catch (error) {
      if (!(error instanceof NetworkError) || !error.details.outcomeUnknown) throw error;
      // The create may have gone through: search for it now, and continue it when it is there.
      const adopted = await this.unfinished().catch(() => null);
      if (adopted) {
        await this.save(adopted);
        return adopted;
      }
      // Not found: the next attempt searches again before creating (never a second video).
      throw known(error);
    }
    const created = summaryOf(answer.body);
    if (!created?.uploadLink) {
      const adopted = await this.unfinished().catch(() => null);
      if (adopted) return adopted;
      throw new NetworkError(
        'transient',
        'Vimeo created the video but gave no upload link; it is looked for again.',
        {
          status: answer.status,
        },
      );
    }
    const state = this.stateOf({ uri: created.uri, link: created.link, uploadLink: created.uploadLink });
    this.createdNow = true;
    await this.save(state);
    return state;
  }

  /** Sends the bytes Vimeo does not hold yet, resuming from the offset it reports. */
  async upload(state: VimeoUploadState): Promise<void> {
    const { chunkBytes, uploadTimeoutMs, timeoutMs, resumeTries, marginMs } = this.settings;
    const size = this.file.size;
    // Every byte confirmed by an earlier attempt: nothing to send (the link may be gone by now).
    if (state.offset === size) return;
    const ask = async () => {
      const { offset } = await tusOffset(state.uploadLink, timeoutMs);
      return offset;
    };
    /** Bytes per millisecond of the latest chunk, to size the next one to the time left. */
    let rate: number | null = null;
    try {
      // A video of an earlier attempt is asked for its offset: its last chunk may have arrived unconfirmed.
      if (!this.createdNow) state.offset = await ask();
      let failures = 0;
      while (state.offset < size) {
        await this.checkDeadline(state, `${state.offset} of ${size} bytes sent`);
        let length = Math.min(chunkBytes, size - state.offset);
        const deadline = this.input.deadline?.getTime();
        if (deadline !== undefined && rate !== null) {
          // A chunk that would run into the margin is made smaller (tus takes any size); when
          // even a small one would not fit, the next invocation sends it.
          const fits = Math.floor(rate * (deadline - Date.now() - marginMs) * 0.8);
          if (fits < Math.min(MIN_CHUNK_BYTES, length)) {
            await this.checkDeadline(state, `${state.offset} of ${size} bytes sent`, true);
          }
          length = Math.min(length, Math.max(fits, MIN_CHUNK_BYTES));
        }
        const started = Date.now();
        const before = state.offset;
        try {
          state.offset = await tusPatch(state.uploadLink, this.file, state.offset, length, uploadTimeoutMs);
          rate = (state.offset - before) / Math.max(1, Date.now() - started);
          failures = 0;
          await this.save(state);
        } catch (error) {
          if (!(error instanceof UploadInterrupted)) throw error;
          failures++;
          state.offset = await ask();
          if (state.offset > before) failures = 0;
          if (failures > resumeTries) {
            await this.save(state);
            throw new NetworkError(
              'transient',
              `Vimeo's upload kept failing (${error.message}); it continues from byte ${state.offset} in the next attempt.`,
            );
          }
          await this.save(state);
        }
      }
    } catch (error) {
      if (!(error instanceof UploadGone)) throw error;
      await this.uploadGone(state, error);
    }
  }

  /**
   * The upload link no longer answers (expired, or the video was deleted). A video whose upload
   * Vimeo completed is kept (its bytes are all there); any other is deleted and the next attempt
   * starts again with a new video.
   */
  private async uploadGone(state: VimeoUploadState, error: UploadGone): Promise<void> {
    const videoId = videoIdOf(state.uri);
    const answer = await this.client
      .call(this.credentials, { method: 'GET', path: `/videos/${videoId}?fields=uri,upload.status` }, [404])
      .catch((failure: unknown) => {
        throw known(failure);
      });
    const upload = (answer.body as { upload?: { status?: unknown } } | undefined)?.upload?.status;
    if (answer.status !== 404 && upload === 'complete') {
      state.offset = this.file.size;
      await this.save(state);
      return;
    }
    if (answer.status !== 404) {
      await this.client
        .call(this.credentials, { method: 'DELETE', path: `/videos/${videoId}` }, [404])
        .catch(() => undefined);
    }
    await this.save({});
    throw new NetworkError(
      'transient',
      `Vimeo no longer takes the video's upload (${error.message}); it starts again with a new video.`,
    );
  }

  /** One subtitle file as an active text track (skipped when an earlier attempt finished it). */
  async textTrack(state: VimeoUploadState, file: MediaForNetwork): Promise<void> {
    if (state.tracks.includes(file.mediaId)) return;
    await this.checkDeadline(state, 'text tracks');
    const videoId = videoIdOf(state.uri);
    try {
      let pending = state.pendingTrack?.mediaId === file.mediaId ? state.pendingTrack : undefined;
      if (!pending) {
        const { language, name, type } = trackOf(file);
        const answer = await this.client.call(this.credentials, {
          method: 'POST',
          path: `/videos/${videoId}/texttracks`,
          // Vimeo's API description requires `name` (vendor/specs/vimeo): the language when the
          // alt text names none.
          json: { type, language, name: name || language },
        });
        const uri = stringField(answer.body, 'uri');
        const link = stringField(answer.body, 'link');
        if (!uri || !link) {
          throw new NetworkError('transient', 'Vimeo created the text track but gave no upload link.');
        }
        pending = { mediaId: file.mediaId, uri, link };
        state.pendingTrack = pending;
        await this.save(state);
      }
      const bytes = await mediaBytes(file.url, 5 * 1024 * 1024);
      let response: Response;
      try {
        response = await fetch(pending.link, {
          method: 'PUT',
          // As Vimeo's own client sends it (the link is on Vimeo's captions host).
          headers: {
            authorization: `Bearer ${this.credentials.accessToken}`,
            'content-type': 'text/plain',
            'content-length': String(bytes.length),
          },
          body: bytes,
          signal: AbortSignal.timeout(this.settings.uploadTimeoutMs),
        });
      } catch (error) {
        throw new NetworkError(
          'transient',
          `The subtitle file could not be sent to Vimeo (${(error as Error).message}).`,
        );
      }
      await response.body?.cancel().catch(() => {});
      if (!response.ok) {
        throw new NetworkError(
          response.status >= 500 || response.status === 404 ? 'transient' : 'permanent',
          `Vimeo's caption host refused the subtitle file (HTTP ${response.status}).`,
          { status: response.status },
        );
      }
      await this.client.call(this.credentials, {
        method: 'PATCH',
        path: pending.uri,
        json: { active: true },
      });
      state.tracks.push(file.mediaId);
      delete state.pendingTrack;
      await this.save(state);
    } catch (error) {
      // Nothing is posted by a text track: its failure never leaves an unknown outcome.
      throw known(error);
    }
  }

  /** Deletes the video (best effort) and forgets the saved session. */
  async discard(state: VimeoUploadState): Promise<void> {
    await this.client
      .call(this.credentials, { method: 'DELETE', path: `/videos/${videoIdOf(state.uri)}` }, [404])
      .catch(() => undefined);
    await this.save({}).catch(() => undefined);
  }

  /** Waits a bounded time for transcoding (see the class comment). */
  async transcoded(state: VimeoUploadState): Promise<void> {
    const { transcodeWaitMs, pollMs, marginMs, sleep } = this.settings;
    const deadline = this.input.deadline?.getTime() ?? Number.POSITIVE_INFINITY;
    const until = Math.min(Date.now() + transcodeWaitMs, deadline - marginMs);
    const videoId = videoIdOf(state.uri);
    for (;;) {
      let answer: HttpAnswer;
      try {
        answer = await this.client.call(this.credentials, {
          method: 'GET',
          path: `/videos/${videoId}?fields=uri,status,upload.status,transcode.status`,
        });
      } catch (error) {
        // The video is uploaded: a failed status read does not make the publication fail.
        if (error instanceof NetworkError && error.kind !== 'transient') throw error;
        return;
      }
      const transcode = (answer.body as { transcode?: { status?: unknown } } | undefined)?.transcode?.status;
      if (transcode === 'complete') return;
      if (transcode === 'error') {
        // publish deletes the video on this permanent refusal.
        throw new NetworkError(
          'permanent',
          'Vimeo could not transcode the video (the file may be damaged or in a format Vimeo cannot play); the unplayable video was removed.',
        );
      }
      if (Date.now() + pollMs > until) return;
      await sleep(pollMs);
    }
  }
}

export const createVimeoClient = (options: VimeoClientOptions = {}) => new VimeoClient(options);
