import { createHash } from 'node:crypto';
import { ApiError } from '../domain/errors.ts';

/** Every list endpoint pages the same way: `limit` 1-100 (default 25) and an opaque `cursor`. */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** The cursors we issue are a few hundred characters; a longer one is refused before it is decoded. */
const MAX_CURSOR_LENGTH = 1024;
const CURSOR_VERSION = 2;

/** The page size from the `limit` query parameter; anything but a whole number from 1 to 100 is a 400. */
export const parsePageLimit = (value: string | undefined): number => {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE_SIZE) {
    throw new ApiError(
      'validation_failed',
      `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`,
      'limit',
    );
  }
  return Number(value);
};

/**
 * What a cursor was issued for: the list, the workspace and every filter that shapes the list,
 * normalised (sorted sets, parsed times) so equal queries give equal scopes.
 */
export type CursorScope = readonly (string | null | readonly string[])[];

/** A cursor carries a digest of its scope, not the scope: it stays short whatever the filters. */
const scopeDigest = (scope: CursorScope): string =>
  createHash('sha256').update(JSON.stringify(scope)).digest('base64url').slice(0, 22);

/** The opaque cursor for "continue after this position" in the list `scope` describes. */
export const encodeCursor = (after: string, scope: CursorScope): string =>
  Buffer.from(JSON.stringify({ v: CURSOR_VERSION, after, scope: scopeDigest(scope) }), 'utf8').toString(
    'base64url',
  );

const invalid = (message?: string) => new ApiError('invalid_cursor', message, 'cursor');

/**
 * The position a cursor holds. A cursor is refused (400 `invalid_cursor`) unless we made it for
 * this very list and filters (`scope`) and its position has the shape of this list's keys
 * (`accept`): a position that reached the query unchecked could make DynamoDB refuse it (a 5xx) or
 * step outside the filters.
 */
export const decodeCursor = (
  cursor: string,
  scope: CursorScope,
  accept: (after: string) => boolean,
): string => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalid();
  }
  let parsed: { v?: unknown; after?: unknown; scope?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw invalid();
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    parsed.v !== CURSOR_VERSION ||
    typeof parsed.after !== 'string' ||
    typeof parsed.scope !== 'string'
  ) {
    throw invalid();
  }
  if (parsed.scope !== scopeDigest(scope)) {
    throw invalid(
      'The cursor was issued for another list or other filters; send the same filters, or start again without it.',
    );
  }
  if (!accept(parsed.after)) throw invalid();
  return parsed.after;
};
