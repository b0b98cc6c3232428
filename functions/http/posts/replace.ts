import { replacePost } from '../../core/posts/save-post.ts';
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

/** PUT /v1/posts/{id}: replaces a draft or scheduled post whole. */
export const handler = httpHandler(
  { body: postBody, uses: [posts, tags, media, scheduler, queues, idempotency] },
  idempotent(
    'PUT /v1/posts/{id}',
    async ({ deps, auth, body, params }) => {
      const { post, tagNames } = await replacePost(deps, auth, params.id as string, body);
      return { status: 200, body: postView(post, tagNames) };
    },
    postAnswers,
  ),
);
