import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { sweepTokens } from '../core/channels/sweep-tokens.ts';
import { sweepPosts } from '../core/publishing/sweep-posts.ts';
import { parsePublishMessage } from '../ports/queue-messages.ts';
import { compose } from '../runtime/compose.ts';
import { channels } from '../runtime/parts/channels.ts';
import { posts } from '../runtime/parts/posts.ts';
import { publishing } from '../runtime/parts/publishing.ts';
import { queues } from '../runtime/parts/queues.ts';
import { tokens } from '../runtime/parts/tokens.ts';
import { logger } from '../shared/powertools.ts';

/** What this worker uses, composed once per instance. */
const deps = compose(publishing, posts, channels, queues, tokens);

const processor = new BatchProcessor(EventType.SQS);

/**
 * How long before the invocation's end a publish must have returned: the engine then settles the
 * block and queues the next step (a resumable upload saves its place before this).
 */
const DEADLINE_MARGIN_MS = 3_000;
/** The running invocation's context: its remaining time bounds each publish. */
let invocation: Context | undefined;

/**
 * One message: reload the post and do what is left; a thrown error puts the message back on the
 * queue. `sweep` (a recurring schedule on AWS) requeues posts that got stuck; `token-sweep`
 * (another) extends channels' long-lived tokens before they lapse.
 */
const recordHandler = async (record: SQSRecord): Promise<void> => {
  const parsed = parsePublishMessage(record.body);
  if (!parsed.ok) {
    // A malformed message can never succeed: drop it rather than loop to the dead-letter queue.
    logger.error('Dropped a malformed publish message', {
      messageId: record.messageId,
      problem: parsed.problem,
    });
    return;
  }
  const job = parsed.message;
  if (job.kind === 'sweep') {
    await sweepPosts(deps);
    return;
  }
  if (job.kind === 'token-sweep') {
    await sweepTokens(deps);
    return;
  }
  logger.appendKeys({ postId: job.postId });
  const remaining = invocation?.getRemainingTimeInMillis();
  await deps
    .publishing()
    .handle(job, remaining ? { deadline: new Date(Date.now() + remaining - DEADLINE_MARGIN_MS) } : {});
};

/** SQS consumer of the publish queue (partial batch responses: only failed messages return). */
export const handler = async (event: SQSEvent, context: Context) => {
  invocation = context;
  return processPartialResponse(event, recordHandler, processor, { context });
};
