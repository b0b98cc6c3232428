import { startUpload } from '../../core/media/presigned-upload.ts';
import { startUploadBody } from '../../core/media/start-upload-body.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { blobs } from '../../runtime/parts/blobs.ts';
import { media } from '../../runtime/parts/media.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/media/uploads: starts a direct-to-S3 upload (files up to 100 MiB); returns the pending media and a presigned PUT. */
export const handler = httpHandler(
  { body: startUploadBody, uses: [accounts, media, blobs] },
  async ({ deps, auth, body }) => ({
    status: 201,
    body: await startUpload(deps, auth, body),
  }),
);
