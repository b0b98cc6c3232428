import { forgetPostMetrics } from '../../core/metrics/collect.ts';
import { deletePost } from '../../core/posts/save-post.ts';
import { metrics } from '../../runtime/parts/metrics.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { scheduler } from '../../runtime/parts/scheduler.ts';
import { httpHandler } from '../pipeline.ts';

/** DELETE /v1/posts/{id}: removes the post from the service only (a live post stays on the network). */
export const handler = httpHandler({ uses: [posts, scheduler, metrics] }, async ({ deps, auth, params }) => {
  await deletePost(deps, auth, params.id as string);
  // Stats change when posts are deleted (spec 8): its metrics go too.
  await forgetPostMetrics(deps, params.id as string);
  return { status: 200, body: { id: params.id, deleted: true } };
});
