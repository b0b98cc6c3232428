import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import { ApiError } from '../domain/errors.ts';
import type { BaseDeps, Provided } from '../runtime/compose.ts';
import type { idempotency } from '../runtime/parts/idempotency.ts';
import { logger } from '../shared/powertools.ts';
import type { HttpRequest, HttpResponse } from './pipeline.ts';

/** Replays within this window return the first response. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Answers up to this size are kept as they are. */
const INLINE_BYTES = 16 * 1024;
/** Larger ones are kept gzipped up to this size: a DynamoDB item holds at most 400 KB in all. */
const STORED_BYTES = 256 * 1024;
/** Tries at keeping the answer again after the first save failed (the SDK has retried each already). */
const SAVE_RETRIES = 2;

/** What a route that wraps itself composes besides the base: the `idempotency` part. */
export type IdempotentDeps = BaseDeps & Provided<typeof idempotency>;

interface Payload {
  /** Who and what: the workspace, the key mode, the path parameters and the client's key. */
  key: string;
  /** The validated request body; the same key with a different body is refused. */
  body: unknown;
}

/**
 * An answer as the idempotency record keeps it: its JSON text, gzipped JSON (base64), or for an
 * answer too large for either only the id of what it shows. Records written before these forms
 * hold `body` itself.
 */
type StoredResponse = { status: number; headers?: Record<string, string> } & (
  | { json: string }
  | { gzip: string }
  | { ref: string }
  | { body?: unknown }
);

/**
 * How a route whose answer can outgrow the record (a post of 1 MB of text) replays it: the record
 * keeps `reference(answer)` and a replay answers `rebuild(reference)`, the resource as it is then.
 */
export interface LargeAnswers<D extends BaseDeps = BaseDeps> {
  reference: (response: HttpResponse) => string;
  rebuild: (reference: string, request: Pick<HttpRequest<unknown, D>, 'deps' | 'auth'>) => Promise<unknown>;
}

/** One request's passage through the wrapper: what the route answered, or how it failed. */
interface Call<B, D extends BaseDeps> {
  request: HttpRequest<B, D>;
  fresh?: HttpResponse;
  failure?: unknown;
}

const envelope = (response: HttpResponse) => ({
  status: response.status,
  // DynamoDB's marshaller refuses undefined values: an absent field stays absent.
  ...(response.headers ? { headers: response.headers } : {}),
});

/** The smallest faithful form of `response`, or its reference when even gzip is too large. */
const toStored = <D extends BaseDeps>(
  response: HttpResponse,
  large: LargeAnswers<D> | undefined,
): StoredResponse => {
  const json = JSON.stringify(response.body ?? null);
  if (Buffer.byteLength(json, 'utf8') <= INLINE_BYTES) return { ...envelope(response), json };
  const gzip = gzipSync(json).toString('base64');
  if (gzip.length <= STORED_BYTES || !large) return { ...envelope(response), gzip };
  return { ...envelope(response), ref: large.reference(response) };
};

const fromStored = async <B, D extends BaseDeps>(
  stored: StoredResponse,
  request: HttpRequest<B, D>,
  large: LargeAnswers<D> | undefined,
): Promise<HttpResponse> => {
  let body: unknown;
  if ('json' in stored) body = JSON.parse(stored.json);
  else if ('gzip' in stored)
    body = JSON.parse(gunzipSync(Buffer.from(stored.gzip, 'base64')).toString('utf8'));
  else if ('ref' in stored && large) body = await large.rebuild(stored.ref, request);
  else body = (stored as { body?: unknown }).body;
  return {
    status: stored.status,
    ...(body === null || body === undefined ? {} : { body }),
    headers: { ...stored.headers, 'Idempotent-Replayed': 'true' },
  };
};

/**
 * Wraps a route so an `Idempotency-Key` header makes it run at most once per key and body within
 * 24 hours (Powertools Idempotency, persisted in our table). Replays answer the first response
 * with `Idempotent-Replayed: true`; a different body → 422; a request still running → 409.
 * The record keeps the answer compactly (see `StoredResponse`), so it always fits; a route whose
 * answer can exceed 256 KB gzipped passes `large`. Once the route has run, its answer is what the
 * caller gets, even if keeping the record fails.
 */
export const idempotent = <B, D extends IdempotentDeps>(
  routeKey: string,
  fn: (request: HttpRequest<B, D>) => Promise<HttpResponse>,
  large?: LargeAnswers<NoInfer<D>>,
): ((request: HttpRequest<B, D>) => Promise<HttpResponse>) => {
  type Wrapped = (payload: Payload, call: Call<B, D>) => Promise<StoredResponse>;
  interface Instance {
    wrapped: Wrapped;
    config: IdempotencyConfig;
    persistenceStore: BasePersistenceLayer;
  }
  // One per container: `deps` reads the container of the invocation running (one per local
  // runtime; the process's on AWS), and each container has its own `idempotencyRecords`.
  const instances = new WeakMap<IdempotentDeps['idempotencyRecords'], Instance>();
  const instanceFor = (deps: IdempotentDeps): Instance => {
    const found = instances.get(deps.idempotencyRecords);
    if (found) return found;
    const made = build(deps);
    instances.set(deps.idempotencyRecords, made);
    return made;
  };
  const build = (deps: IdempotentDeps): Instance => {
    const config = new IdempotencyConfig({
      eventKeyJmesPath: 'key',
      payloadValidationJmesPath: 'body',
      expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
      throwOnNoIdempotencyKey: true,
    });
    const persistenceStore = deps.idempotencyRecords();
    const wrapped = makeIdempotent(
      async (_payload: Payload, call: Call<B, D>): Promise<StoredResponse> => {
        try {
          call.fresh = await fn(call.request);
        } catch (error) {
          call.failure = error;
          throw error;
        }
        return toStored(call.fresh, large);
      },
      { persistenceStore, config, keyPrefix: routeKey, dataIndexArgument: 0 },
    );
    return { wrapped, config, persistenceStore };
  };

  /**
   * The route ran but its answer could not be kept: keep the smallest form (a few more tries), or
   * the in-progress record would end in a rerun, a second post. The caller gets the answer anyway.
   */
  const keepAfterFailure = async (
    persistenceStore: BasePersistenceLayer,
    payload: Payload,
    response: HttpResponse,
    cause: unknown,
  ) => {
    const stored = large
      ? { ...envelope(response), ref: large.reference(response) }
      : toStored(response, large);
    for (let attempt = 1; attempt <= SAVE_RETRIES; attempt++) {
      try {
        // The same call Powertools makes after the route (payload and answer are plain JSON).
        await persistenceStore.saveSuccess(payload as never, stored as never);
        return;
      } catch (error) {
        if (attempt === SAVE_RETRIES) {
          logger.error('The idempotency record could not be completed; the key stays in progress', {
            error: error as Error,
            firstError: (cause as Error)?.cause as Error,
          });
          return;
        }
        await sleep(100 * attempt);
      }
    }
  };

  return async (request) => {
    const idempotencyKey = request.headers['idempotency-key'];
    if (idempotencyKey === undefined) return fn(request);
    if (!KEY_PATTERN.test(idempotencyKey)) {
      throw new ApiError(
        'validation_failed',
        'Idempotency-Key must be 1 to 255 visible ASCII characters, for example a UUID.',
        'Idempotency-Key',
      );
    }
    const { wrapped, config, persistenceStore } = instanceFor(request.deps);
    config.registerLambdaContext(request.context);
    const scope = [
      request.auth.workspaceId,
      request.auth.mode,
      JSON.stringify(request.params),
      idempotencyKey,
    ];
    const payload: Payload = { key: scope.join('|'), body: request.body ?? null };
    // Set on the request itself: wrappers may key state by the request object.
    request.idempotencySeed = `${routeKey}|${payload.key}`;
    const call: Call<B, D> = { request };
    try {
      const stored = await wrapped(payload, call);
      return call.fresh ?? (await fromStored(stored, request, large));
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'IdempotencyValidationError') throw new ApiError('idempotency_key_reused');
      if (name === 'IdempotencyAlreadyInProgressError' || name === 'IdempotencyInconsistentStateError') {
        throw new ApiError('idempotency_in_progress', undefined, undefined, { 'Retry-After': '1' });
      }
      if (name === 'IdempotencyPersistenceLayerError') {
        if (call.fresh) {
          await keepAfterFailure(persistenceStore, payload, call.fresh, error);
          return call.fresh;
        }
        // The route failed and its in-progress record could not be removed: the route's own error
        // is the answer (the record expires with the in-progress window).
        if (call.failure !== undefined) throw call.failure;
        logger.error('The idempotency store failed before the route ran', { error: error as Error });
        throw new ApiError('service_unavailable', undefined, undefined, { 'Retry-After': '1' });
      }
      throw error;
    }
  };
};
