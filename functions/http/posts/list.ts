import { listPosts } from '../../core/posts/list-posts.ts';
import { tagNames } from '../../core/posts/post-context.ts';
import { postView } from '../../domain/post-view.ts';
import type { Composed } from '../../runtime/compose.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { tags } from '../../runtime/parts/tags.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const listPostsUses = [posts, tags] as const;

/** GET /v1/posts: filtered, paginated with an opaque cursor; stop when nextCursor is null. */
export const listPostsRoute = async ({
  deps,
  auth,
  query,
}: HttpRequest<undefined, Composed<typeof listPostsUses>>) => {
  const [page, names] = await Promise.all([
    listPosts(deps, auth, {
      statuses: query.getAll('status'),
      tags: query.getAll('tag'),
      from: query.get('from'),
      to: query.get('to'),
      limit: query.get('limit'),
      cursor: query.get('cursor'),
    }),
    tagNames(deps, auth.workspaceId),
  ]);
  return {
    status: 200,
    body: { data: page.posts.map((post) => postView(post, names)), nextCursor: page.cursor },
  };
};

export const handler = httpHandler({ uses: listPostsUses }, listPostsRoute);
