import { ApiError } from '../../domain/errors.ts';
import type { PostHold, PostRecord } from '../../domain/post.ts';
import type { Clock } from '../../ports/clock.ts';
import type { PostStore } from '../../ports/posts.ts';
import { logger } from '../../shared/powertools.ts';

/**
 * How long a revise or retract holds its post. Longer than an HTTP function may run (10 s on AWS;
 * API Gateway gives up at 30 s), so a live holder never outlasts its hold, and a post whose holder
 * died is free again after this.
 */
export const POST_HOLD_SECONDS = 60;

type HoldDeps = { posts: PostStore; clock: Clock };

const DOING: Record<PostHold['action'], string> = { revise: 'revised', retract: 'retracted' };

/** The post as it is written when nobody holds it any more. */
export const unheld = (post: PostRecord): PostRecord => {
  const { hold: _hold, ...rest } = post;
  return rest;
};

/** 409 `conflict` while another request holds the post. */
export const assertNotHeld = (post: PostRecord, now: Date): void => {
  const hold = post.hold;
  if (hold && Date.parse(hold.until) > now.getTime()) {
    throw new ApiError(
      'conflict',
      `This post is being ${DOING[hold.action]} by another request; try again when it is done.`,
    );
  }
};

/**
 * Takes the post for an action on the networks, by a write conditional on the version read: of
 * two racing requests exactly one holds it, and the other gets 409 having done nothing. While
 * held, every other change of the post is refused. Returns the post as held.
 */
export const holdPost = async (
  deps: HoldDeps,
  post: PostRecord,
  action: PostHold['action'],
): Promise<PostRecord> => {
  const now = deps.clock.now();
  assertNotHeld(post, now);
  const held: PostRecord = {
    ...post,
    hold: { action, until: new Date(now.getTime() + POST_HOLD_SECONDS * 1000).toISOString() },
    version: post.version + 1,
  };
  await deps.posts.replace(post, held);
  return held;
};

/** The final write of a held post: `next`, no longer held, conditional on nobody having written since the hold. */
export const writeAndRelease = async (
  deps: HoldDeps,
  held: PostRecord,
  next: PostRecord,
): Promise<PostRecord> => {
  const final: PostRecord = {
    ...unheld(next),
    version: held.version + 1,
    updatedAt: deps.clock.now().toISOString(),
  };
  await deps.posts.replace(held, final);
  return final;
};

/** Frees a held post unchanged (its `updatedAt` too); should that fail, the hold runs out by itself. */
export const release = async (deps: HoldDeps, held: PostRecord): Promise<void> => {
  try {
    await deps.posts.replace(held, { ...unheld(held), version: held.version + 1 });
  } catch (error) {
    logger.warn('Could not release a post; its hold runs out by itself', {
      postId: held.postId,
      error: error as Error,
    });
  }
};
