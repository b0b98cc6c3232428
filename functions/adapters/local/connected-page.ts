/**
 * `GET /connected` on the local runtime: where the browser lands at the end of a connect when the
 * examples' `redirectUrl` is `http://localhost:<PORT>/connected`. It shows what Herald's callback
 * added to the address (the connect code and state, or the error) and the exact call that
 * completes the connect. Local only: on AWS the `redirectUrl` is a page of the client's own
 * application, and this path is the API's `$default` (404).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export const CONNECTED_PATH = '/connected';

/** The answer to `/connected`, or undefined for any other path. */
export type ConnectedPage = (method: string, url: URL) => APIGatewayProxyStructuredResultV2 | undefined;

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#111}' +
  'pre{background:#f4f4f4;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}' +
  'code{font-family:ui-monospace,monospace}dt{font-weight:600}dd{margin:0 0 .5rem;word-break:break-all}';

/**
 * The page runs no script and loads nothing: its one style is allowed by its hash. The address
 * carries a connect code, so no referrer leaves it and nothing caches it.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const page = (statusCode: number, title: string, body: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'X-Request-Id': `req_${randomUUID()}`,
  },
  body: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Herald (local)</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
<p><small>This page is the local runtime's own (<code>GET ${CONNECTED_PATH}</code>, <code>npm start</code> only). On AWS your <code>redirectUrl</code> is a page of your application, which does the same: it checks the state, then its server completes the code.</small></p>
</main>
</body>
</html>
`,
});

const field = (name: string, value: string) =>
  `<dt>${escapeHtml(name)}</dt><dd><code>${escapeHtml(value)}</code></dd>`;

/**
 * The landing page of this runtime, whose API is at `apiUrl` (`http://localhost:<PORT>/v1`);
 * `connectCodePattern` is the shape of the codes Herald makes (only such a code goes into the
 * command shown, so no address can put anything else into a shell line).
 */
export const connectedPage = (options: { apiUrl: string; connectCodePattern: RegExp }): ConnectedPage => {
  return (method, url) => {
    if (url.pathname !== CONNECTED_PATH) return undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const result = page(405, 'Method not allowed', '<p>This page answers GET only.</p>');
      return { ...result, headers: { ...result.headers, Allow: 'GET, HEAD' } };
    }
    const query = url.searchParams;
    const state = query.get('state') ?? '';
    const code = query.get('connectCode');
    const error = query.get('error');
    const stateLine = state ? field('state', state) : '';
    if (error !== null) {
      const description = query.get('error_description');
      return page(
        200,
        'The connection was not made',
        `<p>Herald's callback sent the browser here with an error: no channel was created and the
connection is over.</p>
<dl>${field('error', error)}${description ? field('error_description', description) : ''}${stateLine}</dl>
<p><code>access_denied</code> means the user refused on the network's consent screen. Start again
with <code>POST /v1/channels/connect</code>.</p>`,
      );
    }
    if (code !== null && options.connectCodePattern.test(code)) {
      const command = `curl -s ${options.apiUrl}/channels/connect/complete -H "x-api-key: $KEY" -H 'content-type: application/json' \\
  -d '{"connectCode":"${code}"}'`;
      return page(
        200,
        'One step left: complete the connect',
        `<p>The user consented and Herald's callback sent the browser here with a connect code. No
channel exists yet: your server completes the code, within 10 minutes, with a live key of the
workspace that started the connection (<code>KEY</code>; the demo workspace's is
<code>keys.live</code> in <code>DATA_DIR/seed.json</code>).</p>
<dl>${field('connectCode', code)}${stateLine}</dl>
<pre><code>${escapeHtml(command)}</code></pre>
<p>It answers the new channel (201), or the channel it reconnected (200), or, for an account that
owns pages, boards or channels, the targets to choose (200 <code>pending: "targets"</code>).
Before completing, your application checks that <code>state</code> is the one
<code>POST /v1/channels/connect</code> answered in this user's session.</p>`,
      );
    }
    return page(
      400,
      'Nothing to complete here',
      `<p>${code === null ? 'This address carries no connect code and no error.' : 'This is not a connect code Herald makes (cc_ and 75 characters).'}
Herald sends the browser here, with <code>connectCode</code> and <code>state</code> added to the
address, when <code>http://localhost:&lt;PORT&gt;${CONNECTED_PATH}</code> is the
<code>redirectUrl</code> of <code>POST /v1/channels/connect</code>.</p>`,
    );
  };
};
