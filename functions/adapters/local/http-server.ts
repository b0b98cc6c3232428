import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import {
  fallbackEntry,
  fallbackGrants,
  type Grant,
  healthRoute,
  publicRoutes,
  type RouteDef,
  routes,
  userRoutes,
} from '../../http/routes.ts';
import { corsHeadersFor } from '../../shared/cors.ts';
import { env } from '../../shared/env.ts';
import type { ConnectedPage } from './connected-page.ts';
import type { RequestLine } from './console-log.ts';
import type { DashboardFiles } from './dashboard-files.ts';
import { type FunctionIdentity, runAsFunction } from './grant-guard.ts';
import { type JwtAuthorizer, unauthorized } from './jwt-authorizer.ts';
import { lambdaContext as baseContext } from './queue-poller.ts';

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway HTTP APIs accept at most 10 MB; the local server refuses the same. */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/**
 * Lambda refuses a synchronous invocation whose event (JSON, with a binary body base64-encoded)
 * is larger than 6 MiB; the local server refuses the same, so what fails on AWS fails here too.
 */
export const MAX_LAMBDA_EVENT_BYTES = 6 * 1024 * 1024;
/** API Gateway (HTTP API): the request line and the header values together, at most (a fixed quota). */
export const MAX_REQUEST_LINE_AND_HEADERS_BYTES = 10_240;

/** The bytes API Gateway counts against its quota: the request line and every header value. */
const requestLineAndHeaderBytes = (req: IncomingMessage): number => {
  let bytes = Buffer.byteLength(`${req.method ?? ''} ${req.url ?? ''} HTTP/${req.httpVersion}`);
  for (let i = 1; i < req.rawHeaders.length; i += 2) bytes += Buffer.byteLength(req.rawHeaders[i] ?? '');
  return bytes;
};

interface CompiledRoute {
  route: RouteDef;
  regex: RegExp;
  names: string[];
  handler: Handler;
  fn: FunctionIdentity;
  /** A user route: API Gateway's JWT authorizer runs first. */
  user?: true;
}

const compile = (path: string) => {
  const names: string[] = [];
  const pattern = path.replace(/\{([^/}]+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { regex: new RegExp(`^${pattern}$`), names };
};

/** The Lambda context of one invocation, with API Gateway's request id. */
const lambdaContext = (functionName: string, requestId: string): Context => ({
  ...baseContext(functionName, 'us-east-1', 30),
  awsRequestId: requestId,
});

/** `functions/http/posts/create.ts` → `http-posts-create`, as a Lambda function name. */
const functionNameOf = (entry: string) =>
  entry
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .replaceAll('/', '-');

const load = async (root: string, entry: string): Promise<Handler> => {
  const module = (await import(pathToFileURL(resolve(root, entry)).href)) as { handler?: Handler };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler`);
  return module.handler;
};

const readBody = (req: IncomingMessage): Promise<Buffer | null> =>
  new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });

/**
 * A path parameter as API Gateway hands it over: URL-decoded. A malformed escape (`%ZZ`) is passed
 * through as sent, so the handler's id check answers (404 in the envelope, with the request id
 * and rate-limit headers) instead of the server failing before any handler runs.
 */
const decodePathSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const isTextual = (contentType: string | undefined) =>
  !contentType || /^(text\/|application\/([\w.+-]+\+)?(json|x-www-form-urlencoded|xml))/i.test(contentType);

/** Builds the API Gateway v2 (HTTP API, payload 2.0) event that AWS would hand the function. */
export const toApiGatewayEvent = (
  req: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
): APIGatewayProxyEventV2 => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') cookies.push(...String(value).split(/;\s*/));
    else headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = query[name] ? `${query[name]},${value}` : value;
  const now = new Date();
  const binary = body.length > 0 && !isTextual(headers['content-type']);
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(pathParameters && Object.keys(pathParameters).length ? { pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0
      ? { body: binary ? body.toString('base64') : body.toString('utf8'), isBase64Encoded: binary }
      : { isBase64Encoded: false }),
  };
};

const tooLarge = (limit: number, what: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 413,
  headers: { 'Content-Type': 'application/json; charset=utf-8' },
  body: JSON.stringify({
    error: {
      code: 'payload_too_large',
      message: `The ${what} must be at most ${limit} bytes.`,
      requestId: `req_${randomUUID()}`,
    },
  }),
});

/** Only bodies near the limit are measured exactly (serialising every event would cost every request). */
const exceedsLambdaLimit = (event: APIGatewayProxyEventV2): boolean =>
  (event.body?.length ?? 0) > MAX_LAMBDA_EVENT_BYTES - 512 * 1024 &&
  Buffer.byteLength(JSON.stringify(event)) > MAX_LAMBDA_EVENT_BYTES;

const send = (
  res: ServerResponse,
  result: APIGatewayProxyStructuredResultV2,
  cors: Record<string, string> = {},
) => {
  // setHeader (not writeHead's object) keeps the headers readable for the request log line.
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    // As API Gateway with CORS configured: the function's own CORS headers are ignored.
    if (!/^access-control-/i.test(name)) res.setHeader(name, String(value));
  }
  for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
  if (result.cookies?.length) res.setHeader('Set-Cookie', result.cookies);
  const body = result.body
    ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
    : Buffer.alloc(0);
  res.setHeader('Content-Length', body.length);
  res.writeHead(result.statusCode ?? 200);
  res.end(body);
};

/** Reports a request once its answer is sent: the local runtime's one log line per request. */
const reportWhenSent = (
  req: IncomingMessage,
  res: ServerResponse,
  onRequest: (line: RequestLine) => void,
) => {
  const started = performance.now();
  res.once('finish', () => {
    const requestId = res.getHeader('x-request-id');
    onRequest({
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0] ?? '/',
      status: res.statusCode,
      durationMs: performance.now() - started,
      requestId: typeof requestId === 'string' ? requestId : undefined,
    });
  });
};
/** The manifest's name for a route's function, the key of `grantOverrides`. */
export const routeKeyOf = (route: Pick<RouteDef, 'method' | 'path'>): string =>
  `${route.method} ${route.path}`;
/** The manifest's name for the fallback function (API Gateway's `$default` route). */
export const FALLBACK_FUNCTION = '$default';

/**
 * Plays API Gateway on this machine: loads every route's handler module and answers each request
 * as the gateway would, matching the route manifest, building the same v2 event and calling the
 * very same handler; anything unmatched goes to the fallback handler, as `$default`. The runtime
 * serves it on its port (`http-port.ts`) once everything is up.
 */
export const loadHttpHandlers = async (options: {
  root: string;
  /** Called once per answered request (the local request log). */
  onRequest?: (line: RequestLine) => void;
  /** Grants that replace a function's manifest grants, by route key or `$default` (tests remove one). */
  grantOverrides?: Record<string, Grant[]>;
  /** Each function's handler by route key, instead of the manifest's source module (the deploy rehearsal). */
  handlerFor?: (routeKey: string) => Handler;
  /** The JWT authorizer of the user routes (jwt-authorizer.ts); without it they answer 401. */
  userAuthorizer?: () => Promise<JwtAuthorizer>;
  /** The dashboard's files under /dashboard (CloudFront and S3's part on AWS), before any route. */
  dashboard?: DashboardFiles;
  /** The landing page of a connect's browser flow (local only: on AWS it is the client's page). */
  connected?: ConnectedPage;
}): Promise<RequestListener> => {
  const loadFn = (id: string, entry: string) =>
    options.handlerFor ? Promise.resolve(options.handlerFor(id)) : load(options.root, entry);
  // Each call runs as its own function, with only its manifest grants, as a Lambda of its own would.
  const identity = (id: string, entry: string, grants: Grant[]): FunctionIdentity => ({
    id,
    name: functionNameOf(entry),
    grants: options.grantOverrides?.[id] ?? grants,
  });
  const invoke = (
    fn: FunctionIdentity,
    handler: Handler,
    event: APIGatewayProxyEventV2,
    contextName = fn.name,
  ): Promise<APIGatewayProxyStructuredResultV2> =>
    runAsFunction(fn, () => handler(event, lambdaContext(contextName, event.requestContext.requestId)));
  const healthFunction = identity(routeKeyOf(healthRoute), healthRoute.entry, healthRoute.grants);
  const fallbackFunction = identity(FALLBACK_FUNCTION, fallbackEntry, fallbackGrants);
  const compiled: CompiledRoute[] = [];
  for (const route of [...publicRoutes, ...routes])
    compiled.push({
      route,
      ...compile(route.path),
      handler: await loadFn(routeKeyOf(route), route.entry),
      fn: identity(routeKeyOf(route), route.entry, route.grants),
    });
  for (const route of userRoutes)
    compiled.push({
      route,
      ...compile(route.path),
      handler: await loadFn(routeKeyOf(route), route.entry),
      fn: identity(routeKeyOf(route), route.entry, route.grants),
      user: true,
    });
  const fallback = await loadFn(FALLBACK_FUNCTION, fallbackEntry);
  const health = await loadFn(`GET ${healthRoute.path}`, healthRoute.entry);

  // Read inside the runtime's container: its CORS_ORIGINS (none unless set).
  const corsOrigins = env.corsOrigins;

  return async (req, res) => {
    if (options.onRequest) reportWhenSent(req, res, options.onRequest);
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    // As API Gateway with CORS configured: it answers a preflight itself (no function runs), with
    // the CORS headers only for a listed origin, and adds them to every answer to a listed origin.
    if (
      corsOrigins.length > 0 &&
      req.method === 'OPTIONS' &&
      origin &&
      req.headers['access-control-request-method']
    ) {
      req.resume();
      send(res, { statusCode: 204 }, corsHeadersFor(corsOrigins, origin, true));
      return;
    }
    const cors = corsHeadersFor(corsOrigins, origin, false);
    const reply = (result: APIGatewayProxyStructuredResultV2) => send(res, result, cors);
    try {
      if (requestLineAndHeaderBytes(req) > MAX_REQUEST_LINE_AND_HEADERS_BYTES) {
        req.resume();
        reply(tooLarge(MAX_REQUEST_LINE_AND_HEADERS_BYTES, 'request line and header values together'));
        return;
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const body = await readBody(req);
      if (body === null) {
        reply({
          statusCode: 413,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: JSON.stringify({
            error: {
              code: 'payload_too_large',
              message: `The request body must be at most ${MAX_REQUEST_BYTES} bytes.`,
              requestId: `req_${randomUUID()}`,
            },
          }),
        });
        return;
      }
      const page = await options.dashboard?.(
        req.method ?? 'GET',
        url.pathname,
        req.headers.host ?? 'localhost',
      );
      if (page) return reply(page);
      const landing = options.connected?.(req.method ?? 'GET', url);
      if (landing) return reply(landing);
      if (url.pathname === healthRoute.path && req.method === 'GET') {
        const event = toApiGatewayEvent(req, body, `GET ${healthRoute.path}`, undefined);
        reply(await invoke(healthFunction, health, event, 'health'));
        return;
      }
      for (const candidate of compiled) {
        if (candidate.route.method !== req.method) continue;
        const match = candidate.regex.exec(url.pathname);
        if (!match) continue;
        const params: Record<string, string> = {};
        candidate.names.forEach((name, i) => {
          params[name] = decodePathSegment(match[i + 1] ?? '');
        });
        const routeKey = `${candidate.route.method} ${candidate.route.path}`;
        const event = toApiGatewayEvent(req, body, routeKey, params);
        if (candidate.user) {
          const authorized = options.userAuthorizer
            ? await (await options.userAuthorizer())(req.headers.authorization)
            : { refused: unauthorized() };
          if ('refused' in authorized) {
            reply(authorized.refused);
            return;
          }
          Object.assign(event.requestContext, {
            authorizer: { jwt: { claims: authorized.claims, scopes: null } },
          });
        }
        if (exceedsLambdaLimit(event)) {
          reply(tooLarge(MAX_LAMBDA_EVENT_BYTES, 'Lambda request event (with the body base64-encoded)'));
          return;
        }
        reply(await invoke(candidate.fn, candidate.handler, event));
        return;
      }
      const event = toApiGatewayEvent(req, body, '$default', undefined);
      reply(await invoke(fallbackFunction, fallback, event, 'fallback'));
    } catch (error) {
      // Handlers answer errors themselves; reaching here means the runtime itself failed.
      console.error('Local HTTP server error', error);
      if (!res.headersSent) {
        reply({
          statusCode: 500,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: JSON.stringify({
            error: {
              code: 'internal_error',
              message: 'Local runtime error.',
              requestId: `req_${randomUUID()}`,
            },
          }),
        });
      }
    }
  };
};
