import { findPostWithActivity, tagNames } from '../../core/posts/post-context.ts';
import { postView } from '../../domain/post-view.ts';
import type { Composed } from '../../runtime/compose.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { tags } from '../../runtime/parts/tags.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const getPostUses = [posts, tags] as const;

/** GET /v1/posts/{id}: the post with the result of every channel. */
export const getPostRoute = async ({
  deps,
  auth,
  params,
}: HttpRequest<undefined, Composed<typeof getPostUses>>) => {
  const [{ post, activity }, names] = await Promise.all([
    findPostWithActivity(deps, auth, params.id as string),
    tagNames(deps, auth.workspaceId),
  ]);
  return { status: 200, body: postView(post, names, { now: deps.clock.now(), activity }) };
};

export const handler = httpHandler({ uses: getPostUses }, getPostRoute);
