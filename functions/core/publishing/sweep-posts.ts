import type { Clock } from '../../ports/clock.ts';
import type { OverduePosts } from '../../ports/overdue-posts.ts';
import type { JobQueue } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';

/** What the post sweep depends on. */
export interface PostSweepDeps {
  clock: Clock;
  overduePosts: OverduePosts;
  queue: () => JobQueue;
  settings: { postSweepAfterSeconds: number };
}

/** Posts handled per sweep; the rest wait for the next one (a minute later). */
const SWEEP_LIMIT = 200;

/**
 * Finds posts that should be moving and are not, and queues their work again: a post publishing
 * with no write for `postSweepAfterSeconds` (its job was lost, or a crash came between saving it and
 * queueing it) gets a job for its round; a post still scheduled that long after its time (its
 * schedule or its firing was lost) gets its firing. The engine checks the post's state and claims
 * every block before sending it, so a job for a post that was only slow does no harm. A requeued
 * post leaves the sweep's sight for another `postSweepAfterSeconds`. Run every minute (a recurring
 * schedule on AWS, a timer locally).
 */
export const sweepPosts = async (deps: PostSweepDeps): Promise<{ requeued: number }> => {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - deps.settings.postSweepAfterSeconds * 1000).toISOString();
  const overdue = await deps.overduePosts.overdue(before, SWEEP_LIMIT);
  let requeued = 0;
  for (const post of overdue) {
    try {
      if (post.status === 'publishing') {
        await deps.queue().sendPublish({ postId: post.postId, kind: 'run', round: post.round });
      } else if (post.scheduledAt !== null) {
        await deps
          .queue()
          .sendPublish({ postId: post.postId, kind: 'scheduled', scheduledAt: post.scheduledAt });
      }
      // After the send: a crash in between sends the job again next time, which is harmless.
      await deps.overduePosts.postpone(post, now.toISOString());
      requeued++;
    } catch (error) {
      logger.warn('Post sweep could not requeue a post; the next sweep tries again', {
        postId: post.postId,
        error: error as Error,
      });
    }
  }
  if (requeued > 0) logger.info('Post sweep requeued stuck posts', { requeued });
  return { requeued };
};
