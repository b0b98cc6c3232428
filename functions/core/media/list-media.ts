import { ApiError } from '../../shared/errors.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { type MediaDeps, mediaView } from './media-context.ts';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

const encodeCursor = (after: string) =>
  Buffer.from(JSON.stringify({ v: 1, after }), 'utf8').toString('base64url');
const decodeCursor = (cursor: string): string => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      after?: unknown;
    };
    if (parsed.v === 1 && typeof parsed.after === 'string' && parsed.after.length < 200) return parsed.after;
  } catch {
    // falls through to the error below
  }
  throw new ApiError('invalid_cursor', undefined, 'cursor');
};

/**
 * GET /v1/media: the workspace's ready files, newest first (by when they entered the library),
 * `limit` (default 25, at most 100) per page, each with a fresh url. One Query per page.
 */
export const listMedia = async (
  deps: MediaDeps,
  auth: AuthContext,
  input: { limit?: string | undefined; cursor?: string | undefined },
) => {
  let limit = DEFAULT_PAGE_SIZE;
  if (input.limit !== undefined) {
    if (!/^\d+$/.test(input.limit) || Number(input.limit) < 1 || Number(input.limit) > MAX_PAGE_SIZE) {
      throw new ApiError(
        'validation_failed',
        `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`,
        'limit',
      );
    }
    limit = Number(input.limit);
  }
  const after = input.cursor !== undefined ? decodeCursor(input.cursor) : undefined;
  const page = await deps.media.list(auth.workspaceId, { limit, ...(after !== undefined ? { after } : {}) });
  return {
    data: await Promise.all(page.records.map((record) => mediaView(deps, record))),
    nextCursor: page.next ? encodeCursor(page.next) : null,
  };
};
