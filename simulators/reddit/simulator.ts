import { seedComments, simCommentRoutes } from '../framework/comments.ts';
import { objectOf, type SimRoute, startSimulator } from '../framework/framework.ts';
import { redditErrors } from './errors.ts';
import { redditCommentRoutes } from './routes-comments.ts';
import { redditMediaRoutes } from './routes-media.ts';
import { redditSubmitRoutes } from './routes-submit.ts';
import { redditThingRoutes } from './routes-things.ts';
import { redditState } from './state.ts';
import {
  DEFAULT_SWITCHES,
  type RedditSimSwitches,
  type RedditSimulator,
  type RedditSimulatorOptions,
} from './switches.ts';

export { jsonErrors, redditErrors } from './errors.ts';
export { type SimRedditAsset, type SimRedditComment, type SimRedditPost, storedMarkdown } from './records.ts';
export type { RedditSimSwitches, RedditSimulator, RedditSimulatorOptions } from './switches.ts';
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
 *   Reddit listings; comments as Reddit trees them (`/comments/{article}` with `more` things,
 *   `/api/morechildren`, `/user/{name}/comments`, `[deleted]`/`[removed]`; routes-comments.ts) and
 *   the common `/_sim/comments` hooks (a post whose title or text holds `sim:comments` gets three);
 *   `created_utc` in seconds; `/api/info` carries score, ups, upvote_ratio and
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

export const startRedditSimulator = async (
  options: RedditSimulatorOptions = {},
): Promise<RedditSimulator> => {
  const s = await redditState(options);
  const {
    posts,
    comments,
    assets,
    sockets,
    switches,
    setSwitches,
    windows,
    oauth,
    socketHost,
    api,
    firstRead,
    clearPostLimit,
  } = s;
  const { submit, submitGallery } = redditSubmitRoutes(s);
  const { comment, editUserText, del, submitted, info } = redditThingRoutes(s);
  const { store, article, moreChildren, userComments } = redditCommentRoutes(s);
  s.onStored.push((post) => seedComments(store, post.name, `${post.title}\n${post.sentText}`, new Date()));
  const { mediaAsset, s3Upload, flairs } = redditMediaRoutes(s);
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
    { method: 'GET', path: '/api/morechildren', handler: api('read', moreChildren) },
    { method: 'GET', path: '/user/:name/comments', handler: api('history', userComments) },
    ...simCommentRoutes(store),
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
      clearPostLimit();
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
