import { simCommentRoutes } from '../framework/comments.ts';
import {
  objectOf,
  type SimContext,
  type SimResponse,
  type Simulator,
  startSimulator,
} from '../framework/framework.ts';
import { instagramErrors } from './errors.ts';
import type { InstagramSimulatorOptions } from './options.ts';
import { instagramCommentRoutes } from './routes-comments.ts';
import { instagramContainerRoutes } from './routes-containers.ts';
import { instagramMediaRoutes } from './routes-media.ts';
import { instagramState } from './state.ts';

export {
  bucUsageHeader,
  IG_BASIC,
  IG_COMMENTS,
  IG_INSIGHTS,
  IG_PUBLISH,
  instagramError,
  instagramErrors,
  instagramPermissionError,
} from './errors.ts';
export { graphTime } from './graph-values.ts';
export { DEFAULT_INSTAGRAM_LIST_LAG_MS, type InstagramSimulatorOptions } from './options.ts';
export type { SimAttachment } from './records.ts';
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
 *   `GET /{comment}`, `DELETE /{comment}`, `POST|GET /{comment}/replies`. Comments nest one level:
 *   the media's edge lists top-level comments (newest first, cursor paging), each comment's replies
 *   come through its `replies` edge or the `replies{…}` field (oldest first); a reply to a reply is
 *   added to the top-level comment, a reply to a hidden comment is refused, and comments on a
 *   media whose owner turned them off (`commentsDisabled` switch) are refused. Hidden comments
 *   are listed to the owner with `hidden: true`; deleted ones (and a deleted comment's replies) are
 *   gone. The `/_sim/comments` hooks add and hide comments; a post with `sim:comments` gets three. A post cannot be deleted (Instagram Login has no such
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
 * capFullForSeconds?, processingMs?, listLagMs?, commentsDisabled? }`. The `/media`, `/stories`, `/comments` and `/replies` lists
 * show a new post or comment only `listLagMs` after it was made (default 3 s), as a replica would.
 */

export const startInstagramSimulator = async (
  options: InstagramSimulatorOptions = {},
): Promise<Simulator> => {
  const s = instagramState(options);
  const { oauth, containers, media, comments, published, defaults, tuning, statusOf, commentsOff, simStore } =
    s;
  const { createContainer } = instagramContainerRoutes(s);
  const { mediaView, getNode, publish, publishingLimit, listMedia } = instagramMediaRoutes(s);
  const { createComment, createReply, listComments, listReplies, deleteNode, insights } =
    instagramCommentRoutes(s);
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
      comments: item.comments.map((c) => ({
        id: c.id,
        parentId: c.parentId,
        username: c.username,
        text: c.text,
        deleted: c.deleted,
        hidden: c.hidden,
      })),
    }));

  const switches = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body) ?? {};
    const { expireContainers, capFullForSeconds, processingMs: processing, listLagMs: lag } = body;
    const { commentsDisabled } = body;
    if (
      (commentsDisabled !== undefined &&
        (!Array.isArray(commentsDisabled) || commentsDisabled.some((id) => typeof id !== 'string'))) ||
      (expireContainers !== undefined && typeof expireContainers !== 'boolean') ||
      (capFullForSeconds !== undefined && typeof capFullForSeconds !== 'number') ||
      (processing !== undefined && typeof processing !== 'number') ||
      (lag !== undefined && typeof lag !== 'number')
    ) {
      return instagramErrors.badRequest(
        'Send { expireContainers?: boolean, capFullForSeconds?: number, processingMs?: number, listLagMs?: number, commentsDisabled?: string[] }',
      );
    }
    if (Array.isArray(commentsDisabled)) {
      commentsOff.clear();
      for (const id of commentsDisabled as string[]) commentsOff.add(id);
    }
    if (typeof lag === 'number') tuning.listLagMs = Math.max(0, lag);
    if (expireContainers) for (const c of containers.values()) if (!c.publishedAs) c.expired = true;
    if (typeof capFullForSeconds === 'number') {
      tuning.capFullUntil = capFullForSeconds > 0 ? Date.now() + capFullForSeconds * 1000 : 0;
    }
    if (typeof processing === 'number') tuning.processingMs = Math.max(0, processing);
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
      commentsOff.clear();
      published.clear();
      tuning.capFullUntil = 0;
      tuning.processingMs = defaults.processingMs;
      tuning.listLagMs = defaults.listLagMs;
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
      ...simCommentRoutes(simStore),
      { method: 'POST', path: '/:version/:user/media', handler: createContainer },
      { method: 'GET', path: '/:version/:user/media', handler: listMedia(false) },
      { method: 'GET', path: '/:version/:user/stories', handler: listMedia(true) },
      { method: 'POST', path: '/:version/:user/media_publish', handler: publish },
      { method: 'GET', path: '/:version/:user/content_publishing_limit', handler: publishingLimit },
      { method: 'POST', path: '/:version/:id/comments', handler: createComment },
      { method: 'GET', path: '/:version/:id/comments', handler: listComments },
      { method: 'POST', path: '/:version/:id/replies', handler: createReply },
      { method: 'GET', path: '/:version/:id/replies', handler: listReplies },
      { method: 'GET', path: '/:version/:id/insights', handler: insights },
      { method: 'GET', path: '/:version/:id', handler: getNode },
      { method: 'DELETE', path: '/:version/:id', handler: deleteNode },
    ],
  });
};
