import { loadValidationContext } from '../../core/posts/post-context.ts';
import { createPost } from '../../core/posts/save-post.ts';
import { postBody } from '../../core/posts/schema.ts';
import { postView } from '../../domain/post-view.ts';
import { idempotency } from '../../runtime/parts/idempotency.ts';
import { media } from '../../runtime/parts/media.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { queues } from '../../runtime/parts/queues.ts';
import { scheduler } from '../../runtime/parts/scheduler.ts';
import { tags } from '../../runtime/parts/tags.ts';
import { idempotent } from '../idempotency.ts';
import { httpHandler } from '../pipeline.ts';
import { postAnswers } from './replay.ts';

/** POST /v1/posts: creates a draft, a scheduled post, or one that starts publishing now. */
export const handler = httpHandler(
  {
    body: postBody,
    uses: [posts, tags, media, scheduler, queues, idempotency],
    // The account, channels, tags and media the body names, read alongside the key's check, and
    // the key's own item in the same BatchGetItem: the post's transaction counts the request.
    prefetch: (deps, scope, body, keyHash) =>
      loadValidationContext(deps, scope.accountId, scope.workspaceId, body, keyHash),
    keyRead: (context) => context.key,
  },
  idempotent(
    'POST /v1/posts',
    async ({ deps, auth, body, idempotencySeed, prefetched, keyCount }) => {
      const { post, tagNames } = await createPost(deps, auth, body, {
        idempotencySeed,
        // Made for this key's own account and workspace (httpHandler checks), or absent.
        context: prefetched as ReturnType<typeof loadValidationContext> | undefined,
        keyCount,
      });
      return { status: 201, body: postView(post, tagNames) };
    },
    postAnswers,
  ),
);
