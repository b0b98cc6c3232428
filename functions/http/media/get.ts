import { findMedia, mediaView } from '../../core/media/media-context.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { blobs } from '../../runtime/parts/blobs.ts';
import { media } from '../../runtime/parts/media.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/media/{id}: one file (or a pending upload) with a fresh url. */
export const handler = httpHandler({ uses: [accounts, media, blobs] }, async ({ deps, auth, params }) => ({
  status: 200,
  body: await mediaView(deps, await findMedia(deps, auth, params.id as string)),
}));
