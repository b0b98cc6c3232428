import { buildDocument } from '../../openapi/document.ts';
import { httpHandler } from '../pipeline.ts';

let document: Record<string, unknown> | undefined;

/** GET /v1/openapi.json (no key): the OpenAPI 3.1 document of this API, built from the code. */
export const handler = httpHandler({ auth: 'none' }, async () => {
  document ??= buildDocument();
  return { status: 200, body: document, headers: { 'Cache-Control': 'public, max-age=300' } };
});
