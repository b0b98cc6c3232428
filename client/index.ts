/**
 * `@herald/client`: a typed Herald client. The types (client/schema.d.ts) are generated from
 * openapi.json by `npm run openapi`; openapi-fetch does the requests, so every path, parameter,
 * body and answer is checked by TypeScript against the document.
 *
 *   const herald = createHeraldClient({ baseUrl: 'https://api.example.com', apiKey });
 *   const { data, error } = await herald.POST('/v1/posts', { body: { intent: 'now', channels } });
 *
 * Another project installs the package that `npm run client:build` builds (client/package.json,
 * JavaScript and declarations in client/dist); this repository's own code imports this file as
 * `herald/client`. The relative imports below name `.js` files (TypeScript finds the `.ts` and
 * `.d.ts` sources) so that the declarations tsc emits resolve in any consumer's TypeScript.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export { SIGNATURE_HEADER, signWebhook, verifyWebhook } from '../functions/shared/verify-webhook.js';
export type { components, paths };

export type Post = components['schemas']['Post'];
export type PostStatus = Post['status'];
export type ApiErrorBody = components['schemas']['Error'];
export type WebhookEvent =
  | components['schemas']['PostPublishedEvent']
  | components['schemas']['PostFailedEvent']
  | components['schemas']['PostPartiallyFailedEvent']
  | components['schemas']['ChannelNeedsReconnectEvent'];
export type HeraldClient = Client<paths>;

export interface HeraldClientOptions {
  /** The deployment's root URL, without /v1 (the paths carry it). */
  baseUrl: string;
  /** A live or test API key, sent as `x-api-key`. */
  apiKey: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export const createHeraldClient = (options: HeraldClientOptions): HeraldClient =>
  createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { 'x-api-key': options.apiKey },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

/** Thrown by the helpers below when Herald answers with its error envelope. */
export class HeraldError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`${status} ${body.error.code}: ${body.error.message} (${body.error.requestId})`);
    this.name = 'HeraldError';
  }
}

const SETTLED: ReadonlySet<PostStatus> = new Set(['published', 'partially_published', 'failed']);

/**
 * Polls GET /v1/posts/{id} until the post is published, partially published or failed, and
 * returns it; throws when `timeoutMs` passes first. A scheduled post is waited for too.
 */
export const waitForPost = async (
  client: HeraldClient,
  postId: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Post> => {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const { data, error, response } = await client.GET('/v1/posts/{id}', {
      params: { path: { id: postId } },
    });
    if (error) throw new HeraldError(response.status, error as ApiErrorBody);
    if (SETTLED.has(data.status)) return data;
    if (Date.now() > deadline) throw new Error(`Post ${postId} is still ${data.status}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
  }
};
