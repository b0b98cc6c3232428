import { isIP } from 'node:net';
import { ApiError } from '../../domain/errors.ts';
import { newId, randomBase62 } from '../../domain/ids.ts';
import type { Clock } from '../../ports/clock.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import type {
  DeliveryAttempt,
  HostResolver,
  WebhookEndpoint,
  WebhookSettings,
  WebhookStore,
} from '../../ports/webhooks.ts';
import { hostNameProblem, isAllowedAddress, refusalReason } from '../../shared/address-policy.ts';
import { type CursorScope, decodeCursor, encodeCursor, parsePageLimit } from '../../shared/pagination.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import type { CreateWebhookInput, UpdateWebhookInput } from './schema.ts';

/** What the endpoint use cases depend on. */
export interface EndpointDeps {
  clock: Clock;
  webhooks: WebhookStore;
  tokenCipher: () => TokenCipher;
  resolveHost: HostResolver;
  webhookSettings: () => WebhookSettings;
}

const ID_PATTERN = /^wh_[0-9A-Za-z]{1,64}$/;

/** An endpoint as the API shows it (never its secret). */
export const endpointView = (endpoint: WebhookEndpoint) => ({
  id: endpoint.webhookId,
  url: endpoint.url,
  description: endpoint.description,
  events: endpoint.events,
  enabled: endpoint.enabled,
  status: endpoint.enabled ? ('enabled' as const) : ('disabled' as const),
  disabledReason: endpoint.disabledReason,
  disabledAt: endpoint.disabledAt,
  consecutiveFailures: endpoint.consecutiveFailures,
  createdAt: endpoint.createdAt,
  updatedAt: endpoint.updatedAt,
});

/** One entry of GET /webhooks/{id}/deliveries. */
export const attemptView = (log: DeliveryAttempt) => ({
  deliveryId: log.deliveryId,
  eventId: log.eventId,
  eventType: log.eventType,
  attempt: log.attempt,
  attemptedAt: log.attemptedAt,
  durationMs: log.durationMs,
  outcome: log.outcome,
  responseStatus: log.responseStatus,
  errorCode: log.errorCode,
  error: log.error,
  nextAttemptAt: log.nextAttemptAt,
});

/** A new signing secret: shown once, stored only encrypted. */
const newSecret = () => `whsec_${randomBase62(32)}`;
const cipherContext = (webhookId: string) => ({ channelId: webhookId });

/** Webhook endpoints receive live data, so only live keys may create or change them. */
const requireLiveKey = (auth: AuthContext) => {
  if (auth.mode !== 'live') {
    throw new ApiError(
      'forbidden',
      'Webhook endpoints are created and changed with a live key: test keys never send webhooks.',
    );
  }
};

/**
 * Refuses a URL whose host is, or resolves to, an address that is not on the public internet
 * (loopback is allowed by the local runtime). Deliveries check again before every connection.
 */
export const checkWebhookUrl = async (
  deps: Pick<EndpointDeps, 'resolveHost' | 'webhookSettings'>,
  value: string,
): Promise<void> => {
  const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
  const policy = { allowLoopback: deps.webhookSettings().allowLoopback };
  if (isIP(host)) {
    if (!isAllowedAddress(host, policy))
      throw new ApiError('url_not_allowed', refusalReason(host, host), 'url');
    return;
  }
  // A name that can never resolve is the caller's to fix (422), whatever a resolver would say.
  const problem = hostNameProblem(host);
  if (problem) throw new ApiError('url_not_allowed', problem, 'url');
  let addresses: { address: string }[];
  try {
    addresses = await deps.resolveHost(host);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') {
      throw new ApiError('url_not_allowed', `The host name ${host} does not resolve to any address.`, 'url');
    }
    throw new ApiError('service_unavailable', `The host name ${host} could not be resolved just now; retry.`);
  }
  const refused = addresses.find((a) => !isAllowedAddress(a.address, policy));
  if (refused) throw new ApiError('url_not_allowed', refusalReason(refused.address, host), 'url');
  if (addresses.length === 0)
    throw new ApiError('url_not_allowed', `The host name ${host} does not resolve to any address.`, 'url');
};

const findEndpoint = async (deps: Pick<EndpointDeps, 'webhooks'>, auth: AuthContext, webhookId: string) => {
  const endpoint = ID_PATTERN.test(webhookId)
    ? await deps.webhooks.getEndpoint(auth.workspaceId, webhookId)
    : null;
  if (!endpoint) throw new ApiError('not_found', 'No webhook endpoint with this id in this workspace.');
  return endpoint;
};

/**
 * Creates an endpoint. Returns the new secret in the clear (for this answer only) and sealed
 * (encrypted as stored): an Idempotency-Key record keeps only the sealed one, so it never holds the
 * secret in the clear.
 */
export const createWebhook = async (deps: EndpointDeps, auth: AuthContext, input: CreateWebhookInput) => {
  requireLiveKey(auth);
  await checkWebhookUrl(deps, input.url);
  const { maxEndpointsPerWorkspace } = deps.webhookSettings();
  const existing = (await deps.webhooks.listEndpoints(auth.workspaceId)).length;
  if (existing >= maxEndpointsPerWorkspace) {
    throw new ApiError(
      'too_many_webhooks',
      `A workspace has at most ${maxEndpointsPerWorkspace} webhook endpoints; delete one first.`,
    );
  }
  const webhookId = newId('wh');
  const secret = newSecret();
  const now = deps.clock.now().toISOString();
  const endpoint: WebhookEndpoint = {
    webhookId,
    workspaceId: auth.workspaceId,
    accountId: auth.accountId,
    url: input.url,
    description: input.description ?? null,
    events: input.events,
    enabled: true,
    consecutiveFailures: 0,
    disabledReason: null,
    disabledAt: null,
    secretCiphertext: await deps.tokenCipher().encrypt(secret, cipherContext(webhookId)),
    createdAt: now,
    updatedAt: now,
  };
  await deps.webhooks.createEndpoint(endpoint, existing);
  return { secret, sealed: { sealedSecret: endpoint.secretCiphertext, endpoint: endpointView(endpoint) } };
};

/**
 * A replayed answer of POST /webhooks: the sealed secret opened. Only a replay needs this (the
 * first answer shows the secret it generated), so only a replay decrypts, and only a webhook's secret.
 */
export const revealSecret = async (
  deps: Pick<EndpointDeps, 'tokenCipher'>,
  created: { sealedSecret: string; endpoint: { id: string } },
) => ({
  secret: await deps.tokenCipher().decrypt(created.sealedSecret, cipherContext(created.endpoint.id)),
  endpoint: created.endpoint,
});

/**
 * The endpoint's signing secret, opened on demand (the dashboard's "show secret"): the only
 * reader besides a replay, and the key's grant opens webhook secrets only.
 */
export const webhookSecret = async (
  deps: Pick<EndpointDeps, 'webhooks' | 'tokenCipher'>,
  auth: AuthContext,
  webhookId: string,
) => {
  const endpoint = await findEndpoint(deps, auth, webhookId);
  return { secret: await deps.tokenCipher().decrypt(endpoint.secretCiphertext, cipherContext(webhookId)) };
};

export const listWebhooks = async (deps: Pick<EndpointDeps, 'webhooks'>, auth: AuthContext) =>
  (await deps.webhooks.listEndpoints(auth.workspaceId))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.webhookId.localeCompare(b.webhookId))
    .map(endpointView);

export const getWebhook = async (
  deps: Pick<EndpointDeps, 'webhooks'>,
  auth: AuthContext,
  webhookId: string,
) => endpointView(await findEndpoint(deps, auth, webhookId));

/** Changes only the fields sent; `enabled: true` also clears the count of failed events. */
export const updateWebhook = async (
  deps: Pick<EndpointDeps, 'clock' | 'webhooks' | 'resolveHost' | 'webhookSettings'>,
  auth: AuthContext,
  webhookId: string,
  input: UpdateWebhookInput,
) => {
  requireLiveKey(auth);
  await findEndpoint(deps, auth, webhookId);
  if (input.url !== undefined) await checkWebhookUrl(deps, input.url);
  const now = deps.clock.now().toISOString();
  const changes: Parameters<WebhookStore['updateEndpoint']>[2] = { updatedAt: now };
  if (input.url !== undefined) changes.url = input.url;
  if (input.events !== undefined) changes.events = input.events;
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled === true) {
    Object.assign(changes, { enabled: true, consecutiveFailures: 0, disabledReason: null, disabledAt: null });
  } else if (input.enabled === false) {
    Object.assign(changes, { enabled: false, disabledReason: 'request', disabledAt: now });
  }
  const updated = await deps.webhooks.updateEndpoint(auth.workspaceId, webhookId, changes);
  if (!updated) throw new ApiError('not_found', 'No webhook endpoint with this id in this workspace.');
  return endpointView(updated);
};

/** Deletes the endpoint with its delivery history; its pending retries stop. */
export const deleteWebhook = async (
  deps: Pick<EndpointDeps, 'webhooks'>,
  auth: AuthContext,
  webhookId: string,
) => {
  requireLiveKey(auth);
  await findEndpoint(deps, auth, webhookId);
  if (!(await deps.webhooks.deleteEndpoint(auth.workspaceId, webhookId))) {
    throw new ApiError('not_found', 'No webhook endpoint with this id in this workspace.');
  }
};

/** Replaces the signing secret; the next attempt is signed with the new one. */
export const rollWebhookSecret = async (deps: EndpointDeps, auth: AuthContext, webhookId: string) => {
  requireLiveKey(auth);
  await findEndpoint(deps, auth, webhookId);
  const secret = newSecret();
  const updated = await deps.webhooks.updateEndpoint(auth.workspaceId, webhookId, {
    secretCiphertext: await deps.tokenCipher().encrypt(secret, cipherContext(webhookId)),
    updatedAt: deps.clock.now().toISOString(),
  });
  if (!updated) throw new ApiError('not_found', 'No webhook endpoint with this id in this workspace.');
  return { secret, endpoint: endpointView(updated) };
};

/** A position in an endpoint's attempt log: its sort key (time, delivery id, attempt number). */
const ATTEMPT_POSITION =
  /^ATTEMPT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#dlv_[0-9A-Za-z]{1,64}_[0-9A-Za-z]{1,64}#\d{3}$/;

/** Every attempt to deliver to the endpoint, newest first, a page at a time. */
export const listDeliveries = async (
  deps: Pick<EndpointDeps, 'webhooks'>,
  auth: AuthContext,
  webhookId: string,
  input: { limit?: string; cursor?: string },
) => {
  const limit = parsePageLimit(input.limit);
  const scope: CursorScope = ['deliveries', auth.workspaceId, webhookId];
  const after =
    input.cursor !== undefined
      ? decodeCursor(input.cursor, scope, (position) => ATTEMPT_POSITION.test(position))
      : undefined;
  await findEndpoint(deps, auth, webhookId);
  const page = await deps.webhooks.listAttempts(webhookId, limit, after);
  return {
    data: page.attempts.map(attemptView),
    nextCursor: page.next ? encodeCursor(page.next, scope) : null,
  };
};
