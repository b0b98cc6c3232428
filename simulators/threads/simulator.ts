import { createHash } from 'node:crypto';
import { textLength } from '../../functions/domain/platforms/text-length.ts';
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
import { threadsOAuthSimulator } from './oauth.ts';

/**
 * A local Threads API (graph.threads.net, any `/v1.0`-style version segment):
 *
 * - `POST /{user-id}/threads` creates a media container (`media_type` TEXT, IMAGE, VIDEO or
 *   CAROUSEL; `text`, `image_url`, `video_url`, `alt_text`, `is_carousel_item`, `children`,
 *   `reply_to_id`, `reply_control`, `link_attachment`), parameters in the query string, a form or
 *   JSON body. Threads pulls the media itself: an image is fetched while the container is created
 *   (a URL that does not answer 200 is refused with code 1, subcode 2207052, as Threads does); a
 *   video is fetched while the container is `IN_PROGRESS` and ends `ERROR` with
 *   `FAILED_DOWNLOADING_VIDEO` when it cannot be. Containers are `IN_PROGRESS` for a while
 *   (images briefly, videos longer), then `FINISHED`; an unpublished one is `EXPIRED` after its
 *   lifetime (24 hours, shortened by a switch).
 * - `GET /{container-id}?fields=status,error_message`, and `GET /{media-id}?fields=...` for a post.
 * - `POST /{user-id}/threads_publish?creation_id=` publishes a `FINISHED` container; one still in
 *   progress is refused as Threads does (code 24, subcode 4279009 "Media Not Found"). The 24-hour
 *   caps are counted for real: 250 posts and 1,000 replies in a moving 24-hour window (a refusal is
 *   code 9, subcode 2207042; the quotas can be lowered by a switch), and
 *   `GET /{user-id}/threads_publishing_limit` reports the usage.
 * - `GET /{user-id}/threads` and `GET /{user-id}/replies` list the user's posts and replies, newest
 *   first (`since`, `until`, `limit`, `after` cursors), `DELETE /{media-id}` deletes (100 a day),
 *   `GET /{media-id}/insights?metric=...` reads metrics that grow with the post's age.
 * - A token the OAuth half issued must hold the permissions each call needs (`TH_BASIC`…; the
 *   replies list needs `threads_read_replies`, a delete `threads_delete`): Graph's 403 code 10
 *   otherwise. It holds what its consent granted (`sim_scopes` narrows it), less what
 *   `POST /_sim/oauth/permissions` took back. Other tokens are not checked.
 *
 * Errors are Graph's: `{ error: { message, type, code, error_subcode, fbtrace_id } }`. The sim
 * tokens act on a container's text: `sim:fail`, `sim:fail-once`, `sim:flaky` and `sim:reconnect`
 * when the container is created (nothing is posted then), the lost answers (`sim:timeout`,
 * `sim:reset`, `sim:bad-gateway`) when it is published: the post is stored, the answer lost.
 * Inspection without auth: `GET /_sim/threads/posts` (every post with its media and alt text),
 * `GET /_sim/threads/containers`, `POST /_sim/threads/switches`.
 */

const TEXT_LIMIT = 500;
const ALT_TEXT_LIMIT = 1000;
const CAROUSEL_MIN = 2;
const CAROUSEL_MAX = 20;
const WINDOW_MS = 86_400_000;
const REPLY_CONTROLS = [
  'everyone',
  'accounts_you_follow',
  'mentioned_only',
  'parent_post_author_only',
  'followers_only',
];
const MEDIA_TYPES = ['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'] as const;
type MediaType = (typeof MEDIA_TYPES)[number];
type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

const graphError = (
  status: number,
  message: string,
  code: number,
  extra: { subcode?: number; type?: string; title?: string; userMessage?: string; transient?: boolean } = {},
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: {
    error: {
      message,
      type: extra.type ?? 'THApiException',
      code,
      ...(extra.subcode === undefined ? {} : { error_subcode: extra.subcode }),
      ...(extra.transient === undefined ? {} : { is_transient: extra.transient }),
      ...(extra.title === undefined ? {} : { error_user_title: extra.title }),
      ...(extra.userMessage === undefined ? {} : { error_user_msg: extra.userMessage }),
      fbtrace_id: `Asim${createHash('sha256').update(`${Date.now()}${Math.random()}`).digest('hex').slice(0, 16)}`,
    },
  },
  ...(headers ? { headers } : {}),
});

const invalidParam = (message: string) => graphError(400, message, 100);
const unsupported = (method: string, id: string) =>
  graphError(
    400,
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    100,
    { subcode: 33, type: 'GraphMethodException' },
  );

/**
 * The Threads permissions and which call needs which (developers.facebook.com/docs/threads/…):
 * `threads_basic` "for making any calls to all Threads API endpoints"; `threads_content_publish`
 * for the publishing endpoints (containers, `threads_publish`, `threads_publishing_limit`);
 * `threads_manage_replies` "for making POST calls to reply endpoints" (a reply container) and for
 * `threads_publishing_limit`'s reply quota; `threads_read_replies` "for making GET calls to reply
 * endpoints" (retrieve-and-manage-replies); `threads_manage_insights` for the insights endpoints;
 * `threads_delete` "for making any delete calls" (posts/delete-posts).
 */
export const TH_BASIC = 'threads_basic';
export const TH_PUBLISH = 'threads_content_publish';
export const TH_MANAGE_REPLIES = 'threads_manage_replies';
export const TH_READ_REPLIES = 'threads_read_replies';
export const TH_INSIGHTS = 'threads_manage_insights';
export const TH_DELETE = 'threads_delete';

/**
 * Graph's refusal of a call the token's permissions do not cover: HTTP 403, code 10, "Application
 * does not have permission for this action", as graph.instagram.com sends it (Threads' exact
 * wording is not verified; its error type is THApiException). It does not say which permission
 * is missing.
 */
const missingPermission = () => graphError(403, 'Application does not have permission for this action', 10);

/** Graph's app rate limit (code 4) with its usage header; Meta sends no Retry-After. */
const appRateLimited = (minutes: number | null): SimResponse =>
  graphError(
    400,
    'Application request limit reached',
    4,
    { transient: true },
    {
      'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 28, total_time: 41 }),
      ...(minutes === null
        ? {}
        : {
            'x-business-use-case-usage': JSON.stringify({
              threads: [
                {
                  type: 'threads',
                  call_count: 100,
                  total_cputime: 28,
                  total_time: 41,
                  estimated_time_to_regain_access: minutes,
                },
              ],
            }),
          }),
    },
  );

export const threadsErrors: SimErrorBodies = {
  unauthorized: GRAPH_ERRORS.unauthorized,
  refused: () =>
    graphError(400, 'The post was refused.', 1, {
      subcode: 2207051,
      title: 'Action blocked',
      userMessage: 'This post goes against our Community Guidelines (sim:fail).',
    }),
  unavailable: () =>
    graphError(503, 'Service temporarily unavailable', 2, { transient: true, type: 'OAuthException' }),
  // A short throttle states the minutes until access returns; a spent cap states none.
  rateLimited: (_resetAt, seconds, kind) =>
    kind === 'daily' ? appRateLimited(null) : appRateLimited(Math.max(1, Math.ceil(seconds / 60))),
  badRequest: (message) => invalidParam(message),
  notFound: (message) =>
    graphError(400, `Unknown path components: ${message}`, 2500, { type: 'OAuthException' }),
  badGateway: () => ({ status: 502, body: { error: { message: 'Bad Gateway', code: 1 } } }),
};

interface Container {
  id: string;
  userId: string;
  mediaType: MediaType;
  text: string;
  url: string | null;
  altText: string | null;
  isCarouselItem: boolean;
  children: string[];
  replyToId: string | null;
  replyControl: string;
  linkAttachment: string | null;
  status: ContainerStatus;
  errorMessage: string | null;
  /** When the processing ends (FINISHED unless the fetch failed). */
  readyAt: number;
  expiresAt: number;
  /** What Threads fetched from `image_url` / `video_url`. */
  fetched: { bytes: number; contentType: string | null } | null;
  publishedId: string | null;
}

/** One attachment of a post as the inspection route shows it. */
export interface SimThreadsMedia {
  type: 'IMAGE' | 'VIDEO';
  url: string;
  altText: string | null;
  bytes: number;
  contentType: string | null;
  containerId: string;
}

export interface SimThreadsPost {
  id: string;
  userId: string;
  text: string;
  mediaType: 'TEXT_POST' | 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  timestamp: string;
  permalink: string;
  shortcode: string;
  replyToId: string | null;
  rootId: string | null;
  replyControl: string;
  linkAttachment: string | null;
  containerId: string;
  media: SimThreadsMedia[];
  deleted: boolean;
}

export interface ThreadsSwitches {
  /** Posts per moving 24 hours (Threads: 250). */
  postQuota: number;
  /** Replies per moving 24 hours (Threads: 1,000). */
  replyQuota: number;
  /** Deletes per moving 24 hours (Threads: 100). */
  deleteQuota: number;
  /** How long an image container stays IN_PROGRESS (ms). */
  imageProcessingMs: number;
  /** How long a video container stays IN_PROGRESS (ms). */
  videoProcessingMs: number;
  /** The next video containers end ERROR with this message (e.g. `FAILED_PROCESSING_VIDEO`); null: none. */
  videoFailure: string | null;
  /** How long an unpublished container lives (ms; Threads: 24 hours). */
  containerLifetimeMs: number;
}

const DEFAULT_SWITCHES: ThreadsSwitches = {
  postQuota: 250,
  replyQuota: 1000,
  deleteQuota: 100,
  imageProcessingMs: 150,
  videoProcessingMs: 1200,
  videoFailure: null,
  containerLifetimeMs: WINDOW_MS,
};

export interface ThreadsSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof threadsOAuthSimulator>[0];
  switches?: Partial<ThreadsSwitches>;
}

export interface ThreadsSimulator extends Simulator {
  posts(): SimThreadsPost[];
  setSwitches(switches: Partial<ThreadsSwitches> & { expireContainers?: boolean }): void;
}

/** Graph's timestamp format: `2026-11-25T23:14:56+0000`. */
export const graphTimestamp = (date: Date) => `${date.toISOString().slice(0, 19)}+0000`;

const SHORTCODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const shortcodeOf = (id: string) => {
  let n = BigInt(id);
  let code = '';
  while (n > 0n) {
    code = SHORTCODE_ALPHABET[Number(n % 64n)] + code;
    n /= 64n;
  }
  return code;
};

/** The simulated username of a Threads user id. */
export const threadsUsernameOf = (userId: string) =>
  `sim_${createHash('sha256').update(userId).digest('hex').slice(0, 8)}`;

let idSequence = 0n;
/** Threads ids: 17-digit numbers, increasing. */
const nextId = () => {
  idSequence += 1n;
  return (17_841_400_000_000_000n + BigInt(Date.now() % 1_000_000_000) * 1000n + idSequence).toString();
};

/** Parameters from the query string and the body (form or JSON), the body winning. */
const paramsOf = (ctx: SimContext): Record<string, unknown> => {
  const params: Record<string, unknown> = Object.fromEntries(ctx.query);
  const body = objectOf(ctx.body);
  if (body) Object.assign(params, body);
  return params;
};

const stringParam = (params: Record<string, unknown>, key: string): string | null => {
  const value = params[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new SimHttpError(invalidParam(`Param ${key} must be a string`));
};

const fieldsOf = (ctx: SimContext) =>
  new Set(
    (ctx.query.get('fields') ?? 'id')
      .split(',')
      .map((field) => field.trim())
      .filter(Boolean),
  );

/** Fetches a media URL as Threads does (following redirects): its size and type, or null when it does not answer 200. */
const fetchMedia = async (url: string): Promise<{ bytes: number; contentType: string | null } | null> => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      return null;
    }
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
    return { bytes, contentType: res.headers.get('content-type') };
  } catch {
    return null;
  }
};

export const startThreadsSimulator = async (
  options: ThreadsSimulatorOptions = {},
): Promise<ThreadsSimulator> => {
  const oauth = threadsOAuthSimulator(options.oauth);
  /**
   * A token the simulator issued acts for its own user only, as on Threads: another user's id in
   * the path is an object it cannot see. Tokens it did not issue act for the user in the path.
   */
  const checkUser = (ctx: SimContext, method: string): string => {
    const userId = ctx.params.userId as string;
    const owner = ctx.token ? oauth.userOf(ctx.token) : null;
    if (owner !== null && owner !== userId && userId !== 'me') {
      throw new SimHttpError(unsupported(method, userId));
    }
    return userId === 'me' && owner !== null ? owner : userId;
  };
  /**
   * A token the simulator issued must hold every permission the call needs (see `TH_BASIC`…):
   * Graph's code 10 otherwise. Tokens it did not issue are not checked.
   */
  const requirePermissions = (ctx: SimContext, ...needed: string[]) => {
    const held = ctx.token ? oauth.scopesOf(ctx.token) : null;
    if (held !== null && needed.some((permission) => !held.includes(permission)))
      throw new SimHttpError(missingPermission());
  };
  const containers = new Map<string, Container>();
  const posts = new Map<string, SimThreadsPost>();
  const deletes: { userId: string; at: number }[] = [];
  const switches: ThreadsSwitches = { ...DEFAULT_SWITCHES, ...(options.switches ?? {}) };

  const setSwitches: ThreadsSimulator['setSwitches'] = ({ expireContainers, ...rest }) => {
    for (const [key, value] of Object.entries(rest)) {
      if (value !== undefined) (switches as unknown as Record<string, unknown>)[key] = value;
    }
    if (expireContainers) {
      for (const container of containers.values()) {
        if (container.status !== 'PUBLISHED') container.expiresAt = Date.now() - 1;
      }
    }
  };

  /** The container's status now: processing ends at `readyAt`, an unpublished one expires. */
  const statusOf = (container: Container): ContainerStatus => {
    if (container.status === 'PUBLISHED' || container.status === 'ERROR') return container.status;
    if (Date.now() >= container.expiresAt) container.status = 'EXPIRED';
    else if (container.status === 'IN_PROGRESS' && Date.now() >= container.readyAt && container.fetched) {
      container.status = 'FINISHED';
    }
    return container.status;
  };

  const inWindow = (userId: string, replies: boolean) => {
    const since = Date.now() - WINDOW_MS;
    return [...posts.values()].filter(
      (post) =>
        post.userId === userId && (post.replyToId !== null) === replies && Date.parse(post.timestamp) > since,
    );
  };

  const createContainer = async (ctx: SimContext): Promise<SimResponse> => {
    const userId = checkUser(ctx, 'post');
    const params = paramsOf(ctx);
    requirePermissions(
      ctx,
      TH_BASIC,
      TH_PUBLISH,
      ...(params.reply_to_id === undefined ? [] : [TH_MANAGE_REPLIES]),
    );
    const mediaType = stringParam(params, 'media_type');
    if (!mediaType || !(MEDIA_TYPES as readonly string[]).includes(mediaType)) {
      return invalidParam('Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}');
    }
    const text = stringParam(params, 'text') ?? '';
    if (textLength(text, 'codepoints_emoji_bytes') > TEXT_LIMIT) {
      return invalidParam(`Param text must be at most ${TEXT_LIMIT} characters long.`);
    }
    const isCarouselItem = stringParam(params, 'is_carousel_item') === 'true';
    const altText = stringParam(params, 'alt_text');
    if (altText !== null && altText.length > ALT_TEXT_LIMIT) {
      return invalidParam(`Param alt_text must be at most ${ALT_TEXT_LIMIT} characters long.`);
    }
    const replyControl = stringParam(params, 'reply_control') ?? 'everyone';
    if (!REPLY_CONTROLS.includes(replyControl)) {
      return invalidParam(`Param reply_control must be one of {${REPLY_CONTROLS.join(', ').toUpperCase()}}`);
    }
    const linkAttachment = stringParam(params, 'link_attachment');
    if (linkAttachment !== null) {
      if (mediaType !== 'TEXT')
        return invalidParam('Param link_attachment is only supported for TEXT posts.');
      if (!/^https?:\/\/\S+$/i.test(linkAttachment))
        return invalidParam('Param link_attachment must be a valid URL.');
    }
    const replyToId = stringParam(params, 'reply_to_id');
    if (replyToId !== null) {
      const parent = posts.get(replyToId);
      if (!parent || parent.deleted) return unsupported('post', replyToId);
    }
    if (mediaType === 'TEXT') {
      if (text.trim() === '') return invalidParam('Param text is required for TEXT posts.');
      if (isCarouselItem) return invalidParam('A TEXT container cannot be a carousel item.');
    }
    if (isCarouselItem && (text !== '' || replyToId !== null)) {
      return invalidParam(
        'Carousel items take no text and no reply_to_id: set them on the CAROUSEL container.',
      );
    }
    // Content checks (and the refusal sim tokens) happen when the container is created: nothing is posted.
    ctx.screen(text, userId);

    const now = Date.now();
    const container: Container = {
      id: nextId(),
      userId,
      mediaType: mediaType as MediaType,
      text,
      url: null,
      altText,
      isCarouselItem,
      children: [],
      replyToId,
      replyControl,
      linkAttachment,
      status: 'IN_PROGRESS',
      errorMessage: null,
      readyAt: now,
      expiresAt: now + switches.containerLifetimeMs,
      fetched: { bytes: 0, contentType: null },
      publishedId: null,
    };
    if (mediaType === 'IMAGE') {
      const url = stringParam(params, 'image_url');
      if (!url) return invalidParam('Param image_url is required for IMAGE containers.');
      // Threads fetches an image while the container is created.
      const fetched = await fetchMedia(url);
      if (!fetched) {
        return graphError(400, 'An unknown error occurred', 1, {
          subcode: 2207052,
          type: 'OAuthException',
          title: 'Media download has failed',
          userMessage:
            'The media could not be fetched from the URI provided. Check that it is public and answers 200.',
        });
      }
      if (fetched.contentType && !/^image\/(jpeg|png)\b/i.test(fetched.contentType)) {
        return graphError(400, 'Only photo or video can be accepted as media type.', 9004, {
          subcode: 2207026,
          type: 'OAuthException',
        });
      }
      Object.assign(container, { url, fetched, readyAt: now + switches.imageProcessingMs });
    } else if (mediaType === 'VIDEO') {
      const url = stringParam(params, 'video_url');
      if (!url) return invalidParam('Param video_url is required for VIDEO containers.');
      const failure = switches.videoFailure;
      Object.assign(container, { url, fetched: null, readyAt: now + switches.videoProcessingMs });
      // A video is fetched while the container is IN_PROGRESS.
      void fetchMedia(url).then((fetched) => {
        if (!fetched) {
          container.status = 'ERROR';
          container.errorMessage = 'FAILED_DOWNLOADING_VIDEO';
        } else if (failure) {
          container.status = 'ERROR';
          container.errorMessage = failure;
        }
        container.fetched = fetched ?? { bytes: 0, contentType: null };
      });
    } else if (mediaType === 'CAROUSEL') {
      const raw = params.children;
      const children = Array.isArray(raw)
        ? raw.map(String)
        : typeof raw === 'string'
          ? raw
              .split(',')
              .map((id) => id.trim())
              .filter(Boolean)
          : [];
      if (children.length < CAROUSEL_MIN || children.length > CAROUSEL_MAX) {
        return invalidParam(
          `Param children must list between ${CAROUSEL_MIN} and ${CAROUSEL_MAX} carousel items.`,
        );
      }
      for (const childId of children) {
        const child = containers.get(childId);
        if (!child || child.userId !== userId || !child.isCarouselItem) {
          return invalidParam(`Param children: ${childId} is not a carousel item container of this user.`);
        }
        if (statusOf(child) !== 'FINISHED') {
          return invalidParam(`Param children: carousel item ${childId} is not ready (${child.status}).`);
        }
      }
      container.children = children;
      container.readyAt = now + switches.imageProcessingMs;
    } else if (stringParam(params, 'image_url') || stringParam(params, 'video_url')) {
      return invalidParam('A TEXT container takes no image_url or video_url.');
    }
    if (mediaType === 'TEXT') container.status = 'FINISHED';
    containers.set(container.id, container);
    return { status: 200, body: { id: container.id } };
  };

  const mediaOf = (container: Container): SimThreadsMedia[] => {
    if (container.mediaType === 'CAROUSEL') {
      return container.children.flatMap((id) => {
        const child = containers.get(id);
        return child ? mediaOf(child) : [];
      });
    }
    if (container.mediaType === 'TEXT' || !container.url) return [];
    return [
      {
        type: container.mediaType,
        url: container.url,
        altText: container.altText,
        bytes: container.fetched?.bytes ?? 0,
        contentType: container.fetched?.contentType ?? null,
        containerId: container.id,
      },
    ];
  };

  const publish = (ctx: SimContext): SimResponse => {
    const userId = checkUser(ctx, 'post');
    requirePermissions(ctx, TH_BASIC, TH_PUBLISH);
    const params = paramsOf(ctx);
    const creationId = stringParam(params, 'creation_id');
    if (!creationId) return invalidParam('The parameter creation_id is required.');
    const container = containers.get(creationId);
    const notFound = () =>
      graphError(400, 'The requested resource does not exist', 24, {
        subcode: 4279009,
        transient: false,
        title: 'Media Not Found',
        userMessage: `The media with id ${creationId} cannot be found.`,
      });
    if (!container || container.userId !== userId || container.isCarouselItem) return notFound();
    const status = statusOf(container);
    if (status === 'IN_PROGRESS' || status === 'ERROR') return notFound();
    if (status === 'EXPIRED') {
      return graphError(400, 'The media container has expired: create a new one.', 24, {
        subcode: 4279009,
        title: 'Media Not Found',
        userMessage: `The media with id ${creationId} has expired.`,
      });
    }
    if (status === 'PUBLISHED') return invalidParam(`The media with id ${creationId} was already published.`);
    const isReply = container.replyToId !== null;
    const quota = isReply ? switches.replyQuota : switches.postQuota;
    if (inWindow(userId, isReply).length >= quota) {
      return graphError(
        400,
        isReply
          ? 'The maximum number of replies that can be published in 24 hours has been reached.'
          : 'The maximum number of posts that can be published in 24 hours has been reached.',
        9,
        { subcode: 2207042, transient: false },
      );
    }
    // Lost answers happen after the post is stored.
    const outcome = ctx.screen(container.text, userId);
    const parent = container.replyToId ? posts.get(container.replyToId) : undefined;
    if (container.replyToId && (!parent || parent.deleted)) return unsupported('post', container.replyToId);
    const id = nextId();
    const shortcode = shortcodeOf(id);
    const post: SimThreadsPost = {
      id,
      userId,
      text: container.text,
      mediaType:
        container.mediaType === 'TEXT'
          ? 'TEXT_POST'
          : container.mediaType === 'CAROUSEL'
            ? 'CAROUSEL_ALBUM'
            : container.mediaType,
      timestamp: new Date().toISOString(),
      permalink: `https://www.threads.net/@${threadsUsernameOf(userId)}/post/${shortcode}`,
      shortcode,
      replyToId: parent?.id ?? null,
      rootId: parent ? (parent.rootId ?? parent.id) : null,
      replyControl: container.replyControl,
      linkAttachment: container.linkAttachment,
      containerId: container.id,
      media: mediaOf(container),
      deleted: false,
    };
    posts.set(id, post);
    container.status = 'PUBLISHED';
    container.publishedId = id;
    ctx.record({
      kind: parent ? 'reply' : 'post',
      id,
      parentId: post.replyToId,
      rootId: post.rootId,
      text: post.text,
      account: userId,
    });
    return { status: 200, body: { id }, lost: outcome };
  };

  const view = (post: SimThreadsPost, fields: Set<string>) => {
    const data: Record<string, unknown> = { id: post.id };
    const all: Record<string, () => unknown> = {
      text: () => (post.text === '' ? undefined : post.text),
      timestamp: () => graphTimestamp(new Date(post.timestamp)),
      permalink: () => post.permalink,
      shortcode: () => post.shortcode,
      media_type: () => post.mediaType,
      username: () => threadsUsernameOf(post.userId),
      owner: () => ({ id: post.userId }),
      is_reply: () => post.replyToId !== null,
      replied_to: () => (post.replyToId ? { id: post.replyToId } : undefined),
      root_post: () => ({ id: post.rootId ?? post.id }),
      reply_audience: () => post.replyControl.toUpperCase(),
      link_attachment_url: () => post.linkAttachment ?? undefined,
      media_url: () => post.media[0]?.url,
      alt_text: () => post.media[0]?.altText ?? undefined,
    };
    for (const field of fields) {
      const value = all[field]?.();
      if (value !== undefined) data[field] = value;
    }
    return data;
  };

  const getObject = (ctx: SimContext): SimResponse => {
    requirePermissions(ctx, TH_BASIC);
    const id = ctx.params.id as string;
    const fields = fieldsOf(ctx);
    const container = containers.get(id);
    if (container) {
      const data: Record<string, unknown> = { id };
      const status = statusOf(container);
      if (fields.has('status')) data.status = status;
      if (fields.has('error_message') && container.errorMessage) data.error_message = container.errorMessage;
      return { status: 200, body: data };
    }
    const post = posts.get(id);
    if (!post || post.deleted) return unsupported('get', id);
    for (const field of ['status', 'error_message']) {
      if (fields.has(field)) return invalidParam(`Tried accessing nonexisting field (${field})`);
    }
    return { status: 200, body: view(post, fields) };
  };

  /** A user's posts or replies, newest first, with Graph's cursor paging. */
  const list = (ctx: SimContext, replies: boolean): SimResponse => {
    const userId = checkUser(ctx, 'get');
    requirePermissions(ctx, TH_BASIC, ...(replies ? [TH_READ_REPLIES] : []));
    const limitRaw = ctx.query.get('limit') ?? '25';
    const limit = Number(limitRaw);
    if (!/^\d+$/.test(limitRaw) || limit < 1 || limit > 100)
      return invalidParam('Param limit must be between 1 and 100');
    const bound = (name: string): number | null => {
      const raw = ctx.query.get(name);
      if (raw === null) return null;
      if (/^\d+$/.test(raw)) return Number(raw) * 1000;
      const parsed = Date.parse(raw);
      if (Number.isNaN(parsed))
        throw new SimHttpError(invalidParam(`Param ${name} must be a unix timestamp or a date`));
      return parsed;
    };
    const since = bound('since');
    const until = bound('until');
    const all = [...posts.values()]
      .filter((post) => post.userId === userId && !post.deleted && (post.replyToId !== null) === replies)
      .filter((post) => {
        const at = Math.floor(Date.parse(post.timestamp) / 1000) * 1000;
        return (since === null || at >= since) && (until === null || at <= until);
      })
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const after = ctx.query.get('after');
    let offset = 0;
    if (after !== null) {
      offset = Number.parseInt(Buffer.from(after, 'base64url').toString('utf8'), 10);
      if (!Number.isInteger(offset) || offset < 0) return invalidParam('Invalid cursor');
    }
    const page = all.slice(offset, offset + limit);
    const fields = fieldsOf(ctx);
    const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
    const paging: Record<string, unknown> = {
      cursors: { before: cursor(offset), after: cursor(offset + page.length) },
    };
    if (offset + limit < all.length) {
      const next = new URL(`http://127.0.0.1${ctx.path}`);
      for (const [key, value] of ctx.query) next.searchParams.set(key, value);
      next.searchParams.set('after', cursor(offset + limit));
      paging.next = `${next.pathname}${next.search}`;
    }
    return { status: 200, body: { data: page.map((post) => view(post, fields)), paging } };
  };

  const publishingLimit = (ctx: SimContext): SimResponse => {
    const userId = checkUser(ctx, 'get');
    const fields = fieldsOf(ctx);
    const replyFields = fields.has('reply_quota_usage') || fields.has('reply_config');
    requirePermissions(ctx, TH_BASIC, TH_PUBLISH, ...(replyFields ? [TH_MANAGE_REPLIES] : []));
    const since = Date.now() - WINDOW_MS;
    const entry: Record<string, unknown> = {};
    const config = (total: number) => ({ quota_total: total, quota_duration: WINDOW_MS / 1000 });
    if (fields.has('quota_usage')) entry.quota_usage = inWindow(userId, false).length;
    if (fields.has('config')) entry.config = config(switches.postQuota);
    if (fields.has('reply_quota_usage')) entry.reply_quota_usage = inWindow(userId, true).length;
    if (fields.has('reply_config')) entry.reply_config = config(switches.replyQuota);
    if (fields.has('delete_quota_usage')) {
      entry.delete_quota_usage = deletes.filter((d) => d.userId === userId && d.at > since).length;
    }
    if (fields.has('delete_config')) entry.delete_config = config(switches.deleteQuota);
    return { status: 200, body: { data: [entry] } };
  };

  const deletePost = (ctx: SimContext): SimResponse => {
    requirePermissions(ctx, TH_BASIC, TH_DELETE);
    const id = ctx.params.id as string;
    const post = posts.get(id);
    if (!post || post.deleted) return unsupported('delete', id);
    const since = Date.now() - WINDOW_MS;
    if (deletes.filter((d) => d.userId === post.userId && d.at > since).length >= switches.deleteQuota) {
      return graphError(400, 'The maximum number of deletes in 24 hours has been reached.', 9, {
        subcode: 2207042,
      });
    }
    post.deleted = true;
    deletes.push({ userId: post.userId, at: Date.now() });
    ctx.record({
      kind: 'delete',
      id,
      parentId: post.replyToId,
      rootId: post.rootId,
      text: null,
      account: post.userId,
    });
    return { status: 200, body: { success: true } };
  };

  const INSIGHT_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];
  const insights = (ctx: SimContext): SimResponse => {
    requirePermissions(ctx, TH_BASIC, TH_INSIGHTS);
    const id = ctx.params.id as string;
    const post = posts.get(id);
    if (!post || post.deleted) return unsupported('get', id);
    const metrics = (ctx.query.get('metric') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (metrics.length === 0) return invalidParam('The parameter metric is required');
    const unknown = metrics.find((m) => !INSIGHT_METRICS.includes(m));
    if (unknown)
      return invalidParam(
        `(#100) metric[0] must be one of the following values: ${INSIGHT_METRICS.join(', ')}`,
      );
    const m = simulatorMetrics('threads', id, new Date(post.timestamp));
    const values: Record<string, number> = {
      views: m.views ?? 0,
      likes: m.likes ?? 0,
      replies: m.comments ?? 0,
      reposts: m.reposts ?? 0,
      quotes: m.quotes ?? 0,
      shares: m.shares ?? 0,
    };
    return {
      status: 200,
      body: {
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: values[name] }],
          title: name[0]?.toUpperCase() + name.slice(1),
          description: `Number of ${name} of the post.`,
          id: `${id}/insights/${name}/lifetime`,
        })),
      },
    };
  };

  const simulator = await startSimulator({
    name: 'Threads',
    errors: threadsErrors,
    port: options.port,
    holdMs: options.holdMs,
    oauth,
    onReset: () => {
      containers.clear();
      posts.clear();
      deletes.length = 0;
      Object.assign(switches, DEFAULT_SWITCHES, options.switches ?? {});
    },
    routes: [
      {
        method: 'GET',
        path: '/_sim/threads/posts',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...posts.values()] } }),
      },
      {
        method: 'GET',
        path: '/_sim/threads/containers',
        auth: false,
        handler: () => ({
          status: 200,
          body: {
            data: [...containers.values()].map((c) => ({
              id: c.id,
              userId: c.userId,
              mediaType: c.mediaType,
              status: statusOf(c),
              errorMessage: c.errorMessage,
              replyToId: c.replyToId,
              publishedId: c.publishedId,
            })),
          },
        }),
      },
      {
        method: 'POST',
        path: '/_sim/threads/switches',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body);
          if (!body) return { status: 400, body: { message: 'Send a JSON object of switches' } };
          for (const [key, value] of Object.entries(body)) {
            const fits =
              key === 'expireContainers'
                ? typeof value === 'boolean'
                : key === 'videoFailure'
                  ? value === null || typeof value === 'string'
                  : key in DEFAULT_SWITCHES && typeof value === 'number' && value >= 0;
            if (!fits) return { status: 400, body: { message: `Unknown switch or bad value: ${key}` } };
          }
          setSwitches(body as Parameters<ThreadsSimulator['setSwitches']>[0]);
          return { status: 204 };
        },
      },
      { method: 'POST', path: '/:version/:userId/threads', handler: createContainer },
      { method: 'POST', path: '/:version/:userId/threads_publish', handler: publish },
      { method: 'GET', path: '/:version/:userId/threads', handler: (ctx) => list(ctx, false) },
      { method: 'GET', path: '/:version/:userId/replies', handler: (ctx) => list(ctx, true) },
      { method: 'GET', path: '/:version/:userId/threads_publishing_limit', handler: publishingLimit },
      { method: 'GET', path: '/:version/:id/insights', handler: insights },
      { method: 'GET', path: '/:version/:id', handler: getObject },
      { method: 'DELETE', path: '/:version/:id', handler: deletePost },
    ],
  });
  return { ...simulator, posts: () => [...posts.values()].map((post) => ({ ...post })), setSwitches };
};
