import { ApiError } from '../../domain/errors.ts';
import type { PostRecord } from '../../domain/post.ts';
import type { Clock } from '../../ports/clock.ts';
import type { PostStore } from '../../ports/posts.ts';
import { type JobQueue, runJob } from '../../ports/publishing.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { findPost } from '../posts/post-context.ts';
import { assertNotHeld, unheld } from '../posts/post-hold.ts';
import { startRound } from './engine.ts';

const PUBLISHABLE = ['draft', 'failed', 'partially_published'];

/**
 * POST /posts/{id}/publish: a draft starts publishing; a failed or partially published post
 * publishes again the channels that are not published (a thread resumes at its first missing
 * block). The answer is the post, now `publishing`; anything else is 409 `conflict`, and so is a
 * post that changed since it was read (the write is conditional on its version) or one a revise
 * or retract holds.
 */
export const publishPost = async (
  deps: { posts: PostStore; queue: () => JobQueue; clock: Clock },
  auth: AuthContext,
  postId: string,
): Promise<PostRecord> => {
  const post = await findPost(deps, auth, postId);
  if (!PUBLISHABLE.includes(post.status)) {
    throw new ApiError(
      'conflict',
      `Only draft, failed or partially published posts can be published; this post is ${post.status}.`,
    );
  }
  const now = deps.clock.now();
  assertNotHeld(post, now);
  const next: PostRecord = {
    ...startRound(unheld(post), now),
    version: post.version + 1,
    updatedAt: now.toISOString(),
  };
  await deps.posts.replace(post, next);
  await deps.queue().sendPublish(runJob(next));
  return next;
};
