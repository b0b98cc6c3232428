import { updateMedia, updateMediaBody } from '../../core/media/update-media.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { blobs } from '../../runtime/parts/blobs.ts';
import { media } from '../../runtime/parts/media.ts';
import { httpHandler } from '../pipeline.ts';

/** PUT /v1/media/{id}: sets the file's alt text (`{ altText }`, null removes it). */
export const handler = httpHandler(
  { body: updateMediaBody, uses: [accounts, media, blobs] },
  async ({ deps, auth, params, body }) => ({
    status: 200,
    body: await updateMedia(deps, auth, params.id as string, body),
  }),
);
