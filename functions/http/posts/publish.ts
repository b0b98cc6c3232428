import { tagNames } from '../../core/posts/post-context.ts';
import { publishPost } from '../../core/publishing/publish-post.ts';
import { postView } from '../../domain/post-view.ts';
import { idempotency } from '../../runtime/parts/idempotency.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { queues } from '../../runtime/parts/queues.ts';
import { tags } from '../../runtime/parts/tags.ts';
import { idempotent } from '../idempotency.ts';
import { httpHandler } from '../pipeline.ts';
import { postAnswers } from './replay.ts';

/** POST /v1/posts/{id}/publish: starts a draft, or retries the channels not yet published. */
export const handler = httpHandler(
  { uses: [posts, tags, queues, idempotency] },
  idempotent(
    'POST /v1/posts/{id}/publish',
    async ({ deps, auth, params }) => {
      const post = await publishPost(deps, auth, params.id as string);
      return { status: 200, body: postView(post, await tagNames(deps, auth.workspaceId)) };
    },
    postAnswers,
  ),
);
