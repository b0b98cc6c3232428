/**
 * The dashboard on the local runtime, as CloudFront and S3 serve it on AWS: `/dashboard/*` from the
 * Vite build (`dashboard/dist`), every answer with the dashboard's security headers, hashed assets
 * cached for good and index.html never; `/dashboard/config.json` from the runtime's Cognito settings.
 * The build is made at start when it is missing or older than the dashboard's sources.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { dashboardSecurityHeaders } from '../../shared/dashboard-headers.ts';

/** What the dashboard's sign-in needs to reach the user pool (the runtime's Cognito emulator). */
export interface DashboardCognito {
  endpoint: string;
  region: string;
  userPoolId: string;
  clientId: string;
}

export const DASHBOARD_PATH = '/dashboard';

/** The answer to a dashboard path, or undefined for a path that is not the dashboard's. */
export type DashboardFiles = (
  method: string,
  pathname: string,
  host: string,
) => Promise<APIGatewayProxyStructuredResultV2 | undefined>;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';
const NO_CACHE = 'no-cache';

/** The dashboard's sources: a build older than any of them is rebuilt. */
const newestSource = (dashboardDir: string): number => {
  let newest = 0;
  const walk = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const name of ['src', 'index.html', 'vite.config.ts', 'tsconfig.json']) {
    const path = join(dashboardDir, name);
    if (existsSync(path)) walk(path);
  }
  return newest;
};

/**
 * Builds the dashboard into `<root>/dashboard/dist` unless a build newer than its sources is there.
 * The build goes to a directory of its own first and is then moved into place, so runtimes starting
 * at once never serve half a build (the last one moved in wins; all are the same sources).
 */
export const ensureDashboardBuild = async (root: string): Promise<{ dir: string; built: boolean }> => {
  const dashboardDir = join(root, 'dashboard');
  const dir = join(dashboardDir, 'dist');
  const index = join(dir, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource(dashboardDir))
    return { dir, built: false };
  const staging = join(dashboardDir, `.build-${process.pid}-${randomUUID().slice(0, 8)}`);
  const { build } = await import('vite');
  try {
    await build({
      configFile: join(dashboardDir, 'vite.config.ts'),
      build: { outDir: staging, emptyOutDir: true },
      logLevel: 'error',
    });
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another runtime moved its build in first: the same sources, so that one serves.
      if (!existsSync(index)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { dir, built: true };
};

const envelope = (statusCode: number, code: string, message: string, headers: Record<string, string>) => {
  const requestId = `req_${randomUUID()}`;
  return {
    statusCode,
    headers: {
      ...headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': NO_CACHE,
      'X-Request-Id': requestId,
    },
    body: JSON.stringify({ error: { code, message, requestId } }),
  };
};

/**
 * The file a request path names inside `dir`, or undefined: no `..`, no encoded separators or
 * NUL, nothing outside the build, only regular files.
 */
const fileFor = (dir: string, relative: string): string | undefined => {
  let name: string;
  try {
    name = decodeURIComponent(relative);
  } catch {
    return undefined;
  }
  if (/[\\\0]/.test(name) || name.split('/').some((part) => part === '..' || part === '.')) return undefined;
  const path = resolve(dir, name);
  if (!path.startsWith(`${resolve(dir)}${sep}`)) return undefined;
  try {
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Answers the dashboard's paths (undefined for any other path, which goes on to the API routes).
 * `cognito` is asked per request: the runtime starts its emulator when first needed, and an emulator
 * that cannot start leaves the dashboard served (its sign-in says so) rather than every file failing.
 */
export const dashboardFiles = (options: {
  dir: string;
  cognito: () => Promise<DashboardCognito | undefined>;
}): DashboardFiles => {
  return async (method, pathname, host) => {
    if (pathname !== DASHBOARD_PATH && !pathname.startsWith(`${DASHBOARD_PATH}/`)) return undefined;
    const cognito = await options.cognito().catch(() => undefined);
    // Without a Cognito endpoint the CSP allows only this origin (the sign-in then says why it fails).
    const security = dashboardSecurityHeaders({ cognitoOrigin: cognito?.endpoint ?? `http://${host}` });
    if (method !== 'GET' && method !== 'HEAD') {
      return envelope(405, 'method_not_allowed', 'The dashboard answers GET only.', {
        ...security,
        Allow: 'GET, HEAD',
      });
    }
    if (pathname === DASHBOARD_PATH) {
      return {
        statusCode: 301,
        headers: { ...security, Location: `${DASHBOARD_PATH}/`, 'Cache-Control': NO_CACHE },
      };
    }
    const relative = pathname.slice(DASHBOARD_PATH.length + 1);
    if (relative === 'config.json') {
      if (!cognito)
        return envelope(503, 'service_unavailable', 'Sign-in is not configured on this runtime.', security);
      return {
        statusCode: 200,
        headers: { ...security, 'Content-Type': CONTENT_TYPES['.json'] ?? '', 'Cache-Control': NO_CACHE },
        // Only what a browser needs: the runtime's settings may carry more (the demo owner's sign-in).
        body: JSON.stringify({
          apiBase: '',
          cognito: {
            endpoint: cognito.endpoint,
            region: cognito.region,
            userPoolId: cognito.userPoolId,
            clientId: cognito.clientId,
          },
        }),
      };
    }
    const path = fileFor(options.dir, relative === '' ? 'index.html' : relative);
    if (!path) return envelope(404, 'not_found', `No dashboard file ${pathname}.`, security);
    const type = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
    const textual = /^(text\/|application\/json|image\/svg)/.test(type);
    const bytes = readFileSync(path);
    return {
      statusCode: 200,
      headers: {
        ...security,
        'Content-Type': type,
        // Vite names every asset by its content hash: a changed file is a new name.
        'Cache-Control': relative.startsWith('assets/') ? IMMUTABLE : NO_CACHE,
      },
      body: textual ? bytes.toString('utf8') : bytes.toString('base64'),
      isBase64Encoded: !textual,
    };
  };
};
