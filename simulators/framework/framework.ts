import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { simTokenOf } from '../../functions/ports/network-client.ts';
import { type CompiledRoute, matchRoute, readBody, send, splitPath } from './http.ts';
import {
  type LostAnswer,
  type RateLimitKind,
  type RefusingSimToken,
  type SimContext,
  SimHttpError,
  type SimRecord,
  type SimRefusal,
  type SimResponse,
  type SimRoute,
  type Simulator,
  type SimulatorOptions,
} from './types.ts';

export { headerOf, objectOf } from './http.ts';
export { snowflake } from './ids.ts';
export * from './types.ts';

/**
 * A small framework for local simulators of social networks' APIs. Each network module declares
 * its routes and its own error bodies; the framework gives them a JSON router, bearer-token checks,
 * the shared sim-token behaviour (`sim:fail`, `sim:fail-once`, `sim:flaky`, `sim:reconnect`, and
 * the lost answers after storing: `sim:timeout`, `sim:reset`, `sim:bad-gateway`), a rate-limit switch,
 * the scope check of routes that declare `scopes`, and an inspection API without auth, shaped like the generic
 * simulator's: `GET /_sim/records` → `{ data: SimRecord[] }` oldest first, `GET /_sim/refusals` →
 * `{ data: SimRefusal[] }` (every refusal a sim token made, with its time) oldest first, `POST /_sim/reset` → 204,
 * `POST /_sim/rate-limit` `{ seconds }` → 204. State lives in memory only. A network's OAuth half
 * (oauth.ts) is mounted with the `oauth` option: its routes, and the refusal of the
 * expired or revoked tokens it issued. Form bodies (`application/x-www-form-urlencoded`, what OAuth
 * token endpoints take) reach handlers as a plain object of strings.
 */

const MAX_HOLD_MS = 30_000;

/** Starts a simulator on 127.0.0.1. */
export const startSimulator = async (options: SimulatorOptions): Promise<Simulator> => {
  const holdMs = Math.min(options.holdMs ?? MAX_HOLD_MS, MAX_HOLD_MS);
  const compiled: CompiledRoute[] = [...(options.oauth?.routes ?? []), ...options.routes].map((route) => ({
    route,
    segments: splitPath(route.path),
  }));
  // Compile the spec's checks of every route now: the first request is then as fast as the rest.
  // One route at a time, yielding between them: the runtime that starts the simulators answers its
  // own requests meanwhile (a whole spec compiled in one go held its event loop for over a second).
  if (options.spec) {
    for (const { route } of compiled) {
      options.spec.prepare(route.method, route.path.replace(/:[^/]+/g, '1'));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  const log: SimRecord[] = [];
  const refusals: SimRefusal[] = [];
  /** `account \0 content` pairs already refused once (`sim:fail-once`) or failed once (`sim:flaky`). */
  const seenFailOnce = new Set<string>();
  const seenFlaky = new Set<string>();
  let rateLimitedUntil = 0;
  let rateLimitKind: RateLimitKind = 'short';
  const held = new Map<Socket, NodeJS.Timeout>();
  const { errors } = options;
  const scopesOf = options.scopesOf ?? options.oauth?.scopesOf;
  if (compiled.some(({ route }) => route.scopes) && (!scopesOf || !errors.missingScope)) {
    throw new Error(
      `${options.name} simulator: routes declare scopes without scopesOf and errors.missingScope`,
    );
  }

  /** Records the refusal with its time, then answers it. */
  const refuse = (token: RefusingSimToken, content: string, account: string, response: SimResponse) => {
    refusals.push({ token, account, content, status: response.status, at: new Date().toISOString() });
    return new SimHttpError(response);
  };

  const screen = (content: string, account: string): LostAnswer | null => {
    const token = simTokenOf(content);
    const key = `${account}\u0000${content}`;
    switch (token) {
      case 'sim:fail':
        throw refuse(token, content, account, errors.refused(content));
      case 'sim:fail-once':
        if (!seenFailOnce.has(key)) {
          seenFailOnce.add(key);
          throw refuse(token, content, account, errors.refused(content));
        }
        return null;
      case 'sim:flaky':
        if (!seenFlaky.has(key)) {
          seenFlaky.add(key);
          throw refuse(token, content, account, errors.unavailable());
        }
        return null;
      case 'sim:reconnect':
        throw refuse(token, content, account, errors.unauthorized('expired'));
      case 'sim:timeout':
        return 'timeout';
      case 'sim:reset':
        return 'reset';
      case 'sim:bad-gateway':
        return 'bad-gateway';
      default:
        return null;
    }
  };

  const record = (entry: Omit<SimRecord, 'at'>): SimRecord => {
    const stored: SimRecord = { ...entry, at: new Date().toISOString() };
    log.push(stored);
    return stored;
  };

  const reset = () => {
    log.length = 0;
    refusals.length = 0;
    seenFailOnce.clear();
    seenFlaky.clear();
    rateLimitedUntil = 0;
    options.oauth?.reset();
    options.onReset?.();
  };

  const setRateLimited = (seconds: number, kind: RateLimitKind = 'short') => {
    rateLimitedUntil = seconds > 0 ? Date.now() + seconds * 1000 : 0;
    rateLimitKind = kind;
  };

  const hold = (res: ServerResponse) => {
    const socket = res.socket;
    if (!socket) return;
    const timer = setTimeout(() => {
      held.delete(socket);
      socket.destroy();
    }, holdMs);
    held.set(socket, timer);
    socket.once('close', () => {
      clearTimeout(timer);
      held.delete(socket);
    });
  };

  const inspection = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> => {
    if (req.method === 'GET' && path === '/_sim/records') {
      send(res, { status: 200, body: { data: log } });
      return true;
    }
    if (req.method === 'GET' && path === '/_sim/refusals') {
      send(res, { status: 200, body: { data: refusals } });
      return true;
    }
    if (req.method === 'POST' && path === '/_sim/reset') {
      await readBody(req);
      reset();
      send(res, { status: 204 });
      return true;
    }
    if (req.method === 'POST' && path === '/_sim/rate-limit') {
      const text = (await readBody(req))?.toString('utf8');
      let seconds = Number.NaN;
      try {
        seconds = Number((JSON.parse(text ?? '{}') as { seconds?: unknown }).seconds);
      } catch {
        // answered below
      }
      if (!Number.isFinite(seconds)) {
        send(res, { status: 400, body: { message: 'Send { "seconds": <number> }' } });
      } else {
        setRateLimited(seconds);
        send(res, { status: 204 });
      }
      return true;
    }
    return false;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/_sim/') && (await inspection(req, res, url.pathname))) return;

    const rawSegments = splitPath(url.pathname);
    let found: { route: SimRoute; params: Record<string, string> } | null = null;
    for (const candidate of compiled) {
      if (candidate.route.method !== req.method) continue;
      const params = matchRoute(candidate, rawSegments);
      if (params) {
        found = { route: candidate.route, params };
        break;
      }
    }
    const raw = await readBody(req, found?.route.maxBodyBytes);
    const text = raw === null ? null : raw.toString('utf8');
    if (!found) {
      send(res, errors.notFound(`No route for ${req.method} ${url.pathname}`));
      return;
    }
    let token: string | null = null;
    if (found.route.auth !== false) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      token = match?.[1] ?? null;
      if (!token) return send(res, errors.unauthorized('missing'));
      if (token.startsWith('revoked')) return send(res, errors.unauthorized('revoked'));
      if (token.startsWith('expired')) return send(res, errors.unauthorized('expired'));
      const refusal = options.oauth?.refusal(token) ?? null;
      if (refusal) return send(res, errors.unauthorized(refusal));
      const remainingMs = rateLimitedUntil - Date.now();
      if (remainingMs > 0) {
        return send(
          res,
          errors.rateLimited(new Date(rateLimitedUntil), Math.ceil(remainingMs / 1000), rateLimitKind),
        );
      }
    }
    if (text === null) return send(res, errors.badRequest('Request body is too large'));
    let body: unknown;
    if (/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) {
      // OAuth token endpoints take form bodies: a plain object of strings.
      body = Object.fromEntries(new URLSearchParams(text));
    } else if (found.route.rawBody) {
      // Binary uploads (blobs, media segments): the handler reads ctx.rawBody.
    } else if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return send(res, errors.badRequest('Request body is not valid JSON'));
      }
    }
    const issue = options.spec?.check({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body,
      contentType: req.headers['content-type'],
    });
    if (issue) return send(res, errors.invalidRequest?.(issue) ?? errors.badRequest(issue.message));
    const granted = token && found.route.scopes ? (scopesOf?.(token) ?? null) : null;
    const missing = granted ? (found.route.scopes ?? []).filter((scope) => !granted.includes(scope)) : [];
    if (missing.length > 0 && errors.missingScope) return send(res, errors.missingScope(missing));
    const ctx: SimContext = {
      method: req.method ?? 'GET',
      path: url.pathname,
      params: found.params,
      query: url.searchParams,
      headers: req.headers,
      body,
      rawBody: raw ?? Buffer.alloc(0),
      token,
      screen,
      record,
      errors,
    };
    let response: SimResponse;
    try {
      response = await found.route.handler(ctx);
    } catch (error) {
      if (error instanceof SimHttpError) response = error.response;
      else response = { status: 500, body: { message: `${options.name} simulator: ${String(error)}` } };
    }
    if (response.lost === 'timeout') hold(res);
    else if (response.lost === 'reset') res.socket?.resetAndDestroy();
    else if (response.lost === 'bad-gateway')
      send(res, errors.badGateway?.() ?? { status: 502, body: { message: 'Bad Gateway' } });
    else send(res, response);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { message: String(error) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    name: options.name,
    url: `http://127.0.0.1:${port}`,
    port,
    records: () => log.map((entry) => ({ ...entry })),
    refusals: () => refusals.map((entry) => ({ ...entry })),
    reset,
    setRateLimited,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const [socket, timer] of held) {
          clearTimeout(timer);
          socket.destroy();
        }
        held.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
