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
} from '../../ports/network-client.ts';
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
import { type PinterestMediaOptions, PinterestVideoUploader } from './media-upload.ts';
import { readPinterestMetrics } from './metrics.ts';

/**
 * Pinterest API v5 client. A post is one pin (`POST /v5/pins`) on the board of the `boardId`
 * option: the block's text is the pin's description, the post's title its title, the `link` and
 * `altText` options its link and alt text (else the first file's alt text). Images are pulled by
 * Pinterest from their presigned URLs (`image_url`; 2 to 5 images make a carousel,
 * `multiple_image_urls`); a video is uploaded (media-upload.ts) and pinned by `video_id` with the
 * `coverImage` option's image as its cover (`cover_image_url`), else its first frame. Pinterest has no comments or replies: a pin is one block. Edits are
 * `PATCH /v5/pins/{id}` (description, title, link, alt text, board); deletes `DELETE /v5/pins/{id}`.
 *
 * Pinterest takes no client key, so a pin whose answer was lost is looked up among the account's
 * pins (`GET /v5/pins`, newest first): the pin with the block's text as description created since
 * the send.
 */

const NETWORK = 'Pinterest';

export interface PinterestClientOptions {
  /** Default `https://api.pinterest.com`. */
  baseUrl?: string;
  /** Per request, default 10 s. */
  timeoutMs?: number;
  media?: PinterestMediaOptions;
}

/** When a 429 carries no usable reset: a minute (Pinterest's standard limits are per minute). */
const DEFAULT_RATE_LIMIT_WAIT = 60;

/**
 * Seconds until Pinterest's rate limit frees: `Retry-After` when sent, else `x-ratelimit-reset`
 * (seconds until the window resets; an epoch time is read as one too).
 */
export const pinterestRetryAfter = (headers: Record<string, string>, now: Date): number => {
  const retry = retryAfterSeconds(headers['retry-after'], now);
  if (retry !== undefined) return retry;
  const reset = headers['x-ratelimit-reset']?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset)) {
    const value = Number(reset);
    return Math.max(1, Math.ceil(value > 1_000_000_000 ? value - now.getTime() / 1000 : value));
  }
  return DEFAULT_RATE_LIMIT_WAIT;
};

/**
 * How the engine handles a failed Pinterest call (bodies are `{ code, message }`): 429 is a
 * transient rate limit until the reset; 5xx transient with `outcomeUnknown` (Pinterest may have
 * made the pin); 401 (Pinterest answers an expired, revoked or unknown token alike with code 2)
 * reconnect, marked `tokenExpired` so the token service tries a refresh first; every other 4xx
 * (a refused pin, a board that is not the account's, an image Pinterest could not fetch) permanent
 * with Pinterest's message; no answer after sending: transient with `outcomeUnknown`.
 */
export const classifyPinterestFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const message = stringField(body, 'message') ?? `Pinterest answered HTTP ${status}`;
  if (status === 429) {
    return new NetworkError('transient', message, {
      ...details(status, pinterestRetryAfter(headers, now)),
      rateLimited: true,
    });
  }
  if (status >= 500) return serverError(message, status, retryAfterSeconds(headers['retry-after'], now));
  if (status === 401) return new NetworkError('reconnect', message, { status, tokenExpired: true });
  return new NetworkError('permanent', `Pinterest refused the request: ${message}`, { status });
};

const pinUrl = (id: string) => `https://www.pinterest.com/pin/${id}/`;
const blockOf = (id: string, boardId?: string): RemoteBlock => ({
  remoteId: id,
  remoteUrl: pinUrl(id),
  meta: boardId ? { boardId } : {},
});

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

export class PinterestClient implements NetworkClient {
  readonly platform = 'pinterest' as const;
  /**
   * Pinterest fetches a pin's image while it creates the pin, so a request whose answer was lost
   * (a timeout while Pinterest was still fetching) may make its pin seconds later: a lookup finding
   * nothing proves nothing until then. Not documented by Pinterest; the simulator gives up fetching
   * an image after 10 s.
   */
  readonly consistencyWindowSeconds = 15;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly videos: PinterestVideoUploader;

  constructor(options: PinterestClientOptions = {}) {
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://api.pinterest.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.videos = new PinterestVideoUploader(options.media);
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.parent) {
      throw new NetworkError(
        'permanent',
        'Pinterest has no comments or replies: a Pinterest post is a single pin (one block).',
      );
    }
    const boardId = text(input.options.boardId);
    if (!boardId) {
      throw new NetworkError(
        'permanent',
        'A Pinterest pin needs the boardId option: the board to save it to.',
      );
    }
    const mediaSource = await this.mediaSource(input);
    const altText = text(input.options.altText) ?? input.media.find((m) => m.altText)?.altText ?? undefined;
    const link = text(input.options.link);
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: '/v5/pins',
      json: {
        board_id: boardId,
        description: input.content,
        ...(input.title ? { title: input.title } : {}),
        ...(link ? { link } : {}),
        ...(altText ? { alt_text: altText } : {}),
        media_source: mediaSource,
      },
    });
    const id = stringField(answer.body, 'id');
    if (!id) {
      throw new NetworkError('transient', 'Pinterest accepted the pin but its answer had no pin id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return blockOf(id, boardId);
  }

  /** The pin's `media_source`: one image, a carousel of 2 to 5 images, or one uploaded video. */
  private async mediaSource(input: PublishBlockInput): Promise<Record<string, unknown>> {
    const files = input.media;
    const videos = files.filter((file) => file.mimeType.startsWith('video/'));
    if (files.length === 0) {
      throw new NetworkError('permanent', 'A Pinterest pin needs an image or a video.');
    }
    if (videos.length > 0) {
      if (files.length > 1) {
        throw new NetworkError(
          'permanent',
          'A Pinterest video pin carries one video and nothing else: put images in a pin of their own.',
        );
      }
      const mediaId = await this.videos.upload(
        videos[0] as MediaForNetwork,
        (request) => this.call(input.credentials, request, request.alsoFine),
        {
          ...(input.progress ? { progress: input.progress } : {}),
          ...(input.deadline ? { deadline: input.deadline } : {}),
        },
      );
      // The cover: the coverImage option's image (Pinterest pulls it), else the video's first frame.
      const cover = input.optionMedia?.coverImage;
      return cover
        ? { source_type: 'video_id', media_id: mediaId, cover_image_url: cover.url }
        : { source_type: 'video_id', media_id: mediaId, cover_image_key_frame_time: 0 };
    }
    if (files.length === 1) return { source_type: 'image_url', url: (files[0] as MediaForNetwork).url };
    if (files.length > 5) {
      throw new NetworkError('permanent', 'A Pinterest carousel takes at most 5 images.');
    }
    return { source_type: 'multiple_image_urls', items: files.map((file) => ({ url: file.url })) };
  }

  /**
   * The pin made since `since` with this text as its description, among the account's latest pins
   * (the first 250, newest first): a lost answer's pin, or null.
   */
  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    if (input.parent) return null;
    const since = input.since.getTime() - 1000;
    let bookmark: string | undefined;
    for (let page = 0; page < 2; page++) {
      const query = new URLSearchParams({ page_size: '125' });
      if (bookmark) query.set('bookmark', bookmark);
      const answer = await this.call(input.credentials, { method: 'GET', path: `/v5/pins?${query}` });
      const items = (answer.body as { items?: unknown } | undefined)?.items;
      for (const item of Array.isArray(items) ? items : []) {
        const id = stringField(item, 'id');
        const created = Date.parse(stringField(item, 'created_at') ?? '');
        if (!id || stringField(item, 'description') !== input.content) continue;
        if (!Number.isNaN(created) && created < since) continue;
        return blockOf(id, stringField(item, 'board_id'));
      }
      bookmark = stringField(answer.body, 'bookmark');
      if (!bookmark) break;
    }
    return null;
  }

  async edit(input: EditBlockInput): Promise<void> {
    const options = input.options ?? {};
    const patch: Record<string, unknown> = { description: input.content };
    if (input.title !== undefined) patch.title = input.title;
    if ('boardId' in options) {
      const boardId = text(options.boardId);
      if (!boardId) throw new NetworkError('permanent', 'A Pinterest pin needs the boardId option.');
      patch.board_id = boardId;
    }
    if ('link' in options) patch.link = text(options.link) ?? null;
    if ('altText' in options) patch.alt_text = text(options.altText) ?? null;
    const answer = await this.call(
      input.credentials,
      { method: 'PATCH', path: `/v5/pins/${encodeURIComponent(input.block.remoteId)}`, json: patch },
      [404],
    );
    if (answer.status === 404) {
      throw new NetworkError('permanent', 'The pin no longer exists on Pinterest: it cannot be edited.', {
        status: 404,
      });
    }
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    // Already gone counts as deleted: a retried delete after a lost answer must not fail.
    await this.call(
      input.credentials,
      { method: 'DELETE', path: `/v5/pins/${encodeURIComponent(input.block.remoteId)}` },
      [404],
    );
  }

  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readPinterestMetrics({ baseUrl: this.baseUrl, timeoutMs: this.timeoutMs }, input);
  }

  private call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; path: string; json?: unknown },
    alsoFine: number[] = [],
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.baseUrl}${request.path}`,
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
        json: request.json,
        timeoutMs: this.timeoutMs,
      },
      (failure) => classifyPinterestFailure(failure),
      (answer) => alsoFine.includes(answer.status),
    );
  }
}
