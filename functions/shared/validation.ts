import type * as z from 'zod';
import { ApiError } from '../domain/errors.ts';

/** `['channels', 1, 'blocks', 0, 'content']` → `channels[1].blocks[0].content`. */
export const fieldPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    const name = String(part);
    return out === '' ? name : `${out}.${name}`;
  }, '');

/** The first zod issue as our `validation_failed` error, with the offending field's path. */
export const zodErrorToApiError = (error: z.ZodError): ApiError => {
  const issue = error.issues[0];
  if (!issue) return new ApiError('validation_failed');
  let path = [...issue.path];
  let message = issue.message;
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
    path = [...path, issue.keys[0] as string];
    message = `Unknown field.`;
  }
  const field = fieldPath(path);
  return new ApiError('validation_failed', field ? `${field}: ${message}` : message, field || undefined);
};
