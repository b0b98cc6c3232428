import type { Clock } from '../../ports/clock.ts';
import type { PostStore } from '../../ports/posts.ts';
import type { JobQueue } from '../../ports/publishing.ts';
import { ApiError } from '../../shared/errors.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import type { PostRecord } from '../posts/model.ts';
import { findPost } from '../posts/post-context.ts';
import { mutatePost, PostGoneError, startRound } from './engine.ts';

/**
 * POST /posts/{id}/publish: a draft starts publishing; a failed or partially published post
 * publishes again the channels that are not published (a thread resumes at its first missing
 * block). The answer is the post, now `publishing`; anything else is 409 `conflict`.
 */
export const publishPost = async (
  deps: { posts: PostStore; queue: () => JobQueue; clock: Clock },
  auth: AuthContext,
  postId: string,
): Promise<PostRecord> => {
  await findPost(deps, auth, postId);
  const allowed = ['draft', 'failed', 'partially_published'];
  let refusedStatus: string | null = null;
  let post: PostRecord;
  try {
    ({ post } = await mutatePost(deps, postId, (current) => {
      if (!allowed.includes(current.status)) {
        refusedStatus = current.status;
        return null;
      }
      refusedStatus = null;
      return { next: startRound(current, deps.clock.now()) };
    }));
  } catch (error) {
    if (error instanceof PostGoneError)
      throw new ApiError('not_found', `No post ${postId} exists in this workspace.`);
    throw error;
  }
  if (refusedStatus !== null) {
    throw new ApiError(
      'conflict',
      `Only draft, failed or partially published posts can be published; this post is ${refusedStatus}.`,
    );
  }
  await deps.queue().sendPublish({ postId, kind: 'run', round: post.round ?? 1 });
  return post;
};
