import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimResponse,
  type Simulator,
  startSimulator,
} from '../framework/framework.ts';
import { GRAPH_ERRORS } from '../framework/meta-graph.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { instagramOAuthSimulator } from './oauth.ts';

/**
 * A local Instagram API with Instagram Login (graph.instagram.com, any `/vNN.N` version): content
 * publishing through containers, comments, the media list, the publishing limit and insights.
 *
 * - `POST /{ig-user-id}/media` makes a container: `image_url` (JPEG only; Instagram fetches it at
 *   once, so a URL that does not answer 200 or a file that is not a JPEG is refused right away:
 *   9004/2207052 and 36001/2207005), `video_url` with `media_type` REELS or STORIES (fetched in the
 *   background: the container is IN_PROGRESS, then FINISHED, or ERROR with the reason in `status`
 *   when the URL fails or the file is not MP4/MOV), `media_type=STORIES` with an image,
 *   `is_carousel_item=true` items (videos as `media_type=VIDEO`) and a `CAROUSEL` container with
 *   2 to 10 `children`; `caption`, `alt_text` (images), `collaborators` (≤ 3), `location_id`,
 *   `share_to_feed` (reels). Parameters come as the query string, a form or a JSON body.
 * - `GET /{container}?fields=status_code,status`: IN_PROGRESS, FINISHED, ERROR, EXPIRED (24 hours
 *   after creation, or at once with the `expireContainers` switch), PUBLISHED.
 * - `POST /{ig-user-id}/media_publish` `creation_id`: 9007/2207027 while the container is not
 *   ready, -2/2207020 once it expired, 9/2207042 once the account published `publishLimit` (50)
 *   posts in the last 24 hours (rolling). The sim tokens apply here to the caption (and to the
 *   comment text on comments): `sim:fail` is Instagram's 4/2207051 refusal.
 * - `GET /{ig-user-id}/content_publishing_limit`, `GET /{ig-user-id}/media` and `/stories` (newest
 *   first), `GET /{media}` (fields), `GET /{media}/insights?metric=…`, `POST|GET /{media}/comments`,
 *   `GET /{comment}`, `DELETE /{comment}`. A post cannot be deleted (Instagram Login has no such
 *   call: 100/33, as Graph answers an unsupported delete), nor a caption or comment edited.
 * - A token the OAuth half issued must hold the permissions each call needs (see `IG_BASIC`…):
 *   Graph's 403 code 10 otherwise. It holds what its consent granted (`sim_scopes` narrows it),
 *   less what `POST /_sim/oauth/permissions` took back. Other tokens are not checked.
 * - Errors are Graph's `{ error: { message, type, code, error_subcode, fbtrace_id } }`; the rate
 *   limit is Instagram's business-use-case throttle (code 80002, HTTP 400) with the
 *   `X-Business-Use-Case-Usage` header (`estimated_time_to_regain_access`, minutes).
 *
 * Inspection (no auth): `GET /_sim/instagram/posts` (posts with their attachments and comments),
 * `GET /_sim/instagram/containers`, `POST /_sim/instagram/switches` `{ expireContainers?,
 * capFullForSeconds?, processingMs?, listLagMs? }`. The `/media`, `/stories` and `/comments` lists
 * show a new post or comment only `listLagMs` after it was made (default 3 s), as a replica would.
 */

const FBTRACE = 'AsimIgTrace0';

export const instagramError = (
  status: number,
  message: string,
  code: number,
  subcode?: number,
  extra: Record<string, unknown> = {},
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: {
    error: {
      message,
      type: 'OAuthException',
      code,
      ...(subcode === undefined ? {} : { error_subcode: subcode }),
      ...extra,
      fbtrace_id: FBTRACE,
    },
  },
  ...(headers ? { headers } : {}),
});

/** The business-use-case usage header Instagram sends with its throttle answers. */
export const bucUsageHeader = (account: string, minutes: number, callCount = 100) =>
  JSON.stringify({
    [account]: [
      {
        type: 'instagram',
        call_count: callCount,
        total_cputime: 12,
        total_time: 20,
        estimated_time_to_regain_access: minutes,
      },
    ],
  });

export const instagramErrors: SimErrorBodies = {
  unauthorized: GRAPH_ERRORS.unauthorized,
  refused: () =>
    instagramError(400, 'We restrict certain activity to protect our community.', 4, 2207051, {
      is_transient: false,
      error_user_title: 'Action is blocked',
      error_user_msg: 'We restrict certain activity to protect our community. (sim:fail)',
    }),
  unavailable: () =>
    instagramError(503, 'Service temporarily unavailable', 2, undefined, { is_transient: true }),
  // A spent cap: the app's limit (code 4), whose `X-App-Usage` states no time; a short throttle:
  // the account's business-use-case limit, with the minutes until access returns.
  rateLimited: (_resetAt, seconds, kind) =>
    kind === 'daily'
      ? instagramError(
          400,
          'Application request limit reached',
          4,
          undefined,
          { is_transient: true },
          { 'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 20, total_time: 25 }) },
        )
      : instagramError(
          400,
          'Application request limit reached',
          80002,
          2446079,
          { is_transient: true },
          { 'x-business-use-case-usage': bucUsageHeader('0', Math.max(1, Math.ceil(seconds / 60))) },
        ),
  badRequest: (message) => instagramError(400, message, 100),
  notFound: (message) => instagramError(400, `Unknown path components: ${message}`, 2500),
};

/**
 * The permissions of Instagram API with Instagram Login, and which call needs which (each endpoint
 * reference's Requirements table, developers.facebook.com/docs/instagram-platform/…): every call
 * needs `instagram_business_basic`; containers, their status, `media_publish` and
 * `content_publishing_limit` need `instagram_business_content_publish` (IG Container, IG User Media
 * Publish, Content Publishing); comments (`/{media}/comments`, an IG Comment, its delete) need
 * `instagram_business_manage_comments` (Comment Moderation, IG Comment); `/{media}/insights` needs
 * `instagram_business_manage_insights` (Insights); the media list, stories and a media node need
 * basic only.
 */
export const IG_BASIC = 'instagram_business_basic';
export const IG_PUBLISH = 'instagram_business_content_publish';
export const IG_COMMENTS = 'instagram_business_manage_comments';
export const IG_INSIGHTS = 'instagram_business_manage_insights';

/**
 * Graph's refusal of a call the token's permissions do not cover, as graph.instagram.com sends it:
 * HTTP 403, code 10, type `IGApiException`, "Application does not have permission for this
 * action" (seen on graph.instagram.com: https://github.com/Dymantic/laravel-instagram-feed/issues/60).
 * It does not say which permission is missing.
 */
export const instagramPermissionError = (): SimResponse => ({
  status: 403,
  body: {
    error: {
      message: 'Application does not have permission for this action',
      type: 'IGApiException',
      code: 10,
      fbtrace_id: FBTRACE,
    },
  },
});

const missingObject = (id: string, verb = 'get') =>
  instagramError(
    400,
    `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    100,
    33,
  );

type ContainerKind = 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';
type StatusCode = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

export interface SimAttachment {
  kind: 'image' | 'video';
  url: string;
  /** Bytes Instagram fetched from the URL. */
  size: number;
  altText: string | null;
}

interface Container {
  id: string;
  account: string;
  kind: ContainerKind;
  carouselItem: boolean;
  caption: string;
  attachment: SimAttachment | null;
  children: string[];
  collaborators: string[];
  locationId: string | null;
  shareToFeed: boolean | null;
  createdAt: number;
  readyAt: number;
  /** Set when processing failed: Instagram's reason, with its subcode. */
  error: { message: string; subcode: number } | null;
  /** True until a video's bytes were fetched. */
  fetching: boolean;
  expired: boolean;
  publishedAs: string | null;
}

interface SimComment {
  id: string;
  mediaId: string;
  account: string;
  text: string;
  createdAt: number;
  deleted: boolean;
}

interface SimMedia {
  id: string;
  account: string;
  containerId: string;
  productType: 'FEED' | 'REELS' | 'STORY';
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  caption: string;
  shortcode: string;
  attachments: SimAttachment[];
  collaborators: string[];
  locationId: string | null;
  /** Reels: also shown in the feed (Instagram's default: true). */
  shareToFeed: boolean | null;
  createdAt: number;
  comments: SimComment[];
}

export interface InstagramSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof instagramOAuthSimulator>[0];
  /** How long a container stays IN_PROGRESS after its media arrived (default 300 ms). */
  processingMs?: number;
  /** Publications per account per rolling 24 hours (Instagram: 50). */
  publishLimit?: number;
  /** Container lifetime (Instagram: 24 hours). */
  containerTtlMs?: number;
  /**
   * Default true: `content_publishing_limit` reports `config` (`quota_total`, `quota_duration`)
   * when asked for it; false models an answer without it (only `quota_usage`).
   */
  reportsQuotaConfig?: boolean;
  /**
   * How long a new post or comment stays out of the account's `/media`, `/stories` and a post's
   * `/comments` lists (default `DEFAULT_INSTAGRAM_LIST_LAG_MS`; 0: listed at once).
   */
  listLagMs?: number;
}

/**
 * Graph's edges are read from replicas: a post (or comment) just published may be missing from the
 * lists for a moment. Instagram documents no bound (a guess, issue 26): the simulator lags 3 s, well
 * within the client's consistency window, so a lookup right after a lost answer finds nothing.
 */
export const DEFAULT_INSTAGRAM_LIST_LAG_MS = 3_000;

/** Graph's timestamp format: `2026-11-25T23:10:42+0000`. */
export const graphTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;

const DAY_MS = 86_400_000;
const SHORTCODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

let idCounter = 0n;
/** Instagram's 17-digit ids (`17895695668004550`), increasing. */
const nextId = () => {
  idCounter += 1n;
  return (
    17_800_000_000_000_000n +
    BigInt(Date.now() % 1_000_000_000) * 1000n +
    (idCounter % 1000n)
  ).toString();
};
const shortcodeOf = (id: string) => {
  let n = BigInt(id);
  let out = '';
  while (n > 0n) {
    out = SHORTCODE_ALPHABET[Number(n % 64n)] + out;
    n /= 64n;
  }
  return `C${out}`;
};

const isJpeg = (head: Buffer) => head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
const isMp4OrMov = (head: Buffer) => head.length >= 8 && head.subarray(4, 8).toString('latin1') === 'ftyp';

/** Fetches a URL as Instagram's crawler would: the status, the first bytes and the size (streamed). */
const fetchMedia = (
  url: string,
  timeoutMs = 20_000,
): Promise<{ status: number; head: Buffer; size: number }> =>
  new Promise((resolve) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      resolve({ status: 0, head: Buffer.alloc(0), size: 0 });
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      resolve({ status: 0, head: Buffer.alloc(0), size: 0 });
      return;
    }
    const send = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(parsed, { method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      let headLength = 0;
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (headLength < 16) {
          chunks.push(chunk);
          headLength += chunk.length;
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, head: Buffer.concat(chunks), size }));
      res.on('error', () => resolve({ status: 0, head: Buffer.alloc(0), size: 0 }));
    });
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('error', () => resolve({ status: 0, head: Buffer.alloc(0), size: 0 }));
    req.end();
  });

/** Parameters from the query string, a form or a JSON body (Graph takes all three). */
const paramsOf = (ctx: SimContext): Record<string, unknown> => ({
  ...Object.fromEntries(ctx.query),
  ...(objectOf(ctx.body) ?? {}),
});

const listOf = (value: unknown): string[] | null => {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string') ? (value as string[]) : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      return Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')
        ? (parsed as string[])
        : null;
    } catch {
      return null;
    }
  }
  return trimmed
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
};

const boolOf = (value: unknown): boolean | null =>
  value === true || value === 'true' ? true : value === false || value === 'false' ? false : null;

export const startInstagramSimulator = async (
  options: InstagramSimulatorOptions = {},
): Promise<Simulator> => {
  const oauth = instagramOAuthSimulator(options.oauth);
  /**
   * A token the OAuth half issued must hold every permission the call needs (Graph's code 10
   * otherwise); tokens it did not issue are not checked.
   */
  const requirePermissions = (ctx: SimContext, ...needed: string[]) => {
    const held = ctx.token ? oauth.scopesOf(ctx.token) : null;
    if (held !== null && needed.some((permission) => !held.includes(permission))) {
      throw new SimHttpError(instagramPermissionError());
    }
  };
  const containers = new Map<string, Container>();
  const media = new Map<string, SimMedia>();
  const comments = new Map<string, SimComment>();
  /** Publication times per account, for the rolling 24-hour cap. */
  const published = new Map<string, number[]>();
  const defaults = {
    processingMs: options.processingMs ?? 300,
    publishLimit: options.publishLimit ?? 50,
    containerTtlMs: options.containerTtlMs ?? DAY_MS,
    listLagMs: options.listLagMs ?? DEFAULT_INSTAGRAM_LIST_LAG_MS,
  };
  let processingMs = defaults.processingMs;
  let listLagMs = defaults.listLagMs;
  /** Whether a list read now shows what was made at `createdAt` (the lists lag behind). */
  const listed = (createdAt: number) => Date.now() - createdAt >= listLagMs;
  /** The cap is spent for every account until then (the `capFullForSeconds` switch). */
  let capFullUntil = 0;

  const checkVersion = (ctx: SimContext) => {
    if (!/^v\d+\.\d+$/.test(ctx.params.version ?? '')) {
      throw new SimHttpError(instagramErrors.notFound(ctx.path));
    }
  };

  const statusOf = (container: Container, now = Date.now()): StatusCode => {
    if (container.publishedAs) return 'PUBLISHED';
    if (container.expired || now - container.createdAt >= defaults.containerTtlMs) return 'EXPIRED';
    if (container.error) return 'ERROR';
    if (container.kind === 'CAROUSEL') {
      const children = container.children.map((id) => containers.get(id) as Container);
      const states = children.map((child) => statusOf(child, now));
      if (states.includes('ERROR')) return 'ERROR';
      if (states.includes('EXPIRED')) return 'EXPIRED';
      if (states.some((s) => s === 'IN_PROGRESS') || now < container.readyAt) return 'IN_PROGRESS';
      return 'FINISHED';
    }
    if (container.fetching || now < container.readyAt) return 'IN_PROGRESS';
    return 'FINISHED';
  };

  const errorOf = (container: Container): { message: string; subcode: number } | null => {
    if (container.error) return container.error;
    for (const id of container.children) {
      const child = containers.get(id);
      if (child?.error) return child.error;
    }
    return null;
  };

  const statusText = (container: Container, code: StatusCode) => {
    if (code === 'ERROR') {
      const error = errorOf(container);
      return `Error: ${error?.message ?? 'Unknown error'} (error code ${error?.subcode ?? 2207001})`;
    }
    if (code === 'EXPIRED') return 'Expired: the container was not published within 24 hours.';
    return code === 'IN_PROGRESS' ? 'In Progress' : code === 'PUBLISHED' ? 'Published' : 'Finished';
  };

  const windowOf = (account: string, now = Date.now()) => {
    const kept = (published.get(account) ?? []).filter((at) => now - at < DAY_MS);
    published.set(account, kept);
    return kept;
  };
  const capSpent = (account: string, now = Date.now()) =>
    now < capFullUntil || windowOf(account, now).length >= defaults.publishLimit;
  const quotaUsage = (account: string) =>
    Date.now() < capFullUntil ? defaults.publishLimit : windowOf(account).length;

  const createContainer = async (ctx: SimContext): Promise<SimResponse> => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_PUBLISH);
    const account = ctx.params.user as string;
    const p = paramsOf(ctx);
    const mediaType = typeof p.media_type === 'string' ? p.media_type.toUpperCase() : null;
    const carouselItem = boolOf(p.is_carousel_item) === true;
    const imageUrl = typeof p.image_url === 'string' ? p.image_url : null;
    const videoUrl = typeof p.video_url === 'string' ? p.video_url : null;
    const caption = p.caption === undefined ? '' : String(p.caption);
    const altText = typeof p.alt_text === 'string' ? p.alt_text : null;
    const collaborators = listOf(p.collaborators);
    const locationId = typeof p.location_id === 'string' && p.location_id !== '' ? p.location_id : null;
    const shareToFeed = p.share_to_feed === undefined ? null : boolOf(p.share_to_feed);
    const invalid = (message: string, subcode?: number) => instagramError(400, message, 100, subcode);

    if (collaborators === null) return invalid('(#100) collaborators must be a list of usernames');
    if (collaborators.length > 3) return invalid('(#100) A post can have at most 3 collaborators', 2207062);
    if ([...caption].length > 2200)
      return invalid('(#100) The caption is longer than 2200 characters', 2207010);
    if (altText !== null && altText.length > 1000)
      return invalid('(#100) alt_text is longer than 1000 characters');
    if (p.share_to_feed !== undefined && shareToFeed === null)
      return invalid('(#100) share_to_feed must be a boolean');

    const base = {
      id: nextId(),
      account,
      carouselItem,
      caption,
      children: [] as string[],
      collaborators,
      locationId,
      shareToFeed,
      createdAt: Date.now(),
      readyAt: Date.now() + processingMs,
      error: null,
      fetching: false,
      expired: false,
      publishedAs: null,
    };

    if (mediaType === 'CAROUSEL') {
      const children = listOf(p.children);
      if (!children || children.length < 2 || children.length > 10) {
        return invalid('(#100) A carousel takes 2 to 10 children', 2207028);
      }
      for (const id of children) {
        const child = containers.get(id);
        if (!child || child.account !== account || !child.carouselItem) {
          return invalid(`(#100) Invalid carousel child: ${id}`, 2207028);
        }
      }
      const container: Container = { ...base, kind: 'CAROUSEL', attachment: null, children };
      containers.set(container.id, container);
      return { status: 200, body: { id: container.id } };
    }

    let kind: ContainerKind;
    if (imageUrl && !videoUrl) {
      if (mediaType !== null && mediaType !== 'IMAGE' && mediaType !== 'STORIES') {
        return invalid(`(#100) media_type ${mediaType} does not take an image_url`, 2207023);
      }
      if (mediaType === 'STORIES' && carouselItem) return invalid('(#100) A story cannot be a carousel item');
      kind = mediaType === 'STORIES' ? 'STORIES' : 'IMAGE';
      if (kind === 'STORIES' && altText !== null) return invalid('(#100) alt_text is only for feed images');
      // Instagram fetches an image while creating the container.
      const fetched = await fetchMedia(imageUrl);
      if (fetched.status !== 200) {
        return instagramError(
          400,
          'Media download has failed. The media URI doesn\u2019t meet our requirements.',
          9004,
          2207052,
          {
            error_user_title: 'Media download has failed',
            error_user_msg: 'The media could not be fetched from this uri.',
          },
        );
      }
      if (!isJpeg(fetched.head)) {
        return instagramError(400, 'The image format is not supported.', 36001, 2207005, {
          error_user_msg: 'Only JPEG images can be published.',
        });
      }
      if (fetched.size > 8 * 1024 * 1024) {
        return instagramError(400, 'The image size is too large.', 36000, 2207004, {
          error_user_msg: 'The image is too large to download. It should be less than 8 MiB.',
        });
      }
      const container: Container = {
        ...base,
        kind,
        attachment: { kind: 'image', url: imageUrl, size: fetched.size, altText },
      };
      containers.set(container.id, container);
      return { status: 200, body: { id: container.id } };
    }
    if (videoUrl && !imageUrl) {
      if (carouselItem ? mediaType !== 'VIDEO' : mediaType !== 'REELS' && mediaType !== 'STORIES') {
        return invalid(
          carouselItem
            ? '(#100) A carousel video item needs media_type=VIDEO'
            : mediaType === 'VIDEO'
              ? '(#100) The VIDEO media type is no longer supported for feed posts; use REELS'
              : '(#100) video_url needs media_type REELS or STORIES',
          2207023,
        );
      }
      if (altText !== null) return invalid('(#100) alt_text is only for images');
      kind = mediaType as ContainerKind;
      const container: Container = {
        ...base,
        kind,
        fetching: true,
        attachment: { kind: 'video', url: videoUrl, size: 0, altText: null },
      };
      containers.set(container.id, container);
      // Videos are fetched and processed after the answer: the container is IN_PROGRESS meanwhile.
      void fetchMedia(videoUrl).then((fetched) => {
        container.fetching = false;
        container.readyAt = Date.now() + processingMs;
        if (container.attachment) container.attachment.size = fetched.size;
        if (fetched.status !== 200) {
          container.error = {
            message: `Media download has failed. The media URI doesn\u2019t meet our requirements (HTTP ${fetched.status || 'no answer'})`,
            subcode: 2207052,
          };
        } else if (!isMp4OrMov(fetched.head)) {
          container.error = {
            message:
              'The video format is not supported. Please check the spec for supported format (MP4, MOV)',
            subcode: 2207026,
          };
        }
      });
      return { status: 200, body: { id: container.id } };
    }
    return invalid(
      '(#100) Exactly one of image_url or video_url is required (or media_type=CAROUSEL with children)',
    );
  };

  const liveComment = (id: string) => {
    const comment = comments.get(id);
    return comment && !comment.deleted && media.has(comment.mediaId) ? comment : null;
  };

  const mediaView = (item: SimMedia, fields: string[]) => {
    const m = simulatorMetrics('instagram', item.id, new Date(item.createdAt));
    const all: Record<string, unknown> = {
      id: item.id,
      caption: item.caption,
      media_type: item.mediaType,
      media_product_type: item.productType,
      permalink:
        item.productType === 'STORY'
          ? `https://www.instagram.com/stories/${item.account}/${item.id}/`
          : `https://www.instagram.com/${item.productType === 'REELS' ? 'reel' : 'p'}/${item.shortcode}/`,
      shortcode: item.shortcode,
      timestamp: graphTime(item.createdAt),
      username: `sim_${item.account}`,
      owner: { id: item.account },
      like_count: m.likes ?? 0,
      comments_count: item.comments.filter((c) => !c.deleted).length,
    };
    return Object.fromEntries(Object.entries(all).filter(([key]) => key === 'id' || fields.includes(key)));
  };

  const fieldsOf = (ctx: SimContext, fallback: string[]) => {
    const raw = ctx.query.get('fields');
    return raw ? raw.split(',').map((f) => f.trim()) : fallback;
  };

  const getNode = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const id = ctx.params.id as string;
    const container = containers.get(id);
    const comment = container || media.has(id) ? undefined : liveComment(id);
    requirePermissions(ctx, IG_BASIC, ...(container ? [IG_PUBLISH] : comment ? [IG_COMMENTS] : []));
    if (container) {
      const fields = fieldsOf(ctx, ['id']);
      const code = statusOf(container);
      const all: Record<string, unknown> = { id, status_code: code, status: statusText(container, code) };
      return {
        status: 200,
        body: Object.fromEntries(Object.entries(all).filter(([key]) => key === 'id' || fields.includes(key))),
      };
    }
    const item = media.get(id);
    if (item) return { status: 200, body: mediaView(item, fieldsOf(ctx, ['id'])) };
    if (comment) {
      const fields = fieldsOf(ctx, ['id', 'text', 'timestamp']);
      const m = simulatorMetrics('instagram', comment.id, new Date(comment.createdAt));
      const all: Record<string, unknown> = {
        id: comment.id,
        text: comment.text,
        timestamp: graphTime(comment.createdAt),
        from: { id: comment.account, username: `sim_${comment.account}` },
        like_count: m.likes ?? 0,
        media: { id: comment.mediaId },
      };
      return {
        status: 200,
        body: Object.fromEntries(Object.entries(all).filter(([key]) => key === 'id' || fields.includes(key))),
      };
    }
    return missingObject(id);
  };

  const publish = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_PUBLISH);
    const account = ctx.params.user as string;
    const creationId = paramsOf(ctx).creation_id;
    if (typeof creationId !== 'string' || creationId === '') {
      return instagramError(400, '(#100) The parameter creation_id is required', 100);
    }
    const container = containers.get(creationId);
    if (!container || container.account !== account || container.carouselItem) {
      return instagramError(400, 'Media ID is not available', 9007, 2207006, {
        error_user_msg: 'The media could not be found or is not yours.',
      });
    }
    const code = statusOf(container);
    if (code === 'EXPIRED') {
      return instagramError(
        400,
        'The media you are trying to access has expired. Please try to upload again.',
        -2,
        2207020,
      );
    }
    if (code === 'IN_PROGRESS') {
      return instagramError(400, 'Media ID is not available', 9007, 2207027, {
        error_user_msg: 'The media is not ready for publishing, please wait for a moment',
      });
    }
    if (code === 'ERROR') {
      return instagramError(400, statusText(container, code), 9007, errorOf(container)?.subcode ?? 2207001);
    }
    if (code === 'PUBLISHED') {
      return instagramError(400, 'This media container has already been published.', 9007, 2207008);
    }
    if (capSpent(account)) {
      return instagramError(
        400,
        'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
        9,
        2207042,
        { is_transient: false, error_user_title: 'Publishing limit reached' },
      );
    }
    const lost = ctx.screen(container.caption, account);
    const id = nextId();
    const children = container.children.map((childId) => containers.get(childId) as Container);
    const attachments =
      container.kind === 'CAROUSEL'
        ? children.map((child) => child.attachment as SimAttachment)
        : [container.attachment as SimAttachment];
    const item: SimMedia = {
      id,
      account,
      containerId: container.id,
      productType: container.kind === 'STORIES' ? 'STORY' : container.kind === 'REELS' ? 'REELS' : 'FEED',
      mediaType:
        container.kind === 'CAROUSEL'
          ? 'CAROUSEL_ALBUM'
          : container.attachment?.kind === 'video'
            ? 'VIDEO'
            : 'IMAGE',
      caption: container.kind === 'STORIES' ? '' : container.caption,
      shortcode: shortcodeOf(id),
      attachments: attachments.map((a) => ({ ...a })),
      collaborators: container.collaborators,
      locationId: container.locationId,
      shareToFeed: container.kind === 'REELS' ? (container.shareToFeed ?? true) : null,
      createdAt: Date.now(),
      comments: [],
    };
    media.set(id, item);
    container.publishedAs = id;
    for (const child of children) child.publishedAs = id;
    windowOf(account).push(item.createdAt);
    ctx.record({ kind: 'post', id, parentId: null, rootId: null, text: item.caption, account });
    return { status: 200, body: { id }, lost };
  };

  const publishingLimit = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_PUBLISH);
    const account = ctx.params.user as string;
    // Without `fields`, Graph returns `quota_usage` only (the reference's default field).
    const fields = fieldsOf(ctx, ['quota_usage']);
    const config = fields.includes('config') && options.reportsQuotaConfig !== false;
    return {
      status: 200,
      body: {
        data: [
          {
            ...(fields.includes('quota_usage') ? { quota_usage: quotaUsage(account) } : {}),
            ...(config ? { config: { quota_total: defaults.publishLimit, quota_duration: 86400 } } : {}),
          },
        ],
      },
    };
  };

  const listMedia =
    (stories: boolean) =>
    (ctx: SimContext): SimResponse => {
      checkVersion(ctx);
      requirePermissions(ctx, IG_BASIC);
      const account = ctx.params.user as string;
      const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), 100);
      const now = Date.now();
      const data = [...media.values()]
        .filter((item) => item.account === account && listed(item.createdAt))
        .filter((item) =>
          stories
            ? item.productType === 'STORY' && now - item.createdAt < DAY_MS
            : item.productType !== 'STORY',
        )
        .sort((a, b) => b.createdAt - a.createdAt || (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
        .slice(0, limit)
        .map((item) => mediaView(item, fieldsOf(ctx, ['id'])));
      return { status: 200, body: { data, paging: { cursors: { before: 'QVFIsim', after: 'QVFIsim' } } } };
    };

  const createComment = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_COMMENTS);
    const item = media.get(ctx.params.id as string);
    if (!item) {
      if (liveComment(ctx.params.id as string)) {
        return instagramError(400, '(#100) Reply to a comment with POST /{ig-comment-id}/replies', 100);
      }
      return missingObject(ctx.params.id as string, 'post');
    }
    if (item.productType === 'STORY')
      return instagramError(400, '(#100) Stories cannot be commented on', 100);
    const message = paramsOf(ctx).message;
    if (typeof message !== 'string' || message.trim() === '') {
      return instagramError(400, '(#100) The parameter message is required', 100);
    }
    // The commenting account is the token's; on the simulator, the post's owner comments.
    const lost = ctx.screen(message, item.account);
    const comment: SimComment = {
      id: nextId(),
      mediaId: item.id,
      account: item.account,
      text: message,
      createdAt: Date.now(),
      deleted: false,
    };
    comments.set(comment.id, comment);
    item.comments.push(comment);
    ctx.record({
      kind: 'comment',
      id: comment.id,
      parentId: item.id,
      rootId: item.id,
      text: message,
      account: item.account,
    });
    return { status: 200, body: { id: comment.id }, lost };
  };

  const listComments = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_COMMENTS);
    const item = media.get(ctx.params.id as string);
    if (!item) return missingObject(ctx.params.id as string);
    const fields = fieldsOf(ctx, ['id', 'text', 'timestamp']);
    const data = item.comments
      .filter((c) => !c.deleted && listed(c.createdAt))
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((c) => {
        const all: Record<string, unknown> = {
          id: c.id,
          text: c.text,
          timestamp: graphTime(c.createdAt),
          from: { id: c.account, username: `sim_${c.account}` },
          username: `sim_${c.account}`,
        };
        return Object.fromEntries(
          Object.entries(all).filter(([key]) => key === 'id' || fields.includes(key)),
        );
      });
    return { status: 200, body: { data } };
  };

  const deleteNode = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const id = ctx.params.id as string;
    const comment = liveComment(id);
    requirePermissions(ctx, IG_BASIC, ...(comment ? [IG_COMMENTS] : []));
    if (!comment) return missingObject(id, 'delete');
    comment.deleted = true;
    ctx.record({
      kind: 'delete',
      id,
      parentId: comment.mediaId,
      rootId: comment.mediaId,
      text: null,
      account: comment.account,
    });
    return { status: 200, body: { success: true } };
  };

  const INSIGHTS: Record<string, 'views' | 'reach' | 'likes' | 'comments' | 'shares' | 'saves'> = {
    views: 'views',
    reach: 'reach',
    likes: 'likes',
    comments: 'comments',
    shares: 'shares',
    saved: 'saves',
  };
  const insights = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_INSIGHTS);
    const item = media.get(ctx.params.id as string);
    if (!item) return missingObject(ctx.params.id as string);
    const metrics = (ctx.query.get('metric') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (metrics.length === 0) return instagramError(400, '(#100) The parameter metric is required', 100);
    const unknown = metrics.find((m) => !(m in INSIGHTS));
    if (unknown) {
      return instagramError(
        400,
        `(#100) metric[0] must be one of the following values: ${Object.keys(INSIGHTS).join(', ')}`,
        100,
      );
    }
    const m = simulatorMetrics('instagram', item.id, new Date(item.createdAt));
    const data = metrics.map((name) => ({
      name,
      period: 'lifetime',
      values: [
        {
          value:
            name === 'comments'
              ? item.comments.filter((c) => !c.deleted).length
              : (m[INSIGHTS[name] as 'views'] ?? 0),
        },
      ],
      title: name,
      description: `Simulated ${name}`,
      id: `${item.id}/insights/${name}/lifetime`,
    }));
    return { status: 200, body: { data } };
  };

  const attachmentsView = () =>
    [...media.values()].map((item) => ({
      id: item.id,
      permalink: mediaView(item, ['permalink']).permalink,
      account: item.account,
      productType: item.productType,
      mediaType: item.mediaType,
      caption: item.caption,
      attachments: item.attachments,
      collaborators: item.collaborators,
      locationId: item.locationId,
      shareToFeed: item.shareToFeed,
      createdAt: new Date(item.createdAt).toISOString(),
      comments: item.comments.map((c) => ({ id: c.id, text: c.text, deleted: c.deleted })),
    }));

  const switches = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body) ?? {};
    const { expireContainers, capFullForSeconds, processingMs: processing, listLagMs: lag } = body;
    if (
      (expireContainers !== undefined && typeof expireContainers !== 'boolean') ||
      (capFullForSeconds !== undefined && typeof capFullForSeconds !== 'number') ||
      (processing !== undefined && typeof processing !== 'number') ||
      (lag !== undefined && typeof lag !== 'number')
    ) {
      return instagramErrors.badRequest(
        'Send { expireContainers?: boolean, capFullForSeconds?: number, processingMs?: number, listLagMs?: number }',
      );
    }
    if (typeof lag === 'number') listLagMs = Math.max(0, lag);
    if (expireContainers) for (const c of containers.values()) if (!c.publishedAs) c.expired = true;
    if (typeof capFullForSeconds === 'number') {
      capFullUntil = capFullForSeconds > 0 ? Date.now() + capFullForSeconds * 1000 : 0;
    }
    if (typeof processing === 'number') processingMs = Math.max(0, processing);
    return { status: 204 };
  };

  return startSimulator({
    name: 'Instagram',
    errors: instagramErrors,
    port: options.port,
    holdMs: options.holdMs,
    oauth,
    onReset: () => {
      containers.clear();
      media.clear();
      comments.clear();
      published.clear();
      capFullUntil = 0;
      processingMs = defaults.processingMs;
      listLagMs = defaults.listLagMs;
    },
    routes: [
      {
        method: 'GET',
        path: '/_sim/instagram/posts',
        auth: false,
        handler: () => ({ status: 200, body: { data: attachmentsView() } }),
      },
      {
        method: 'GET',
        path: '/_sim/instagram/containers',
        auth: false,
        handler: () => ({
          status: 200,
          body: {
            data: [...containers.values()].map((c) => ({
              id: c.id,
              account: c.account,
              kind: c.kind,
              carouselItem: c.carouselItem,
              statusCode: statusOf(c),
              children: c.children,
              attachment: c.attachment,
              publishedAs: c.publishedAs,
            })),
          },
        }),
      },
      { method: 'POST', path: '/_sim/instagram/switches', auth: false, handler: switches },
      { method: 'POST', path: '/:version/:user/media', handler: createContainer },
      { method: 'GET', path: '/:version/:user/media', handler: listMedia(false) },
      { method: 'GET', path: '/:version/:user/stories', handler: listMedia(true) },
      { method: 'POST', path: '/:version/:user/media_publish', handler: publish },
      { method: 'GET', path: '/:version/:user/content_publishing_limit', handler: publishingLimit },
      { method: 'POST', path: '/:version/:id/comments', handler: createComment },
      { method: 'GET', path: '/:version/:id/comments', handler: listComments },
      { method: 'GET', path: '/:version/:id/insights', handler: insights },
      { method: 'GET', path: '/:version/:id', handler: getNode },
      { method: 'DELETE', path: '/:version/:id', handler: deleteNode },
    ],
  });
};
