import { ApiError } from '../../domain/errors.ts';
import { derivedId, newId, randomBase62 } from '../../domain/ids.ts';
import { planLimits } from '../../domain/plans.ts';
import type { ChannelStatus, PostRecord, PostStatus } from '../../domain/post.ts';
import { type PublishJob, runJob } from '../../ports/publishing.ts';
import type { KeyCount } from '../../ports/rate-limiter.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import {
  findPost,
  loadValidationContext,
  type PostDeps,
  tagNames as readTagNames,
  usagePeriod,
} from './post-context.ts';
import { assertNotHeld, unheld } from './post-hold.ts';
import type { PostBody } from './schema.ts';
import { type ValidatedPost, validatePost } from './validate.ts';

const STATUS_OF_INTENT = {
  draft: 'draft',
  schedule: 'scheduled',
  now: 'publishing',
} as const satisfies Record<ValidatedPost['intent'], PostStatus & ChannelStatus>;

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

/** The message a firing puts on the publish queue; the worker ignores one for another time than the post's. */
const firing = (postId: string, scheduledAt: string): PublishJob => ({
  postId,
  kind: 'scheduled',
  scheduledAt,
});

/** A schedule written for one save of a post, before the save. */
interface Armed {
  name: string;
  scheduledAt: string;
  /** Too close for the scheduler: the queue takes the firing after the save. */
  direct: boolean;
}

/**
 * The schedule a stored post relies on. Posts saved before schedules had names of their own
 * (no `scheduleName` field) have one named after the post.
 */
export const scheduleOf = (post: PostRecord): string | null =>
  post.scheduleName !== undefined ? post.scheduleName : post.scheduledAt !== null ? post.postId : null;

/**
 * Writes the schedule of a save, before the save. Each save has a schedule of its own (the post id
 * plus a random suffix) that the post names once the save wins, so:
 * - a save that loses the race (409) or fails removes only its own schedule, never the one the
 *   stored post relies on;
 * - a crash after this write and before the save leaves a schedule whose firing the worker checks
 *   against the stored post (status and scheduledAt) and ignores;
 * - a crash after the save leaves the previous schedule, ignored the same way.
 * The schedule fires `scheduleLeadSeconds` ahead (EventBridge fires within its own window) and the
 * worker closes the gap with a queue delay. A time too close for that goes on the queue after the
 * save; its schedule, at that time or a lead from now (whichever is later), is the safety net
 * should that message never be sent (the worker ignores whichever firing comes second).
 */
const armSchedule = async (deps: PostDeps, postId: string, at: string | null): Promise<Armed | null> => {
  if (at === null) return null;
  const now = deps.clock.now().getTime();
  const lead = deps.settings.scheduleLeadSeconds * 1000;
  const fireAt = Date.parse(at) - lead;
  const direct = fireAt - now < 2000;
  const name = `${postId}.${randomBase62(12)}`;
  const when = direct ? Math.max(Date.parse(at), now + lead, now + 2000) : fireAt;
  await deps.scheduler().scheduleOnce(name, new Date(when), { ...firing(postId, at) });
  return { name, scheduledAt: at, direct };
};

/** Removes a schedule nothing relies on; one left behind fires, is checked against the post, and is ignored. */
const dropSchedule = async (deps: Pick<PostDeps, 'scheduler'>, name: string | null) => {
  if (name === null) return;
  try {
    await deps.scheduler().cancel(name);
  } catch (error) {
    logger.warn('Could not remove a schedule; its firing will be ignored', { name, error: error as Error });
  }
};

/** Runs `save` (a conditional write) with the save's schedule written first and tidied after. */
const saveWithSchedule = async (
  deps: PostDeps,
  postId: string,
  previous: string | null,
  armed: Armed | null,
  save: () => Promise<void>,
): Promise<void> => {
  try {
    await save();
  } catch (error) {
    await dropSchedule(deps, armed?.name ?? null);
    throw error;
  }
  if (previous !== armed?.name) await dropSchedule(deps, previous);
  if (armed?.direct) {
    const delay = Math.max(
      0,
      Math.floor((Date.parse(armed.scheduledAt) - deps.clock.now().getTime()) / 1000) - 1,
    );
    try {
      await deps.queue().sendPublish(firing(postId, armed.scheduledAt), delay);
    } catch (error) {
      logger.warn('Could not queue a close firing; its schedule fires it', { postId, error: error as Error });
    }
  }
};

const KEY_LIFETIME_MS = 24 * 3600 * 1000;

/**
 * The answer to a create whose post already exists under the key's id: the post as stored, after
 * finishing what the first attempt may not have reached (its first publish job; the engine's
 * claims make a second job harmless).
 */
const resumeCreated = async (
  deps: PostDeps,
  auth: AuthContext,
  existing: PostRecord,
  tagNames: Map<string, string>,
): Promise<{ post: PostRecord; tagNames: Map<string, string> }> => {
  // Derived ids include the workspace and mode, so this only guards against a corrupt record.
  if (existing.workspaceId !== auth.workspaceId || existing.mode !== auth.mode)
    throw new ApiError('conflict');
  // Past the key's 24 hours the key stays bound to the post it made: it cannot make another.
  if (deps.clock.now().getTime() - Date.parse(existing.createdAt) > KEY_LIFETIME_MS) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key already created a post more than 24 hours ago; send a new key for a new post.',
      'Idempotency-Key',
    );
  }
  if (existing.status === 'publishing' && (existing.round ?? 1) === 1) {
    await deps.queue().sendPublish(runJob(existing));
  }
  // The names read are those of this request's tags; an earlier attempt's post may name others.
  const named = existing.tagIds.every((id) => tagNames.has(id));
  return { post: existing, tagNames: named ? tagNames : await readTagNames(deps, auth.workspaceId) };
};

type ValidationContextOf = ReturnType<typeof loadValidationContext>;

/** POST /posts: validates every channel, then saves the post and takes one from the monthly quota in one transaction. */
export const createPost = async (
  deps: PostDeps,
  auth: AuthContext,
  body: PostBody,
  options: {
    idempotencySeed?: string | undefined;
    /** `loadValidationContext` for the key's own account and workspace, already started. */
    context?: ValidationContextOf | undefined;
    /** The request's count in its key's window, for the save to make (see KeyCount). */
    keyCount?: KeyCount | undefined;
  } = {},
): Promise<{ post: PostRecord; tagNames: Map<string, string> }> => {
  const context =
    (await options.context) ?? (await loadValidationContext(deps, auth.accountId, auth.workspaceId, body));
  // With an Idempotency-Key the id comes from the key: a retry after a crash that left the key's
  // record unfinished (the in-progress window expired) finds the post instead of making a second.
  // The save's condition on the post's id is what detects it (no read on the common path).
  const postId = options.idempotencySeed ? derivedId('post', options.idempotencySeed) : newId('post');
  let valid: ReturnType<typeof validatePost>;
  try {
    valid = validatePost(body, context);
  } catch (error) {
    // Such a retry may no longer pass (its channel was marked needs_reconnect by the post's own
    // publishing, its time has passed): the post the earlier attempt made is the answer.
    const existing = options.idempotencySeed ? await deps.posts.get(postId) : null;
    if (existing) return resumeCreated(deps, auth, existing, context.tagNames);
    throw error;
  }
  const { account } = context;
  if (!account) throw new ApiError('unauthorized');
  const now = deps.clock.now();
  const status = STATUS_OF_INTENT[valid.intent];
  const armed = await armSchedule(deps, postId, valid.scheduledAt);
  const post: PostRecord = {
    postId,
    accountId: auth.accountId,
    workspaceId: auth.workspaceId,
    mode: auth.mode,
    status,
    scheduledAt: valid.scheduledAt,
    scheduleName: armed?.name ?? null,
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
  try {
    await saveWithSchedule(deps, postId, null, armed, () =>
      deps.posts.create(
        post,
        { accountId: auth.accountId, period: usagePeriod(now).id, limit, count: auth.mode === 'live' },
        options.keyCount,
      ),
    );
  } catch (error) {
    // An earlier attempt with the same key (crashed, or racing this one) saved the post first.
    const existing = options.idempotencySeed ? await deps.posts.get(postId) : null;
    if (existing) return resumeCreated(deps, auth, existing, context.tagNames);
    throw error;
  }
  if (status === 'publishing') await deps.queue().sendPublish(runJob(post));
  return { post, tagNames: context.tagNames };
};

/**
 * PUT /posts/{id}: replaces a draft or scheduled post whole; moves, creates or removes its
 * schedule. The write is conditional on the version read: a request that loses a race gets 409
 * and the stored post keeps its schedule.
 */
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
  assertNotHeld(previous, deps.clock.now());
  if (body.intent === 'now') {
    throw new ApiError(
      'validation_failed',
      'PUT keeps a post a draft or scheduled; use intent draft or schedule, then POST /posts/{id}/publish.',
      'intent',
    );
  }
  const context = await loadValidationContext(deps, null, auth.workspaceId, body);
  const valid = validatePost(body, context);
  const status = STATUS_OF_INTENT[valid.intent];
  const armed = await armSchedule(deps, postId, valid.scheduledAt);
  const next: PostRecord = {
    ...unheld(previous),
    status,
    scheduledAt: valid.scheduledAt,
    scheduleName: armed?.name ?? null,
    tagIds: valid.tagIds,
    channels: channelsOf(valid, status),
    updatedAt: deps.clock.now().toISOString(),
    version: previous.version + 1,
  };
  await saveWithSchedule(deps, postId, scheduleOf(previous), armed, () => deps.posts.replace(previous, next));
  return { post: next, tagNames: context.tagNames };
};

/**
 * DELETE /posts/{id}: removes the post from the service, by a delete conditional on the version
 * read. Refused (409) while the post is publishing, when blocks may reach a network at any moment
 * and would stay there with nothing tracking them, and while a revise or retract holds it. Its
 * schedule is removed after; should that fail, a late firing finds no post and does nothing. A
 * published post stays live on the network.
 */
export const deletePost = async (
  deps: Pick<PostDeps, 'posts' | 'scheduler' | 'clock'>,
  auth: AuthContext,
  postId: string,
): Promise<void> => {
  const post = await findPost(deps, auth, postId);
  if (post.status === 'publishing') {
    throw new ApiError(
      'conflict',
      'This post is publishing: its blocks are being sent to the networks. Delete it once it is published, partially published or failed (follow GET /posts/{id} or the webhooks).',
    );
  }
  assertNotHeld(post, deps.clock.now());
  await deps.posts.delete(post);
  await dropSchedule(deps, scheduleOf(post));
};
