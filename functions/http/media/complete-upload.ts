import { completeUpload } from '../../core/media/presigned-upload.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { blobs } from '../../runtime/parts/blobs.ts';
import { media } from '../../runtime/parts/media.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/media/{id}/complete: checks the uploaded bytes and adds the file to the library. */
export const handler = httpHandler({ uses: [accounts, media, blobs] }, async ({ deps, auth, params }) => ({
  status: 200,
  body: await completeUpload(deps, auth, params.id as string),
}));
