import { retractPost } from '../../core/publishing/revise-retract.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networks } from '../../runtime/parts/networks.ts';
import { posts } from '../../runtime/parts/posts.ts';
import { tokens } from '../../runtime/parts/tokens.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/posts/{id}/retract: removes the post from the networks that allow it. */
export const handler = httpHandler(
  { uses: [posts, channels, networks, tokens, cipher] },
  async ({ deps, auth, params }) => ({
    status: 200,
    body: await retractPost(deps, auth, params.id as string),
  }),
);
