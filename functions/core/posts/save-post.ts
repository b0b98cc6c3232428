import type { PublishJob } from '../../ports/publishing.ts';
import { ApiError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { planLimits } from '../usage/plans.ts';
import type { ChannelStatus, PostRecord, PostStatus } from './model.ts';
import { findPost, loadValidationContext, type PostDeps, usagePeriod } from './post-context.ts';
import type { PostBody } from './schema.ts';
import { type ValidatedPost, validatePost } from './validate.ts';

const STATUS_OF_INTENT = {
  draft: 'draft',
  schedule: 'scheduled',
  now: 'publishing',
} as const satisfies Record<ValidatedPost['intent'], PostStatus & ChannelStatus>;

/** EventBridge schedule name of a post (post ids fit its 64-character alphabet). */
export const scheduleName = (postId: string) => postId;

const channelsOf = (valid: ValidatedPost, status: ChannelStatus): PostRecord['channels'] =>
  valid.channels.map((channel) => ({
    channelId: channel.channelId,
    platform: channel.platform,
    status,
    error: null,
    remoteUrl: null,
    title: channel.title,
    postType: channel.postType,
    options: channel.options,
    blocks: channel.blocks.map((block) => ({ ...block, remoteId: null, remoteUrl: null })),
  }));

/** The message a firing puts on the publish queue; a firing for another time is ignored. */
const firing = (postId: string, scheduledAt: string): PublishJob => ({
  postId,
  kind: 'scheduled',
  scheduledAt,
});

/**
 * Saves the post with its schedule. The schedule fires `scheduleLeadSeconds` ahead (EventBridge
 * fires within its own window) and the worker closes the gap with a queue delay, so publication
 * starts within a second of `scheduledAt`. A schedule is written before the post: a schedule
 * without a post finds nothing to do, while a scheduled post without a schedule would never
 * publish. A time too close for a schedule goes straight on the queue, after the save.
 */
const withSchedule = async <T>(deps: PostDeps, postId: string, at: string | null, save: () => Promise<T>) => {
  if (at === null) return save();
  const now = deps.clock.now().getTime();
  const fireAt = Date.parse(at) - deps.settings.scheduleLeadSeconds * 1000;
  if (fireAt - now < 2000) {
    const result = await save();
    await deps.scheduler().cancel(scheduleName(postId));
    await deps
      .queue()
      .sendPublish(firing(postId, at), Math.max(0, Math.floor((Date.parse(at) - now) / 1000) - 1));
    return result;
  }
  await deps.scheduler().scheduleOnce(scheduleName(postId), new Date(fireAt), { ...firing(postId, at) });
  try {
    return await save();
  } catch (error) {
    await deps.scheduler().cancel(scheduleName(postId));
    throw error;
  }
};

/** POST /posts: validates every channel, then saves the post and takes one from the monthly quota in one transaction. */
export const createPost = async (
  deps: PostDeps,
  auth: AuthContext,
  body: PostBody,
): Promise<{ post: PostRecord; tagNames: Map<string, string> }> => {
  const [context, account] = await Promise.all([
    loadValidationContext(deps, auth.workspaceId, body),
    deps.accounts.getAccount(auth.accountId),
  ]);
  const valid = validatePost(body, context);
  if (!account) throw new ApiError('unauthorized');
  const now = deps.clock.now();
  const status = STATUS_OF_INTENT[valid.intent];
  const post: PostRecord = {
    postId: newId('post'),
    accountId: auth.accountId,
    workspaceId: auth.workspaceId,
    mode: auth.mode,
    status,
    scheduledAt: valid.scheduledAt,
    publishedAt: null,
    tagIds: valid.tagIds,
    channels: channelsOf(valid, status),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    version: 1,
    ...(status === 'publishing' ? { round: 1, roundStartedAt: now.toISOString() } : {}),
  };
  // Sandbox (test-key) posts are not counted against the plan.
  const limit = auth.mode === 'test' ? null : planLimits(account.plan).postsPerMonth;
  await withSchedule(deps, post.postId, post.scheduledAt, () =>
    deps.posts.create(post, {
      accountId: auth.accountId,
      period: usagePeriod(now).id,
      limit,
      count: auth.mode === 'live',
    }),
  );
  if (status === 'publishing') await deps.queue().sendPublish({ postId: post.postId, kind: 'run', round: 1 });
  return { post, tagNames: context.tagNames };
};

/** PUT /posts/{id}: replaces a draft or scheduled post whole; moves, creates or removes its schedule. */
export const replacePost = async (
  deps: PostDeps,
  auth: AuthContext,
  postId: string,
  body: PostBody,
): Promise<{ post: PostRecord; tagNames: Map<string, string> }> => {
  const previous = await findPost(deps, auth, postId);
  if (previous.status !== 'draft' && previous.status !== 'scheduled') {
    throw new ApiError(
      'conflict',
      `Only draft or scheduled posts can be replaced; this post is ${previous.status}.`,
    );
  }
  if (body.intent === 'now') {
    throw new ApiError(
      'validation_failed',
      'PUT keeps a post a draft or scheduled; use intent draft or schedule, then POST /posts/{id}/publish.',
      'intent',
    );
  }
  const context = await loadValidationContext(deps, auth.workspaceId, body);
  const valid = validatePost(body, context);
  const status = STATUS_OF_INTENT[valid.intent];
  const next: PostRecord = {
    ...previous,
    status,
    scheduledAt: valid.scheduledAt,
    tagIds: valid.tagIds,
    channels: channelsOf(valid, status),
    updatedAt: deps.clock.now().toISOString(),
    version: previous.version + 1,
  };
  const name = scheduleName(postId);
  try {
    await withSchedule(deps, postId, next.scheduledAt, () => deps.posts.replace(previous, next));
  } catch (error) {
    // Put the schedule back in line with what is stored.
    if (previous.scheduledAt)
      await deps.scheduler().scheduleOnce(name, new Date(previous.scheduledAt), { postId });
    throw error;
  }
  if (next.scheduledAt === null && previous.scheduledAt !== null) await deps.scheduler().cancel(name);
  return { post: next, tagNames: context.tagNames };
};

/**
 * DELETE /posts/{id}: removes the post from the service. Its schedule is removed after; should that
 * fail, a late firing finds no post and does nothing. A published post stays live on the network.
 */
export const deletePost = async (deps: PostDeps, auth: AuthContext, postId: string): Promise<void> => {
  const post = await findPost(deps, auth, postId);
  await deps.posts.delete(post);
  if (post.scheduledAt !== null) await deps.scheduler().cancel(scheduleName(postId));
};
