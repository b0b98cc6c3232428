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
  type HttpAnswer,
  type HttpCall,
  type HttpFailure,
  retryAfterSeconds,
  sendOrClassify,
  serverError,
  stringField,
  transportError,
} from '../network-http.ts';
import { readFacebookMetrics } from './metrics.ts';
import { GRAPH_VERSION } from './oauth.ts';

/**
 * Facebook Pages through the Graph API, with the page token the channel holds (the channel's
 * `remoteAccountId` is the page id).
 *
 * - First block: text (and the `link` option) `POST /{page}/feed`; one photo
 *   `POST /{page}/photos {url, caption, alt_text_custom}` (Facebook downloads the presigned URL);
 *   several photos each uploaded `published=false`, then `POST /{page}/feed` with
 *   `attached_media`; one video `POST /{page}/videos {file_url, description}`, then its status
 *   polled until `ready` (bounded: `videoWaitMs`, default 20 s; a video still processing then is
 *   deleted and the call is transient, so the retry uploads afresh and nothing is posted twice).
 * - Later blocks: comments on the first post (`POST /{post}/comments`), text only.
 * - Edit: `POST /{id} {message}` for posts and comments (text); delete: `DELETE /{id}` (an object
 *   already gone counts as deleted).
 * - Lookup after a lost answer: the page's posts since the send (`GET /{page}/posts`), then its
 *   videos (`GET /{page}/videos`: a video post joins the posts only once processed; one found
 *   still processing is adopted), or the post's comments, matched by text and time. Graph reads
 *   what was written, so the window is 0.
 * - Errors (Graph's `error.code`): 190 reconnect (subcode 463 expired: `tokenExpired`), 10 and
 *   200–299 (a permission taken back) reconnect; 4, 17, 32, 613, 80001–80014 (throttling) and 341
 *   (feed cap) transient and `rateLimited`, waiting `estimated_time_to_regain_access` from
 *   `X-Business-Use-Case-Usage`/`X-App-Usage`; 1, 2 and any 5xx transient with `outcomeUnknown`;
 *   506 (duplicate status) permanent and `duplicate`; 368 and every other refusal permanent with
 *   Facebook's message.
 */

const NETWORK = 'Facebook';
const THROTTLE_CODES = new Set([4, 17, 32, 613, 341]);
const DEFAULT_THROTTLE_SECONDS = 3600;

export interface FacebookClientOptions {
  /** Default `https://graph.facebook.com`. */
  baseUrl?: string;
  timeoutMs?: number;
  /** The longest wait for a video's processing inside one publish (default 20 s). */
  videoWaitMs?: number;
  /** Between two status reads (default 1 s). */
  videoPollMs?: number;
}

interface GraphErrorBody {
  message?: unknown;
  code?: unknown;
  error_subcode?: unknown;
  is_transient?: unknown;
}

const graphErrorOf = (body: unknown): GraphErrorBody | null => {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  return error !== null && typeof error === 'object' ? (error as GraphErrorBody) : null;
};

/** The longest `estimated_time_to_regain_access` (minutes) in the usage headers, as seconds. */
export const regainSeconds = (headers: Record<string, string>): number | undefined => {
  let minutes: number | undefined;
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'estimated_time_to_regain_access' && typeof inner === 'number') {
          minutes = Math.max(minutes ?? 0, inner);
        } else visit(inner);
      }
    }
  };
  for (const name of ['x-business-use-case-usage', 'x-app-usage', 'x-ad-account-usage']) {
    const raw = headers[name];
    if (!raw) continue;
    try {
      visit(JSON.parse(raw));
    } catch {
      // an unreadable header is no estimate
    }
  }
  return minutes === undefined || minutes <= 0 ? undefined : minutes * 60;
};

/** How the engine handles a failed Graph call (see the module comment). */
export const classifyFacebookFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const error = graphErrorOf(body);
  const code = typeof error?.code === 'number' ? error.code : undefined;
  const subcode = typeof error?.error_subcode === 'number' ? error.error_subcode : undefined;
  const message =
    (typeof error?.message === 'string' ? error.message : undefined) ??
    stringField(body, 'message') ??
    `Facebook answered HTTP ${status}`;
  if (code === 190 || code === 102) {
    return new NetworkError('reconnect', message, {
      status,
      ...(subcode === 463 ? { tokenExpired: true } : {}),
    });
  }
  if (code === 10 || (code !== undefined && code >= 200 && code < 300)) {
    return new NetworkError('reconnect', `${message} (the page's permission must be granted again)`, {
      status,
    });
  }
  if (
    status === 429 ||
    (code !== undefined && (THROTTLE_CODES.has(code) || (code >= 80001 && code <= 80014)))
  ) {
    const wait =
      regainSeconds(headers) ?? retryAfterSeconds(headers['retry-after'], now) ?? DEFAULT_THROTTLE_SECONDS;
    return new NetworkError('transient', message, { status, retryAfterSeconds: wait, rateLimited: true });
  }
  if (status >= 500 || code === 1 || code === 2 || error?.is_transient === true) {
    return serverError(message, status, retryAfterSeconds(headers['retry-after'], now));
  }
  if (code === 506) return new NetworkError('permanent', message, { status, duplicate: true });
  return new NetworkError('permanent', message, { status });
};

/** Graph's `2026-11-25T23:10:00+0000` as epoch ms, or NaN. */
const graphTimeMs = (value: unknown) =>
  typeof value === 'string' ? Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : Number.NaN;

const dataOf = (body: unknown): unknown[] => {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data : [];
};

const postUrl = (postId: string) => `https://www.facebook.com/${postId}`;
const commentUrl = (postId: string, commentId: string) =>
  `https://www.facebook.com/${postId}?comment_id=${encodeURIComponent(commentId)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FacebookClient implements NetworkClient {
  readonly platform = 'facebook' as const;
  /** Lookups read the page's posts and a post's comments, which show what was written at once. */
  readonly consistencyWindowSeconds = 0;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly videoWaitMs: number;
  private readonly videoPollMs: number;

  constructor(options: FacebookClientOptions = {}) {
    this.baseUrl = `${baseUrlOf(options.baseUrl ?? 'https://graph.facebook.com')}/${GRAPH_VERSION}`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.videoWaitMs = options.videoWaitMs ?? 20_000;
    this.videoPollMs = options.videoPollMs ?? 1_000;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.parent) {
      if (input.media.length > 0) {
        throw new NetworkError(
          'permanent',
          'Facebook comments carry text only here: put the files on the first block of a Facebook post.',
        );
      }
      return this.comment(input, input.parent.root);
    }
    if (input.postType !== null && input.postType !== 'post') {
      throw new NetworkError('permanent', `Facebook post type "${input.postType}" is not supported.`);
    }
    const page = input.credentials.remoteAccountId;
    const videos = input.media.filter((m) => m.mimeType.startsWith('video/'));
    if (videos.length > 0) {
      if (input.media.length > 1) {
        throw new NetworkError('permanent', 'A Facebook post carries one video alone, without other files.');
      }
      return this.video(input, page, videos[0] as MediaForNetwork);
    }
    if (input.media.length === 1) {
      const photo = input.media[0] as MediaForNetwork;
      const answer = await this.call(input.credentials, 'POST', `/${encodeURIComponent(page)}/photos`, {
        url: photo.url,
        caption: input.content,
        published: true,
        ...(photo.altText ? { alt_text_custom: photo.altText } : {}),
      });
      return this.postBlock(answer, stringField(answer.body, 'post_id'));
    }
    const attached: { media_fbid: string }[] = [];
    for (const photo of input.media) {
      // Unpublished photos are no posts: one lost here is never shown, and the retry uploads afresh.
      const answer = await this.call(input.credentials, 'POST', `/${encodeURIComponent(page)}/photos`, {
        url: photo.url,
        published: false,
        ...(photo.altText ? { alt_text_custom: photo.altText } : {}),
      });
      const id = stringField(answer.body, 'id');
      if (!id) throw new NetworkError('transient', 'Facebook accepted a photo but its answer had no id', {});
      attached.push({ media_fbid: id });
    }
    const link = typeof input.options.link === 'string' && attached.length === 0 ? input.options.link : null;
    const answer = await this.call(input.credentials, 'POST', `/${encodeURIComponent(page)}/feed`, {
      ...(input.content !== '' ? { message: input.content } : {}),
      ...(link ? { link } : {}),
      ...(attached.length > 0 ? { attached_media: attached } : {}),
    });
    return this.postBlock(answer, stringField(answer.body, 'id'));
  }

  private postBlock(answer: HttpAnswer, postId: string | undefined): RemoteBlock {
    if (!postId) {
      throw new NetworkError('transient', 'Facebook accepted the post but its answer had no post id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return { remoteId: postId, remoteUrl: postUrl(postId), meta: { postId } };
  }

  /** A video post: Facebook pulls `file_url`, then processes it; waited for within `videoWaitMs`. */
  private async video(input: PublishBlockInput, page: string, file: MediaForNetwork): Promise<RemoteBlock> {
    const answer = await this.call(input.credentials, 'POST', `/${encodeURIComponent(page)}/videos`, {
      file_url: file.url,
      description: input.content,
      published: true,
    });
    const videoId = stringField(answer.body, 'id');
    if (!videoId) {
      throw new NetworkError('transient', 'Facebook accepted the video but its answer had no id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    const deadline = Date.now() + this.videoWaitMs;
    for (;;) {
      const state = await this.call(
        input.credentials,
        'GET',
        `/${encodeURIComponent(videoId)}?fields=status,post_id`,
      );
      const status = (state.body as { status?: { video_status?: unknown; processing_phase?: unknown } })
        ?.status;
      const videoStatus = status?.video_status;
      if (videoStatus === 'ready') {
        const postId = stringField(state.body, 'post_id') ?? `${page}_${videoId}`;
        return { remoteId: postId, remoteUrl: postUrl(postId), meta: { postId, videoId } };
      }
      if (videoStatus === 'error') {
        const errors = (status?.processing_phase as { errors?: { message?: unknown }[] } | undefined)?.errors;
        const reason = typeof errors?.[0]?.message === 'string' ? errors[0].message : 'processing failed';
        throw new NetworkError('permanent', `Facebook could not process the video: ${reason}`, {});
      }
      if (Date.now() + this.videoPollMs > deadline) break;
      await sleep(this.videoPollMs);
    }
    // Still processing: take it back so the retry's fresh upload is the only one ever posted.
    try {
      await this.deleteObject(input.credentials, videoId);
    } catch {
      throw new NetworkError(
        'transient',
        'Facebook was still processing the video and it could not be withdrawn',
        { outcomeUnknown: true },
      );
    }
    throw new NetworkError(
      'transient',
      `Facebook was still processing the video after ${Math.round(this.videoWaitMs / 1000)} s; it was withdrawn and will be uploaded again`,
      {},
    );
  }

  private async comment(input: PublishBlockInput, root: RemoteBlock): Promise<RemoteBlock> {
    const postId = root.meta.postId ?? root.remoteId;
    const answer = await this.call(input.credentials, 'POST', `/${encodeURIComponent(postId)}/comments`, {
      message: input.content,
    });
    const id = stringField(answer.body, 'id');
    if (!id) {
      throw new NetworkError('transient', 'Facebook accepted the comment but its answer had no id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return this.commentBlock(id, postId);
  }

  private commentBlock(commentId: string, postId: string): RemoteBlock {
    return { remoteId: commentId, remoteUrl: commentUrl(postId, commentId), meta: { commentId, postId } };
  }

  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    // Graph times are whole seconds: a block made in the send's second is still "since" it.
    const since = Math.floor(input.since.getTime() / 1000) * 1000;
    const page = input.credentials.remoteAccountId;
    if (input.parent) {
      const postId = input.parent.root.meta.postId ?? input.parent.root.remoteId;
      const answer = await this.call(
        input.credentials,
        'GET',
        `/${encodeURIComponent(postId)}/comments?fields=id,message,created_time,from&order=reverse_chronological&limit=100`,
      );
      for (const entry of dataOf(answer.body)) {
        const id = stringField(entry, 'id');
        const from = stringField((entry as { from?: unknown }).from, 'id');
        if (!id || (from !== undefined && from !== page)) continue;
        if ((stringField(entry, 'message') ?? '') !== input.content) continue;
        if (graphTimeMs(stringField(entry, 'created_time')) < since) continue;
        return this.commentBlock(id, postId);
      }
      return null;
    }
    const answer = await this.call(
      input.credentials,
      'GET',
      `/${encodeURIComponent(page)}/posts?fields=id,message,created_time&since=${Math.floor(since / 1000)}&limit=100`,
    );
    for (const entry of dataOf(answer.body)) {
      const id = stringField(entry, 'id');
      if (!id || (stringField(entry, 'message') ?? '') !== input.content) continue;
      if (graphTimeMs(stringField(entry, 'created_time')) < since) continue;
      return { remoteId: id, remoteUrl: postUrl(id), meta: { postId: id } };
    }
    // A video post shows among the page's posts only once processed: its video shows at once.
    const videos = await this.call(
      input.credentials,
      'GET',
      `/${encodeURIComponent(page)}/videos?fields=id,description,created_time&limit=25`,
    );
    for (const entry of dataOf(videos.body)) {
      const videoId = stringField(entry, 'id');
      if (!videoId || (stringField(entry, 'description') ?? '') !== input.content) continue;
      if (graphTimeMs(stringField(entry, 'created_time')) < since) continue;
      const postId = `${page}_${videoId}`;
      return { remoteId: postId, remoteUrl: postUrl(postId), meta: { postId, videoId } };
    }
    return null;
  }

  async edit(input: EditBlockInput): Promise<void> {
    if (input.title !== undefined && input.title !== null) {
      throw new NetworkError('permanent', 'Facebook posts have no title to edit.');
    }
    if (input.options && Object.keys(input.options).length > 0) {
      throw new NetworkError('permanent', 'Facebook lets only the text of a published post change.');
    }
    const id = input.block.meta.commentId ?? input.block.meta.postId ?? input.block.remoteId;
    await this.call(input.credentials, 'POST', `/${encodeURIComponent(id)}`, { message: input.content });
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    const id = input.block.meta.commentId ?? input.block.meta.postId ?? input.block.remoteId;
    await this.deleteObject(input.credentials, id);
  }

  /** `DELETE /{id}`; an object already gone (`(#100)` subcode 33) counts as deleted, so a retried delete after a lost answer does not fail. */
  private async deleteObject(credentials: NetworkCredentials, id: string): Promise<void> {
    try {
      await this.call(credentials, 'DELETE', `/${encodeURIComponent(id)}`);
    } catch (error) {
      if (error instanceof NetworkError && (error as NetworkError & { subcode?: number }).subcode === 33)
        return;
      throw error;
    }
  }

  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readFacebookMetrics((credentials, path) => this.call(credentials, 'GET', path), input);
  }

  private call(
    credentials: NetworkCredentials,
    method: HttpCall['method'],
    path: string,
    json?: Record<string, unknown>,
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method,
        url: `${this.baseUrl}${path}`,
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
        json,
        timeoutMs: this.timeoutMs,
      },
      (failure) => {
        const error = classifyFacebookFailure(failure);
        if (failure.type === 'answer') {
          const subcode = graphErrorOf(failure.body)?.error_subcode;
          if (typeof subcode === 'number') Object.assign(error, { subcode });
        }
        return error;
      },
    );
  }
}
