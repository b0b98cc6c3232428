import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardCognito, dashboardFiles } from '../../functions/adapters/local/dashboard-files.ts';
import { dashboardCsp } from '../../functions/shared/dashboard-headers.ts';

const COGNITO: DashboardCognito = {
  endpoint: 'http://localhost:9229',
  region: 'local',
  userPoolId: 'local_pool',
  clientId: 'client123',
};

let root: string;
let serve: ReturnType<typeof dashboardFiles>;
let cognito: DashboardCognito | undefined = COGNITO;
beforeAll(() => {
  // A build beside a secret it must never serve: <root>/dist is the dashboard, <root>/secret.txt is not.
  root = mkdtempSync(join(tmpdir(), 'herald-dashboard-files-'));
  const dir = join(root, 'dist');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Herald</title>');
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
  writeFileSync(join(dir, 'assets', 'index-AbC123.css'), 'body{}');
  writeFileSync(join(dir, 'assets', 'logo-1.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  writeFileSync(join(root, 'secret.txt'), 'do not serve');
  writeFileSync(join(root, 'dist-other'), 'a sibling whose name starts like the build');
  // The runtime's settings carry more than the browser may see (A1's carry the owner's sign-in).
  serve = dashboardFiles({
    dir,
    cognito: async () => cognito && { ...cognito, owner: { email: 'o@x', password: 'Secret-Pa55!' } },
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const get = async (path: string, method = 'GET') => {
  const answer = await serve(method, path, 'localhost:3000');
  if (!answer) throw new Error(`${path} was not answered as a dashboard path`);
  return { ...answer, headers: answer.headers as Record<string, string> };
};

describe('the local /dashboard files', () => {
  it('leaves every other path to the API routes', async () => {
    for (const path of ['/', '/v1/posts', '/docs', '/dashboards', '/dashboard-x/index.html', '/health'])
      expect(await serve('GET', path, 'localhost'), path).toBeUndefined();
  });

  it('serves index.html at /dashboard/ (never cached) and sends /dashboard there', async () => {
    const index = await get('/dashboard/');
    expect(index.statusCode).toBe(200);
    expect(index.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(index.headers['Cache-Control']).toBe('no-cache');
    expect(index.body).toContain('<title>Herald</title>');
    const bare = await get('/dashboard');
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.Location).toBe('/dashboard/');
  });

  it('serves hashed assets with their content type, cached for good; binary files base64-encoded', async () => {
    const js = await get('/dashboard/assets/index-AbC123.js');
    expect(js.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['Cache-Control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toBe('console.log(1)');
    expect((await get('/dashboard/assets/index-AbC123.css')).headers['Content-Type']).toBe(
      'text/css; charset=utf-8',
    );
    const png = await get('/dashboard/assets/logo-1.png');
    expect(png.headers['Content-Type']).toBe('image/png');
    expect(png.isBase64Encoded).toBe(true);
    expect(Buffer.from(png.body ?? '', 'base64')).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  });

  it('sends the security headers, with the Cognito endpoint the one outside origin, on every answer', async () => {
    for (const path of [
      '/dashboard/',
      '/dashboard/assets/index-AbC123.js',
      '/dashboard/config.json',
      '/dashboard/nope',
      '/dashboard',
    ]) {
      const { headers } = await get(path);
      expect(headers['Content-Security-Policy'], path).toBe(
        dashboardCsp({ cognitoOrigin: COGNITO.endpoint }),
      );
      expect(headers['X-Frame-Options'], path).toBe('DENY');
      expect(headers['X-Content-Type-Options'], path).toBe('nosniff');
      expect(headers['Strict-Transport-Security'], path).toMatch(/^max-age=\d+/);
    }
  });

  it('answers config.json from the runtime Cognito settings, read per request', async () => {
    const config = await get('/dashboard/config.json');
    expect(config.statusCode).toBe(200);
    expect(config.headers['Cache-Control']).toBe('no-cache');
    expect(JSON.parse(config.body ?? '')).toEqual({ apiBase: '', cognito: COGNITO });
    expect(config.body).not.toContain('Secret-Pa55!');
    cognito = undefined;
    try {
      const missing = await get('/dashboard/config.json');
      expect(missing.statusCode).toBe(503);
      expect(JSON.parse(missing.body ?? '').error.code).toBe('service_unavailable');
      // Without an emulator the CSP allows no outside origin at all.
      expect(missing.headers['Content-Security-Policy']).toContain(
        "connect-src 'self' http://localhost:3000;",
      );
    } finally {
      cognito = COGNITO;
    }
  });

  it('answers 404 in the envelope for unknown files and anything outside the build', async () => {
    const paths = [
      '/dashboard/nope.js',
      '/dashboard/assets',
      '/dashboard/assets/',
      '/dashboard/../secret.txt',
      '/dashboard/%2e%2e/secret.txt',
      '/dashboard/..%2fsecret.txt',
      '/dashboard/%2e%2e%2fsecret.txt',
      '/dashboard/assets/..%2F..%2Fsecret.txt',
      '/dashboard/..%5csecret.txt',
      '/dashboard/%2fetc%2fpasswd',
      '/dashboard/index.html%00.js',
      '/dashboard/%E0%A4%A',
      '/dashboard/../dist-other',
      '/dashboard/./index.html',
      '/dashboard/constructor',
      '/dashboard/__proto__',
    ];
    for (const path of paths) {
      const answer = await get(path);
      expect(answer.statusCode, path).toBe(404);
      const body = JSON.parse(answer.body ?? '');
      expect(body.error.code, path).toBe('not_found');
      expect(answer.headers['X-Request-Id'], path).toBe(body.error.requestId);
      expect(answer.body, path).not.toContain('do not serve');
    }
  });

  it('answers GET and HEAD only', async () => {
    expect((await get('/dashboard/', 'HEAD')).statusCode).toBe(200);
    const post = await get('/dashboard/', 'POST');
    expect(post.statusCode).toBe(405);
    expect(post.headers.Allow).toBe('GET, HEAD');
    expect(JSON.parse(post.body ?? '').error.code).toBe('method_not_allowed');
  });
});
