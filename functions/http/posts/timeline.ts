import { readTimeline } from '../../core/posts/timeline.ts';
import type { Composed } from '../../runtime/compose.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const timelineUses = [posts] as const;

/** GET /v1/posts/{id}/timeline: what the engine did with each channel and block of the post, and when. */
export const timelineRoute = async ({
  deps,
  auth,
  params,
}: HttpRequest<undefined, Composed<typeof timelineUses>>) => ({
  status: 200,
  body: await readTimeline(deps, auth, params.id as string),
});

export const handler = httpHandler({ uses: timelineUses }, timelineRoute);
