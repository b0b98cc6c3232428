import type { OverduePosts } from '../../ports/overdue-posts.ts';
import type { JobQueue } from '../../ports/publishing.ts';

/** Everything is due before this: the whole due index. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';
const PER_START = 100_000;

/**
 * The local SQS stand-in keeps messages in memory, so a restart loses jobs in flight (SQS on AWS
 * does not). On start the local runtime puts them back at once, from the same due index the post
 * sweep reads (no Scan): a job for every post still publishing, and a firing for every scheduled
 * post whose schedule already fired. The post sweep (`{ "kind": "sweep" }` on the publish queue, a
 * timer locally, a recurring schedule on AWS) would find them too, but only once they are
 * `POST_SWEEP_AFTER_SECONDS` overdue; a restart should not make them wait that long.
 */
export const requeueLostJobs = async (deps: {
  posts: OverduePosts;
  /** The local scheduler's stored schedules (a schedule still stored will fire by itself). */
  schedules: { get(name: string): Promise<unknown> };
  queue: JobQueue;
  now: Date;
}): Promise<number> => {
  let requeued = 0;
  for (const post of await deps.posts.overdue(END_OF_TIME, PER_START)) {
    if (post.status === 'publishing') {
      // `recovered`: a rate-limit wait step whose job was lost is taken over by this one.
      await deps.queue.sendPublish({ postId: post.postId, kind: 'run', round: post.round, recovered: true });
      requeued++;
      continue;
    }
    // The post names its schedule (posts saved before schedules had names of their own: the post id).
    const name = post.scheduleName === undefined ? post.postId : post.scheduleName;
    if (post.scheduledAt !== null && !(name && (await deps.schedules.get(name)))) {
      const wait = Math.max(0, Math.floor((Date.parse(post.scheduledAt) - deps.now.getTime()) / 1000) - 1);
      await deps.queue.sendPublish(
        { postId: post.postId, kind: 'scheduled', scheduledAt: post.scheduledAt },
        wait,
      );
      requeued++;
    }
  }
  return requeued;
};
