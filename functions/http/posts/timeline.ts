import { readTimeline } from '../../core/posts/timeline.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/posts/{id}/timeline: what the engine did with each channel and block of the post, and when. */
export const handler = httpHandler({ uses: [posts] }, async ({ deps, auth, params }) => ({
  status: 200,
  body: await readTimeline(deps, auth, params.id as string),
}));
