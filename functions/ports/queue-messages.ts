/**
 * Every message of every queue, one zod schema per queue: a union tagged by `kind`. Senders build
 * bodies with the `*Body` functions (typed by the same schemas); each worker parses a record once
 * with its `parse*Message` and drops what fails (it can never succeed) after logging the problem.
 * Messages carry ids, never copies of state.
 *
 * Messages sent before kinds existed (in flight at a deploy, or put by a schedule created before)
 * are given theirs by an explicit upgrade before the schema reads them.
 */
import { z } from 'zod';

/** The workspace and channels of a post, named by its publish job (see `reads` below). */
const jobReadsSchema = z.object({ workspaceId: z.string(), channelIds: z.array(z.string()) });

const postJobFields = {
  postId: z.string(),
  /** The scheduled time this firing is for; a firing for another time is stale and ignored. */
  scheduledAt: z.string().optional(),
  /** The publication round the job belongs to; jobs of an earlier round are ignored. */
  round: z.number().int().optional(),
  /**
   * What a `run` job reads besides the post (ids only), so that one request reads them all. Absent,
   * or not naming every channel left to publish, the channels are read after the post. A malformed
   * one is left out (the job then reads in two steps) rather than failing the job.
   */
  reads: jobReadsSchema.optional().catch(undefined),
  /**
   * Sent by the local runtime's start to put back the jobs a restart lost (its SQS stand-in keeps
   * messages in memory): a rate-limit wait step owned by a lost job is taken over instead of left
   * to its owner, which will never come.
   */
  recovered: z.literal(true).optional(),
};

/** The publish queue: a schedule fired (`scheduled`), work on a publishing post (`run`), or one of the two sweeps. */
const publishMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scheduled'), ...postJobFields }),
  z.object({ kind: z.literal('run'), ...postJobFields }),
  /** Requeues posts stuck publishing or scheduled past their time (a recurring schedule on AWS, a timer locally). */
  z.object({ kind: z.literal('sweep') }),
  /** Extends channels' long-lived tokens before they lapse (another recurring schedule). */
  z.object({ kind: z.literal('token-sweep') }),
]);

/**
 * The event queue: hand a committed outbox event to the webhooks (`workspaceId`, `type` and `mode`,
 * the event's fixed facts, spare the dispatcher a read when the workspace has no endpoint for it;
 * a malformed fact is left out and the event is read first), or sweep lost webhook work.
 */
const eventMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('event'),
    eventId: z.string(),
    workspaceId: z.string().optional().catch(undefined),
    // Checked against the event types where it is read (the webhooks port imports this module).
    type: z.string().optional().catch(undefined),
    mode: z.enum(['live', 'test']).optional().catch(undefined),
  }),
  z.object({ kind: z.literal('sweep') }),
]);

/** The delivery queue: one attempt (1 for the first) of one webhook delivery. */
const deliveryMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('delivery'), deliveryId: z.string(), attempt: z.number().int().min(1) }),
]);

/** The metrics queue: take reading `step` of a channel (`attempt` 1 for the first try), or hand out the due readings. */
const metricsMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('reading'),
    postId: z.string(),
    channelId: z.string(),
    step: z.number().int(),
    attempt: z.number().int(),
  }),
  z.object({ kind: z.literal('sweep') }),
]);

export type PublishMessage = z.infer<typeof publishMessageSchema>;
export type EventMessage = z.infer<typeof eventMessageSchema>;
export type DeliveryMessage = z.infer<typeof deliveryMessageSchema>;
export type MetricsMessage = z.infer<typeof metricsMessageSchema>;
/** A message on the publish queue about one post: ids only, never copies of state. */
export type PublishJob = Extract<PublishMessage, { kind: 'scheduled' | 'run' }>;
export type JobReads = z.infer<typeof jobReadsSchema>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A body without `kind`, given one by what identifies it: `{ sweep: true }`, or the id field of `kind`. */
const upgrade =
  (flags: Record<string, string>, byField: Record<string, string>) =>
  (body: unknown): unknown => {
    if (!isPlainObject(body) || 'kind' in body) return body;
    for (const [flag, kind] of Object.entries(flags)) if (body[flag] === true) return { kind };
    for (const [field, kind] of Object.entries(byField)) if (field in body) return { ...body, kind };
    return body;
  };

/**
 * Publish-queue bodies from before kinds: `{ sweep: true }` and `{ tokenSweep: true }`. (Jobs about a
 * post always had their kind, `scheduled` or `run`.)
 */
export const upgradePublishMessage = upgrade({ sweep: 'sweep', tokenSweep: 'token-sweep' }, {});
/** Event-queue bodies from before kinds: `{ sweep: true }`, and `{ eventId, ... }` (with or without its facts). */
export const upgradeEventMessage = upgrade({ sweep: 'sweep' }, { eventId: 'event' });
/** Delivery-queue bodies from before kinds: `{ deliveryId, attempt }`. */
export const upgradeDeliveryMessage = upgrade({}, { deliveryId: 'delivery' });
/** Metrics-queue bodies from before kinds: `{ sweep: true }`, and `{ postId, channelId, step, attempt }`. */
export const upgradeMetricsMessage = upgrade({ sweep: 'sweep' }, { postId: 'reading' });

/** A record's body, read: the message, or why it cannot be one (paths and codes only: never a value). */
export type ParsedMessage<T> = { ok: true; message: T } | { ok: false; problem: string };

const reader =
  <T>(schema: z.ZodType<T>, upgradeBody: (body: unknown) => unknown) =>
  (body: string): ParsedMessage<T> => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return { ok: false, problem: 'not JSON' };
    }
    const result = schema.safeParse(upgradeBody(json));
    if (result.success) return { ok: true, message: result.data };
    const problem = result.error.issues
      .map((issue) => `${issue.path.length ? issue.path.join('.') : '(message)'}: ${issue.code}`)
      .join('; ');
    return { ok: false, problem };
  };

export const parsePublishMessage = reader(publishMessageSchema, upgradePublishMessage);
export const parseEventMessage = reader(eventMessageSchema, upgradeEventMessage);
export const parseDeliveryMessage = reader(deliveryMessageSchema, upgradeDeliveryMessage);
export const parseMetricsMessage = reader(metricsMessageSchema, upgradeMetricsMessage);

export const publishBody = (message: PublishMessage): string => JSON.stringify(message);
export const eventBody = (message: EventMessage): string => JSON.stringify(message);
export const deliveryBody = (message: DeliveryMessage): string => JSON.stringify(message);
export const metricsBody = (message: MetricsMessage): string => JSON.stringify(message);

/**
 * The bodies the recurring sweeps put on their queues every minute (the token sweep every 15):
 * EventBridge schedules on AWS, timers in the local runtime.
 */
export const POST_SWEEP_MESSAGE = publishBody({ kind: 'sweep' });
export const TOKEN_SWEEP_MESSAGE = publishBody({ kind: 'token-sweep' });
export const WEBHOOK_SWEEP_MESSAGE = eventBody({ kind: 'sweep' });
export const METRICS_SWEEP_MESSAGE = metricsBody({ kind: 'sweep' });

/** `reads` when it is well formed (a message may come from anywhere on the queue), else undefined. */
export const jobReadsOf = (reads: unknown): JobReads | undefined => jobReadsSchema.safeParse(reads).data;
