import { createHash, randomBytes } from 'node:crypto';
import { simulatedMetrics } from '../../functions/platforms/sandbox/metrics.ts';
import {
  headerOf,
  objectOf,
  type SimContext,
  type SimErrorBodies,
  type SimResponse,
  type SimRoute,
  type Simulator,
  startSimulator,
} from '../framework/framework.ts';
import { redditOAuthSimulator, redditScopeRefusal } from './oauth.ts';
import { redditSocketHost, type SocketOutcome } from './websocket.ts';

/**
 * A local Reddit API (oauth.reddit.com), as Herald's Reddit client uses it:
 * - `POST /api/submit` (form, `api_type=json`): kinds `self`, `link`, `image`, `video`,
 *   `videogif`. Like Reddit it answers **200 even for refusals**: `{ json: { errors: [[code,
 *   message, field]] } }` (`SUBREDDIT_NOEXIST`, `NO_TEXT`, `TOO_LONG`, `BAD_URL`, `ALREADY_SUB`,
 *   `SUBMIT_VALIDATION_FLAIR_REQUIRED`, `BAD_FLAIR_TEMPLATE_ID`, `NO_SELFS`, `RATELIMIT` with
 *   `json.ratelimit` seconds). A self or link post answers `data: { id, name, url }`; a media post
 *   answers only `data: { user_submitted_page, websocket_url }`, and the post shows in
 *   `/user/{name}/submitted` once its media is processed (`processingMs`), or never when
 *   processing fails (`mediaFails`).
 * - `POST /api/media/asset.json {filepath, mimetype}` → an S3 upload slot (`args.action`,
 *   `args.fields`) and `asset.asset_id`; the slot is a multipart POST to `/_s3/reddit-uploaded-media`
 *   (fields, then the file last, as S3 requires), answering 201 with `<Location>`; the submit's
 *   `url` must be that location, with the kind matching the file (video needs `video_poster_url`).
 * - `POST /api/submit_gallery_post.json` (JSON): 2 to 20 uploaded images with captions (≤ 180),
 *   answering the post's id and url at once.
 * - `POST /api/comment {thing_id, text}`, `POST /api/editusertext {thing_id, text}` (self posts
 *   and comments only: anything else answers `NOT_AUTHOR`... as Reddit refuses it),
 *   `POST /api/del {id}` (200 `{}` whatever the id).
 * - `GET /user/{name}/submitted`, `GET /comments/{article}?sort=new`, `GET /api/info?id=` as
 *   Reddit listings, `created_utc` in seconds; `/api/info` carries score, ups, upvote_ratio and
 *   num_comments (grown from the first read: each real second is a simulated hour).
 * Every authenticated answer carries `x-ratelimit-used`, `x-ratelimit-remaining` and
 * `x-ratelimit-reset` (seconds); a spent window is 429 `{ message: 'Too Many Requests', error: 429 }`.
 * Tokens: 401 `{ message: 'Unauthorized', error: 401 }` for a missing, expired or revoked token
 * alike (Reddit does not tell them apart). A User-Agent is required (Reddit throttles or blocks
 * requests without one: here 429 at once).
 *
 * Subreddits: every well-formed name exists except names starting with `doesnotexist`; names
 * starting with `flairreq` require a flair (`flair_id` from `/r/{sr}/api/link_flair_v2`); names
 * starting with `noself` take no self posts. Sim tokens are read from the title and text.
 * Inspection without auth: `GET /_sim/reddit/posts` (posts with their comments and media),
 * `GET /_sim/reddit/media` (assets), `POST /_sim/reddit/switches` `{ postLimitSeconds,
 * processingMs, mediaFails, listingFailures }`.
 */

export interface RedditSimSwitches {
  /** The account's posting limit is spent for this long: submits answer RATELIMIT (0: off). */
  postLimitSeconds: number;
  /** How long media processing takes before a media post shows in listings. */
  processingMs: number;
  /** Media processing fails: the post never appears. */
  mediaFails: boolean;
  /** The next this many reads of `/user/{name}/submitted` answer 503. */
  listingFailures: number;
  /** After processing, how much longer a media post takes to show in `/user/{name}/submitted`. */
  listingLagMs: number;
  /**
   * What a media post's socket does: `message` (success or failed once processed), `close`
   * (closes without a message), `refuse` (answers 503 instead of opening).
   */
  socket: 'message' | 'close' | 'refuse';
}

const DEFAULT_SWITCHES: RedditSimSwitches = {
  postLimitSeconds: 0,
  processingMs: 200,
  mediaFails: false,
  listingFailures: 0,
  listingLagMs: 0,
  socket: 'message',
};

export interface SimRedditAsset {
  assetId: string;
  account: string;
  filepath: string;
  mimetype: string;
  key: string;
  /** Bytes received by the S3 slot; null until uploaded. */
  uploadedBytes: number | null;
  /** The S3 location a submit uses; null until uploaded. */
  location: string | null;
}

export interface SimRedditComment {
  id: string;
  name: string;
  author: string;
  linkId: string;
  body: string;
  createdUtc: number;
  deleted: boolean;
}

export interface SimRedditPost {
  id: string;
  name: string;
  author: string;
  subreddit: string;
  kind: 'self' | 'link' | 'image' | 'video' | 'videogif' | 'gallery';
  title: string;
  /** The body as listings show it: a media post's as Reddit re-renders it (see `storedMarkdown`). */
  selftext: string;
  /** The body as the submit sent it. */
  sentText: string;
  url: string;
  flairId: string | null;
  flairText: string | null;
  nsfw: boolean;
  spoiler: boolean;
  sendReplies: boolean;
  createdUtc: number;
  /** When the post shows in listings (media posts: after processing); null: never (processing failed). */
  visibleAt: number | null;
  deleted: boolean;
  /** The assets the post was made with (media posts). */
  assetIds: string[];
  videoPosterUrl: string | null;
  /** A gallery's captions, by asset (Reddit's alt text for gallery images). */
  captions: Record<string, string>;
  comments: SimRedditComment[];
}

/**
 * The OAuth scope each data route takes (https://www.reddit.com/dev/api, per endpoint): `submit`
 * for /api/submit and /api/comment (and, undocumented, the gallery submit and the media lease:
 * parts of a submission), `edit` for /api/editusertext and /api/del, `history` for
 * /user/{name}/submitted, `read` for /comments/{article} and /api/info, `flair` for
 * /r/{sr}/api/link_flair_v2; /api/v1/me takes `identity` (oauth-simulator.ts).
 */
type RedditScope = 'submit' | 'edit' | 'history' | 'read' | 'flair';

/**
 * A media post's body as Reddit stores it: Reddit keeps an image or video post's body as rich
 * text and renders `selftext` back from it, so the markdown listings show is not the markdown
 * sent. Modelled here: bare links become `[url](url)`, a single line break a paragraph break,
 * trailing spaces are dropped (illustrative of the re-rendering, not a copy of Reddit's renderer).
 * A client that matches the listing against the sent text byte for byte never finds the post.
 */
export const storedMarkdown = (text: string): string =>
  text
    .replace(/\r\n?/g, '\n')
    .replace(
      /(^|[^\](])(https?:\/\/[^\s<>()[\]]+)/g,
      (_m, pre: string, url: string) => `${pre}[${url}](${url})`,
    )
    .replace(/([^\n])\n(?!\n)/g, '$1\n\n')
    .replace(/[ \t]+$/gm, '')
    .trim();

const FLAIR_TEMPLATE = 'a6b2c1de-0000-4000-8000-00000000f1a1';
const WINDOW_SECONDS = 600;
const WINDOW_CALLS = 1000;

const redditError = (status: number): SimResponse => ({
  status,
  body: {
    message:
      status === 401
        ? 'Unauthorized'
        : status === 404
          ? 'Not Found'
          : status === 429
            ? 'Too Many Requests'
            : status === 503
              ? 'Service Unavailable'
              : 'Bad Request',
    error: status,
  },
});

/** Reddit's `api_type=json` answer with errors (HTTP 200). */
export const jsonErrors = (
  errors: [string, string, string | null][],
  extra: Record<string, unknown> = {},
) => ({
  status: 200,
  body: { json: { ...extra, errors } },
});

export const redditErrors: SimErrorBodies = {
  unauthorized: () => redditError(401),
  // Reddit refuses content inside a 200 answer.
  refused: () =>
    jsonErrors([
      [
        'SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING',
        'Your post contains a word or phrase that is not allowed in this community (sim:fail).',
        'text',
      ],
    ]),
  unavailable: () => redditError(503),
  // Reddit's limits are per 10-minute window; either kind announces its reset.
  rateLimited: (_resetAt, seconds) => ({
    ...redditError(429),
    headers: { 'x-ratelimit-used': WINDOW_CALLS, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': seconds },
  }),
  badRequest: () => redditError(400),
  notFound: () => redditError(404),
};

const base36 = () =>
  BigInt(`0x${randomBytes(5).toString('hex')}`)
    .toString(36)
    .padStart(7, '0')
    .slice(0, 7);

const truthy = (value: string | undefined) => value === 'true' || value === '1' || value === 'on';

const permalinkOf = (post: SimRedditPost) =>
  `/r/${post.subreddit}/comments/${post.id}/${post.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50)}/`;

export interface RedditSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof redditOAuthSimulator>[0];
  switches?: Partial<RedditSimSwitches>;
}

export type RedditSimulator = Simulator & {
  /** Media-post sockets opened so far. */
  socketConnections(): number;
  posts(): SimRedditPost[];
  media(): SimRedditAsset[];
  setSwitches(switches: Partial<RedditSimSwitches>): void;
};

export const startRedditSimulator = async (
  options: RedditSimulatorOptions = {},
): Promise<RedditSimulator> => {
  const posts = new Map<string, SimRedditPost>();
  const comments = new Map<string, SimRedditComment>();
  const assets = new Map<string, SimRedditAsset>();
  /** Media posts' sockets by the token in their `websocket_url`. */
  const sockets = new Map<string, { postId: string; processedAt: number; fails: boolean }>();
  const switches: RedditSimSwitches = { ...DEFAULT_SWITCHES, ...(options.switches ?? {}) };
  let postLimitedUntil = 0;
  const setSwitches = (next: Partial<RedditSimSwitches>) => {
    Object.assign(switches, next);
    if (next.postLimitSeconds !== undefined) {
      postLimitedUntil = next.postLimitSeconds > 0 ? Date.now() + next.postLimitSeconds * 1000 : 0;
    }
  };
  setSwitches(switches);
  /** Calls per token in the current 10-minute window, for the rate-limit headers. */
  const windows = new Map<string, { start: number; used: number }>();

  // Tokens not issued by the simulator's OAuth mount (channels connected with a made-up token)
  // belong to an account named after the token.
  const oauth = redditOAuthSimulator({
    ...(options.oauth ?? {}),
    accountOf: (token) =>
      /^(expired|revoked)/.test(token)
        ? null
        : {
            id: createHash('sha256').update(token).digest('hex').slice(0, 8),
            name: `sim_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`,
          },
  });
  const userOf = (ctx: SimContext): string => oauth.accountOf(ctx.token as string)?.name ?? 'unknown';

  /** A media post's socket: its message once the post is processed (websocket-simulator.ts). */
  const socketOutcome = (token: string): SocketOutcome | Promise<SocketOutcome> => {
    const entry = sockets.get(token);
    if (!entry || switches.socket === 'refuse') return 'refuse';
    if (switches.socket === 'close') return 'close';
    const message = (): SocketOutcome => {
      const post = posts.get(entry.postId);
      if (entry.fails || !post) {
        // PRAW reads only `type` of a failure (MediaPostFailed); the payload here is illustrative.
        return { message: { type: 'failed', payload: { message: 'Media processing failed' } } };
      }
      return {
        message: { type: 'success', payload: { redirect: `https://www.reddit.com${permalinkOf(post)}` } },
      };
    };
    const wait = entry.processedAt - Date.now();
    if (wait <= 0) return message();
    return new Promise((resolve) => setTimeout(() => resolve(message()), wait).unref());
  };
  const socketHost = redditSocketHost(socketOutcome);
  await socketHost.start();

  const rateHeaders = (ctx: SimContext): Record<string, number> => {
    const now = Date.now();
    const key = ctx.token ?? '';
    let window = windows.get(key);
    if (!window || now - window.start >= WINDOW_SECONDS * 1000) {
      window = { start: now - (now % (WINDOW_SECONDS * 1000)), used: 0 };
      windows.set(key, window);
    }
    window.used += 1;
    return {
      'x-ratelimit-used': window.used,
      'x-ratelimit-remaining': Math.max(0, WINDOW_CALLS - window.used),
      'x-ratelimit-reset': Math.max(1, Math.ceil((window.start + WINDOW_SECONDS * 1000 - now) / 1000)),
    };
  };

  /**
   * Every API route: a User-Agent is required, the token must hold the route's OAuth scope (as
   * https://www.reddit.com/dev/api lists them per endpoint; a token the OAuth half did not issue
   * carries no scope list and passes), and the answer carries the rate-limit headers.
   */
  const api =
    (scope: RedditScope, handler: (ctx: SimContext) => SimResponse | Promise<SimResponse>) =>
    async (ctx: SimContext): Promise<SimResponse> => {
      const agent = headerOf(ctx.headers, 'user-agent') ?? '';
      if (agent.trim() === '' || /^(node|undici|python-requests|curl)/i.test(agent)) {
        return { ...redditError(429), headers: { 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': 600 } };
      }
      const headers = rateHeaders(ctx);
      const scopes = oauth.scopesOf(ctx.token ?? '');
      if (scopes && !scopes.includes(scope)) {
        const refusal = redditScopeRefusal();
        return { ...refusal, headers: { ...headers, ...(refusal.headers ?? {}) } };
      }
      const answer = await handler(ctx);
      return { ...answer, headers: { ...headers, ...(answer.headers ?? {}) } };
    };

  const form = (ctx: SimContext): Record<string, string> => {
    const body = objectOf(ctx.body);
    if (!body) return {};
    return Object.fromEntries(
      Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  };

  const visible = (post: SimRedditPost, now = Date.now()) =>
    !post.deleted && post.visibleAt !== null && post.visibleAt <= now;

  const postData = (post: SimRedditPost) => ({
    id: post.id,
    name: post.name,
    author: post.author,
    subreddit: post.subreddit,
    title: post.title,
    selftext: post.deleted ? '[deleted]' : post.selftext,
    is_self: post.kind === 'self',
    is_gallery: post.kind === 'gallery',
    url: post.url,
    permalink: permalinkOf(post),
    created_utc: post.createdUtc,
    link_flair_template_id: post.flairId,
    link_flair_text: post.flairText,
    over_18: post.nsfw,
    spoiler: post.spoiler,
    post_hint:
      post.kind === 'self'
        ? 'self'
        : post.kind === 'link'
          ? 'link'
          : post.kind === 'image'
            ? 'image'
            : 'hosted:video',
  });

  const commentData = (comment: SimRedditComment, post: SimRedditPost | undefined) => ({
    id: comment.id,
    name: comment.name,
    author: comment.author,
    body: comment.body,
    link_id: comment.linkId,
    parent_id: comment.linkId,
    created_utc: comment.createdUtc,
    permalink: post ? `${permalinkOf(post)}${comment.id}/` : `/comments/${comment.id}/`,
  });

  const listing = (children: unknown[]) => ({
    kind: 'Listing',
    data: { after: null, before: null, dist: children.length, children },
  });

  const submit = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const sr = (params.sr ?? '').replace(/^\/?r\//i, '');
    const kind = params.kind ?? 'link';
    const title = params.title ?? '';
    const text = params.text ?? '';
    if (!/^[A-Za-z0-9][A-Za-z0-9_]{2,20}$/.test(sr) || /^doesnotexist/i.test(sr)) {
      return jsonErrors([['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']]);
    }
    if (!['self', 'link', 'image', 'video', 'videogif'].includes(kind)) {
      return jsonErrors([['INVALID_OPTION', 'that option is not valid', 'kind']]);
    }
    if (title.trim() === '') return jsonErrors([['NO_TEXT', 'we need something here', 'title']]);
    if ([...title].length > 300) return jsonErrors([['TOO_LONG', 'this is too long (max: 300)', 'title']]);
    if ([...text].length > 40000) return jsonErrors([['TOO_LONG', 'this is too long (max: 40000)', 'text']]);
    if (kind === 'self' && /^noself/i.test(sr)) {
      return jsonErrors([['NO_SELFS', "that subreddit doesn't allow text posts", 'sr']]);
    }
    const flairId = params.flair_id ?? null;
    if (flairId !== null && flairId !== FLAIR_TEMPLATE) {
      return jsonErrors([['BAD_FLAIR_TEMPLATE_ID', 'That flair template is not available', 'flair_id']]);
    }
    if (flairId === null && /^flairreq/i.test(sr)) {
      return jsonErrors([
        ['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair'],
      ]);
    }
    const url = params.url ?? '';
    let assetIds: string[] = [];
    if (kind === 'link') {
      if (!/^https?:\/\/[^\s/]+\.[^\s]+$/.test(url))
        return jsonErrors([['BAD_URL', 'you should check that url', 'url']]);
      if (!truthy(params.resubmit)) {
        const earlier = [...posts.values()].find(
          (post) =>
            !post.deleted &&
            post.kind === 'link' &&
            post.subreddit.toLowerCase() === sr.toLowerCase() &&
            post.url === url,
        );
        if (earlier) {
          return jsonErrors([['ALREADY_SUB', 'that link has already been submitted', 'url']]);
        }
      }
    } else if (kind !== 'self') {
      const asset = [...assets.values()].find(
        (candidate) => candidate.location !== null && candidate.location === url,
      );
      if (!asset || asset.account !== author) {
        return jsonErrors([['BAD_URL', 'you should check that url', 'url']]);
      }
      const isVideo = asset.mimetype.startsWith('video/');
      if ((kind === 'image') === isVideo || (kind === 'videogif' && !isVideo)) {
        return jsonErrors([['INVALID_OPTION', `the file is not a ${kind}`, 'kind']]);
      }
      assetIds = [asset.assetId];
      if (kind !== 'image') {
        const poster = params.video_poster_url ?? '';
        const posterAsset = [...assets.values()].find((candidate) => candidate.location === poster);
        if (!posterAsset?.mimetype.startsWith('image/')) {
          return jsonErrors([['NO_VIDEO_POSTER', 'a video post needs a poster image', 'video_poster_url']]);
        }
        assetIds.push(posterAsset.assetId);
      }
    }
    if (Date.now() < postLimitedUntil) {
      const seconds = (postLimitedUntil - Date.now()) / 1000;
      const minutes = Math.max(1, Math.ceil(seconds / 60));
      return jsonErrors(
        [
          [
            'RATELIMIT',
            `Looks like you've been doing that a lot. Take a break for ${minutes} minute${minutes === 1 ? '' : 's'} before trying again.`,
            'ratelimit',
          ],
        ],
        { ratelimit: seconds },
      );
    }
    const lost = ctx.screen(`${title}\n${text}`, author);
    const id = base36();
    const now = Date.now();
    const isMedia = kind !== 'self' && kind !== 'link';
    const post: SimRedditPost = {
      id,
      name: `t3_${id}`,
      author,
      subreddit: sr,
      kind: kind as SimRedditPost['kind'],
      title,
      selftext: isMedia ? storedMarkdown(text) : text,
      sentText: text,
      url: kind === 'self' ? '' : url,
      flairId,
      flairText: params.flair_text ?? null,
      nsfw: truthy(params.nsfw),
      spoiler: truthy(params.spoiler),
      sendReplies: params.sendreplies === undefined ? true : truthy(params.sendreplies),
      createdUtc: now / 1000,
      visibleAt: isMedia
        ? switches.mediaFails
          ? null
          : now + switches.processingMs + switches.listingLagMs
        : now,
      deleted: false,
      assetIds,
      videoPosterUrl: params.video_poster_url ?? null,
      captions: {},
      comments: [],
    };
    if (kind === 'self') post.url = `https://www.reddit.com${permalinkOf(post)}`;
    posts.set(id, post);
    if (!switches.mediaFails || !isMedia) {
      ctx.record({ kind: 'post', id: post.name, parentId: null, rootId: null, text, account: author });
    }
    if (isMedia) {
      const token = randomBytes(12).toString('hex');
      sockets.set(token, {
        postId: id,
        processedAt: now + switches.processingMs,
        fails: switches.mediaFails,
      });
      return {
        status: 200,
        body: {
          json: {
            errors: [],
            data: {
              user_submitted_page: `https://www.reddit.com/user/${author}/submitted/`,
              // Reddit's is `wss://ws-….wss.redditmedia.com/rte_images/…?m=…`: the simulator's own host.
              websocket_url: `${socketHost.url}/rte_images/${token}?m=sim`,
            },
          },
        },
        lost,
      };
    }
    return {
      status: 200,
      body: {
        json: {
          errors: [],
          data: { url: `https://www.reddit.com${permalinkOf(post)}`, drafts_count: 0, id, name: post.name },
        },
      },
      lost,
    };
  };

  /**
   * `POST /api/submit_gallery_post.json` (a JSON body, unlike /api/submit): 2 to 20 uploaded
   * images as `items[{media_id, caption (≤ 180), outbound_url}]`; answers `{ json: { errors,
   * data: { id, url } } }` at once (no websocket, unlike single media posts).
   */
  const submitGallery = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body);
    if (!body) return redditError(400);
    const author = userOf(ctx);
    const str = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : undefined);
    const sr = (str('sr') ?? '').replace(/^\/?r\//i, '');
    const title = str('title') ?? '';
    const text = str('text') ?? '';
    if (!/^[A-Za-z0-9][A-Za-z0-9_]{2,20}$/.test(sr) || /^doesnotexist/i.test(sr)) {
      return jsonErrors([['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']]);
    }
    if (title.trim() === '') return jsonErrors([['NO_TEXT', 'we need something here', 'title']]);
    if ([...title].length > 300) return jsonErrors([['TOO_LONG', 'this is too long (max: 300)', 'title']]);
    const flairId = str('flair_id') ?? null;
    if (flairId !== null && flairId !== FLAIR_TEMPLATE) {
      return jsonErrors([['BAD_FLAIR_TEMPLATE_ID', 'That flair template is not available', 'flair_id']]);
    }
    if (flairId === null && /^flairreq/i.test(sr)) {
      return jsonErrors([
        ['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair'],
      ]);
    }
    const items = Array.isArray(body.items) ? body.items : [];
    if (items.length < 2 || items.length > 20) {
      return jsonErrors([['GALLERY_ITEM_COUNT', 'A gallery takes 2 to 20 items', 'items']]);
    }
    const captions: Record<string, string> = {};
    const assetIds: string[] = [];
    for (const raw of items) {
      const item = objectOf(raw);
      const asset = typeof item?.media_id === 'string' ? assets.get(item.media_id) : undefined;
      if (
        !asset ||
        asset.account !== author ||
        asset.location === null ||
        !asset.mimetype.startsWith('image/')
      ) {
        return jsonErrors([['MEDIA_ID_INVALID', 'That media is not an uploaded image', 'items']]);
      }
      const caption = item?.caption;
      if (caption !== undefined && (typeof caption !== 'string' || [...caption].length > 180)) {
        return jsonErrors([['TOO_LONG', 'this is too long (max: 180)', 'caption']]);
      }
      if (typeof caption === 'string' && caption !== '') captions[asset.assetId] = caption;
      assetIds.push(asset.assetId);
    }
    if (Date.now() < postLimitedUntil) {
      const seconds = (postLimitedUntil - Date.now()) / 1000;
      return jsonErrors(
        [
          [
            'RATELIMIT',
            `you are doing that too much. try again in ${Math.max(1, Math.ceil(seconds / 60))} minutes.`,
            'ratelimit',
          ],
        ],
        { ratelimit: seconds },
      );
    }
    const lost = ctx.screen(`${title}\n${text}`, author);
    const id = base36();
    const now = Date.now();
    const post: SimRedditPost = {
      id,
      name: `t3_${id}`,
      author,
      subreddit: sr,
      kind: 'gallery',
      title,
      selftext: text,
      sentText: text,
      url: `https://www.reddit.com/gallery/${id}`,
      flairId,
      flairText: str('flair_text') ?? null,
      nsfw: body.nsfw === true,
      spoiler: body.spoiler === true,
      sendReplies: body.sendreplies !== false,
      createdUtc: now / 1000,
      visibleAt: now,
      deleted: false,
      assetIds,
      videoPosterUrl: null,
      captions,
      comments: [],
    };
    posts.set(id, post);
    ctx.record({ kind: 'post', id: post.name, parentId: null, rootId: null, text, account: author });
    return { status: 200, body: { json: { errors: [], data: { url: post.url, id: post.name } } }, lost };
  };

  const thingOf = (fullname: string): { post?: SimRedditPost; comment?: SimRedditComment } => {
    if (fullname.startsWith('t3_')) {
      const post = posts.get(fullname.slice(3));
      return post && !post.deleted ? { post } : {};
    }
    if (fullname.startsWith('t1_')) {
      const comment = comments.get(fullname.slice(3));
      return comment && !comment.deleted ? { comment } : {};
    }
    return {};
  };

  const comment = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const text = params.text ?? '';
    const parent = thingOf(params.thing_id ?? '');
    if (!parent.post && !parent.comment) {
      return jsonErrors([['NO_THING_ID', 'that thing does not exist', 'parent']]);
    }
    if (text.trim() === '') return jsonErrors([['NO_TEXT', 'we need something here', 'text']]);
    if ([...text].length > 10000) return jsonErrors([['TOO_LONG', 'this is too long (max: 10000)', 'text']]);
    const lost = ctx.screen(text, author);
    const linkId = parent.post ? parent.post.name : (parent.comment as SimRedditComment).linkId;
    const post = posts.get(linkId.slice(3));
    const id = base36();
    const stored: SimRedditComment = {
      id,
      name: `t1_${id}`,
      author,
      linkId,
      body: text,
      createdUtc: Date.now() / 1000,
      deleted: false,
    };
    comments.set(id, stored);
    post?.comments.push(stored);
    ctx.record({
      kind: 'comment',
      id: stored.name,
      parentId: params.thing_id ?? null,
      rootId: linkId,
      text,
      account: author,
    });
    return {
      status: 200,
      body: { json: { errors: [], data: { things: [{ kind: 't1', data: commentData(stored, post) }] } } },
      lost,
    };
  };

  const editUserText = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const text = params.text ?? '';
    const thing = thingOf(params.thing_id ?? '');
    const owner = thing.post?.author ?? thing.comment?.author;
    if (!owner) return jsonErrors([['NO_THING_ID', 'that thing does not exist', 'thing_id']]);
    if (owner !== author) return jsonErrors([['NOT_AUTHOR', "you can't do that", 'thing_id']]);
    if (thing.post && thing.post.kind !== 'self') {
      return jsonErrors([['NOT_AUTHOR', "you can't edit the text of this post", 'thing_id']]);
    }
    const lost = ctx.screen(text, author);
    if (thing.post) {
      thing.post.selftext = text;
      ctx.record({ kind: 'edit', id: thing.post.name, parentId: null, rootId: null, text, account: author });
      return {
        status: 200,
        body: { json: { errors: [], data: { things: [{ kind: 't3', data: postData(thing.post) }] } } },
        lost,
      };
    }
    const stored = thing.comment as SimRedditComment;
    stored.body = text;
    ctx.record({
      kind: 'edit',
      id: stored.name,
      parentId: stored.linkId,
      rootId: stored.linkId,
      text,
      account: author,
    });
    return {
      status: 200,
      body: {
        json: {
          errors: [],
          data: { things: [{ kind: 't1', data: commentData(stored, posts.get(stored.linkId.slice(3))) }] },
        },
      },
      lost,
    };
  };

  const del = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const thing = thingOf(params.id ?? '');
    const target = thing.post ?? thing.comment;
    // Reddit answers 200 {} whatever the id (gone, someone else's, malformed): nothing changes then.
    if (target && target.author === author) {
      target.deleted = true;
      const linkId = thing.comment?.linkId ?? null;
      ctx.record({
        kind: 'delete',
        id: target.name,
        parentId: linkId,
        rootId: linkId,
        text: null,
        account: author,
      });
    }
    return { status: 200, body: {} };
  };

  const submitted = (ctx: SimContext): SimResponse => {
    if (switches.listingFailures > 0) {
      switches.listingFailures -= 1;
      return redditError(503);
    }
    const name = (ctx.params.name ?? '').toLowerCase();
    const limit = Math.min(100, Math.max(1, Number(ctx.query.get('limit') ?? 25) || 25));
    const now = Date.now();
    const children = [...posts.values()]
      .filter((post) => post.author.toLowerCase() === name && visible(post, now))
      .sort((a, b) => b.createdUtc - a.createdUtc)
      .slice(0, limit)
      .map((post) => ({ kind: 't3', data: postData(post) }));
    return { status: 200, body: listing(children) };
  };

  const article = (ctx: SimContext): SimResponse => {
    const post = posts.get(ctx.params.article ?? '');
    if (!post || !visible(post)) return redditError(404);
    const sort = ctx.query.get('sort') ?? 'confidence';
    const live = post.comments.filter((c) => !c.deleted);
    const ordered = sort === 'new' ? [...live].sort((a, b) => b.createdUtc - a.createdUtc) : live;
    return {
      status: 200,
      body: [
        listing([{ kind: 't3', data: postData(post) }]),
        listing(ordered.map((c) => ({ kind: 't1', data: commentData(c, post) }))),
      ],
    };
  };

  const firstRead = new Map<string, number>();
  const info = (ctx: SimContext): SimResponse => {
    const ids = (ctx.query.get('id') ?? '').split(',').filter(Boolean);
    const children = ids.flatMap((fullname): { kind: string; data: Record<string, unknown> }[] => {
      const thing = thingOf(fullname);
      const now = Date.now();
      const since = firstRead.get(fullname) ?? now;
      firstRead.set(fullname, since);
      const m = simulatedMetrics('reddit', fullname, ((now - since) / 1000) * 3600 + 3600);
      const likes = m.likes ?? 0;
      if (thing.post && visible(thing.post)) {
        return [
          {
            kind: 't3',
            data: {
              ...postData(thing.post),
              score: likes,
              ups: likes,
              downs: 0,
              upvote_ratio:
                likes === 0 ? 1 : Math.round((likes / (likes + Math.floor(likes / 9))) * 100) / 100,
              num_comments: (m.comments ?? 0) + thing.post.comments.filter((c) => !c.deleted).length,
            },
          },
        ];
      }
      if (thing.comment) {
        const post = posts.get(thing.comment.linkId.slice(3));
        return [
          { kind: 't1', data: { ...commentData(thing.comment, post), score: likes, ups: likes, downs: 0 } },
        ];
      }
      return [];
    });
    return { status: 200, body: listing(children) };
  };

  const mediaAsset = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const filepath = params.filepath ?? '';
    const mimetype = params.mimetype ?? '';
    if (filepath === '' || !/^(image\/(jpeg|png|gif)|video\/(mp4|quicktime))$/.test(mimetype)) {
      return {
        status: 400,
        body: {
          explanation: `Invalid mimetype ${mimetype || '(none)'}`,
          message: 'Bad Request',
          reason: 'BAD_MIMETYPE',
        },
      };
    }
    const assetId = randomBytes(8).toString('hex');
    const key = `rte_images/${assetId}/${filepath.replace(/[^\w.-]/g, '_')}`;
    assets.set(assetId, {
      assetId,
      account: userOf(ctx),
      filepath,
      mimetype,
      key,
      uploadedBytes: null,
      location: null,
    });
    const host = headerOf(ctx.headers, 'host') ?? '127.0.0.1';
    return {
      status: 200,
      body: {
        args: {
          action: `//${host}/_s3/reddit-uploaded-media`,
          fields: [
            { name: 'acl', value: 'public-read' },
            { name: 'key', value: key },
            { name: 'X-Amz-Credential', value: 'AKIASIMULATED/20261125/us-east-1/s3/aws4_request' },
            { name: 'X-Amz-Algorithm', value: 'AWS4-HMAC-SHA256' },
            { name: 'X-Amz-Date', value: '20261125T000000Z' },
            { name: 'success_action_status', value: '201' },
            { name: 'content-type', value: mimetype },
            { name: 'x-amz-storage-class', value: 'STANDARD' },
            { name: 'x-amz-meta-ext', value: filepath.split('.').pop() ?? '' },
            { name: 'policy', value: Buffer.from(JSON.stringify({ key })).toString('base64') },
            { name: 'X-Amz-Signature', value: createHash('sha256').update(key).digest('hex') },
          ],
        },
        asset: {
          asset_id: assetId,
          processing_state: 'incomplete',
          payload: { filepath },
          websocket_url: `wss://ws-${assetId}.wss.redditmedia.com/rte_images/${assetId}?m=sim`,
        },
      },
    };
  };

  const s3Error = (status: number, code: string, message: string): SimResponse => ({
    status,
    body: { Error: { Code: code, Message: message } },
  });

  /** The S3 upload slot: a multipart POST whose fields come first and the file last. */
  const s3Upload = async (ctx: SimContext): Promise<SimResponse> => {
    const type = headerOf(ctx.headers, 'content-type') ?? '';
    if (!/^multipart\/form-data;\s*boundary=/i.test(type)) {
      return s3Error(
        412,
        'PreconditionFailed',
        'Bucket POST must be of the enclosure-type multipart/form-data',
      );
    }
    let data: FormData;
    try {
      data = await new Response(ctx.rawBody, { headers: { 'content-type': type } }).formData();
    } catch {
      return s3Error(
        400,
        'MalformedPOSTRequest',
        'The body of your POST request is not well-formed multipart/form-data.',
      );
    }
    const names = [...data.keys()];
    if (names[names.length - 1] !== 'file') {
      return s3Error(
        400,
        'InvalidArgument',
        'Bucket POST must contain a field named file, as the last field',
      );
    }
    const key = data.get('key');
    const asset = [...assets.values()].find((candidate) => candidate.key === key);
    if (!asset || data.get('X-Amz-Signature') === null || data.get('policy') === null) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    if (data.get('content-type') !== asset.mimetype) {
      return s3Error(
        403,
        'AccessDenied',
        'Invalid according to Policy: Policy Condition failed: ["eq", "$Content-Type"]',
      );
    }
    const file = data.get('file');
    if (!(file instanceof Blob) || file.size === 0) {
      return s3Error(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size');
    }
    asset.uploadedBytes = file.size;
    asset.location = `https://reddit-uploaded-media.s3-accelerate.amazonaws.com/${encodeURIComponent(asset.key)}`;
    // S3 answers XML; the simulator's framework speaks JSON, so the same fields travel as JSON and
    // in the Location header (which is what Herald's client reads).
    return {
      status: 201,
      headers: { location: asset.location },
      body: { PostResponse: { Location: asset.location, Bucket: 'reddit-uploaded-media', Key: asset.key } },
    };
  };

  const flairs = (ctx: SimContext): SimResponse => ({
    status: 200,
    body: [
      {
        id: FLAIR_TEMPLATE,
        text: 'Discussion',
        text_editable: true,
        type: 'text',
        subreddit: ctx.params.sr,
      },
    ],
  });

  const routes: SimRoute[] = [
    { method: 'POST', path: '/api/submit', handler: api('submit', submit) },
    { method: 'POST', path: '/api/submit_gallery_post.json', handler: api('submit', submitGallery) },
    { method: 'POST', path: '/api/comment', handler: api('submit', comment) },
    { method: 'POST', path: '/api/editusertext', handler: api('edit', editUserText) },
    { method: 'POST', path: '/api/del', handler: api('edit', del) },
    { method: 'POST', path: '/api/media/asset.json', handler: api('submit', mediaAsset) },
    { method: 'GET', path: '/user/:name/submitted', handler: api('history', submitted) },
    { method: 'GET', path: '/comments/:article', handler: api('read', article) },
    { method: 'GET', path: '/api/info', handler: api('read', info) },
    { method: 'GET', path: '/r/:sr/api/link_flair_v2', handler: api('flair', flairs) },
    {
      method: 'POST',
      path: '/_s3/reddit-uploaded-media',
      auth: false,
      rawBody: true,
      maxBodyBytes: 1024 * 1024 * 1024,
      handler: s3Upload,
    },
    {
      method: 'GET',
      path: '/_sim/reddit/posts',
      auth: false,
      handler: () => ({ status: 200, body: { data: [...posts.values()] } }),
    },
    {
      method: 'GET',
      path: '/_sim/reddit/media',
      auth: false,
      handler: () => ({ status: 200, body: { data: [...assets.values()] } }),
    },
    {
      method: 'POST',
      path: '/_sim/reddit/switches',
      auth: false,
      handler: (ctx) => {
        const body = objectOf(ctx.body);
        if (!body) return { status: 400, body: { message: 'Send a JSON object of switches' } };
        const known: Record<string, string> = {
          postLimitSeconds: 'number',
          processingMs: 'number',
          mediaFails: 'boolean',
          listingFailures: 'number',
          listingLagMs: 'number',
          socket: 'string',
        };
        for (const [key, value] of Object.entries(body)) {
          if (known[key] === undefined || typeof value !== known[key]) {
            return { status: 400, body: { message: `Unknown switch or bad value: ${key}` } };
          }
        }
        if (body.socket !== undefined && !['message', 'close', 'refuse'].includes(body.socket as string)) {
          return { status: 400, body: { message: 'socket is one of message, close, refuse' } };
        }
        setSwitches(body as Partial<RedditSimSwitches>);
        return { status: 204 };
      },
    },
  ];

  const simulator = await startSimulator({
    name: 'Reddit',
    errors: redditErrors,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.holdMs !== undefined ? { holdMs: options.holdMs } : {}),
    oauth,
    onReset: () => {
      posts.clear();
      comments.clear();
      assets.clear();
      sockets.clear();
      socketHost.reset();
      windows.clear();
      firstRead.clear();
      Object.assign(switches, DEFAULT_SWITCHES, options.switches ?? {});
      postLimitedUntil = 0;
    },
    routes,
  });
  return {
    ...simulator,
    stop: async () => {
      await socketHost.stop();
      await simulator.stop();
    },
    socketConnections: () => socketHost.connections(),
    posts: () => [...posts.values()].map((post) => ({ ...post, comments: [...post.comments] })),
    media: () => [...assets.values()].map((asset) => ({ ...asset })),
    setSwitches,
  };
};
