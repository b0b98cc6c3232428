import { simCommentRoutes } from '../framework/comments.ts';
import { objectOf, startSimulator } from '../framework/framework.ts';
import { facebookErrors } from './errors.ts';
import type { SimFacebookMedia, StoredComment } from './records.ts';
import { facebookObjectRoutes } from './routes-objects.ts';
import { facebookPublishRoutes } from './routes-publish.ts';
import { facebookVideoRoutes } from './routes-video.ts';
import { facebookState } from './state.ts';
import {
  DEFAULT_SWITCHES,
  type FacebookSimulator,
  type FacebookSimulatorOptions,
  type FacebookSwitches,
} from './switches.ts';

export { facebookErrors } from './errors.ts';
export type { SimFacebookMedia } from './records.ts';
export type { FacebookSimulator, FacebookSimulatorOptions, FacebookSwitches } from './switches.ts';
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
 * - `POST /{object-id}/comments {message}` (on a post a comment, on a comment a reply; a reply
 *   reads `can_comment: false` and cannot be answered), `GET /{object-id}/comments` (`filter`
 *   toplevel or stream, `order`, cursor paging with `next` only when more follow; fields as asked:
 *   `from` (left out for people with `hideCommenters`), `parent{id}`, `is_hidden`, `like_count`,
 *   `permalink_url`, `can_comment`), `GET /{comment-id}`, `POST /{id} {message}` (edit a post or
 *   comment), `DELETE /{id}` (`(#100)` with subcode 33 when it does not exist). Comment ids are
 *   `<post object>_<comment>`. Reading people's comments needs `pages_read_user_content`.
 * - The `/_sim/comments` hooks add, hide and delete people's comments; a post whose text has
 *   `sim:comments` gets three at once.
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
 * Switches: `POST /_sim/facebook/switches {videoProcessingMs, videoFails, feedLimitMinutes, reelsPerDay, hideCommenters}`.
 * Inspection: `GET /_sim/facebook/posts` (posts with their attachments and comments) and
 * `GET /_sim/facebook/media` (photos and videos with alt text, size and what they are attached to).
 */

export const startFacebookSimulator = async (
  options: FacebookSimulatorOptions = {},
): Promise<FacebookSimulator> => {
  const s = facebookState(options);
  const { posts, comments, media, switches, login, timers, setSwitches, clearFeedLimit, simStore } = s;
  const { createFeedPost, createPhoto, createVideo } = facebookPublishRoutes(s);
  const { createComment, listComments, editObject, deleteObject, readObject, insights, listPosts } =
    facebookObjectRoutes(s);
  const { uploadSessions, uploadVideoBytes, photoStory, listStories, listVideos } = facebookVideoRoutes(s);
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
      clearFeedLimit();
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
            hideCommenters: 'boolean',
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
      ...simCommentRoutes(simStore),
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
