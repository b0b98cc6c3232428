import { ID_BODY } from '../../domain/ids.ts';
import { type CursorScope, decodeCursor, encodeCursor, parsePageLimit } from '../../shared/pagination.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { type MediaDeps, mediaView } from './media-context.ts';

/** A library position: when the file entered the library and its id, as the library index sorts. */
const POSITION = new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#med_${ID_BODY}$`);

/**
 * GET /v1/media: the workspace's ready files, newest first (by when they entered the library),
 * `limit` (default 25, at most 100) per page, each with a fresh url. One Query per page.
 */
export const listMedia = async (
  deps: MediaDeps,
  auth: AuthContext,
  input: { limit?: string | undefined; cursor?: string | undefined },
) => {
  const limit = parsePageLimit(input.limit);
  const scope: CursorScope = ['media', auth.workspaceId];
  const after =
    input.cursor !== undefined
      ? decodeCursor(input.cursor, scope, (position) => POSITION.test(position))
      : undefined;
  const page = await deps.media.list(auth.workspaceId, { limit, ...(after !== undefined ? { after } : {}) });
  return {
    data: await Promise.all(page.records.map((record) => mediaView(deps, record))),
    nextCursor: page.next ? encodeCursor(page.next, scope) : null,
  };
};
