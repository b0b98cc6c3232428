/**
 * Queue consumers: which worker module consumes which queue. The CDK stack wires each as a
 * Lambda event source mapping (partial batch responses on); the local runtime starts one
 * poller per entry that plays the same mapping. Later capabilities add their workers here.
 */
import { type Grant, tokenRefresh } from '../shared/grants.ts';

export type QueueName = 'publish' | 'event' | 'delivery' | 'metrics';

export interface WorkerDef {
  queue: QueueName;
  /** Worker module relative to the repository root; it exports `handler(event: SQSEvent)`. */
  entry: string;
  batchSize: number;
  /** What the worker may touch (the same grants as routes). */
  grants: Grant[];
  /** Lambda timeout; the queue's visibility timeout must be at least six times it. */
  timeoutSeconds: number;
}

export const workers: WorkerDef[] = [
  {
    queue: 'publish',
    entry: 'functions/workers/publish.ts',
    batchSize: 10,
    // Reads posts and channels, writes outcomes and claims; re-queues itself (and stuck posts, on
    // the post sweep's `{ kind: "sweep" }`); hands events on; decrypts channel tokens; presigns media
    // URLs for the networks.
    // Refreshes channel tokens through the token service (seals new tokens, reads the network app).
    grants: ['table:read', 'table:write', 'publishQueue:send', ...tokenRefresh, 'bucket:read'],
    timeoutSeconds: 60,
  },
  {
    queue: 'event',
    entry: 'functions/workers/webhook-dispatch.ts',
    batchSize: 10,
    // Reads events and endpoints, writes deliveries and marks events dispatched; queues deliveries.
    // Also runs the sweep (a recurring schedule puts `{ kind: "sweep" }` on the event queue).
    grants: ['table:read', 'table:write', 'deliveryQueue:send'],
    timeoutSeconds: 60,
  },
  {
    queue: 'delivery',
    entry: 'functions/workers/webhook-delivery.ts',
    batchSize: 10,
    // Reads deliveries, endpoints and events, records attempts; re-queues its own deliveries;
    // decrypts endpoint signing secrets (and nothing else: not channel tokens). Receivers answer
    // within 10 s; the batch runs in parallel.
    grants: ['table:read', 'table:write', 'deliveryQueue:send', 'webhookSecret:decrypt'],
    timeoutSeconds: 60,
  },
  {
    queue: 'metrics',
    entry: 'functions/workers/metrics.ts',
    batchSize: 10,
    // Reads posts, channels and trackers; writes readings, trackers and stats aggregates; re-queues
    // its own readings (retries, and the sweep's hand-outs); decrypts channel tokens to call the networks.
    // Readings go through the token service: a refresh reads the network app and seals new tokens.
    // A refused refresh sends the channel's needs_reconnect event, as from any token service caller.
    grants: ['table:read', 'table:write', 'metricsQueue:send', ...tokenRefresh],
    timeoutSeconds: 60,
  },
];
