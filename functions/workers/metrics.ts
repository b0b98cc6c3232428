import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { sweepDueReadings, takeReading } from '../core/metrics/collect.ts';
import type { MetricsJob } from '../ports/metrics.ts';
import { compose } from '../runtime/compose.ts';
import { metrics } from '../runtime/parts/metrics.ts';
import { networks } from '../runtime/parts/networks.ts';
import { posts } from '../runtime/parts/posts.ts';
import { queues } from '../runtime/parts/queues.ts';
import { tokens } from '../runtime/parts/tokens.ts';
import { logger } from '../shared/powertools.ts';

/** What this worker uses, composed once per instance. */
const deps = compose(metrics, posts, queues, networks, tokens);

const processor = new BatchProcessor(EventType.SQS);

const parse = (record: SQSRecord): (Partial<MetricsJob> & { sweep?: unknown }) | null => {
  try {
    const body = JSON.parse(record.body) as unknown;
    return typeof body === 'object' && body !== null ? (body as Partial<MetricsJob>) : null;
  } catch {
    return null;
  }
};

const isJob = (message: Partial<MetricsJob>): message is MetricsJob =>
  typeof message.postId === 'string' &&
  typeof message.channelId === 'string' &&
  Number.isInteger(message.step) &&
  Number.isInteger(message.attempt);

/**
 * One message of the metrics queue: `{ sweep: true }` from the recurring metrics sweep (the local
 * runtime sends it on a timer) hands out the due readings; `{ postId, channelId, step, attempt }`
 * takes one reading.
 */
const recordHandler = async (record: SQSRecord): Promise<void> => {
  const message = parse(record);
  if (message?.sweep === true) {
    await sweepDueReadings(deps);
    return;
  }
  if (!message || !isJob(message)) {
    // A malformed message can never succeed: drop it rather than loop to the dead-letter queue.
    logger.error('Dropped a malformed metrics message', { messageId: record.messageId });
    return;
  }
  logger.appendKeys({ postId: message.postId, channelId: message.channelId });
  await takeReading(deps, message);
};

/** SQS consumer of the metrics queue (partial batch responses: only failed messages return). */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context });
