import type { EventType, OutboxEvent } from './publishing.ts';
import type { DeliveryMessage } from './queue-messages.ts';

export const EVENT_TYPES = [
  'post.published',
  'post.failed',
  'post.partially_failed',
  'channel.needs_reconnect',
  'comment.received',
] as const satisfies readonly EventType[];

/** A webhook endpoint of a workspace. The signing secret is kept encrypted and never shown again. */
export interface WebhookEndpoint {
  webhookId: string;
  workspaceId: string;
  accountId: string;
  url: string;
  description: string | null;
  events: EventType[];
  enabled: boolean;
  /** Events given up on since the last success (or since it was enabled); 5 disables it. */
  consecutiveFailures: number;
  disabledReason: 'consecutive_failures' | 'request' | null;
  disabledAt: string | null;
  secretCiphertext: string;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** The delivery of one event to one endpoint, across its attempts. */
export interface Delivery {
  deliveryId: string;
  webhookId: string;
  workspaceId: string;
  eventId: string;
  eventType: EventType;
  state: DeliveryState;
  /** Number of the last attempt started (0 before the first). */
  attempt: number;
  /** When the first attempt started; the retry schedule counts from here. */
  firstAttemptAt: string | null;
  /** When the next attempt is due. */
  nextAttemptAt: string;
  /** Set while an attempt runs: past this time its worker is presumed dead. */
  inFlightUntil: string | null;
  createdAt: string;
}

export type AttemptErrorCode =
  | 'http_status'
  | 'redirect'
  | 'timeout'
  | 'connection_failed'
  | 'tls_failed'
  | 'dns_failed'
  | 'url_not_allowed';

/** One attempt, as the deliveries log shows it. */
export interface DeliveryAttempt {
  deliveryId: string;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  outcome: 'succeeded' | 'retrying' | 'failed';
  responseStatus: number | null;
  errorCode: AttemptErrorCode | null;
  error: string | null;
  nextAttemptAt: string | null;
}

/** What a finished attempt changes besides its log entry. */
export type AttemptResult =
  | { kind: 'succeeded' }
  | { kind: 'retry'; nextAttemptAt: string }
  | { kind: 'failed' };

/** Endpoints, deliveries and the attempt log (DynamoDB on both runtimes). */
export interface WebhookStore {
  /**
   * Creates the endpoint and counts it in its workspace's count of endpoints (the outbox keeps no
   * event while that count is 0). `existing`: how many endpoints the workspace had when the caller
   * listed them, where a count that was never made starts.
   */
  createEndpoint(endpoint: WebhookEndpoint, existing: number): Promise<void>;
  getEndpoint(workspaceId: string, webhookId: string): Promise<WebhookEndpoint | null>;
  listEndpoints(workspaceId: string): Promise<WebhookEndpoint[]>;
  /** Sets the given fields if the endpoint still exists; the endpoint after the change, or null. */
  updateEndpoint(
    workspaceId: string,
    webhookId: string,
    changes: Partial<Omit<WebhookEndpoint, 'webhookId' | 'workspaceId' | 'accountId' | 'createdAt'>>,
  ): Promise<WebhookEndpoint | null>;
  /**
   * Deletes the endpoint (taking it off its workspace's count), then its deliveries and attempt
   * log; false when it did not exist.
   */
  deleteEndpoint(workspaceId: string, webhookId: string): Promise<boolean>;
  /**
   * A workspace never counted, in which `listEndpoints` found no endpoint just now: its count
   * becomes 0 unless it exists (an endpoint created since then made it). True when it did now.
   */
  countNoEndpoints(workspaceId: string): Promise<boolean>;
  /**
   * Sets the workspace's count to the endpoints it has (an operator's repair: an endpoint created
   * by a version before the count was never counted). Exact under concurrent creates and deletes:
   * the count is written only if it has not changed since it was read, else read again.
   */
  recountEndpoints(workspaceId: string): Promise<{ before: number | null; after: number }>;
  /** Every workspace with at least one endpoint (an operator's Scan of the table). */
  workspacesWithEndpoints(): Promise<string[]>;
  /** Creates the delivery unless it exists, only while the endpoint exists and is enabled. */
  createDelivery(delivery: Delivery): Promise<'created' | 'exists' | 'endpoint_unavailable'>;
  getDelivery(deliveryId: string): Promise<Delivery | null>;
  /** Starts attempt `delivery.attempt + 1` (or takes over a dead one); false when someone else did. */
  claimAttempt(delivery: Delivery, attempt: number, inFlightUntil: string, now: string): Promise<boolean>;
  /** Records a finished attempt and its consequences in one transaction; false when the delivery is gone. */
  finishAttempt(
    delivery: Delivery,
    log: DeliveryAttempt,
    result: AttemptResult,
    workspaceId: string,
  ): Promise<boolean>;
  /** Turns the endpoint off when it reached `threshold` failed events in a row; true when it did now. */
  disableIfFailing(workspaceId: string, webhookId: string, threshold: number, now: string): Promise<boolean>;
  /** Stops a pending delivery whose endpoint is disabled. */
  cancelDelivery(delivery: Delivery): Promise<void>;
  /** The attempt log of an endpoint, newest first. */
  listAttempts(
    webhookId: string,
    limit: number,
    after?: string,
  ): Promise<{ attempts: DeliveryAttempt[]; next: string | null }>;
  /** Pending deliveries due (or in flight) since before `before`, oldest first. */
  overdueDeliveries(before: string, limit: number): Promise<Delivery[]>;
}

/** A message on the delivery queue: ids and the attempt it is for. */
export type DeliveryJob = Omit<DeliveryMessage, 'kind'>;

export interface DeliveryQueue {
  send(jobs: DeliveryJob[], delaySeconds?: number): Promise<void>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export type WebhookResponse =
  | { ok: true; status: number; durationMs: number }
  | { ok: false; status: number | null; errorCode: AttemptErrorCode; error: string; durationMs: number };

/** Sends one signed POST to a subscriber, connecting only to addresses the policy allows. */
export interface WebhookSender {
  post(request: WebhookRequest): Promise<WebhookResponse>;
}

/** Every address a host name resolves to (DNS on both runtimes). */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The publishing outbox as the webhooks capability reads it. */
export interface EventOutbox {
  get(eventId: string): Promise<{ event: OutboxEvent; dispatched: boolean } | null>;
  /** Takes the event out of the pending index: its deliveries exist and are queued. False when there is no such event. */
  markDispatched(eventId: string): Promise<boolean>;
  /** Events still pending that were created before `before`, oldest first. */
  pendingBefore(before: string, limit: number): Promise<string[]>;
}

export interface WebhookSettings {
  /** Unit of the retry schedule, in seconds. */
  retryBaseSeconds: number;
  /** How long a receiver has to answer. */
  timeoutMs: number;
  /** Loopback targets are allowed (local runtime only). */
  allowLoopback: boolean;
  /** Outbox events and deliveries overdue by this long are sent again by the sweeper. */
  sweepAfterSeconds: number;
  /** Failed events in a row that turn an endpoint off. */
  disableAfterFailedEvents: number;
  maxEndpointsPerWorkspace: number;
}
