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
import { graphErrorOf, META_USAGE_HEADERS, regainMinutes } from '../meta-graph.ts';
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
import { FacebookComments } from './comments.ts';
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
 *   polled until `ready` (`videoWaitMs`, default 20 s, per invocation; the video id is kept with
 *   the block's claim and waited for across invocations, never uploaded twice: see `video`).
 * - Reels and video stories: an upload session (`/{page}/video_reels`, `/video_stories`), finished
 *   once the upload is complete, then followed until Facebook has processed and published it; the
 *   video id is kept with the block's claim across invocations (see `sessionVideo`).
 * - Later blocks: comments on the first post (`POST /{post}/comments`), text only.
 * - The conversation under a post (issue 31: listing, finding, replying, looking replies up,
 *   deleting them): comments.ts.
 * - Edit: `POST /{id} {message}` for posts and comments (text); delete: `DELETE /{id}` (an object
 *   already gone counts as deleted).
 * - Lookup after a lost answer: the saved video's (or story photo's) status, else the page's posts
 *   since the send (`GET /{page}/posts`), then its videos (`GET /{page}/videos`: a video post joins
 *   the posts only once processed), or the post's comments, matched by text and time. A video found
 *   still processing is not yet the block: the lookup answers transient and the engine looks again
 *   later, until Facebook reports it published (a failed one is not the block: the next attempt
 *   fails for good with Facebook's reason). Graph reads what was written, so the window is 0.
 * - Errors (Graph's `error.code`): 190 reconnect (subcode 463 expired: `tokenExpired`); 10 and
 *   200–299 (a permission the token lacks) reconnect, the message naming the permission; 4, 17,
 *   32, 613, 80001–80014 (throttling) and 341
 *   (feed cap) transient and `rateLimited`, waiting `estimated_time_to_regain_access` from
 *   `X-Business-Use-Case-Usage`/`X-App-Usage` (none stated: no reset claimed, the engine's growing wait); 1, 2 and any 5xx transient with `outcomeUnknown`;
 *   506 (duplicate status) permanent and `duplicate`; 368 and every other refusal permanent with
 *   Facebook's message.
 */

const NETWORK = 'Facebook';
const THROTTLE_CODES = new Set([4, 17, 32, 613, 341]);
/** While waiting with saved progress, extend the claim's lease this often. */
const KEEP_ALIVE_MS = 10_000;

/** A video's upload, processing and publishing phases as Graph reports them. */
interface VideoState {
  videoStatus: string | undefined;
  uploading: string | undefined;
  processing: string | undefined;
  publishing: string | undefined;
  /** Facebook's reason when a phase failed. */
  reason: string;
  postId: string | undefined;
}

export interface FacebookClientOptions {
  /** Default `https://graph.facebook.com`. */
  baseUrl?: string;
  timeoutMs?: number;
  /** The longest wait for a video's processing inside one publish (default 20 s). */
  videoWaitMs?: number;
  /** Between two status reads (default 1 s). */
  videoPollMs?: number;
  /**
   * How long a video is waited for across invocations before Herald stops waiting and leaves it to
   * Facebook, which posts it once processed (default an hour).
   */
  processingGiveUpMs?: number;
}

/** The longest `estimated_time_to_regain_access` (minutes) in the usage headers, as seconds. */
export const regainSeconds = (headers: Record<string, string>): number | undefined => {
  const stated = META_USAGE_HEADERS.map((name) => regainMinutes(headers[name])).filter(
    (m): m is number => m !== undefined,
  );
  const minutes = stated.length > 0 ? Math.max(...stated) : undefined;
  return minutes === undefined || minutes <= 0 ? undefined : minutes * 60;
};

/** The page permissions Herald asks for (oauth.ts `FACEBOOK_SCOPES`), as Graph names them in its refusals. */
const PERMISSION_NAMES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_read_user_content',
  'pages_manage_engagement',
  'read_insights',
  'business_management',
];

/**
 * The permissions a Graph call needs (Meta's references; the simulator checks the same): reading
 * the page's posts, videos, stories and objects `pages_read_engagement`, comments (people's
 * content) `pages_read_user_content` too; insights
 * `read_insights` too; comments as the page `pages_manage_engagement`; videos, reels and stories
 * `pages_show_list`, `pages_manage_posts` and `pages_read_engagement`; other posts, their edits
 * and deletes `pages_manage_posts` and `pages_read_engagement`.
 */
export const permissionsFor = (method: HttpCall['method'], path: string): string[] => {
  const route = path.split('?')[0] as string;
  if (method === 'GET') {
    if (/\/insights$/.test(route)) return ['read_insights', 'pages_read_engagement'];
    return /\/comments$/.test(route)
      ? ['pages_read_engagement', 'pages_read_user_content']
      : ['pages_read_engagement'];
  }
  if (method === 'POST' && /\/comments$/.test(route)) return ['pages_manage_engagement'];
  if (method === 'POST' && /\/(videos|video_reels|video_stories|photo_stories)$/.test(route)) {
    return ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement'];
  }
  return ['pages_manage_posts', 'pages_read_engagement'];
};

/** How the engine handles a failed Graph call (see the module comment); `needs`: the call's permissions. */
export const classifyFacebookFailure = (
  failure: HttpFailure,
  now: Date = new Date(),
  needs: string[] = [],
): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const error = graphErrorOf(body);
  const code = error?.code;
  const subcode = error?.subcode;
  const message = error?.message ?? stringField(body, 'message') ?? `Facebook answered HTTP ${status}`;
  if (code === 190 || code === 102) {
    return new NetworkError('reconnect', message, {
      status,
      ...(subcode === 463 ? { tokenExpired: true } : {}),
    });
  }
  if (code === 10 || (code !== undefined && code >= 200 && code < 300)) {
    // A permission the page token lacks (Graph's 10 and 200-299): only a new consent that grants
    // it helps, so the channel is to be reconnected; the message names the permission (those
    // Graph's message names, else those the call needs).
    const named = PERMISSION_NAMES.filter((name) => message.includes(name));
    const missing = named.length > 0 ? named : needs;
    const which = missing.length > 0 ? `: ${missing.join(', ')}` : '';
    return new NetworkError(
      'reconnect',
      `Facebook refused the call for a missing permission${which} (${message}). Reconnect the channel and grant ${missing.length > 1 ? 'them' : 'it'}.`,
      { status, missingPermission: true },
    );
  }
  if (
    status === 429 ||
    (code !== undefined && (THROTTLE_CODES.has(code) || (code >= 80001 && code <= 80014)))
  ) {
    // No time stated (the app's limit, a rolling window): no reset is claimed, and the engine tries
    // again in growing steps rather than holding the post for an hour.
    const wait = regainSeconds(headers) ?? retryAfterSeconds(headers['retry-after'], now);
    return new NetworkError('transient', message, { ...details(status, wait), rateLimited: true });
  }
  if (status >= 500 || code === 1 || code === 2 || error?.transient === true) {
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

const nowIso = () => new Date().toISOString();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FacebookClient implements NetworkClient {
  readonly platform = 'facebook' as const;
  /** Lookups read the page's posts and a post's comments, which show what was written at once. */
  readonly consistencyWindowSeconds = 0;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly videoWaitMs: number;
  private readonly videoPollMs: number;
  private readonly processingGiveUpMs: number;
  /** The conversation under a post (see comments.ts). */
  private readonly conversation = new FacebookComments((credentials, method, path, json, needs) =>
    this.call(credentials, method, path, json, [], needs),
  );

  constructor(options: FacebookClientOptions = {}) {
    this.baseUrl = `${baseUrlOf(options.baseUrl ?? 'https://graph.facebook.com')}/${GRAPH_VERSION}`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.videoWaitMs = options.videoWaitMs ?? 20_000;
    this.videoPollMs = options.videoPollMs ?? 1_000;
    this.processingGiveUpMs = options.processingGiveUpMs ?? 3_600_000;
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
    const page = input.credentials.remoteAccountId;
    if (input.postType === 'reel') return this.reel(input, page);
    if (input.postType === 'story') return this.story(input, page);
    if (input.postType !== null && input.postType !== 'post') {
      throw new NetworkError('permanent', `Facebook post type "${input.postType}" is not supported.`);
    }
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

  /**
   * A video post: Facebook pulls `file_url`, then processes it and posts it once processed. The
   * video id is saved with the block's claim before the wait: processing that outlasts
   * `videoWaitMs` (or the invocation) continues in the next invocation on the same video
   * (`continueLater`, no attempt spent), so it is never uploaded or posted twice, and a worker that
   * died after the upload resumes from the saved id. After `processingGiveUpMs` the video is left to
   * Facebook, which posts it once processed. Without a place to save it (no `progress`), a video
   * still processing is withdrawn and the retry uploads afresh.
   */
  private async video(input: PublishBlockInput, page: string, file: MediaForNetwork): Promise<RemoteBlock> {
    const progress = input.progress;
    const key = file.mediaId;
    const saved = progress?.saved;
    let videoId =
      saved?.product === 'video' &&
      typeof saved.videoId === 'string' &&
      (saved.key === undefined || saved.key === key)
        ? saved.videoId
        : null;
    const since =
      (videoId !== null && typeof saved?.waitingSince === 'string' && saved.waitingSince) || nowIso();
    if (videoId === null) {
      const answer = await this.call(input.credentials, 'POST', `/${encodeURIComponent(page)}/videos`, {
        file_url: file.url,
        description: input.content,
        published: true,
      });
      videoId = stringField(answer.body, 'id') ?? null;
      if (!videoId) {
        throw new NetworkError('transient', 'Facebook accepted the video but its answer had no id', {
          status: answer.status,
          outcomeUnknown: true,
        });
      }
    }
    const id = videoId;
    // The video is posted once processed: from here on a resend could post it twice, so every
    // failure leaves the outcome unknown and the block is looked up (by this id) before anything.
    const keep = () =>
      progress?.save({ product: 'video', videoId: id, key, waitingSince: since }) ?? Promise.resolve();
    await keep();
    const deadline = this.waitDeadline(input);
    let lastKept = Date.now();
    let postId: string | undefined;
    for (;;) {
      let state: VideoState | null;
      try {
        state = await this.videoState(input.credentials, id);
      } catch (error) {
        throw this.afterPosting(error, 'reading the status of a posted video');
      }
      if (state === null) {
        // Deleted on Facebook while it processed: nothing of it is posted; a new round uploads afresh.
        await progress?.save({});
        throw new NetworkError('permanent', 'The video was deleted on Facebook while it was processed', {});
      }
      postId = state.postId ?? `${page}_${id}`;
      if (state.videoStatus === 'ready') {
        return { remoteId: postId, remoteUrl: postUrl(postId), meta: { postId, videoId: id } };
      }
      if (state.videoStatus === 'error') {
        // A failed video is never waited for again: a new round uploads afresh.
        await progress?.save({});
        throw new NetworkError('permanent', `Facebook could not process the video: ${state.reason}`, {});
      }
      if (Date.now() + this.videoPollMs > deadline) break;
      if (progress && Date.now() - lastKept >= KEEP_ALIVE_MS) {
        // Extends the claim's lease: a long wait is not taken for a dead worker's.
        await keep();
        lastKept = Date.now();
      }
      await sleep(this.videoPollMs);
    }
    if (progress) {
      if (Date.now() - Date.parse(since) < this.processingGiveUpMs) {
        throw new NetworkError('transient', 'Facebook is still processing the video; waiting for it.', {
          continueLater: true,
        });
      }
      // Waited long enough: Facebook has the video (published) and posts it once processed.
      const post = postId ?? `${page}_${id}`;
      return { remoteId: post, remoteUrl: postUrl(post), meta: { postId: post, videoId: id } };
    }
    // Still processing and nowhere to keep its id: take it back so the retry's fresh upload is the
    // only one ever posted.
    try {
      await this.deleteObject(input.credentials, id);
    } catch {
      throw new NetworkError(
        'transient',
        'Facebook was still processing the video and it could not be withdrawn',
        { outcomeUnknown: true },
      );
    }
    throw new NetworkError(
      'transient',
      'Facebook was still processing the video when Herald stopped waiting; it was withdrawn and will be uploaded again',
      {},
    );
  }

  /** The one file of a reel or story (the validator lets exactly one through). */
  private soleFile(input: PublishBlockInput, kind: 'reel' | 'story'): MediaForNetwork {
    const [file] = input.media;
    if (!file || input.media.length > 1) {
      throw new NetworkError('permanent', `A Facebook ${kind} carries exactly one file.`);
    }
    if (kind === 'reel' && !file.mimeType.startsWith('video/')) {
      throw new NetworkError('permanent', 'A Facebook reel is one video.');
    }
    return file;
  }

  /**
   * A video through an upload session (`/{page}/video_reels` or `/video_stories`): start, let
   * Facebook pull the file (`file_url` header on the upload URL), finish (publish) once the upload
   * is complete, then follow processing and publishing. Until the finish Facebook reports
   * `video_status: upload_complete` with `processing_phase: not_started`, never `ready`
   * (integrations observe this; the Reels guide's flow is init, upload, publish with finish:
   * https://developers.facebook.com/documentation/video-api/guides/reels-publishing), so
   * processing is waited for only after the finish. The video id is saved with the block's claim
   * before the finish and marked finished after it: a later invocation carries on with the same
   * video (finishes it if the finish never landed, else follows it), never uploading or finishing
   * twice, and a lost finish answer is looked up by the video's status.
   */
  private async sessionVideo(
    input: PublishBlockInput,
    page: string,
    file: MediaForNetwork,
    product: 'reel' | 'story',
  ): Promise<{ videoId: string; postId: string | undefined }> {
    const endpoint = `/${encodeURIComponent(page)}/${product === 'reel' ? 'video_reels' : 'video_stories'}`;
    const progress = input.progress;
    const key = file.mediaId;
    const saved = progress?.saved;
    let videoId: string | null = null;
    let finished = false;
    let postId: string | undefined;
    let since = nowIso();
    if (
      saved?.product === product &&
      typeof saved.videoId === 'string' &&
      (saved.key === undefined || saved.key === key)
    ) {
      videoId = saved.videoId;
      finished = saved.finished === true;
      if (typeof saved.waitingSince === 'string') since = saved.waitingSince;
      postId = typeof saved.postId === 'string' ? saved.postId : undefined;
      if (!finished) {
        // Whether the finish landed (a lost answer, or a crash before the save) shows in the status.
        const state = await this.videoState(input.credentials, videoId);
        if (state === null || state.uploading !== 'complete') videoId = null;
        else if (state.processing !== 'not_started') {
          finished = true;
          postId ??= state.postId;
        }
      }
    }
    if (videoId === null) {
      videoId = await this.uploadSession(input, endpoint, file, product);
      since = nowIso();
    }
    const id = videoId;
    const keep = (state: Record<string, unknown>) =>
      progress?.save({ product, videoId: id, key, ...state, waitingSince: since }) ?? Promise.resolve();
    if (!finished) {
      await keep({ finished: false });
      const answer = await this.call(input.credentials, 'POST', endpoint, {
        upload_phase: 'finish',
        video_id: id,
        ...(product === 'reel' ? { video_state: 'PUBLISHED', description: input.content } : {}),
      });
      postId = stringField(answer.body, 'post_id');
      if (product === 'story' && !postId) {
        throw new NetworkError('transient', 'Facebook published the story but its answer had no post id', {
          status: answer.status,
          outcomeUnknown: true,
        });
      }
      await keep({ finished: true, ...(postId ? { postId } : {}) });
    }
    await this.followPublishing(input, id, product, since, () =>
      keep({ finished: true, ...(postId ? { postId } : {}) }),
    );
    return { videoId: id, postId };
  }

  /** Opens an upload session and has Facebook pull the file; returns the video id once uploaded. */
  private async uploadSession(
    input: PublishBlockInput,
    endpoint: string,
    file: MediaForNetwork,
    product: 'reel' | 'story',
  ): Promise<string> {
    const started = await this.call(input.credentials, 'POST', endpoint, { upload_phase: 'start' });
    const videoId = stringField(started.body, 'video_id');
    const uploadUrl = stringField(started.body, 'upload_url');
    if (!videoId || !uploadUrl) {
      throw new NetworkError('transient', `Facebook opened no ${product} upload session (no video_id)`, {});
    }
    await sendOrClassify(
      {
        method: 'POST',
        url: uploadUrl,
        headers: { authorization: `OAuth ${input.credentials.accessToken}`, file_url: file.url },
        timeoutMs: Math.max(this.timeoutMs, 30_000),
      },
      (failure) => {
        const error = classifyFacebookFailure(failure, new Date(), permissionsFor('POST', endpoint));
        // An unfinished session is never published: whatever happened to the upload, nothing is posted.
        return error.details.outcomeUnknown
          ? new NetworkError('transient', error.message, { ...error.details, outcomeUnknown: false })
          : error;
      },
    );
    const deadline = this.waitDeadline(input);
    for (;;) {
      const state = await this.videoState(input.credentials, videoId);
      if (state === null) {
        throw new NetworkError(
          'transient',
          `Facebook lost the ${product} upload; it will be uploaded again`,
          {},
        );
      }
      if (state.videoStatus === 'error' || state.uploading === 'error') {
        throw new NetworkError('permanent', `Facebook could not take the video: ${state.reason}`, {});
      }
      if (state.uploading === 'complete' || state.videoStatus === 'upload_complete') return videoId;
      if (Date.now() + this.videoPollMs > deadline) {
        // Never finished, so never published: the retry opens a new session.
        throw new NetworkError(
          'transient',
          `Facebook was still receiving the ${product} when Herald stopped waiting; it was not published and will be uploaded again`,
          {},
        );
      }
      await sleep(this.videoPollMs);
    }
  }

  /**
   * After the finish: polls until Facebook has processed and published the video. Processing that
   * outlasts this invocation continues in the next one (`continueLater`, the finished video saved
   * with the claim) until `processingGiveUpMs` after the upload; without a place to save it, or
   * after that, the video is left to Facebook, which publishes it once processed. A video Facebook cannot process is a permanent failure.
   */
  private async followPublishing(
    input: PublishBlockInput,
    videoId: string,
    product: 'reel' | 'story',
    since: string,
    keep: () => Promise<void>,
  ): Promise<void> {
    const deadline = this.waitDeadline(input);
    let lastKept = Date.now();
    for (;;) {
      let state: VideoState | null;
      try {
        state = await this.videoState(input.credentials, videoId);
      } catch (error) {
        throw this.afterPosting(error, `reading the status of a finished ${product}`);
      }
      if (state === null) {
        throw new NetworkError(
          'permanent',
          `The ${product} was deleted on Facebook while it was processed`,
          {},
        );
      }
      if (state.videoStatus === 'error' || state.processing === 'error' || state.publishing === 'error') {
        // A failed video is never tried again: a new round uploads afresh.
        await input.progress?.save({});
        throw new NetworkError('permanent', `Facebook could not process the video: ${state.reason}`, {});
      }
      if (state.publishing === 'complete') return;
      if (Date.now() + this.videoPollMs > deadline) {
        // Nowhere to keep the video, or waited long enough: Facebook publishes it once processed.
        if (!input.progress || Date.now() - Date.parse(since) >= this.processingGiveUpMs) return;
        throw new NetworkError('transient', `Facebook is still processing the ${product}; waiting for it.`, {
          continueLater: true,
        });
      }
      if (input.progress && Date.now() - lastKept >= KEEP_ALIVE_MS) {
        // Extends the claim's lease: a long wait is not taken for a dead worker's.
        await keep();
        lastKept = Date.now();
      }
      await sleep(this.videoPollMs);
    }
  }

  /** A video's phases (`GET /{video}?fields=status,post_id`); null when the video is gone. */
  private async videoState(credentials: NetworkCredentials, videoId: string): Promise<VideoState | null> {
    const answer = await this.call(
      credentials,
      'GET',
      `/${encodeURIComponent(videoId)}?fields=status,post_id`,
      undefined,
      [400],
    );
    if (answer.status !== 200) return null;
    const status = (answer.body as { status?: Record<string, unknown> } | null)?.status ?? {};
    const phase = (name: string) => {
      const value = (status[name] as { status?: unknown } | undefined)?.status;
      return typeof value === 'string' ? value : undefined;
    };
    const errors = [status.uploading_phase, status.processing_phase, status.publishing_phase].flatMap(
      (p) => (p as { errors?: { message?: unknown }[] } | undefined)?.errors ?? [],
    );
    const reason = errors.find((e) => typeof e.message === 'string')?.message;
    return {
      videoStatus: typeof status.video_status === 'string' ? status.video_status : undefined,
      uploading: phase('uploading_phase'),
      processing: phase('processing_phase'),
      publishing: phase('publishing_phase'),
      reason: typeof reason === 'string' ? reason : 'processing failed',
      postId: stringField(answer.body, 'post_id'),
    };
  }

  /** A failed call after Facebook may have posted the block: the outcome is unknown, so it is looked up. */
  private afterPosting(error: unknown, doing: string): unknown {
    if (!(error instanceof NetworkError)) return error;
    return new NetworkError('transient', `${error.message} (${doing})`, {
      ...(error.details.status === undefined ? {} : { status: error.details.status }),
      outcomeUnknown: true,
    });
  }

  private async reel(input: PublishBlockInput, page: string): Promise<RemoteBlock> {
    const { videoId } = await this.sessionVideo(input, page, this.soleFile(input, 'reel'), 'reel');
    return this.reelBlock(page, videoId);
  }

  private reelBlock(page: string, videoId: string): RemoteBlock {
    const postId = `${page}_${videoId}`;
    return {
      remoteId: postId,
      remoteUrl: `https://www.facebook.com/reel/${videoId}`,
      meta: { postId, videoId, postType: 'reel' },
    };
  }

  /** A story: one photo (uploaded unpublished, then `/{page}/photo_stories`) or one video. Stories carry no text. */
  private async story(input: PublishBlockInput, page: string): Promise<RemoteBlock> {
    if (input.content.trim() !== '') {
      throw new NetworkError(
        'permanent',
        'Facebook stories carry no text: leave the story block empty, or publish a post instead.',
      );
    }
    const file = this.soleFile(input, 'story');
    if (file.mimeType.startsWith('video/')) {
      const { videoId, postId } = await this.sessionVideo(input, page, file, 'story');
      if (!postId) {
        throw new NetworkError('transient', 'Facebook published the story but its answer had no post id', {
          outcomeUnknown: true,
        });
      }
      return this.storyBlock(postId, videoId);
    }
    const photo = await this.call(input.credentials, 'POST', `/${encodeURIComponent(page)}/photos`, {
      url: file.url,
      published: false,
      ...(file.altText ? { alt_text_custom: file.altText } : {}),
    });
    const photoId = stringField(photo.body, 'id');
    if (!photoId)
      throw new NetworkError('transient', 'Facebook accepted a photo but its answer had no id', {});
    await input.progress?.save({ product: 'story', photoId });
    const answer = await this.call(input.credentials, 'POST', `/${encodeURIComponent(page)}/photo_stories`, {
      photo_id: photoId,
    });
    const postId = stringField(answer.body, 'post_id');
    if (!postId) {
      throw new NetworkError('transient', 'Facebook published the story but its answer had no post id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return this.storyBlock(postId, photoId);
  }

  private storyBlock(postId: string, mediaId: string): RemoteBlock {
    return { remoteId: postId, remoteUrl: postUrl(postId), meta: { postId, mediaId, postType: 'story' } };
  }

  /**
   * A block whose answer was lost, found through the media id its sends saved: a feed video, a
   * reel or a video story by its video's status, a photo story among the page's stories. A video
   * is the block only once Facebook has published it (see `processedVideo`).
   */
  private async lookupSaved(
    input: LookupBlockInput,
    page: string,
    saved: Record<string, unknown>,
  ): Promise<RemoteBlock | null> {
    const videoId = typeof saved.videoId === 'string' ? saved.videoId : null;
    if (videoId !== null) {
      const state = await this.processedVideo(input, videoId, saved.product === 'video' ? 'feed' : 'session');
      if (state === null) return null;
      if (saved.product === 'reel') return this.reelBlock(page, videoId);
      if (saved.product === 'story') {
        const postId = state.postId ?? (typeof saved.postId === 'string' ? saved.postId : undefined);
        return postId ? this.storyBlock(postId, videoId) : null;
      }
      const postId = state.postId ?? `${page}_${videoId}`;
      return { remoteId: postId, remoteUrl: postUrl(postId), meta: { postId, videoId } };
    }
    const photoId = typeof saved.photoId === 'string' ? saved.photoId : null;
    if (saved.product !== 'story' || photoId === null) return null;
    const stories = await this.call(
      input.credentials,
      'GET',
      `/${encodeURIComponent(page)}/stories?fields=post_id,media_id,creation_time,status`,
    );
    for (const entry of dataOf(stories.body)) {
      const postId = stringField(entry, 'post_id');
      if (!postId || stringField(entry, 'media_id') !== photoId) continue;
      if (stringField(entry, 'status') === 'PROCESSING') {
        throw new NetworkError(
          'transient',
          `Facebook is still publishing the story ${postId}; looking again later.`,
        );
      }
      return this.storyBlock(postId, photoId);
    }
    return null;
  }

  /**
   * A lookup's reading of a video Facebook may have: its state once Facebook has published it;
   * null when nothing of it is posted, or not yet posted and never to be from this video as it
   * stands (deleted; failed processing: the next attempt reads the saved video and fails for good
   * with Facebook's reason, see `video` and `followPublishing`; a reel or story never finished: the
   * next attempt finishes the saved video). A video still processing or publishing is not yet the
   * block: the lookup throws a transient error, so the engine looks again later (the saved id, or
   * the page's videos, lead back to the same video) and the block is published only when Facebook
   * says so. A feed video is published once `ready`; a reel's or story's once its
   * `publishing_phase` is `complete`.
   */
  private async processedVideo(
    input: LookupBlockInput,
    videoId: string,
    kind: 'feed' | 'session',
  ): Promise<VideoState | null> {
    const state = await this.videoState(input.credentials, videoId);
    if (state === null) return null;
    if (state.videoStatus === 'error' || state.processing === 'error' || state.publishing === 'error') {
      return null;
    }
    if (kind === 'session' && state.processing === 'not_started') return null;
    const live = kind === 'feed' ? state.videoStatus === 'ready' : state.publishing === 'complete';
    if (live) return state;
    throw new NetworkError(
      'transient',
      `Facebook is still processing video ${videoId} (${state.videoStatus ?? 'unknown status'}); it is published once Facebook says so, looking again later.`,
    );
  }

  /**
   * Until when a publish waits for Facebook's processing: `videoWaitMs`, cut short by the
   * invocation's deadline (with room for the calls after the wait).
   */
  private waitDeadline(input: PublishBlockInput): number {
    const own = Date.now() + this.videoWaitMs;
    return input.deadline ? Math.min(own, input.deadline.getTime() - 2 * this.timeoutMs) : own;
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
    if (!input.parent && input.saved && typeof input.saved.product === 'string') {
      return this.lookupSaved(input, page, input.saved);
    }
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
      // Found, but the block only once Facebook has processed and posted it.
      const state = await this.processedVideo(input, videoId, 'feed');
      if (state === null) continue;
      const postId = state.postId ?? `${page}_${videoId}`;
      return { remoteId: postId, remoteUrl: postUrl(postId), meta: { postId, videoId } };
    }
    return null;
  }

  async edit(input: EditBlockInput): Promise<void> {
    if (input.block.meta.postType === 'story') {
      throw new NetworkError('permanent', 'A Facebook story cannot be edited.');
    }
    if (input.title !== undefined && input.title !== null) {
      throw new NetworkError('permanent', 'Facebook posts have no title to edit.');
    }
    if (input.options && Object.keys(input.options).length > 0) {
      throw new NetworkError('permanent', 'Facebook lets only the text of a published post change.');
    }
    if (input.block.meta.postType === 'reel' && input.block.meta.videoId) {
      // A reel's words are its video's description.
      await this.call(input.credentials, 'POST', `/${encodeURIComponent(input.block.meta.videoId)}`, {
        description: input.content,
      });
      return;
    }
    const id = input.block.meta.commentId ?? input.block.meta.postId ?? input.block.remoteId;
    await this.call(
      input.credentials,
      'POST',
      `/${encodeURIComponent(id)}`,
      { message: input.content },
      [],
      input.block.meta.commentId ? ['pages_manage_engagement'] : undefined,
    );
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    const id = input.block.meta.commentId ?? input.block.meta.postId ?? input.block.remoteId;
    await this.deleteObject(
      input.credentials,
      id,
      input.block.meta.commentId ? ['pages_manage_engagement'] : undefined,
    );
  }

  /** `DELETE /{id}`; an object already gone (`(#100)` subcode 33) counts as deleted, so a retried delete after a lost answer does not fail. */
  private async deleteObject(credentials: NetworkCredentials, id: string, needs?: string[]): Promise<void> {
    try {
      await this.call(credentials, 'DELETE', `/${encodeURIComponent(id)}`, undefined, [], needs);
    } catch (error) {
      if (error instanceof NetworkError && (error as NetworkError & { subcode?: number }).subcode === 33)
        return;
      throw error;
    }
  }

  comments(input: CommentsInput): Promise<CommentsPage> {
    return this.conversation.comments(input);
  }

  findComment(input: CommentInput): Promise<RemoteComment | null> {
    return this.conversation.findComment(input);
  }

  reply(input: ReplyInput): Promise<RemoteComment> {
    return this.conversation.reply(input);
  }

  lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    return this.conversation.lookupReply(input);
  }

  deleteReply(input: DeleteReplyInput): Promise<void> {
    return this.conversation.deleteReply(input);
  }

  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readFacebookMetrics((credentials, path) => this.call(credentials, 'GET', path), input);
  }

  private call(
    credentials: NetworkCredentials,
    method: HttpCall['method'],
    path: string,
    json?: Record<string, unknown>,
    alsoFine: number[] = [],
    needs?: string[],
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
        const error = classifyFacebookFailure(failure, new Date(), needs ?? permissionsFor(method, path));
        if (failure.type === 'answer') {
          const subcode = graphErrorOf(failure.body)?.subcode;
          if (typeof subcode === 'number') Object.assign(error, { subcode });
        }
        return error;
      },
      (answer) => alsoFine.includes(answer.status) && graphErrorOf(answer.body)?.subcode === 33,
    );
  }
}
