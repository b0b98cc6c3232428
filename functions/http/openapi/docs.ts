import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * GET /docs and GET /docs/{asset} (no key): the API reference, rendered by Swagger UI from
 * GET /v1/openapi.json, with "Try it out" against this same server. Every asset is served from
 * here (no CDN): on AWS the CDK bundle ships Swagger UI's files beside this handler (see the
 * route's `assets`); locally they are read from node_modules. The largest, the 1.5 MB script, is
 * well under Lambda's 6 MB response limit.
 */

// A Map, not an object literal: a path such as /docs/constructor or /docs/__proto__ must find
// nothing, not a property every object inherits.
const CONTENT_TYPES = new Map<string, string>([
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['init.js', 'text/javascript; charset=utf-8'],
]);

/**
 * People type API keys into this page: no script but Herald's own files (Swagger UI's bundle and
 * init.js; no inline script, no eval), no framing (clickjacking), no referrer carried to other
 * sites. Swagger UI sets inline styles and data: images, hence those two allowances. The page
 * names an empty data: icon, so a browser does not ask for /favicon.ico (a 404).
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
    displayRequestDuration: true,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Herald API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const here = dirname(fileURLToPath(import.meta.url));
const cache = new Map<string, string>();

/** Beside the bundle on AWS, else from the installed package. */
const readAsset = (name: string): string => {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  const bundled = join(here, name);
  const file = existsSync(bundled)
    ? bundled
    : createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`);
  const text = readFileSync(file, 'utf8');
  cache.set(name, text);
  return text;
};

const answer = (
  status: number,
  contentType: string,
  body: string,
  extra: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: status,
  headers: {
    'Content-Type': contentType,
    'X-Request-Id': `req_${randomUUID()}`,
    ...SECURITY_HEADERS,
    ...extra,
  },
  body,
});

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const asset = event.pathParameters?.asset;
  if (asset === undefined) {
    return answer(200, 'text/html; charset=utf-8', PAGE, { 'Cache-Control': 'no-cache' });
  }
  const type = CONTENT_TYPES.get(asset);
  if (!type) {
    const requestId = `req_${randomUUID()}`;
    return {
      statusCode: 404,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'X-Request-Id': requestId,
        ...SECURITY_HEADERS,
      },
      body: JSON.stringify({
        error: { code: 'not_found', message: 'Nothing was found at this address.', requestId },
      }),
    };
  }
  return answer(200, type, asset === 'init.js' ? INIT : readAsset(asset), {
    'Cache-Control': 'public, max-age=3600',
  });
};
