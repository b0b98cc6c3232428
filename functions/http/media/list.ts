import { listMedia } from '../../core/media/list-media.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { blobs } from '../../runtime/parts/blobs.ts';
import { media } from '../../runtime/parts/media.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/media: the library, newest first, paginated with an opaque cursor; each file with a fresh url. */
export const handler = httpHandler({ uses: [accounts, media, blobs] }, async ({ deps, auth, query }) => ({
  status: 200,
  body: await listMedia(deps, auth, { limit: query.get('limit'), cursor: query.get('cursor') }),
}));
