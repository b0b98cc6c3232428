import { replyToComment } from '../../core/comments/reply.ts';
import { replyBodySchema } from '../../core/comments/schema.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { idempotency } from '../../runtime/parts/idempotency.ts';
import { media } from '../../runtime/parts/media.ts';
import { mediaUrls } from '../../runtime/parts/media-urls.ts';
import { networks } from '../../runtime/parts/networks.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { replies } from '../../runtime/parts/replies.ts';
import { tokens } from '../../runtime/parts/tokens.ts';
import { idempotent } from '../idempotency.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/posts/{id}/comments/{commentId}/replies: answers a comment on one channel, never twice. */
export const handler = httpHandler(
  {
    body: replyBodySchema,
    uses: [posts, channels, networks, tokens, cipher, replies, media, mediaUrls, idempotency],
  },
  idempotent(
    'POST /v1/posts/{id}/comments/{commentId}/replies',
    async ({ deps, auth, params, body, idempotencySeed }) =>
      replyToComment(deps, auth, params.id as string, params.commentId as string, body, idempotencySeed),
  ),
);
