import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { simTokenOf } from '../../functions/ports/network-client.ts';
import type { RequestSpec, SpecIssue } from './spec-validation.ts';

/**
 * A small framework for local simulators of social networks' APIs. Each network module declares
 * its routes and its own error bodies; the framework gives them a JSON router, bearer-token checks,
 * the shared sim-token behaviour (`sim:fail`, `sim:fail-once`, `sim:flaky`, `sim:reconnect`, and
 * the lost answers after storing: `sim:timeout`, `sim:reset`, `sim:bad-gateway`), a rate-limit switch, and an inspection API without auth, shaped like the generic
 * simulator's: `GET /_sim/records` → `{ data: SimRecord[] }` oldest first, `POST /_sim/reset` → 204,
 * `POST /_sim/rate-limit` `{ seconds }` → 204. State lives in memory only. A network's OAuth half
 * (simulator/oauth.ts) is mounted with the `oauth` option: its routes, and the refusal of the
 * expired or revoked tokens it issued. Form bodies (`application/x-www-form-urlencoded`, what OAuth
 * token endpoints take) reach handlers as a plain object of strings.
 */

/** One thing the simulated network did to a post, in order. */
export interface SimRecord {
  kind: 'post' | 'reply' | 'comment' | 'edit' | 'delete';
  /** The network's id of the object created, edited or deleted. */
  id: string;
  /** What a reply or comment attaches to (for edits and deletes of comments: the post). */
  parentId: string | null;
  /** The first post of the thread a reply or comment belongs to. */
  rootId: string | null;
  /** The text as the network stored it; null for deletes. */
  text: string | null;
  /** ISO 8601 time the simulator stored it. */
  at: string;
  /** The network-side account (user id, DID, author URN). */
  account: string;
}

export interface SimResponse {
  status: number;
  /** Serialized as JSON; absent means an empty body. */
  body?: unknown;
  /** An HTML page instead of JSON: what a network's sign-in site shows the user's browser. */
  html?: string;
  headers?: Record<string, string | number>;
  /**
   * The request was accepted (and whatever it did is stored), but its answer is lost: `timeout`
   * holds the socket until the client gives up (closed after `holdMs` at the latest), `reset`
   * resets the connection, `bad-gateway` answers 502 as a gateway in front of the network would.
   */
  lost?: LostAnswer | null;
}

/** How an answer is lost after the network stored the post (`sim:timeout`, `sim:reset`, `sim:bad-gateway`). */
export type LostAnswer = 'timeout' | 'reset' | 'bad-gateway';

/** Thrown by handlers (and by `ctx.screen`) to answer with an error at once. */
export class SimHttpError extends Error {
  constructor(readonly response: SimResponse) {
    super(`simulated ${response.status}`);
    this.name = 'SimHttpError';
  }
}

/** The two throttles every simulator models: a short one, and a spent daily cap. */
export type RateLimitKind = 'short' | 'daily';

/** Why the simulator refuses a token. */
export type UnauthorizedReason = 'missing' | 'expired' | 'revoked';

/** The network's own answers for the situations the framework produces. */
export interface SimErrorBodies {
  unauthorized(reason: UnauthorizedReason): SimResponse;
  /** The network's permanent refusal of content (`sim:fail`, `sim:fail-once` the first time). */
  refused(content: string): SimResponse;
  /** A transient outage (`sim:flaky` the first time): a 503 with the network's body. */
  unavailable(): SimResponse;
  /**
   * The network's rate-limit answer, with its headers: `short` a throttle of seconds or minutes,
   * `daily` a spent daily cap (some networks announce its reset, some answer both alike).
   */
  rateLimited(resetAt: Date, seconds: number, kind: RateLimitKind): SimResponse;
  badRequest(message: string): SimResponse;
  notFound(message: string): SimResponse;
  /** A gateway's 502 (`sim:bad-gateway`); default: a bare `{ message: 'Bad Gateway' }`. */
  badGateway?(): SimResponse;
  /** The network's answer to a request its published spec refuses; default: `badRequest(issue.message)`. */
  invalidRequest?(issue: SpecIssue): SimResponse;
}

export interface SimContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  /** The request body's bytes as sent (empty when none). */
  rawBody: Buffer;
  /** The bearer token (already checked for `revoked`/`expired` prefixes); null on routes without auth. */
  token: string | null;
  /**
   * Applies the sim tokens in `content` for `account`: throws the network's answer for
   * `sim:fail`, `sim:fail-once` (first time), `sim:flaky` (first time) and `sim:reconnect`;
   * returns how the answer is lost for `sim:timeout`, `sim:reset` and `sim:bad-gateway` (store the
   * post, then answer with `lost` set to it).
   */
  screen(content: string, account: string): LostAnswer | null;
  /** Appends to the inspection log. */
  record(entry: Omit<SimRecord, 'at'>): SimRecord;
  errors: SimErrorBodies;
}

export type SimMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface SimRoute {
  method: SimMethod;
  /** `/2/tweets/:id`: `:name` segments become `params.name` (URL-decoded). */
  path: string;
  /** Default true: the route needs `Authorization: Bearer <token>`. */
  auth?: boolean;
  /** The body is binary (an upload): not parsed as JSON, read from `ctx.rawBody`. */
  rawBody?: boolean;
  /** The largest body the route takes (default 5 MiB): a network's own upload limit. */
  maxBodyBytes?: number;
  handler(ctx: SimContext): SimResponse | Promise<SimResponse>;
}

export interface SimulatorOptions {
  /** The network's name, for messages. */
  name: string;
  routes: SimRoute[];
  errors: SimErrorBodies;
  /** Clears the network module's own state on reset. */
  onReset?: () => void;
  /** How long a `sim:timeout` request is held before the socket is closed (default and maximum 30 s). */
  holdMs?: number;
  /** Default 0: a free port. */
  port?: number;
  /**
   * The network's OAuth endpoints and the tokens they issued (simulator/oauth.ts): its routes are
   * mounted next to `routes`, and a bearer token it issued is refused once expired or revoked.
   */
  oauth?: SimOAuthMount;
  /**
   * The network's published description of its API (spec-validation.ts): every request to a route
   * it describes is checked against it before the handler runs, and refused with
   * `errors.invalidRequest`.
   */
  spec?: RequestSpec;
}

/** What a simulator's OAuth half adds to it (see simulator/oauth.ts). */
export interface SimOAuthMount {
  routes: SimRoute[];
  /** Why an access token the simulator issued is refused now; null when it is valid or not one it issued. */
  refusal(token: string): UnauthorizedReason | null;
  reset(): void;
}

export interface Simulator {
  name: string;
  url: string;
  port: number;
  stop(): Promise<void>;
  /** A copy of the inspection log, oldest first. */
  records(): SimRecord[];
  /** Forgets records, network state, `fail-once`/`flaky` memory and the rate limit. */
  reset(): void;
  /**
   * Every authenticated request answers the network's rate-limit refusal for `seconds` (0 or less:
   * off), as a short throttle (default) or a spent daily cap.
   */
  setRateLimited(seconds: number, kind?: RateLimitKind): void;
}

const MAX_HOLD_MS = 30_000;
const MAX_BODY_BYTES = 5 * 1024 * 1024;

interface CompiledRoute {
  route: SimRoute;
  segments: string[];
}

const splitPath = (path: string) => path.split('/').filter((segment) => segment !== '');

const matchRoute = (compiled: CompiledRoute, rawSegments: string[]): Record<string, string> | null => {
  if (compiled.segments.length !== rawSegments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < rawSegments.length; i++) {
    const pattern = compiled.segments[i] as string;
    const raw = rawSegments[i] as string;
    if (pattern.startsWith(':')) {
      try {
        params[pattern.slice(1)] = decodeURIComponent(raw);
      } catch {
        return null;
      }
    } else if (pattern !== raw) {
      return null;
    }
  }
  return params;
};

const readBody = (req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });

const send = (res: ServerResponse, response: SimResponse) => {
  const headers: Record<string, string | number> = { ...(response.headers ?? {}) };
  let payload: string | undefined;
  if (response.html !== undefined) {
    payload = response.html;
    headers['content-type'] = 'text/html; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(payload);
  } else if (response.body !== undefined) {
    payload = JSON.stringify(response.body);
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(payload);
  } else {
    headers['content-length'] = 0;
  }
  res.writeHead(response.status, headers);
  res.end(payload);
};

let snowflakeSequence = 0n;
let lastSnowflakeMs = 0n;

/**
 * A numeric id laid out like X's and LinkedIn's: milliseconds since `epochMs` shifted left by 22
 * bits, then a sequence number. Strictly increasing within the process.
 */
export const snowflake = (epochMs = 0): string => {
  let now = BigInt(Date.now() - epochMs);
  if (now <= lastSnowflakeMs) {
    snowflakeSequence += 1n;
    if (snowflakeSequence > 4095n) {
      lastSnowflakeMs += 1n;
      snowflakeSequence = 0n;
    }
    now = lastSnowflakeMs;
  } else {
    lastSnowflakeMs = now;
    snowflakeSequence = 0n;
  }
  return ((now << 22n) | (1n << 12n) | snowflakeSequence).toString();
};

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
  /** `account \0 content` pairs already refused once (`sim:fail-once`) or failed once (`sim:flaky`). */
  const seenFailOnce = new Set<string>();
  const seenFlaky = new Set<string>();
  let rateLimitedUntil = 0;
  let rateLimitKind: RateLimitKind = 'short';
  const held = new Map<Socket, NodeJS.Timeout>();
  const { errors } = options;

  const screen = (content: string, account: string): LostAnswer | null => {
    const token = simTokenOf(content);
    const key = `${account}\u0000${content}`;
    switch (token) {
      case 'sim:fail':
        throw new SimHttpError(errors.refused(content));
      case 'sim:fail-once':
        if (!seenFailOnce.has(key)) {
          seenFailOnce.add(key);
          throw new SimHttpError(errors.refused(content));
        }
        return null;
      case 'sim:flaky':
        if (!seenFlaky.has(key)) {
          seenFlaky.add(key);
          throw new SimHttpError(errors.unavailable());
        }
        return null;
      case 'sim:reconnect':
        throw new SimHttpError(errors.unauthorized('expired'));
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

/** Reads a header that may be repeated, as one string. */
export const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** A plain JSON object, or null. */
export const objectOf = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
