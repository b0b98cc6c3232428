import { ApiError } from './errors.ts';

/** Every list endpoint pages the same way: `limit` 1-100 (default 25) and an opaque `cursor`. */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

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

/** The opaque cursor for "continue after this position". */
export const encodeCursor = (after: string): string =>
  Buffer.from(JSON.stringify({ v: 1, after }), 'utf8').toString('base64url');

/** The position a cursor holds; a cursor we did not make (or not for this list: `accept`) is a 400. */
export const decodeCursor = (cursor: string, accept: (after: string) => boolean = () => true): string => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      after?: unknown;
    };
    if (
      parsed.v === 1 &&
      typeof parsed.after === 'string' &&
      parsed.after.length < 300 &&
      accept(parsed.after)
    ) {
      return parsed.after;
    }
  } catch {
    // falls through to the error below
  }
  throw new ApiError('invalid_cursor', undefined, 'cursor');
};
