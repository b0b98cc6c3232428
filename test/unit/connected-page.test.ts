import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CONNECTED_PATH, connectedPage } from '../../functions/adapters/local/connected-page.ts';
import { CONNECT_CODE_PATTERN } from '../../functions/core/channels/schema.ts';

const API = 'http://localhost:3000/v1';
const serve = connectedPage({ apiUrl: API, connectCodePattern: CONNECT_CODE_PATTERN });
const CODE = `cc_${'A'.repeat(43)}${'b'.repeat(32)}`;

const get = (query: string, method = 'GET') => {
  const answer = serve(method, new URL(`${CONNECTED_PATH}${query}`, 'http://localhost:3000'));
  if (!answer) throw new Error(`${CONNECTED_PATH}${query} was not answered`);
  return { ...answer, headers: answer.headers as Record<string, string>, body: String(answer.body) };
};

describe('the local landing page of a connect (GET /connected)', () => {
  it('shows the connect code and state, and the exact call that completes the connect', () => {
    const page = get(`?connectCode=${CODE}&state=st_123`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(`<code>${CODE}</code>`);
    expect(page.body).toContain('<code>st_123</code>');
    // The command as a shell reads it once the page's HTML is decoded.
    const command = /<pre><code>([\s\S]*?)<\/code><\/pre>/.exec(page.body)?.[1]?.replaceAll('&quot;', '"');
    expect(command?.replaceAll('&#39;', "'")).toBe(
      `curl -s ${API}/channels/connect/complete -H "x-api-key: $KEY" -H 'content-type: application/json' \\\n` +
        `  -d '{"connectCode":"${CODE}"}'`,
    );
  });

  it('shows the error the callback sent, escaped', () => {
    const page = get('?error=access_denied&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=st_1');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<code>access_denied</code>');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).not.toContain('<script>');
    expect(page.body).not.toContain('curl');
  });

  it('puts nothing but a connect code into a command: anything else is 400, shown escaped', () => {
    const forged = get(`?connectCode=${encodeURIComponent(`${CODE}'; rm -rf ~; echo '`)}`);
    expect(forged.statusCode).toBe(400);
    expect(forged.body).not.toContain('curl');
    expect(forged.body).not.toContain('rm -rf');
    expect(get('').statusCode).toBe(400);
  });

  it('runs no script, loads nothing, leaks no referrer and is never cached', () => {
    const page = get(`?connectCode=${CODE}`);
    const csp = page.headers['Content-Security-Policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    // The one inline style is the one the policy's hash allows.
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)?.[1] ?? '';
    expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(page.body).toContain('<link rel="icon" href="data:,">');
    expect(csp).toContain('img-src data:');
    expect(page.headers).toMatchObject({
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    });
    expect(page.headers['X-Request-Id']).toMatch(/^req_/);
  });

  it('answers only its own path, and GET or HEAD only', () => {
    expect(serve('GET', new URL('http://localhost:3000/connected/x'))).toBeUndefined();
    expect(serve('GET', new URL('http://localhost:3000/v1/connected'))).toBeUndefined();
    const post = get('', 'POST');
    expect(post.statusCode).toBe(405);
    expect(post.headers.Allow).toBe('GET, HEAD');
    expect(get(`?connectCode=${CODE}`, 'HEAD').statusCode).toBe(200);
  });
});
