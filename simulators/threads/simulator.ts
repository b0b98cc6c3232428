import { objectOf, startSimulator } from '../framework/framework.ts';
import { threadsErrors } from './errors.ts';
import { threadsContainerRoutes } from './routes-containers.ts';
import { threadsPublishRoutes } from './routes-publish.ts';
import { threadsReadRoutes } from './routes-read.ts';
import { threadsState } from './state.ts';
import { DEFAULT_SWITCHES, type ThreadsSimulator, type ThreadsSimulatorOptions } from './switches.ts';

export {
  TH_BASIC,
  TH_DELETE,
  TH_INSIGHTS,
  TH_MANAGE_REPLIES,
  TH_PUBLISH,
  TH_READ_REPLIES,
  threadsErrors,
} from './errors.ts';
export { graphTimestamp, threadsUsernameOf } from './graph-values.ts';
export type { SimThreadsMedia, SimThreadsPost } from './records.ts';
export type { ThreadsSimulator, ThreadsSimulatorOptions, ThreadsSwitches } from './switches.ts';
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

export const startThreadsSimulator = async (
  options: ThreadsSimulatorOptions = {},
): Promise<ThreadsSimulator> => {
  const s = threadsState(options);
  const { oauth, containers, posts, deletes, switches, setSwitches, statusOf } = s;
  const { createContainer } = threadsContainerRoutes(s);
  const { publish } = threadsPublishRoutes(s);
  const { getObject, list, publishingLimit, deletePost, insights } = threadsReadRoutes(s);
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
