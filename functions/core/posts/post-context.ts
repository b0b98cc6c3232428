import { ApiError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import type { PostRecord } from '../../domain/post.ts';
import type { Account } from '../../ports/accounts.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MediaStore } from '../../ports/media.ts';
import type { PostReferenceStore } from '../../ports/post-references.ts';
import type { BlockActivity, PostStore } from '../../ports/posts.ts';
import type { JobQueue } from '../../ports/publishing.ts';
import type { KeyWindowRead } from '../../ports/rate-limiter.ts';
import type { Scheduler } from '../../ports/scheduler.ts';
import type { TagStore } from '../../ports/tags.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import type { PostBody } from './schema.ts';
import type { ValidationContext } from './validate.ts';

/** What the post use cases need. */
export interface PostDeps {
  posts: PostStore;
  postReferences: PostReferenceStore;
  tags: TagStore;
  media: MediaStore;
  scheduler: () => Scheduler;
  queue: () => JobQueue;
  clock: Clock;
  settings: { scheduleLeadSeconds: number };
}

/**
 * Media ids a body refers to: in blocks, and as option values (media options send an id). Only
 * well-formed ids are looked up (each becomes a key); any other is simply not found.
 */
const referencedMediaIds = (body: PostBody): string[] => {
  const ids = new Set<string>();
  for (const channel of body.channels) {
    for (const block of channel.blocks)
      for (const id of block.mediaIds ?? []) if (isId('med', id)) ids.add(id);
    for (const value of Object.values(channel.options ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) if (isId('med', item)) ids.add(item);
    }
  }
  return [...ids];
};

/**
 * Loads, in parallel, what the validator checks a body against: the channels and tags the body
 * names and the account (one BatchGetItem; the account only when `accountId` is given), and the
 * media it refers to. The tags' names are what the answer shows, so they are not read again.
 * With `keyHash`, the API key's item comes in the same BatchGetItem (`key`; see KeyCount).
 */
export const loadValidationContext = async (
  deps: PostDeps,
  accountId: string | null,
  workspaceId: string,
  body: PostBody,
  keyHash: string | null = null,
): Promise<
  ValidationContext & { tagNames: Map<string, string>; account: Account | null; key?: KeyWindowRead | null }
> => {
  const [references, media] = await Promise.all([
    deps.postReferences.getPostReferences(
      accountId,
      workspaceId,
      body.channels.map((channel) => channel.channelId),
      body.tagIds ?? [],
      keyHash,
    ),
    deps.media.getMany(workspaceId, referencedMediaIds(body)),
  ]);
  return {
    channels: new Map(references.channels.map((c) => [c.channelId, c])),
    media,
    tagIds: new Set(references.tags.map((t) => t.tagId)),
    tagNames: new Map(references.tags.map((t) => [t.tagId, t.name])),
    now: deps.clock.now(),
    account: references.account,
    ...(references.key !== undefined ? { key: references.key } : {}),
  };
};

/**
 * The post if it exists in the caller's workspace and mode: another workspace's post, and a post
 * of the other mode (a sandbox post for a live key, a live post for a test key), is as absent as
 * a missing one. Every request that reads or changes one post finds it here.
 */
const POST_ID = /^post_[0-9A-Za-z]{22}$/;
const visible = (post: PostRecord | null, auth: AuthContext, postId: string): PostRecord => {
  if (!post || post.workspaceId !== auth.workspaceId || post.mode !== auth.mode) {
    throw new ApiError('not_found', `No post ${postId} exists in this workspace.`);
  }
  return post;
};

export const findPost = async (
  deps: Pick<PostDeps, 'posts'>,
  auth: AuthContext,
  postId: string,
): Promise<PostRecord> => visible(POST_ID.test(postId) ? await deps.posts.get(postId) : null, auth, postId);

/** `findPost`, with what the engine is doing with the post's blocks (same request). */
export const findPostWithActivity = async (
  deps: Pick<PostDeps, 'posts'>,
  auth: AuthContext,
  postId: string,
): Promise<{ post: PostRecord; activity: BlockActivity[] }> => {
  const found = POST_ID.test(postId)
    ? await deps.posts.getWithActivity(postId)
    : { post: null, activity: [] };
  return { post: visible(found.post, auth, postId), activity: found.activity };
};

/** Tag names of the workspace, for the `tags` field of the post view. */
export const tagNames = async (deps: Pick<PostDeps, 'tags'>, workspaceId: string) =>
  new Map((await deps.tags.listTags(workspaceId)).map((t) => [t.tagId, t.name]));

/** The first day of the UTC month `date` is in, and of the next: the usage period (`YYYY-MM`). */
export const usagePeriod = (date: Date) => {
  const start = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
  const end = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  return { id: start.toISOString().slice(0, 7), start, end };
};
