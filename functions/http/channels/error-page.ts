import type { ErrorBody } from '../../domain/errors.ts';
import type { HttpEvent, HttpResult } from '../pipeline.ts';

/** The request comes from a browser page load (its Accept names HTML). */
export const wantsHtml = (event: HttpEvent): boolean => /\btext\/html\b/i.test(event.headers?.accept ?? '');

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/**
 * The error answer as a page of Herald's own (same status and headers, no Location, nothing to
 * run): what the error envelope says, for a person.
 */
export const errorPage = (result: HttpResult): HttpResult => {
  let error: Partial<ErrorBody['error']> = {};
  try {
    error = (JSON.parse(String(result.body)) as ErrorBody).error ?? {};
  } catch {
    // Not the envelope: the generic words below.
  }
  const message = error.message ?? 'This connection could not be completed.';
  const body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Connection not completed</title></head>
<body>
<h1>Connection not completed</h1>
<p>${escapeHtml(message)}</p>
<p>Go back to the application you came from and connect the account again.</p>
<p><small>${escapeHtml(error.code ?? 'error')} · ${escapeHtml(error.requestId ?? '')}</small></p>
</body>
</html>
`;
  return {
    ...result,
    headers: {
      ...result.headers,
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'",
      'X-Content-Type-Options': 'nosniff',
    },
    body,
  };
};
