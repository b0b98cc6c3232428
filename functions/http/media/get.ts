import { findMedia, mediaView } from '../../core/media/media-context.ts';
import { httpHandler } from '../../shared/http.ts';

/** GET /v1/media/{id}: one file (or a pending upload) with a fresh url. */
export const handler = httpHandler({}, async ({ deps, auth, params }) => ({
  status: 200,
  body: await mediaView(deps, await findMedia(deps, auth, params.id as string)),
}));
