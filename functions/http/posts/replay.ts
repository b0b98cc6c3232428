import type { PostDeps } from '../../core/posts/post-context.ts';
import { findPost, tagNames } from '../../core/posts/post-context.ts';
import { postView } from '../../domain/post-view.ts';
import type { BaseDeps } from '../../runtime/compose.ts';
import type { LargeAnswers } from '../idempotency.ts';

/**
 * Idempotent post routes answer a post, which can be larger than an idempotency record holds (1 MB
 * of text): such an answer is kept as the post's id and a replay answers the post as it is then.
 */
export const postAnswers: LargeAnswers<BaseDeps & Pick<PostDeps, 'posts' | 'tags'>> = {
  reference: (response) => (response.body as { id: string }).id,
  rebuild: async (postId, { deps, auth }) => {
    const [post, names] = await Promise.all([findPost(deps, auth, postId), tagNames(deps, auth.workspaceId)]);
    return postView(post, names);
  },
};
