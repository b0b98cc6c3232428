import { deleteMedia } from '../../core/media/delete-media.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { blobs } from '../../runtime/parts/blobs.ts';
import { media } from '../../runtime/parts/media.ts';
import { httpHandler } from '../pipeline.ts';

/** DELETE /v1/media/{id}: removes the file and frees its storage at once (a pending upload is cancelled). */
export const handler = httpHandler({ uses: [accounts, media, blobs] }, async ({ deps, auth, params }) => ({
  status: 200,
  body: await deleteMedia(deps, auth, params.id as string),
}));
