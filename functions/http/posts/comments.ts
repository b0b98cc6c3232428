import { listComments } from '../../core/comments/list-comments.ts';
import { commentsQuerySchema } from '../../core/comments/schema.ts';
import { parseQuery } from '../../core/metrics/schema.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networks } from '../../runtime/parts/networks.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { replies } from '../../runtime/parts/replies.ts';
import { tokens } from '../../runtime/parts/tokens.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/posts/{id}/comments: per channel, the comments under the post as its network shows them now. */
export const handler = httpHandler(
  { uses: [posts, channels, networks, tokens, cipher, replies] },
  async ({ deps, auth, params, event }) => {
    const query = parseQuery(commentsQuerySchema, new URLSearchParams(event.rawQueryString ?? ''));
    return { status: 200, body: await listComments(deps, auth, params.id as string, query) };
  },
);
