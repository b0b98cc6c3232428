import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { keys, TABLE_KEYS } from '../adapters/aws/dynamo/keys.ts';
import { env } from './env.ts';
import { ApiError } from './errors.ts';
import type { HttpRequest, HttpResponse } from './http.ts';

/** Replays within this window return the first response. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface Payload {
  /** Who and what: the workspace, the key mode, the path parameters and the client's key. */
  key: string;
  /** The validated request body; the same key with a different body is refused. */
  body: unknown;
}

/**
 * Wraps a route so an `Idempotency-Key` header makes it run at most once per key and body within
 * 24 hours (Powertools Idempotency, persisted in our table). Replays answer the first response
 * with `Idempotent-Replayed: true`; a different body → 422; a request still running → 409.
 */
export const idempotent = <B>(
  routeKey: string,
  fn: (request: HttpRequest<B>) => Promise<HttpResponse>,
): ((request: HttpRequest<B>) => Promise<HttpResponse>) => {
  let wrapped: ((payload: Payload, request: HttpRequest<B>) => Promise<HttpResponse>) | undefined;
  let config: IdempotencyConfig | undefined;
  const build = (deps: HttpRequest<B>['deps']) => {
    config = new IdempotencyConfig({
      eventKeyJmesPath: 'key',
      payloadValidationJmesPath: 'body',
      expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
      throwOnNoIdempotencyKey: true,
      responseHook: (response) => {
        const replay = response as unknown as HttpResponse;
        return { ...replay, headers: { ...replay.headers, 'Idempotent-Replayed': 'true' } } as never;
      },
    });
    const persistenceStore = new DynamoDBPersistenceLayer({
      tableName: env.tableName,
      keyAttr: TABLE_KEYS.partitionKey,
      sortKeyAttr: TABLE_KEYS.sortKey,
      staticPkValue: keys.idempotencyPartition,
      expiryAttr: TABLE_KEYS.ttlAttribute,
      // The container's client: one connection pool, and the local runtime checks its calls like the rest.
      awsSdkV3Client: deps.dynamo,
    });
    return makeIdempotent((_payload: Payload, request: HttpRequest<B>) => fn(request), {
      persistenceStore,
      config,
      keyPrefix: routeKey,
      dataIndexArgument: 0,
    });
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
    wrapped ??= build(request.deps);
    config?.registerLambdaContext(request.context);
    const scope = [
      request.auth.workspaceId,
      request.auth.mode,
      JSON.stringify(request.params),
      idempotencyKey,
    ];
    try {
      return await wrapped({ key: scope.join('|'), body: request.body ?? null }, request);
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'IdempotencyValidationError') throw new ApiError('idempotency_key_reused');
      if (name === 'IdempotencyAlreadyInProgressError' || name === 'IdempotencyInconsistentStateError') {
        throw new ApiError('idempotency_in_progress', undefined, undefined, { 'Retry-After': '1' });
      }
      throw error;
    }
  };
};
