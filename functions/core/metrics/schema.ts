import * as z from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { METRIC_NAMES } from '../../ports/network-client.ts';
import { zodErrorToApiError } from '../../shared/validation.ts';

/**
 * The shapes of GET /v1/posts/{id}/metrics and GET /v1/stats (spec 2.9, 4.1): their query strings
 * and their responses, written once here for validation, types and the OpenAPI document.
 */

export const GRANULARITIES = ['raw', 'hour', 'day', 'week'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** The query of GET /v1/posts/{id}/metrics. */
export const postMetricsQuerySchema = z.strictObject({
  granularity: z
    .enum(GRANULARITIES, { error: `granularity must be one of ${GRANULARITIES.join(', ')}.` })
    .default('raw'),
});

/** The query of GET /v1/stats: a date (a whole UTC day) or a full ISO 8601 time with a timezone, as for GET /posts. */
export const statsQuerySchema = z.strictObject({
  from: z.string().optional(),
  to: z.string().optional(),
});

/** Parses a query string object with one of the schemas above; unknown or repeated keys are refused. */
export const parseQuery = <S extends z.ZodType>(
  schema: S,
  entries: Iterable<[string, string]>,
): z.output<S> => {
  const raw: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (name in raw) throw new ApiError('validation_failed', `${name} may be given only once.`, name);
    raw[name] = value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw zodErrorToApiError(parsed.error);
  return parsed.data;
};

/** Only the metrics the network reported: a missing name means "not reported", never zero. */
export const metricsSchema = z
  .object(Object.fromEntries(METRIC_NAMES.map((name) => [name, z.number().int().nonnegative().optional()])))
  .describe('Running totals under stable names; absent = the network did not report it (not zero).');

const pointSchema = z.object({
  at: z.string().describe('When the reading was taken (ISO 8601 UTC).'),
  metrics: metricsSchema,
  blocks: z
    .array(z.object({ block: z.number().int().nonnegative(), metrics: metricsSchema }))
    .optional()
    .describe('Threads: each block’s own metrics where the network reports them (block 0 = the totals).'),
});

const rawReadingSchema = z.object({
  at: z.string(),
  dueAt: z.string().describe('When the reading was due on the cadence.'),
  status: z.enum(['ok', 'missed', 'skipped']),
  metrics: metricsSchema.optional().describe('Only when status is ok.'),
  blocks: pointSchema.shape.blocks,
  reason: z.string().optional().describe('Why a reading was missed or skipped.'),
});

const bucketSchema = z.object({
  periodStart: z.string().describe('Start of the UTC hour, day or ISO week (Monday).'),
  at: z.string().describe('The last reading of the period: values are running totals.'),
  metrics: metricsSchema,
});

export const channelMetricsSchema = z.object({
  channelId: z.string(),
  platform: z.string(),
  metricsStatus: z.enum(['available', 'unsupported', 'missing_permission', 'needs_reconnect']),
  collection: z
    .enum(['not_live', 'collecting', 'finished', 'unsupported'])
    .describe(
      'not_live: the channel has no live post (its first block is not live); collecting: readings ' +
        'continue; finished: 30 days are over. A thread stopped halfway is live: its first block is read.',
    ),
  publishedAt: z
    .string()
    .nullable()
    .describe(
      'When the channel went live (its first block did); the cadence runs from here. null: not live.',
    ),
  nextReadingAt: z.string().nullable(),
  latest: pointSchema.nullable().describe('The latest successful reading.'),
  counts: z.object({ readings: z.number().int(), missed: z.number().int(), skipped: z.number().int() }),
  readings: z.array(z.union([rawReadingSchema, bucketSchema])),
});

/** The response of GET /v1/posts/{id}/metrics. */
export const postMetricsResponseSchema = z.object({
  postId: z.string(),
  granularity: z.enum(GRANULARITIES),
  channels: z.array(channelMetricsSchema),
});

const totalsSchema = z.object({
  posts: z.number().int().nonnegative().describe('Posts counted (published in the range).'),
  metrics: metricsSchema,
});

/** The response of GET /v1/stats. */
export const statsResponseSchema = z.object({
  from: z.string(),
  to: z.string(),
  overall: totalsSchema,
  platforms: z.array(totalsSchema.extend({ platform: z.string() })),
});

export type PostMetricsResponse = z.output<typeof postMetricsResponseSchema>;
export type ChannelMetrics = z.output<typeof channelMetricsSchema>;
export type StatsResponse = z.output<typeof statsResponseSchema>;
