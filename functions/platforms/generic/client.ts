import {
  type DeleteBlockInput,
  type EditBlockInput,
  type LookupBlockInput,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
} from '../../ports/network-client.ts';
import { getPlatform } from '../catalog.ts';
import type { Platform, PlatformId } from '../types.ts';
import { parseGenericMetrics } from './metrics.ts';

/**
 * Client of the generic simulated network API (see `simulator.ts`), for the networks that have
 * no client of their own yet. Every failure is a `NetworkError` classified by
 * `classifyHttpResponse` / `classifyFetchFailure`.
 */

/** The networks served by the generic simulator and client until they get a real client. */
export const GENERIC_PLATFORMS = [
  'instagram',
  'facebook',
  'threads',
  'tiktok',
  'youtube',
  'vimeo',
  'pinterest',
  'reddit',
  'linkedin_page',
] as const satisfies readonly PlatformId[];

export interface GenericNetworkClientOptions {
  platform: PlatformId;
  /** e.g. `http://127.0.0.1:34567`; a trailing slash is ignored. */
  baseUrl: string;
  /** Whole-request limit (sending, waiting, reading the answer). */
  timeoutMs?: number;
}

/** Seconds to wait from a `Retry-After` value (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export const parseRetryAfter = (
  value: string | null | undefined,
  now: Date = new Date(),
): number | undefined => {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // An HTTP date names its day and month; anything else ('-5', '1.5') is unreadable.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
};

/** The `message` (and `code`) of a `{ error: { code, message } }` body, if the body is one. */
const errorBodyOf = (body: string): { code?: string; message?: string } => {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      const error = (parsed as { error: unknown }).error;
      if (typeof error === 'object' && error !== null) {
        const { code, message } = error as { code?: unknown; message?: unknown };
        return {
          ...(typeof code === 'string' ? { code } : {}),
          ...(typeof message === 'string' ? { message } : {}),
        };
      }
      if (typeof error === 'string') return { message: error };
    }
  } catch {
    // Not JSON: the caller falls back to the status.
  }
  return {};
};

/**
 * Classifies a non-2xx answer:
 * - 401 → `reconnect` (token expired or revoked);
 * - 429 and 5xx → `transient`, with `retryAfterSeconds` from `Retry-After`; a 5xx also has
 *   `outcomeUnknown: true` (the request reached the network, which may have stored the post
 *   before a gateway gave up or the server failed);
 * - any other status (4xx) → `permanent`, with the network's own message.
 */
export const classifyHttpResponse = (
  status: number,
  answer: { retryAfter?: string | null; body?: string } = {},
  now: Date = new Date(),
): NetworkError => {
  const { message, code } = errorBodyOf(answer.body ?? '');
  const text = message ?? (code ? `${code} (HTTP ${status})` : `The network answered HTTP ${status}.`);
  const retryAfterSeconds = parseRetryAfter(answer.retryAfter, now);
  if (status === 401) return new NetworkError('reconnect', text, { status, tokenExpired: true });
  if (status === 429 || status >= 500) {
    return new NetworkError('transient', text, {
      status,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      ...(status >= 500 ? { outcomeUnknown: true } : {}),
    });
  }
  return new NetworkError('permanent', text, { status });
};

/**
 * Error codes meaning the request never left this machine (no connection was made), so the
 * network cannot have acted on it.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);

/** Our own abort or timeout: we cannot tell whether the request had been sent. */
const isAfterSend = (code: string): boolean => code === 'AbortError' || code === 'TimeoutError';

const codesOf = (error: unknown): string[] => {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, name, cause, errors } = current as {
      code?: unknown;
      name?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string') codes.push(code);
    if (typeof name === 'string') codes.push(name);
    // AggregateError (happy eyeballs: every address refused).
    if (Array.isArray(errors)) for (const inner of errors) codes.push(...codesOf(inner));
    current = cause;
  }
  return codes;
};

/**
 * Classifies a `fetch` that threw (no HTTP answer). Always `transient`:
 * - the connection could not be made (ECONNREFUSED, DNS failure, connect timeout...): nothing was
 *   sent, so `outcomeUnknown` is absent;
 * - anything after that (abort, our timeout, socket hang up / reset, a body cut short): the network
 *   may have acted, so `outcomeUnknown: true`. Unknown failures count as this safer case.
 */
export const classifyFetchFailure = (error: unknown): NetworkError => {
  const codes = codesOf(error);
  const detail = codes.length > 0 ? codes.join('/') : error instanceof Error ? error.message : String(error);
  if (codes.length > 0 && codes.some((c) => NOT_SENT_CODES.has(c)) && !codes.some(isAfterSend)) {
    return new NetworkError('transient', `Could not reach the network (${detail}).`);
  }
  return new NetworkError(
    'transient',
    `No answer from the network (${detail}); the request may have been accepted.`,
    {
      outcomeUnknown: true,
    },
  );
};

interface HttpAnswer {
  status: number;
  body: string;
  retryAfter: string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const blockFrom = (value: unknown): RemoteBlock | null =>
  isRecord(value) && typeof value.id === 'string' && typeof value.url === 'string'
    ? { remoteId: value.id, remoteUrl: value.url, meta: {} }
    : null;

export class GenericNetworkClient implements NetworkClient {
  readonly platform: PlatformId;
  /** The lookup reads the network's own record of the client key: what is not there was not stored. */
  readonly consistencyWindowSeconds = 0;
  private readonly rules: Platform;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(options: GenericNetworkClientOptions) {
    const rules = getPlatform(options.platform);
    if (!rules) throw new Error(`Unknown platform: ${options.platform}`);
    this.platform = options.platform;
    this.rules = rules;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    const first = input.parent === null;
    const body = {
      text: input.content,
      // Channel-level fields go with the first block only.
      ...(first
        ? {
            ...(input.title !== null ? { title: input.title } : {}),
            ...(input.postType !== null ? { postType: input.postType } : {}),
            ...(Object.keys(input.options).length > 0 ? { options: input.options } : {}),
          }
        : {}),
      media: input.media.map((m) => ({ url: m.url, mimeType: m.mimeType })),
      ...(input.parent ? { parentId: input.parent.block.remoteId, rootId: input.parent.root.remoteId } : {}),
      clientKey: input.idempotencyKey,
    };
    const answer = await this.request('POST', '/v1/posts', input.credentials, body);
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      // Handled below.
    }
    const block = blockFrom(parsed);
    // Accepted (2xx) but unreadable: the post may exist, so the engine should look it up.
    if (!block)
      throw new NetworkError('transient', 'The network accepted the post but answered without its id.', {
        status: answer.status,
        outcomeUnknown: true,
      });
    return block;
  }

  async edit(input: EditBlockInput): Promise<void> {
    const editable = this.rules.limits.remoteEdit;
    if (editable === null)
      throw new NetworkError('permanent', `${this.rules.name} does not allow editing a published post.`);
    const body: Record<string, unknown> = { text: input.content };
    if (input.title !== undefined && input.title !== null) {
      if (!editable.includes('title'))
        throw new NetworkError('permanent', `${this.rules.name} does not allow editing the title.`);
      body.title = input.title;
    }
    if (input.options !== undefined && Object.keys(input.options).length > 0) {
      if (!editable.includes('options'))
        throw new NetworkError('permanent', `${this.rules.name} does not allow editing options.`);
      body.options = input.options;
    }
    if (!editable.includes('text')) delete body.text;
    await this.request(
      'PATCH',
      `/v1/posts/${encodeURIComponent(input.block.remoteId)}`,
      input.credentials,
      body,
    );
  }

  /** A 404 counts as done: the post is already gone (e.g. an earlier delete whose answer was lost). */
  async delete(input: DeleteBlockInput): Promise<void> {
    if (!this.rules.limits.supportsRemoteDelete)
      throw new NetworkError('permanent', `${this.rules.name} does not allow deleting a published post.`);
    try {
      await this.request(
        'DELETE',
        `/v1/posts/${encodeURIComponent(input.block.remoteId)}`,
        input.credentials,
      );
    } catch (error) {
      if (error instanceof NetworkError && error.details.status === 404) return;
      throw error;
    }
  }

  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const answer = await this.request(
      'GET',
      `/v1/posts?clientKey=${encodeURIComponent(input.idempotencyKey)}`,
      input.credentials,
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      throw new NetworkError('transient', 'The network answered a lookup with something unreadable.', {
        status: answer.status,
      });
    }
    const data = isRecord(parsed) && Array.isArray(parsed.data) ? parsed.data : null;
    if (data === null)
      throw new NetworkError('transient', 'The network answered a lookup without data.', {
        status: answer.status,
      });
    // Oldest first: if a block was sent twice, the first copy is the one to keep.
    const first: unknown = data[0];
    if (first === undefined) return null;
    const block = blockFrom(first);
    if (!block)
      throw new NetworkError('transient', 'The network answered a lookup without a post id.', {
        status: answer.status,
      });
    return block;
  }

  /** `GET /v1/posts/:id/metrics` (see metrics.ts). */
  async metrics(input: MetricsInput): Promise<MetricsReading> {
    const path = `/v1/posts/${encodeURIComponent(input.block.remoteId)}/metrics`;
    const answer = await this.request('GET', path, input.credentials);
    return parseGenericMetrics(answer.status, answer.body);
  }

  private async request(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    credentials: NetworkCredentials,
    body?: unknown,
  ): Promise<HttpAnswer> {
    let answer: HttpAnswer;
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${credentials.accessToken}`,
          'X-Account-Id': credentials.remoteAccountId,
          Accept: 'application/json',
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      answer = {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: await response.text(),
      };
    } catch (error) {
      throw classifyFetchFailure(error);
    }
    if (answer.status < 200 || answer.status >= 300)
      throw classifyHttpResponse(answer.status, { retryAfter: answer.retryAfter, body: answer.body });
    return answer;
  }
}
