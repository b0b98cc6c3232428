import { findPostWithActivity, tagNames } from '../../core/posts/post-context.ts';
import { postView } from '../../domain/post-view.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { tags } from '../../runtime/parts/tags.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/posts/{id}: the post with the result of every channel. */
export const handler = httpHandler({ uses: [posts, tags] }, async ({ deps, auth, params }) => {
  const [{ post, activity }, names] = await Promise.all([
    findPostWithActivity(deps, auth, params.id as string),
    tagNames(deps, auth.workspaceId),
  ]);
  return { status: 200, body: postView(post, names, { now: deps.clock.now(), activity }) };
});
