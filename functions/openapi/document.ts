/**
 * Builds the OpenAPI 3.1 document from the route metadata (operations.ts) and the zod schemas the
 * handlers validate with (request bodies) and answer with (responses.ts). zod's own
 * `z.toJSONSchema` writes JSON Schema 2020-12, the dialect of OpenAPI 3.1, so the schemas go in
 * as they are; every named schema becomes a component and is referenced where it is used.
 */
import * as z from 'zod';
import { createKeyBody, rollKeyBody } from '../core/account/keys.ts';
import { workspaceBody } from '../core/account/workspaces.ts';
import { startUploadBody } from '../core/media/start-upload-body.ts';
import { updateMediaBody } from '../core/media/update-media.ts';
import { postBody, reviseBody } from '../core/posts/schema.ts';
import { createTagBody } from '../core/tags/tags.ts';
import { createWebhookBody, updateWebhookBody } from '../core/webhooks/schema.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../domain/errors.ts';
import { EVENT_TYPES } from '../ports/webhooks.ts';
import { SIGNATURE_HEADER } from '../shared/verify-webhook.ts';
import * as accountResponses from './account-responses.ts';
import { type Operation, operations, TAGS } from './operations.ts';
import * as responses from './responses.ts';

type JsonObject = Record<string, unknown>;

const API_VERSION = '1.0.0';

/** Component names of the shared response schemas (the others are named after their operation). */
const NAMED: Record<string, z.ZodType> = {
  Error: responses.errorSchema,
  Post: responses.postSchema,
  PostList: responses.postListSchema,
  Deleted: responses.deletedSchema,
  ReviseResult: responses.reviseResultSchema,
  RetractResult: responses.retractResultSchema,
  Channel: responses.channelSchema,
  ChannelList: responses.channelListSchema,
  Platform: responses.platformSchema,
  PlatformList: responses.platformListSchema,
  Tag: responses.tagSchema,
  TagList: responses.tagListSchema,
  Usage: responses.usageSchema,
  Media: responses.mediaSchema,
  MediaList: responses.mediaListSchema,
  UploadStarted: responses.startUploadResultSchema,
  Webhook: responses.webhookSchema,
  WebhookList: responses.webhookListSchema,
  WebhookSecret: responses.webhookWithSecretSchema,
  DeliveryAttempt: responses.deliveryAttemptSchema,
  DeliveryList: responses.deliveryListSchema,
  Health: responses.healthSchema,
  Workspace: accountResponses.workspaceSchema,
  WorkspaceList: accountResponses.workspaceListSchema,
  AccountOverview: accountResponses.accountOverviewSchema,
  ApiKey: accountResponses.apiKeySchema,
  ApiKeyList: accountResponses.apiKeyListSchema,
  ApiKeyWithSecret: accountResponses.apiKeyWithSecretSchema,
  WebhookSigningSecret: accountResponses.webhookSigningSecretSchema,
  GatewayUnauthorized: accountResponses.gatewayUnauthorizedSchema,
};

/** Component names of the request bodies (as the client sends them, before zod's transforms). */
const NAMED_BODIES = new Map<z.ZodType, string>([
  [postBody, 'PostInput'],
  [reviseBody, 'ReviseInput'],
  [createTagBody, 'TagInput'],
  [startUploadBody, 'UploadStartInput'],
  [updateMediaBody, 'MediaUpdateInput'],
  [createWebhookBody, 'WebhookInput'],
  [updateWebhookBody, 'WebhookUpdateInput'],
  [workspaceBody, 'WorkspaceInput'],
  [createKeyBody, 'ApiKeyInput'],
  [rollKeyBody, 'ApiKeyRollInput'],
]);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `"POST /v1/posts/{id}/publish"` -> `postPostsIdPublish`. */
export const operationIdOf = (routeKey: string): string => {
  const [method, path] = routeKey.split(' ') as [string, string];
  const words = path
    .replace(/^\/v1\//, '/')
    .split(/[/{}.\-_]/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
};

const errorsOf = (routeKey: string, op: Operation): ErrorCode[] => {
  // API Gateway refuses an over-large request (request line and headers, or body) on every route.
  const codes = new Set<ErrorCode>([...(op.errors ?? []), 'payload_too_large']);
  const method = routeKey.split(' ')[0];
  if (op.auth === 'user') {
    // The 401 is API Gateway's own answer (see `gatewayUnauthorized`); a person with no Herald
    // account is 403 on every route, and a workspace not the account's is 404.
    for (const code of ['rate_limited', 'internal_error', 'forbidden'] as const) codes.add(code);
    if (routeKey.includes('{workspaceId}')) codes.add('not_found');
  } else if (op.auth !== 'none') {
    for (const code of ['unauthorized', 'rate_limited', 'internal_error'] as const) codes.add(code);
    if (method !== 'GET') codes.add('forbidden');
  }
  if (op.body) {
    for (const code of [
      'invalid_json',
      'unsupported_media_type',
      'payload_too_large',
      'validation_failed',
    ] as const)
      codes.add(code);
  }
  if (op.idempotent) {
    for (const code of [
      'idempotency_key_reused',
      'idempotency_in_progress',
      'service_unavailable',
      'validation_failed',
    ] as const)
      codes.add(code);
  }
  return [...codes];
};

const header = (description: string, schema: JsonObject = { type: 'string' }) => ({ description, schema });

const HEADERS = {
  RequestId: header('Identifies the request (`req_<uuid>`); the same as `error.requestId`.', {
    type: 'string',
    pattern: '^req_[0-9a-f-]{36}$',
  }),
  RateLimitLimit: header('Requests allowed per minute for this key.', { type: 'integer' }),
  RateLimitRemaining: header(
    'Requests left this minute, as of when this request was counted (requests of one key sent at the same time may see the same value; the 429 enforces the limit exactly).',
    { type: 'integer' },
  ),
  RateLimitReset: header('Seconds until the minute resets.', { type: 'integer' }),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer' }),
  IdempotentReplayed: header(
    '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
};

// A `$ref` to a header component cannot carry `required`, so each use is written out.
const headerRef = (name: keyof typeof HEADERS, required: boolean) => ({ ...HEADERS[name], required });

const responseHeaders = (op: Operation, status: number): JsonObject => {
  const headers: JsonObject = {};
  // The local runtime (and API Gateway) answer an over-large request before any function runs.
  const fromFunction = status !== 413;
  headers['X-Request-Id'] = headerRef('RequestId', fromFunction);
  if (op.auth !== 'none') {
    headers['X-RateLimit-Limit'] = headerRef('RateLimitLimit', fromFunction);
    headers['X-RateLimit-Remaining'] = headerRef('RateLimitRemaining', fromFunction);
    headers['X-RateLimit-Reset'] = headerRef('RateLimitReset', fromFunction);
  }
  if (status === 429) headers['Retry-After'] = headerRef('RetryAfter', true);
  if (status === 409 || status === 503) headers['Retry-After'] = headerRef('RetryAfter', false);
  if (op.idempotent && status < 300) headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed', false);
  return headers;
};

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is not valid.',
  401: 'No valid API key.',
  402: 'A plan limit is reached.',
  403: 'The key may not do this.',
  404: 'Not found.',
  409: 'The resource is not in a state that allows this.',
  413: 'The request body is too large.',
  415: 'The body is of a media type the route does not take.',
  422: 'The input breaks a rule.',
  429: 'Too many requests.',
  500: 'Server error.',
  503: 'Temporarily unavailable.',
};

/** The error answers of an operation, by status: the envelope with `code` limited to the route's codes. */
const errorResponses = (op: Operation, codes: ErrorCode[]): Record<string, JsonObject> => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, JsonObject> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    list.sort();
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error.'} Codes: ${list.map((c) => `\`${c}\``).join(', ')}.`,
      headers: responseHeaders(op, status),
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('Error'),
              {
                type: 'object',
                properties: { error: { type: 'object', properties: { code: { enum: list } } } },
              },
            ],
          },
        },
        ...(op.htmlErrors ? { 'text/html': { schema: { type: 'string' } } } : {}),
      },
    };
  }
  return out;
};

/**
 * A user route's 401: mostly API Gateway's JWT authorizer refusing the token (absent, expired,
 * another pool's or app client's) before any function ran, an answer of AWS's own, not our
 * envelope (the local server answers the same); or, past it, a token that is not an access token
 * (an ID token passes the authorizer): the envelope's `unauthorized`.
 */
const gatewayUnauthorized: JsonObject = {
  description:
    'No valid access token: API Gateway\'s own answer `{"message":"Unauthorized"}` (with `WWW-Authenticate`), not the error envelope; or `unauthorized` in the envelope for a token that is not an access token.',
  headers: {
    'WWW-Authenticate': {
      description: "API Gateway's refusal: the scheme to authenticate with.",
      schema: { type: 'string' },
    },
    'X-Request-Id': { ...HEADERS.RequestId, required: false },
  },
  content: {
    'application/json': {
      schema: {
        anyOf: [
          ref('GatewayUnauthorized'),
          {
            allOf: [
              ref('Error'),
              {
                type: 'object',
                properties: { error: { type: 'object', properties: { code: { enum: ['unauthorized'] } } } },
              },
            ],
          },
        ],
      },
    },
  },
};

const strip = (schema: JsonObject): JsonObject => {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
};

export const buildDocument = (options: { serverUrl?: string } = {}): JsonObject => {
  // Every response schema is a component: the named ones by name, the others after their operation.
  const outputs = z.registry<{ id: string }>();
  const named = new Map<z.ZodType, string>();
  for (const [name, schema] of Object.entries(NAMED)) {
    outputs.add(schema, { id: name });
    named.set(schema, name);
  }
  for (const [routeKey, op] of Object.entries(operations)) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (response.schema && !named.has(response.schema)) {
        const name = `${operationIdOf(routeKey).replace(/^./, (c) => c.toUpperCase())}${status}`;
        outputs.add(response.schema, { id: name });
        named.set(response.schema, name);
      }
    }
  }
  const webhookEvents = EVENT_TYPES.map((type) => ({ type, schema: responses.webhookEventSchema(type) }));
  for (const { type, schema } of webhookEvents) {
    const name = `${type
      .split(/[._]/)
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('')}Event`;
    outputs.add(schema, { id: name });
    named.set(schema, name);
  }
  // Request bodies are read as the client sends them (before zod's transforms).
  const inputs = z.registry<{ id: string }>();
  const bodyNames = new Map<z.ZodType, string>();
  for (const [routeKey, op] of Object.entries(operations)) {
    if (op.body && !bodyNames.has(op.body)) {
      const name =
        NAMED_BODIES.get(op.body) ?? `${operationIdOf(routeKey).replace(/^./, (c) => c.toUpperCase())}Body`;
      inputs.add(op.body, { id: name });
      bodyNames.set(op.body, name);
    }
  }
  const uri = (id: string) => `#/components/schemas/${id}`;
  const outputSchemas = z.toJSONSchema(outputs, { target: 'draft-2020-12', io: 'output', uri }).schemas;
  const inputSchemas = z.toJSONSchema(inputs, {
    target: 'draft-2020-12',
    io: 'input',
    uri,
    unrepresentable: 'any',
  }).schemas;
  const schemas: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries({ ...outputSchemas, ...inputSchemas }))
    schemas[name] = strip(schema as JsonObject);

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const [routeKey, op] of Object.entries(operations)) {
    const [method, path] = routeKey.split(' ') as [string, string];
    const parameters: JsonObject[] = [];
    for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string)) {
      parameters.push({
        name,
        in: 'path',
        required: true,
        description: op.params?.[name] ?? name,
        schema: { type: 'string' },
      });
    }
    for (const q of op.query ?? []) {
      const schema = strip(z.toJSONSchema(q.schema, { target: 'draft-2020-12', io: 'input' }) as JsonObject);
      parameters.push({
        name: q.name,
        in: 'query',
        required: false,
        description: q.description,
        schema: q.repeatable ? { type: 'array', items: schema } : schema,
        ...(q.repeatable ? { style: 'form', explode: true } : {}),
      });
    }
    if (op.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    const success: Record<string, JsonObject> = {};
    for (const [status, response] of Object.entries(op.responses)) {
      const mediaType = response.mediaType ?? 'application/json';
      success[status] = {
        description: response.description,
        headers: responseHeaders(op, Number(status)),
        ...(response.schema
          ? { content: { [mediaType]: { schema: ref(named.get(response.schema) as string) } } }
          : mediaType !== 'application/json'
            ? { content: { [mediaType]: { schema: { type: 'string' } } } }
            : {}),
      };
    }
    const operation: JsonObject = {
      operationId: operationIdOf(routeKey),
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      ...(op.auth === 'none' ? { security: [] } : op.auth === 'user' ? { security: [{ userJwt: [] }] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: ref(bodyNames.get(op.body) as string) } },
            },
          }
        : op.rawBody
          ? {
              requestBody: {
                required: true,
                description: op.rawBody.description,
                content: { [op.rawBody.mediaType]: { schema: op.rawBody.schema } },
              },
            }
          : {}),
      responses: {
        ...success,
        ...errorResponses(op, errorsOf(routeKey, op)),
        ...(op.auth === 'user' ? { '401': gatewayUnauthorized } : {}),
      },
    };
    paths[path] ??= {};
    (paths[path] as Record<string, JsonObject>)[method.toLowerCase()] = operation;
  }

  const webhooks: Record<string, JsonObject> = {};
  for (const { type, schema } of webhookEvents) {
    webhooks[type] = {
      post: {
        operationId: `webhook${type
          .split(/[._]/)
          .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
          .join('')}`,
        summary: `The ${type} event`,
        description:
          "Herald POSTs the event to each enabled endpoint subscribed to it, signed with the endpoint's secret. Verify the signature over the raw body (see `verifyWebhook` in `herald/verify-webhook`), drop duplicates by `id`, answer 2xx within 10 seconds. Other answers are retried for about 5 hours.",
        tags: ['Webhooks'],
        security: [],
        parameters: [
          {
            name: SIGNATURE_HEADER,
            in: 'header',
            required: true,
            description:
              "`t=<unix seconds>,v1=<hex>`: `v1` is the HMAC-SHA256, keyed with the endpoint's whole `whsec_...` secret, of `<t>.<raw body>`. Reject it when `t` is more than 5 minutes from now.",
            schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}' },
          },
          {
            name: 'x-herald-event-id',
            in: 'header',
            required: true,
            description: "The event id (the body's `id`).",
            schema: { type: 'string' },
          },
          {
            name: 'x-herald-event-type',
            in: 'header',
            required: true,
            description: 'The event type.',
            schema: { type: 'string', enum: [type] },
          },
          {
            name: 'x-herald-attempt',
            in: 'header',
            required: true,
            description: 'Attempt number, from 1.',
            schema: { type: 'integer', minimum: 1 },
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref(named.get(schema) as string) } },
        },
        responses: {
          '200': { description: 'Any 2xx answer acknowledges the event.' },
          default: { description: 'Any other answer (or none within 10 seconds): the event is retried.' },
        },
      },
    };
  }

  return {
    openapi: '3.1.1',
    info: {
      title: 'Herald API',
      version: API_VERSION,
      summary: 'One REST API to create, schedule, publish, edit and retract posts across social networks.',
      description:
        "Authenticate with `x-api-key: <key>` or `Authorization: Bearer <key>`; the dashboard's management routes (`/v1/account`) take a signed-in person's access token instead (`userJwt`). Every answer carries `X-Request-Id`; keyed routes also carry the rate-limit headers. Errors share one envelope (`Error`). Each network's post option keys are data from GET /v1/platforms, not fixed by this document.",
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: options.serverUrl ?? '/', description: 'This Herald deployment' }],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    tags: TAGS.map((t) => ({ ...t })),
    paths,
    webhooks,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A live or test API key.' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token.' },
        userJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "A person's access token from the deployment's Cognito user pool (the dashboard's sign-in), checked by API Gateway's JWT authorizer. Only the management routes (tag Dashboard (management)) take it; they never take an API key.",
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'A unique string per logical request (for example a UUID). A retry with the same key and body answers the first answer again (with `Idempotent-Replayed: true`); with another body, 422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_in_progress`.',
          schema: { type: 'string', pattern: '^[!-~]{1,255}$' },
        },
      },
      schemas,
    },
  };
};
