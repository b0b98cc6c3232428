import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { sweepDueReadings, takeReading } from '../core/metrics/collect.ts';
import { parseMetricsMessage } from '../ports/queue-messages.ts';
import { compose } from '../runtime/compose.ts';
import { channels } from '../runtime/parts/channels.ts';
import { metrics } from '../runtime/parts/metrics.ts';
import { networks } from '../runtime/parts/networks.ts';
import { posts } from '../runtime/parts/posts.ts';
import { queues } from '../runtime/parts/queues.ts';
import { replies } from '../runtime/parts/replies.ts';
import { tokens } from '../runtime/parts/tokens.ts';
import { logger } from '../shared/powertools.ts';

/** What this worker uses, composed once per instance. */
const deps = compose(metrics, posts, channels, queues, networks, tokens, replies);

const processor = new BatchProcessor(EventType.SQS);

/**
 * One message of the metrics queue: `sweep` from the recurring metrics sweep (the local runtime
 * sends it on a timer) hands out the due readings; `reading` takes one reading.
 */
const recordHandler = async (record: SQSRecord): Promise<void> => {
  const parsed = parseMetricsMessage(record.body);
  if (!parsed.ok) {
    // A malformed message can never succeed: drop it rather than loop to the dead-letter queue.
    logger.error('Dropped a malformed metrics message', {
      messageId: record.messageId,
      problem: parsed.problem,
    });
    return;
  }
  const message = parsed.message;
  if (message.kind === 'sweep') {
    await sweepDueReadings(deps);
    return;
  }
  logger.appendKeys({ postId: message.postId, channelId: message.channelId });
  await takeReading(deps, message);
};

/** SQS consumer of the metrics queue (partial batch responses: only failed messages return). */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context });
