import { ApiError } from '../../domain/errors.ts';
import { ID_BODY, isId } from '../../domain/ids.ts';
import { POST_STATUSES, type PostStatus } from '../../domain/post.ts';
import type { PostPage } from '../../ports/posts.ts';
import { type CursorScope, decodeCursor, encodeCursor, parsePageLimit } from '../../shared/pagination.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { parseInstant } from './instant.ts';
import type { PostDeps } from './post-context.ts';

const MAX_TAG_FILTERS = 10;

export interface ListPostsInput {
  statuses: string[];
  tags: string[];
  from?: string;
  to?: string;
  limit?: string;
  cursor?: string;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `from`/`to` bound: a date (a whole UTC day, inclusive) or a full ISO 8601 time with timezone. */
export const parseBound = (value: string, field: 'from' | 'to'): string => {
  const date = DATE_ONLY.exec(value);
  if (date) {
    const [, y, m, d] = date.map(Number) as [number, number, number, number];
    const start = new Date(Date.UTC(y, m - 1, d));
    if (start.getUTCFullYear() !== y || start.getUTCMonth() !== m - 1 || start.getUTCDate() !== d) {
      throw new ApiError('invalid_date', `${field}: ${value} is not a date that exists.`, field);
    }
    return field === 'from' ? start.toISOString() : new Date(start.getTime() + 86_400_000 - 1).toISOString();
  }
  return parseInstant(value, field).toISOString();
};

/** A list position: the post's list time (as `toISOString` writes it) and its id, as index entries sort. */
const POSITION = new RegExp(`^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z)#post_${ID_BODY}$`);

/** GET /posts: newest list time first (scheduledAt, else creation time); the cost of a page does not depend on how many posts exist. */
export const listPosts = async (
  deps: Pick<PostDeps, 'posts'>,
  auth: AuthContext,
  input: ListPostsInput,
): Promise<PostPage & { cursor: string | null }> => {
  const statuses = [...new Set(input.statuses)];
  for (const status of statuses) {
    if (!(POST_STATUSES as readonly string[]).includes(status)) {
      throw new ApiError('validation_failed', `status must be one of ${POST_STATUSES.join(', ')}.`, 'status');
    }
  }
  const tags = [...new Set(input.tags)];
  if (tags.length > MAX_TAG_FILTERS) {
    throw new ApiError('validation_failed', `At most ${MAX_TAG_FILTERS} tag filters.`, 'tag');
  }
  // A tag id names an index partition: only well-formed ids may reach it (an unknown one lists nothing).
  for (const tag of tags) {
    if (!isId('tag', tag)) {
      throw new ApiError(
        'validation_failed',
        'tag must be a tag id (tag_ followed by letters and digits).',
        'tag',
      );
    }
  }
  const limit = parsePageLimit(input.limit);
  const from = input.from !== undefined ? parseBound(input.from, 'from') : undefined;
  const to = input.to !== undefined ? parseBound(input.to, 'to') : undefined;
  if (from && to && from > to) throw new ApiError('validation_failed', 'from must not be after to.', 'from');
  // A cursor continues the very query it came from; its position must lie inside this query's range.
  const scope: CursorScope = [
    'posts',
    auth.workspaceId,
    auth.mode,
    [...statuses].sort(),
    [...tags].sort(),
    from ?? null,
    to ?? null,
  ];
  const after =
    input.cursor !== undefined
      ? decodeCursor(input.cursor, scope, (position) => {
          const time = POSITION.exec(position)?.[1];
          return (
            time !== undefined && (from === undefined || time >= from) && (to === undefined || time <= to)
          );
        })
      : undefined;
  const page = await deps.posts.list({
    workspaceId: auth.workspaceId,
    mode: auth.mode,
    statuses: statuses as PostStatus[],
    tagIds: tags,
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(after ? { after } : {}),
    limit,
  });
  return { ...page, cursor: page.next ? encodeCursor(page.next, scope) : null };
};
