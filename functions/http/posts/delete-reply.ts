import { deleteReply } from '../../core/comments/delete-reply.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networks } from '../../runtime/parts/networks.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { replies } from '../../runtime/parts/replies.ts';
import { tokens } from '../../runtime/parts/tokens.ts';
import { httpHandler } from '../pipeline.ts';

/** DELETE /v1/posts/{id}/comments/{commentId}/replies/{replyId}: removes a reply Herald sent. */
export const handler = httpHandler(
  { uses: [posts, channels, networks, tokens, cipher, replies] },
  async ({ deps, auth, params }) => ({
    status: 200,
    body: await deleteReply(
      deps,
      auth,
      params.id as string,
      params.commentId as string,
      params.replyId as string,
    ),
  }),
);
