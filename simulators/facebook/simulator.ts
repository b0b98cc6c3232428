import {
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimResponse,
  type Simulator,
  snowflake,
  startSimulator,
} from '../framework/framework.ts';
import { GRAPH_ERRORS } from '../framework/meta-graph.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { facebookOAuthSimulator, graphPermissionError, missingScopes } from './oauth.ts';

/**
 * A local Facebook Pages Graph API (any `v…` version in the path), with Graph's shapes, error
 * bodies (`{ error: { message, type, code, error_subcode, fbtrace_id } }`, HTTP 400 for client
 * errors, 500/503 with `is_transient` for its own failures) and awkward parts:
 *
 * - `POST /{page-id}/feed {message, link, attached_media[{media_fbid}]}` → `{ id: "<page>_<post>" }`;
 *   a page's repeat of one of its live posts' text is refused `(#506) Duplicate status message`.
 * - `POST /{page-id}/photos {url, caption|message, published, alt_text_custom}`: the simulator
 *   downloads `url` itself (a URL that does not answer 200 with an image is `(#324) Missing or
 *   invalid image file`); `published=false` keeps an unpublished photo for `attached_media`, else a
 *   post is made at once (`{ id, post_id }`). An unpublished photo can be attached once.
 * - `POST /{page-id}/videos {file_url, description}` → `{ id }`: the video is downloaded and
 *   processed asynchronously (`GET /{video-id}?fields=status,post_id`: `video_status`
 *   `processing`|`ready`|`error`); the post exists from the call, hidden while processing and
 *   removed when processing fails.
 * - `POST /{object-id}/comments {message}`, `GET /{object-id}/comments`, `POST /{id} {message}`
 *   (edit a post or comment), `DELETE /{id}` (`(#100)` with subcode 33 when it does not exist).
 * - `GET /{page-id}/posts?fields=id,message,created_time&since=` newest first (lookups; a video
 *   post shows there once processed), `GET /{page-id}/videos` (processing videos too),
 *   `GET /{id}?fields=reactions.summary(total_count),comments.summary(total_count),shares` and
 *   `GET /{post-id}/insights?metric=post_media_view,post_total_media_view_unique` (metrics; the
 *   deprecated `post_impressions*` answer `(#100) ... valid insights metric`).
 * - Throttling: `(#80001)` (page BUC limit) with `X-Business-Use-Case-Usage`
 *   (`estimated_time_to_regain_access` in minutes) while `setRateLimited` holds; the page's feed
 *   cap spent (`feedLimitMinutes` switch) is `(#341) Feed action request limit reached`.
 * - Sim tokens in a post's, photo's, video's or comment's text, and in edits.
 * - Permissions: a token Facebook Login issued is refused, as Graph refuses it (HTTP 403,
 *   `OAuthException`, code 200 or 10), on a route whose permission it lacks (`PERMISSIONS`).
 *
 * - Reels and video stories: `upload_phase=start` → `{video_id, upload_url}`; the upload URL pulls
 *   the `file_url` header's file; the video then reads `video_status: upload_complete` with
 *   `processing_phase` and `publishing_phase` `not_started` until `upload_phase=finish`, which
 *   publishes it: processing starts then (`processing` → `ready`), and the post goes live (its
 *   `publishing_phase` `complete`) once the video is ready.
 * - Reels: at most `reelsPerDay` (Facebook's 30) published through the API per page in a moving
 *   24 hours; beyond, the finish answers `(#4)` with `estimated_time_to_regain_access` until the
 *   oldest leaves the window (the code is indicative: Facebook documents the cap, not its answer).
 *
 * Switches: `POST /_sim/facebook/switches {videoProcessingMs, videoFails, feedLimitMinutes, reelsPerDay}`.
 * Inspection: `GET /_sim/facebook/posts` (posts with their attachments and comments) and
 * `GET /_sim/facebook/media` (photos and videos with alt text, size and what they are attached to).
 */

/**
 * The permissions each call needs, as Meta's references list them for a page token: publishing
 * to the feed (`/feed`, `/photos`) `pages_manage_posts` and `pages_read_engagement` (Page Feed
 * reference, https://developers.facebook.com/docs/graph-api/reference/page/feed); videos, reels
 * and stories also `pages_show_list` (Reels Publishing guide "Before you start",
 * https://developers.facebook.com/docs/video-api/guides/reels-publishing); comments as the page,
 * their edits and deletes `pages_manage_engagement` (Comments reference,
 * https://developers.facebook.com/docs/graph-api/reference/object/comments); reading the page's
 * posts, videos, stories, comments and objects `pages_read_engagement`; insights `read_insights`
 * with `pages_read_engagement` (Insights reference,
 * https://developers.facebook.com/docs/graph-api/reference/insights).
 */
const PERMISSIONS = {
  post: { scopes: ['pages_manage_posts', 'pages_read_engagement'], code: 200 },
  video: { scopes: ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement'], code: 200 },
  engage: { scopes: ['pages_manage_engagement'], code: 200 },
  read: { scopes: ['pages_read_engagement'], code: 10 },
  insights: { scopes: ['read_insights', 'pages_read_engagement'], code: 10 },
} as const;

const graphError = (
  status: number,
  code: number,
  message: string,
  extra: { subcode?: number; type?: string; transient?: boolean; headers?: SimResponse['headers'] } = {},
): SimResponse => ({
  status,
  body: {
    error: {
      message,
      type: extra.type ?? 'OAuthException',
      code,
      ...(extra.subcode === undefined ? {} : { error_subcode: extra.subcode }),
      ...(extra.transient === undefined ? {} : { is_transient: extra.transient }),
      fbtrace_id: `Asim${snowflake().slice(-10)}`,
    },
  },
  ...(extra.headers ? { headers: extra.headers } : {}),
});

/** `X-Business-Use-Case-Usage` for a page whose calls are throttled for `minutes`. */
const bucUsage = (pageId: string, minutes: number) =>
  JSON.stringify({
    [pageId]: [
      {
        type: 'pages',
        call_count: 100,
        total_cputime: 12,
        total_time: 14,
        estimated_time_to_regain_access: minutes,
      },
    ],
  });

export const facebookErrors: SimErrorBodies = {
  unauthorized: GRAPH_ERRORS.unauthorized,
  refused: () =>
    graphError(
      400,
      368,
      'The action attempted has been deemed abusive or is otherwise disallowed (sim:fail)',
      { subcode: 1390008 },
    ),
  unavailable: () =>
    graphError(503, 2, 'An unexpected error has occurred. Please retry your request later.', {
      transient: true,
    }),
  // A short throttle: the page's business-use-case limit, which states the minutes until access
  // returns. A spent cap: the app's limit (code 4), whose `X-App-Usage` states no time at all.
  rateLimited: (_resetAt, seconds, kind) =>
    kind === 'daily'
      ? graphError(400, 4, '(#4) Application request limit reached', {
          transient: true,
          headers: { 'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 12, total_time: 14 }) },
        })
      : graphError(
          400,
          80001,
          '(#80001) There have been too many calls to this Page account. Wait a bit and try again.',
          {
            headers: { 'x-business-use-case-usage': bucUsage('page', Math.max(1, Math.ceil(seconds / 60))) },
          },
        ),
  badRequest: (message) => graphError(400, 100, `(#100) ${message}`),
  notFound: (message) =>
    graphError(400, 100, `(#100) ${message}`, { subcode: 33, type: 'GraphMethodException' }),
  badGateway: () => ({ status: 502, body: { message: 'Bad Gateway' } }),
};

export interface SimFacebookMedia {
  id: string;
  kind: 'photo' | 'video';
  /** What it was uploaded for: a feed post (`/photos`, `/videos`), a reel or a story. */
  product: 'feed' | 'reel' | 'story';
  pageId: string;
  /** The URL the simulator downloaded it from. */
  sourceUrl: string;
  size: number;
  contentType: string;
  altText: string | null;
  published: boolean;
  /** The post it is attached to, once attached. */
  postId: string | null;
  /**
   * Videos: reels and stories are `uploading` until their bytes arrived, then `uploaded` (Graph's
   * `upload_complete`, processing `not_started`) until `upload_phase=finish` starts processing;
   * feed videos process from their download. Then `processing`, `ready` or `error`.
   */
  status: 'uploading' | 'uploaded' | 'processing' | 'ready' | 'error' | null;
  error: string | null;
}

interface StoredComment {
  id: string;
  postId: string;
  message: string;
  createdAt: number;
  deleted: boolean;
}

interface StoredPost {
  id: string;
  pageId: string;
  message: string;
  link: string | null;
  createdAt: number;
  deleted: boolean;
  /** A video post while its video processes; failed when processing failed. */
  state: 'live' | 'processing' | 'failed';
  /** Stories are not among the page's posts (`GET /{page}/stories` lists them). */
  type: 'post' | 'reel' | 'story';
  attachments: string[];
  comments: string[];
}

export interface FacebookSwitches {
  /** How long a video takes to process after its download (default 300 ms). */
  videoProcessingMs: number;
  /** Video processing fails (an unsupported codec). */
  videoFails: boolean;
  /** The page's feed publishing cap is spent for this many minutes (0: not). */
  feedLimitMinutes: number;
  /** Reels a page may publish through the API in a moving 24 hours (Facebook's 30). */
  reelsPerDay: number;
}

export interface FacebookSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof facebookOAuthSimulator>[0];
  switches?: Partial<FacebookSwitches>;
}

export interface FacebookSimulator extends Simulator {
  media(): SimFacebookMedia[];
  setSwitches(switches: Partial<FacebookSwitches>): void;
}

const DEFAULT_SWITCHES: FacebookSwitches = {
  videoProcessingMs: 300,
  videoFails: false,
  feedLimitMinutes: 0,
  reelsPerDay: 30,
};
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;

/** Graph's time format: `2026-11-25T23:10:00+0000`. */
const graphTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;

/** A Graph boolean parameter: `true`/`false` as JSON or as a form/query string. */
const boolParam = (value: unknown, fallback: boolean) =>
  value === undefined ? fallback : value === true || value === 'true' || value === '1';

/** What the first bytes say a file is (Facebook reads the file, not the `Content-Type`). */
const sniff = (head: Buffer): string => {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (head.subarray(4, 8).toString('latin1') === 'ftyp') {
    return head.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4';
  }
  return 'application/octet-stream';
};

/** Downloads a URL as Facebook does for `url`/`file_url`: null unless it answers 200. */
const fetchMedia = async (url: string): Promise<{ size: number; contentType: string } | null> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      return null;
    }
    let size = 0;
    let head = Buffer.alloc(0);
    for await (const chunk of response.body) {
      const bytes = chunk as Uint8Array;
      if (head.length < 16) head = Buffer.concat([head, Buffer.from(bytes.subarray(0, 16))]);
      size += bytes.byteLength;
    }
    return { size, contentType: sniff(head) };
  } catch {
    return null;
  }
};

export const startFacebookSimulator = async (
  options: FacebookSimulatorOptions = {},
): Promise<FacebookSimulator> => {
  const posts = new Map<string, StoredPost>();
  const comments = new Map<string, StoredComment>();
  const media = new Map<string, SimFacebookMedia>();
  const switches: FacebookSwitches = { ...DEFAULT_SWITCHES, ...(options.switches ?? {}) };
  let feedLimitedUntil = 0;
  const login = facebookOAuthSimulator(options.oauth);
  const timers = new Set<NodeJS.Timeout>();
  const setSwitches = (next: Partial<FacebookSwitches>) => {
    Object.assign(switches, next);
    if (next.feedLimitMinutes !== undefined) {
      feedLimitedUntil = next.feedLimitMinutes > 0 ? Date.now() + next.feedLimitMinutes * 60_000 : 0;
    }
  };
  setSwitches(options.switches ?? {});

  /** Graph takes parameters in the query string, a form body or a JSON body alike. */
  const paramsOf = (ctx: SimContext): Record<string, unknown> => ({
    ...Object.fromEntries(ctx.query),
    ...(objectOf(ctx.body) ?? {}),
  });
  const checkVersion = (ctx: SimContext) => {
    if (!/^v\d+\.\d+$/.test(ctx.params.version ?? '')) {
      throw new SimHttpError(graphError(400, 2500, `Unknown path components: /${ctx.params.version}`));
    }
    // A page token Facebook Login issued acts as its page only.
    const page = ctx.params.page;
    const tokenPage = ctx.token ? login.pageOf(ctx.token) : undefined;
    if (page !== undefined && tokenPage !== undefined && tokenPage !== page) {
      throw new SimHttpError(
        graphError(403, 200, '(#200) The page access token given does not belong to this Page', {
          type: 'OAuthException',
        }),
      );
    }
  };
  /**
   * Graph's permission refusal (HTTP 403; code 200 for publishing and managing, 10 for reading)
   * when a token Facebook Login issued lacks what the call needs. Tokens it did not issue (the
   * tests' fixed page tokens) are not checked.
   */
  const requirePermission = (token: string | null, need: keyof typeof PERMISSIONS) => {
    const { scopes, code } = PERMISSIONS[need];
    const missing = missingScopes(token ? login.grantOf(token) : null, scopes);
    if (missing.length === 0) return;
    const message =
      code === 10
        ? `(#10) This endpoint requires the '${missing.join("', '")}' permission or the 'Page Public Content Access' feature.`
        : need === 'post'
          ? '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission'
          : `(#200) Requires ${missing.join(' and ')} permission to manage the object`;
    throw new SimHttpError(graphPermissionError(code, message));
  };
  const noObject = (id: string) =>
    graphError(
      400,
      100,
      `Unsupported request - method type: post. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      { subcode: 33, type: 'GraphMethodException' },
    );
  const visiblePost = (id: string) => {
    const post = posts.get(id);
    return post && !post.deleted && post.state !== 'failed' ? post : null;
  };
  const liveComment = (id: string) => {
    const comment = comments.get(id);
    return comment && !comment.deleted && visiblePost(comment.postId) ? comment : null;
  };
  const checkFeedCap = (pageId: string) => {
    if (Date.now() < feedLimitedUntil) {
      const minutes = Math.max(1, Math.ceil((feedLimitedUntil - Date.now()) / 60_000));
      throw new SimHttpError(
        graphError(400, 341, '(#341) Feed action request limit reached', {
          headers: { 'x-business-use-case-usage': bucUsage(pageId, minutes) },
        }),
      );
    }
  };
  const messageOf = (value: unknown, field: string): string => {
    if (value === undefined) return '';
    if (typeof value !== 'string')
      throw new SimHttpError(graphError(400, 100, `(#100) Param ${field} must be a string`));
    return value;
  };
  const newPost = (pageId: string, objectId: string, message: string, link: string | null): StoredPost => ({
    id: `${pageId}_${objectId}`,
    pageId,
    message,
    link,
    createdAt: Date.now(),
    deleted: false,
    state: 'live',
    type: 'post',
    attachments: [],
    comments: [],
  });
  const refuseDuplicate = (pageId: string, message: string) => {
    if (message === '') return;
    for (const other of posts.values()) {
      if (
        other.pageId === pageId &&
        !other.deleted &&
        other.state !== 'failed' &&
        other.message === message
      ) {
        throw new SimHttpError(graphError(400, 506, '(#506) Duplicate status message'));
      }
    }
  };
  const storePost = (ctx: SimContext, post: StoredPost) => {
    posts.set(post.id, post);
    ctx.record({
      kind: 'post',
      id: post.id,
      parentId: null,
      rootId: null,
      text: post.message,
      account: post.pageId,
    });
  };

  const createFeedPost = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'post');
    const pageId = ctx.params.page as string;
    const params = paramsOf(ctx);
    const message = messageOf(params.message, 'message');
    const link = params.link === undefined ? null : messageOf(params.link, 'link');
    if (link !== null && !/^https?:\/\/\S+$/.test(link)) {
      return graphError(400, 100, '(#100) The parameter link must be a valid URL');
    }
    let attached: unknown = params.attached_media;
    if (typeof attached === 'string') {
      try {
        attached = JSON.parse(attached);
      } catch {
        return graphError(400, 100, '(#100) param attached_media must be an array');
      }
    }
    if (attached !== undefined && !Array.isArray(attached)) {
      return graphError(400, 100, '(#100) param attached_media must be an array');
    }
    const photoIds: string[] = [];
    for (const [i, entry] of ((attached as unknown[] | undefined) ?? []).entries()) {
      const fbid = objectOf(entry)?.media_fbid;
      const photo = typeof fbid === 'string' ? media.get(fbid) : undefined;
      if (photo?.kind !== 'photo' || photo.pageId !== pageId || photo.published || photo.postId) {
        return graphError(
          400,
          100,
          `(#100) param attached_media[${i}] must be a valid unpublished photo of this Page`,
        );
      }
      photoIds.push(photo.id);
    }
    if (message === '' && link === null && photoIds.length === 0) {
      return graphError(400, 100, '(#100) Missing message or attachment');
    }
    checkFeedCap(pageId);
    const outcome = ctx.screen(message, pageId);
    refuseDuplicate(pageId, message);
    const post = newPost(pageId, snowflake(), message, link);
    post.attachments = photoIds;
    for (const id of photoIds) (media.get(id) as SimFacebookMedia).postId = post.id;
    storePost(ctx, post);
    return { status: 200, body: { id: post.id }, lost: outcome };
  };

  const createPhoto = async (ctx: SimContext): Promise<SimResponse> => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'post');
    const pageId = ctx.params.page as string;
    const params = paramsOf(ctx);
    const url = params.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      return graphError(400, 324, '(#324) Requires upload file');
    }
    const caption = messageOf(params.caption ?? params.message, 'caption');
    const altText =
      params.alt_text_custom === undefined ? null : messageOf(params.alt_text_custom, 'alt_text_custom');
    const published = boolParam(params.published, true);
    if (published) {
      checkFeedCap(pageId);
      refuseDuplicate(pageId, caption);
    }
    const outcome = published ? ctx.screen(caption, pageId) : null;
    const file = await fetchMedia(url);
    if (!file?.contentType.startsWith('image/')) {
      return graphError(400, 324, '(#324) Missing or invalid image file');
    }
    if (file.size > PHOTO_MAX_BYTES) {
      return graphError(400, 100, '(#100) The photo is larger than the 10 MB Facebook accepts');
    }
    const id = snowflake();
    const photo: SimFacebookMedia = {
      id,
      kind: 'photo',
      product: 'feed',
      pageId,
      sourceUrl: url,
      size: file.size,
      contentType: file.contentType,
      altText,
      published,
      postId: null,
      status: null,
      error: null,
    };
    media.set(id, photo);
    if (!published) return { status: 200, body: { id } };
    const post = newPost(pageId, id, caption, null);
    post.attachments = [id];
    photo.postId = post.id;
    storePost(ctx, post);
    return { status: 200, body: { id, post_id: post.id }, lost: outcome };
  };

  const createVideo = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'video');
    const pageId = ctx.params.page as string;
    const params = paramsOf(ctx);
    const url = params.file_url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      return graphError(400, 100, '(#100) Param file_url must be a valid URL');
    }
    const description = messageOf(params.description, 'description');
    checkFeedCap(pageId);
    const outcome = ctx.screen(description, pageId);
    refuseDuplicate(pageId, description);
    const id = snowflake();
    const video: SimFacebookMedia = {
      id,
      kind: 'video',
      product: 'feed',
      pageId,
      sourceUrl: url,
      size: 0,
      contentType: '',
      altText: null,
      published: true,
      postId: null,
      status: 'processing',
      error: null,
    };
    media.set(id, video);
    const post = newPost(pageId, id, description, null);
    post.state = 'processing';
    post.attachments = [id];
    video.postId = post.id;
    storePost(ctx, post);
    void fetchMedia(url).then((file) => {
      const fail = (reason: string) => {
        video.status = 'error';
        video.error = reason;
        post.state = 'failed';
      };
      if (!file) return fail('The video file could not be downloaded from file_url');
      video.size = file.size;
      video.contentType = file.contentType;
      if (!file.contentType.startsWith('video/')) return fail('The file at file_url is not a video');
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (video.status !== 'processing') return;
        if (switches.videoFails) return fail('The video could not be processed: unsupported codec');
        video.status = 'ready';
        if (post.state === 'processing') post.state = 'live';
      }, switches.videoProcessingMs);
      timers.add(timer);
    });
    return { status: 200, body: { id }, lost: outcome };
  };

  const createComment = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'engage');
    const objectId = ctx.params.id as string;
    const post = visiblePost(objectId);
    if (!post) return noObject(objectId);
    const params = paramsOf(ctx);
    const message = messageOf(params.message, 'message');
    if (message === '' && params.attachment_url === undefined) {
      return graphError(400, 100, '(#100) Missing message or attachment');
    }
    const outcome = ctx.screen(message, post.pageId);
    const id = `${post.id.split('_')[1]}_${snowflake()}`;
    comments.set(id, { id, postId: post.id, message, createdAt: Date.now(), deleted: false });
    post.comments.push(id);
    ctx.record({
      kind: 'comment',
      id,
      parentId: post.id,
      rootId: post.id,
      text: message,
      account: post.pageId,
    });
    return { status: 200, body: { id }, lost: outcome };
  };

  const listComments = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const post = visiblePost(ctx.params.id as string);
    if (!post) return noObject(ctx.params.id as string);
    const list = post.comments
      .map((id) => comments.get(id) as StoredComment)
      .filter((comment) => !comment.deleted)
      .sort((a, b) => a.createdAt - b.createdAt);
    if (ctx.query.get('order') === 'reverse_chronological') list.reverse();
    const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), 100);
    return {
      status: 200,
      body: {
        data: list.slice(0, limit).map((comment) => ({
          id: comment.id,
          message: comment.message,
          created_time: graphTime(comment.createdAt),
          from: { id: post.pageId, name: `Page ${post.pageId}` },
        })),
        paging: { cursors: { before: 'MAZDZD', after: 'MQZDZD' } },
      },
    };
  };

  const editObject = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const params = paramsOf(ctx);
    // A reel's (or video's) description is edited on the video: `POST /{video-id} {description}`.
    const video = media.get(ctx.params.id as string);
    const id = video?.kind === 'video' && video.postId ? video.postId : (ctx.params.id as string);
    if (video?.kind === 'video' && params.description !== undefined) params.message = params.description;
    if (posts.get(id)?.type === 'story') {
      return graphError(400, 100, '(#100) A story cannot be edited');
    }
    const comment = liveComment(id);
    const post = comment ? null : visiblePost(id);
    if (!comment && !post) return noObject(id);
    // A comment is the page's engagement; a post (or video description) its content.
    requirePermission(ctx.token, comment ? 'engage' : 'post');
    if (params.message === undefined) return graphError(400, 100, '(#100) Missing message');
    const message = messageOf(params.message, 'message');
    if (comment) {
      const root = posts.get(comment.postId) as StoredPost;
      const outcome = ctx.screen(message, root.pageId);
      comment.message = message;
      ctx.record({
        kind: 'edit',
        id,
        parentId: root.id,
        rootId: root.id,
        text: message,
        account: root.pageId,
      });
      return { status: 200, body: { success: true }, lost: outcome };
    }
    const target = post as StoredPost;
    const outcome = ctx.screen(message, target.pageId);
    target.message = message;
    ctx.record({ kind: 'edit', id, parentId: null, rootId: null, text: message, account: target.pageId });
    return { status: 200, body: { success: true }, lost: outcome };
  };

  const deleteObject = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const id = ctx.params.id as string;
    const comment = liveComment(id);
    requirePermission(ctx.token, comment ? 'engage' : 'post');
    if (comment) {
      comment.deleted = true;
      const root = posts.get(comment.postId) as StoredPost;
      ctx.record({
        kind: 'delete',
        id,
        parentId: root.id,
        rootId: root.id,
        text: null,
        account: root.pageId,
      });
      return { status: 200, body: { success: true } };
    }
    const post = posts.get(id);
    const video = media.get(id);
    const target = post ?? (video?.kind === 'video' && video.postId ? posts.get(video.postId) : undefined);
    if (!target || target.deleted) return noObject(id);
    target.deleted = true;
    if (video?.kind === 'video' && video.status === 'processing') video.status = 'error';
    ctx.record({
      kind: 'delete',
      id: target.id,
      parentId: null,
      rootId: null,
      text: null,
      account: target.pageId,
    });
    return { status: 200, body: { success: true } };
  };

  /** The fields a read asks for: `a,b.summary(total_count).limit(0)` → `a`, `b`. */
  const fieldsOf = (ctx: SimContext) =>
    new Set(
      (ctx.query.get('fields') ?? '')
        .split(/,(?![^(]*\))/)
        .map((field) => field.trim().split(/[.{]/)[0] as string)
        .filter(Boolean),
    );

  const readObject = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const id = ctx.params.id as string;
    const fields = fieldsOf(ctx);
    const video = media.get(id);
    if (video?.kind === 'video') {
      const post = video.postId ? posts.get(video.postId) : undefined;
      // A reel's or story's upload exists before its post; a feed video is its post.
      if (post ? post.deleted : video.product === 'feed') return noObject(id);
      const body: Record<string, unknown> = { id };
      if (fields.has('status')) {
        // Until `upload_phase=finish`, an uploaded reel or story reads `upload_complete` with its
        // processing `not_started` (never `ready`): what integrations observe on Graph (see
        // shared notes, "Reels / video stories"; Reels guide: init, upload, then publish with
        // finish, https://developers.facebook.com/documentation/video-api/guides/reels-publishing).
        body.status = {
          video_status: video.status === 'uploaded' ? 'upload_complete' : video.status,
          uploading_phase: { status: video.status === 'uploading' ? 'in_progress' : 'complete' },
          processing_phase: {
            status:
              video.status === 'uploading' || video.status === 'uploaded'
                ? 'not_started'
                : video.status === 'error'
                  ? 'error'
                  : video.status === 'ready'
                    ? 'complete'
                    : 'in_progress',
            ...(video.error ? { errors: [{ code: 1363040, message: video.error }] } : {}),
          },
          publishing_phase: {
            status: post?.state === 'live' ? 'complete' : post ? 'in_progress' : 'not_started',
          },
        };
      }
      if (fields.has('post_id') && video.postId) body.post_id = video.postId;
      if (fields.has('description') && post) body.description = post.message;
      return { status: 200, body };
    }
    const comment = liveComment(id);
    if (comment) {
      const m = simulatorMetrics('facebook', comment.id, new Date(comment.createdAt));
      const body: Record<string, unknown> = { id };
      if (fields.has('message')) body.message = comment.message;
      if (fields.has('created_time')) body.created_time = graphTime(comment.createdAt);
      if (fields.has('like_count')) body.like_count = m.likes ?? 0;
      if (fields.has('comment_count')) body.comment_count = m.comments ?? 0;
      return { status: 200, body };
    }
    const post = visiblePost(id);
    if (post?.state !== 'live') return noObject(id);
    const m = simulatorMetrics('facebook', post.id, new Date(post.createdAt));
    const body: Record<string, unknown> = { id };
    if (fields.has('message') && post.message !== '') body.message = post.message;
    if (fields.has('created_time')) body.created_time = graphTime(post.createdAt);
    if (fields.has('permalink_url')) body.permalink_url = `https://www.facebook.com/${post.id}`;
    if (fields.has('reactions'))
      body.reactions = { data: [], summary: { total_count: m.likes ?? 0, viewer_reaction: 'NONE' } };
    if (fields.has('comments')) {
      body.comments = {
        data: [],
        summary: {
          order: 'ranked',
          total_count: (m.comments ?? 0) + post.comments.filter((c) => !comments.get(c)?.deleted).length,
          can_comment: true,
        },
      };
    }
    // Graph leaves `shares` out while a post has none.
    if (fields.has('shares') && (m.shares ?? 0) > 0) body.shares = { count: m.shares };
    return { status: 200, body };
  };

  const insights = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'insights');
    const post = visiblePost(ctx.params.id as string);
    if (post?.state !== 'live') return noObject(ctx.params.id as string);
    const metrics = (ctx.query.get('metric') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    const m = simulatorMetrics('facebook', post.id, new Date(post.createdAt));
    const values: Record<string, number> = {
      post_media_view: m.views ?? 0,
      post_total_media_view_unique: Math.floor((m.views ?? 0) * 0.7),
      post_clicks: Math.floor((m.likes ?? 0) * 0.6),
    };
    for (const metric of metrics) {
      if (!(metric in values)) {
        return graphError(400, 100, `(#100) The value must be a valid insights metric`);
      }
    }
    return {
      status: 200,
      body: {
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: values[name] }],
          title: name,
          description: name,
          id: `${post.id}/insights/${name}/lifetime`,
        })),
        paging: {},
      },
    };
  };

  const listPosts = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const pageId = ctx.params.page as string;
    const since = Number(ctx.query.get('since') ?? 0) * 1000;
    const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), 100);
    const fields = fieldsOf(ctx);
    const data = [...posts.values()]
      .filter(
        (post) => post.pageId === pageId && !post.deleted && post.state === 'live' && post.type !== 'story',
      )
      .filter((post) => Math.floor(post.createdAt / 1000) * 1000 >= since)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit)
      .map((post) => ({
        id: post.id,
        ...(fields.has('message') && post.message !== '' ? { message: post.message } : {}),
        ...(fields.has('created_time') || fields.size === 0
          ? { created_time: graphTime(post.createdAt) }
          : {}),
      }));
    return { status: 200, body: { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIT' } } } };
  };

  /** After its bytes arrived, a video processes for `videoProcessingMs`; its post goes live when it is ready. */
  const processVideo = (video: SimFacebookMedia) => {
    video.status = 'processing';
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (video.status !== 'processing') return;
      const post = video.postId ? posts.get(video.postId) : undefined;
      if (switches.videoFails) {
        video.status = 'error';
        video.error = 'The video could not be processed: unsupported codec';
        if (post) post.state = 'failed';
        return;
      }
      video.status = 'ready';
      if (post?.state === 'processing') post.state = 'live';
    }, switches.videoProcessingMs);
    timers.add(timer);
  };

  /**
   * `POST /{page-id}/video_reels` and `/video_stories`: `upload_phase=start` opens an upload
   * session (`{ video_id, upload_url }` on the rupload host: here the simulator itself);
   * `upload_phase=finish` with `video_id` publishes the uploaded video (reels:
   * `video_state=PUBLISHED` and `description`; stories answer `post_id`).
   */
  const uploadSessions =
    (product: 'reel' | 'story') =>
    (ctx: SimContext): SimResponse => {
      checkVersion(ctx);
      requirePermission(ctx.token, 'video');
      const pageId = ctx.params.page as string;
      const params = paramsOf(ctx);
      if (params.upload_phase === 'start') {
        const id = snowflake();
        media.set(id, {
          id,
          kind: 'video',
          product,
          pageId,
          sourceUrl: '',
          size: 0,
          contentType: '',
          altText: null,
          published: false,
          postId: null,
          status: 'uploading',
          error: null,
        });
        const host = ctx.headers.host ?? '127.0.0.1';
        return {
          status: 200,
          body: { video_id: id, upload_url: `http://${host}/video-upload/${ctx.params.version}/${id}` },
        };
      }
      if (params.upload_phase !== 'finish') {
        return graphError(400, 100, '(#100) upload_phase must be one of start, finish');
      }
      const video = typeof params.video_id === 'string' ? media.get(params.video_id) : undefined;
      if (!video || video.product !== product || video.pageId !== pageId) {
        return graphError(400, 100, '(#100) Param video_id must be a video uploaded for this endpoint');
      }
      if (video.postId) return graphError(400, 100, '(#100) This video has already been published');
      if (video.status === 'uploading') {
        return graphError(400, 100, '(#100) The video has not been uploaded yet');
      }
      if (video.status === 'error') return graphError(400, 100, `(#100) ${video.error}`);
      if (video.status !== 'uploaded')
        return graphError(400, 100, '(#100) This video has already been finished');
      if (product === 'reel' && params.video_state !== 'PUBLISHED') {
        return graphError(400, 100, '(#100) Param video_state must be PUBLISHED, DRAFT or SCHEDULED');
      }
      const description = product === 'reel' ? messageOf(params.description, 'description') : '';
      checkFeedCap(pageId);
      if (product === 'reel') {
        // Facebook's reels cap: 30 published through the API in a moving 24 hours, per page.
        const day = Date.now() - 86_400_000;
        const recent = [...posts.values()]
          .filter((p) => p.pageId === pageId && p.type === 'reel' && p.createdAt > day)
          .sort((a, b) => a.createdAt - b.createdAt);
        if (recent.length >= switches.reelsPerDay) {
          const oldest = recent[recent.length - switches.reelsPerDay]?.createdAt ?? Date.now();
          const minutes = Math.max(1, Math.ceil((oldest + 86_400_000 - Date.now()) / 60_000));
          return graphError(
            400,
            4,
            `(#4) This Page has published ${switches.reelsPerDay} reels through the API in the last 24 hours`,
            { headers: { 'x-business-use-case-usage': bucUsage(pageId, minutes) } },
          );
        }
      }
      const outcome = ctx.screen(description, pageId);
      const post = newPost(pageId, product === 'reel' ? video.id : snowflake(), description, null);
      post.type = product;
      // Processing starts with the finish; the post goes live once the video is ready.
      post.state = 'processing';
      post.attachments = [video.id];
      video.postId = post.id;
      video.published = true;
      storePost(ctx, post);
      processVideo(video);
      return {
        status: 200,
        body: product === 'story' ? { success: true, post_id: post.id } : { success: true },
        lost: outcome,
      };
    };

  /** `POST https://rupload.facebook.com/video-upload/{version}/{video-id}` with `Authorization: OAuth …` and a `file_url` header: Facebook pulls the file. */
  const uploadVideoBytes = async (ctx: SimContext): Promise<SimResponse> => {
    const auth = /^OAuth\s+(\S+)$/i.exec(String(ctx.headers.authorization ?? ''));
    if (!auth) return facebookErrors.unauthorized('missing');
    if (auth[1]?.startsWith('expired')) return facebookErrors.unauthorized('expired');
    if (auth[1]?.startsWith('revoked')) return facebookErrors.unauthorized('revoked');
    const refusal = login.refusal(auth[1] as string);
    if (refusal) return facebookErrors.unauthorized(refusal);
    requirePermission(auth[1] as string, 'video');
    const video = media.get(ctx.params.id as string);
    if (video?.kind !== 'video' || video.product === 'feed') return noObject(ctx.params.id as string);
    if (video.status !== 'uploading') {
      return graphError(400, 100, '(#100) The video has already been uploaded');
    }
    const url = ctx.headers.file_url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      return graphError(400, 100, '(#100) Send the file in the body or its address in the file_url header');
    }
    const file = await fetchMedia(url);
    if (!file?.contentType.startsWith('video/')) {
      return graphError(
        400,
        6000,
        'There was a problem uploading your video file: it could not be downloaded or is not a video',
      );
    }
    video.sourceUrl = url;
    video.size = file.size;
    video.contentType = file.contentType;
    // Uploaded, not processed: processing waits for `upload_phase=finish`.
    video.status = 'uploaded';
    return { status: 200, body: { success: true } };
  };

  /** `POST /{page-id}/photo_stories {photo_id}`: an unpublished photo of the page becomes a story. */
  const photoStory = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'video');
    const pageId = ctx.params.page as string;
    const photoId = paramsOf(ctx).photo_id;
    const photo = typeof photoId === 'string' ? media.get(photoId) : undefined;
    if (photo?.kind !== 'photo' || photo.pageId !== pageId || photo.published || photo.postId) {
      return graphError(400, 100, '(#100) Param photo_id must be an unpublished photo of this Page');
    }
    checkFeedCap(pageId);
    const post = newPost(pageId, snowflake(), '', null);
    post.type = 'story';
    post.attachments = [photo.id];
    photo.product = 'story';
    photo.postId = post.id;
    storePost(ctx, post);
    return { status: 200, body: { success: true, post_id: post.id } };
  };

  /** `GET /{page-id}/stories`: the page's stories, newest first. */
  const listStories = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const pageId = ctx.params.page as string;
    const data = [...posts.values()]
      .filter(
        (post) => post.pageId === pageId && post.type === 'story' && !post.deleted && post.state !== 'failed',
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((post) => {
        const file = media.get(post.attachments[0] as string) as SimFacebookMedia;
        return {
          post_id: post.id,
          status: post.state === 'live' ? 'PUBLISHED' : 'PROCESSING',
          creation_time: String(Math.floor(post.createdAt / 1000)),
          media_type: file.kind,
          media_id: file.id,
          url: `https://www.facebook.com/stories/${pageId}/${post.id}`,
        };
      });
    return { status: 200, body: { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIT' } } } };
  };

  /** The page's videos, processing ones too (`GET /{page-id}/videos`), newest first. */
  const listVideos = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const pageId = ctx.params.page as string;
    const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), 100);
    const data = [...media.values()]
      .filter((m) => m.kind === 'video' && m.pageId === pageId && m.status !== 'error' && m.postId)
      .map((m) => ({ video: m, post: posts.get(m.postId as string) as StoredPost }))
      .filter(({ post }) => !post.deleted)
      .sort((a, b) => b.post.createdAt - a.post.createdAt)
      .slice(0, limit)
      .map(({ video, post }) => ({
        id: video.id,
        ...(post.message !== '' ? { description: post.message } : {}),
        created_time: graphTime(post.createdAt),
      }));
    return { status: 200, body: { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIT' } } } };
  };

  const simulator = await startSimulator({
    name: 'Facebook',
    errors: facebookErrors,
    port: options.port,
    holdMs: options.holdMs,
    oauth: login,
    onReset: () => {
      posts.clear();
      comments.clear();
      media.clear();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      Object.assign(switches, DEFAULT_SWITCHES);
      feedLimitedUntil = 0;
      setSwitches(options.switches ?? {});
    },
    routes: [
      {
        method: 'GET',
        path: '/_sim/facebook/posts',
        auth: false,
        handler: () => ({
          status: 200,
          body: {
            data: [...posts.values()].map((post) => ({
              id: post.id,
              pageId: post.pageId,
              message: post.message,
              link: post.link,
              state: post.state,
              deleted: post.deleted,
              createdAt: new Date(post.createdAt).toISOString(),
              attachments: post.attachments.map((id) => ({ ...(media.get(id) as SimFacebookMedia) })),
              comments: post.comments.map((id) => ({ ...(comments.get(id) as StoredComment) })),
            })),
          },
        }),
      },
      {
        method: 'GET',
        path: '/_sim/facebook/media',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...media.values()] } }),
      },
      {
        method: 'POST',
        path: '/_sim/facebook/switches',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body);
          const known: Record<string, string> = {
            videoProcessingMs: 'number',
            videoFails: 'boolean',
            feedLimitMinutes: 'number',
            reelsPerDay: 'number',
          };
          if (!body) return { status: 400, body: { message: 'Send a JSON object of switches' } };
          for (const [key, value] of Object.entries(body)) {
            if (known[key] === undefined || typeof value !== known[key]) {
              return { status: 400, body: { message: `Unknown switch or bad value: ${key}` } };
            }
          }
          setSwitches(body as Partial<FacebookSwitches>);
          return { status: 204 };
        },
      },
      { method: 'POST', path: '/:version/:page/feed', handler: createFeedPost },
      { method: 'GET', path: '/:version/:page/posts', handler: listPosts },
      { method: 'GET', path: '/:version/:page/feed', handler: listPosts },
      { method: 'POST', path: '/:version/:page/photos', handler: createPhoto },
      { method: 'POST', path: '/:version/:page/videos', handler: createVideo },
      { method: 'GET', path: '/:version/:page/videos', handler: listVideos },
      { method: 'POST', path: '/:version/:page/video_reels', handler: uploadSessions('reel') },
      { method: 'POST', path: '/:version/:page/video_stories', handler: uploadSessions('story') },
      { method: 'POST', path: '/:version/:page/photo_stories', handler: photoStory },
      { method: 'GET', path: '/:version/:page/stories', handler: listStories },
      { method: 'POST', path: '/video-upload/:version/:id', auth: false, handler: uploadVideoBytes },
      { method: 'POST', path: '/:version/:id/comments', handler: createComment },
      { method: 'GET', path: '/:version/:id/comments', handler: listComments },
      { method: 'GET', path: '/:version/:id/insights', handler: insights },
      { method: 'GET', path: '/:version/:id', handler: readObject },
      { method: 'POST', path: '/:version/:id', handler: editObject },
      { method: 'DELETE', path: '/:version/:id', handler: deleteObject },
    ],
  });
  const stop = simulator.stop.bind(simulator);
  return Object.assign(simulator, {
    media: () => [...media.values()].map((m) => ({ ...m })),
    setSwitches,
    stop: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await stop();
    },
  });
};
