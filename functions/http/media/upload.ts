import { uploadMedia } from '../../core/media/upload-media.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { blobs } from '../../runtime/parts/blobs.ts';
import { media } from '../../runtime/parts/media.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/media: a file of up to 4 MiB as multipart/form-data (field `file`); returns the media record. */
export const handler = httpHandler(
  { uses: [accounts, media, blobs] },
  async ({ deps, auth, event, headers }) => {
    const raw = event.body ?? '';
    // API Gateway hands binary bodies (multipart/form-data is one) over base64-encoded.
    const body = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
    return {
      status: 201,
      body: await uploadMedia(deps, auth, { contentType: headers['content-type'], body }),
    };
  },
);
