import * as z from 'zod';
import { ApiError } from '../../domain/errors.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { cleanAltText, findMedia, type MediaDeps, mediaView } from './media-context.ts';

/** Body of PUT /v1/media/{id}: only the alt text may change (null or "" removes it). */
export const updateMediaBody = z.strictObject({ altText: z.string().nullable() });
export type UpdateMediaBody = z.output<typeof updateMediaBody>;

/** PUT /v1/media/{id}: sets the alt text of a ready file (posts may still override it per block). */
export const updateMedia = async (
  deps: MediaDeps,
  auth: AuthContext,
  mediaId: string,
  body: UpdateMediaBody,
) => {
  const record = await findMedia(deps, auth, mediaId);
  if (record.status !== 'ready') {
    throw new ApiError('media_not_ready', 'Complete the upload before setting its alt text.');
  }
  const updated = await deps.media.setAltText(
    auth.workspaceId,
    mediaId,
    cleanAltText(body.altText, 'altText'),
  );
  if (!updated) throw new ApiError('not_found', `No media ${mediaId} exists in this workspace.`);
  return mediaView(deps, updated);
};
