import { reviseBody } from '../../core/posts/schema.ts';
import { revisePost } from '../../core/publishing/revise-retract.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networks } from '../../runtime/parts/networks.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { tokens } from '../../runtime/parts/tokens.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/posts/{id}/revise: changes the words of a live post where the network allows edits. */
export const handler = httpHandler(
  { body: reviseBody, uses: [posts, channels, networks, tokens, cipher] },
  async ({ deps, auth, params, body }) => ({
    status: 200,
    body: await revisePost(deps, auth, params.id as string, body),
  }),
);
