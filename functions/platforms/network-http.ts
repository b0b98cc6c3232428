import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SecureContext } from 'node:tls';
import { NetworkError } from '../ports/network-client.ts';

/**
 * The HTTP transport the network clients share. It is built on `node:http` rather than `fetch`
 * because the publishing engine must know whether a failed request may have reached the network:
 * a request whose bytes were never all handed to the socket cannot have been acted on, so a
 * failure before that point is a plain transient error; a failure after it (a timeout while
 * waiting for the answer, a reset connection) leaves the outcome unknown, and the engine must look
 * the post up instead of sending it again. `fetch` reports both as the same `TypeError`.
 */

export const DEFAULT_TIMEOUT_MS = 10_000;

export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Serialized as JSON when present. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded` when present (and `json` is not). */
  form?: Record<string, string>;
  /** Raw bytes (when neither `json` nor `form` is present), typed by the caller's `content-type`. */
  bytes?: Uint8Array;
  timeoutMs: number;
}

/** Sends one call: `sendHttp`, or the guarded path for hosts a client chose (guarded-http.ts). */
export type HttpTransport = (call: HttpCall) => Promise<HttpAnswer>;

/** How the socket is made: the guarded path pins the checked addresses through `lookup`. */
export interface HttpConnection {
  lookup?: RequestOptions['lookup'];
  /** false: a fresh connection, never one from the pool. */
  agent?: false;
  secureContext?: SecureContext;
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it was empty or not JSON. */
  body: unknown;
}

/** A request that got no HTTP answer. */
export class TransportError extends Error {
  constructor(
    /** true once the whole request was written to the socket: the network may have acted on it. */
    readonly sent: boolean,
    /** `ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, `TIMEOUT`, ... */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** What went wrong with a call, in the form the per-network classifiers take. */
export type HttpFailure =
  | { type: 'answer'; status: number; headers: Record<string, string>; body: unknown; text?: string }
  | { type: 'transport'; sent: boolean; code: string; message?: string };

const flattenHeaders = (headers: IncomingHttpHeaders): Record<string, string> => {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
};

const parseJson = (text: string): unknown => {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Sends one request; resolves with any HTTP answer (2xx or not), rejects with `TransportError`. */
export const sendHttp = (call: HttpCall, connection: HttpConnection = {}): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(call.url);
    const payload =
      call.json !== undefined
        ? JSON.stringify(call.json)
        : call.form !== undefined
          ? new URLSearchParams(call.form).toString()
          : call.bytes;
    const headers: Record<string, string> = { accept: 'application/json', ...(call.headers ?? {}) };
    if (payload !== undefined) {
      if (call.json !== undefined || call.form !== undefined) {
        headers['content-type'] =
          call.json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded';
      }
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let sent = false;
    let settled = false;
    const fail = (code: string, message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new TransportError(sent, code, message));
    };
    const req = send(url, {
      method: call.method,
      headers,
      ...(connection.lookup ? { lookup: connection.lookup } : {}),
      ...(connection.agent === false ? { agent: false } : {}),
      ...(connection.secureContext ? { secureContext: connection.secureContext } : {}),
    });
    const timer = setTimeout(() => {
      fail('TIMEOUT', `no answer within ${call.timeoutMs} ms`);
      req.destroy();
    }, call.timeoutMs);
    req.on('finish', () => {
      sent = true;
    });
    req.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'EUNKNOWN', error.message));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'ECONNRESET', error.message));
      res.on('aborted', () => fail('ECONNRESET', 'the answer was cut off'));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          text,
          body: parseJson(text),
        });
      });
    });
    req.end(payload);
  });

/**
 * The shared half of every classifier: a request that got no answer. Before the request was
 * written (refused connection, DNS failure, a timeout while connecting) nothing can have happened
 * on the network; after it, the outcome is unknown.
 */
export const transportError = (
  network: string,
  failure: { sent: boolean; code: string; message?: string },
) =>
  GUARD_REFUSALS.has(failure.code)
    ? guardRefusal(network, failure.message ?? failure.code)
    : failure.sent
      ? new NetworkError(
          'transient',
          `${network} did not answer (${failure.code}); the request may have been accepted`,
          { outcomeUnknown: true },
        )
      : new NetworkError('transient', `${network} could not be reached (${failure.code})`, {});

/**
 * The guarded path's refusals (guarded-http.ts): an address the policy refuses (nothing was sent)
 * and a redirect it does not follow. Neither changes by trying again, and neither leaves an
 * outcome unknown.
 */
export const GUARD_REFUSALS = new Set(['URL_NOT_ALLOWED', 'REDIRECT_NOT_FOLLOWED']);

/** A guarded path's refusal as a permanent `NetworkError` that says why. */
export const guardRefusal = (network: string, why: string) =>
  new NetworkError('permanent', `${network}: ${why}`, { notAllowed: true });

/**
 * The shared half for a 5xx answer: the request reached the network, which may have stored the
 * post before failing (a gateway that gave up waiting, a server erroring after its write, a
 * Bluesky PDS answering 500 for a record key it already holds), so the outcome is unknown.
 */
export const serverError = (message: string, status: number, retryAfter?: number) =>
  new NetworkError('transient', message, { ...details(status, retryAfter), outcomeUnknown: true });

/** Seconds from `now` until an epoch-seconds time (at least 1), or undefined when unreadable. */
export const secondsUntilEpoch = (epochSeconds: string | undefined, now: Date): number | undefined => {
  if (epochSeconds === undefined || !/^\d+(\.\d+)?$/.test(epochSeconds.trim())) return undefined;
  return Math.max(1, Math.ceil(Number(epochSeconds) - now.getTime() / 1000));
};

/** A `Retry-After` header (delta seconds or an HTTP date) as seconds, or undefined. */
export const retryAfterSeconds = (value: string | undefined, now: Date): number | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.max(1, Number(trimmed));
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(1, Math.ceil((date - now.getTime()) / 1000));
};

/** The details object for a NetworkError, leaving out what is unknown. */
export const details = (status: number, retryAfter?: number): NetworkError['details'] =>
  retryAfter === undefined ? { status } : { status, retryAfterSeconds: retryAfter };

/** Strips a trailing slash so paths can be appended. */
export const baseUrlOf = (url: string) => url.replace(/\/+$/, '');

/** A string field of a JSON object, if present. */
export const stringField = (value: unknown, key: string): string | undefined => {
  if (value === null || typeof value !== 'object') return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : undefined;
};

/**
 * Sends the call and returns the answer when it is a success (2xx, or one `accept` allows);
 * anything else is thrown as the `NetworkError` the network's own `classify` makes of it.
 */
export const sendOrClassify = async (
  call: HttpCall,
  classify: (failure: HttpFailure) => NetworkError,
  accept: (answer: HttpAnswer) => boolean = () => false,
  transport: HttpTransport = sendHttp,
): Promise<HttpAnswer> => {
  let answer: HttpAnswer;
  try {
    answer = await transport(call);
  } catch (error) {
    if (error instanceof TransportError) {
      throw classify({ type: 'transport', sent: error.sent, code: error.code, message: error.message });
    }
    throw error;
  }
  if ((answer.status >= 200 && answer.status < 300) || accept(answer)) return answer;
  throw classify({ type: 'answer', status: answer.status, headers: answer.headers, body: answer.body });
};
