import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { sweepPosts } from '../core/publishing/sweep-posts.ts';
import type { PublishJob } from '../ports/publishing.ts';
import { getDeps } from '../runtime/container.ts';
import { logger } from '../shared/powertools.ts';

const processor = new BatchProcessor(EventType.SQS);

const parseJob = (record: SQSRecord): PublishJob | null => {
  try {
    const job = JSON.parse(record.body) as Partial<PublishJob>;
    if (typeof job.postId === 'string' && (job.kind === 'scheduled' || job.kind === 'run'))
      return job as PublishJob;
  } catch {
    // reported below
  }
  return null;
};

const isSweep = (record: SQSRecord): boolean => {
  try {
    return (JSON.parse(record.body) as { sweep?: unknown }).sweep === true;
  } catch {
    return false;
  }
};

/**
 * One message: reload the post and do what is left; a thrown error puts the message back on the
 * queue. `{ "sweep": true }` (a recurring schedule on AWS) requeues posts that got stuck.
 */
const recordHandler = async (record: SQSRecord): Promise<void> => {
  if (isSweep(record)) {
    await sweepPosts(getDeps());
    return;
  }
  const job = parseJob(record);
  if (!job) {
    // A malformed message can never succeed: drop it rather than loop to the dead-letter queue.
    logger.error('Dropped a malformed publish message', { messageId: record.messageId });
    return;
  }
  logger.appendKeys({ postId: job.postId });
  await getDeps().publishing().handle(job);
};

/** SQS consumer of the publish queue (partial batch responses: only failed messages return). */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context });
