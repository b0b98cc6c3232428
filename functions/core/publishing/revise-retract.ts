import { ApiError } from '../../domain/errors.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { PostChannel, PostRecord } from '../../domain/post.ts';
import { type TimelineEvent, withEvents } from '../../domain/timeline.ts';
import type { ChannelStore } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import { type NetworkCredentials, NetworkError, type RemoteBlock } from '../../ports/network-client.ts';
import type { PostStore } from '../../ports/posts.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { isTokenExpired } from '../channels/token-service.ts';
import { findPost } from '../posts/post-context.ts';
import { holdPost, release, writeAndRelease } from '../posts/post-hold.ts';
import type { ReviseBody } from '../posts/schema.ts';
import { checkContentLength } from '../posts/validate.ts';
import type { PublishingDeps } from './deps.ts';
import { finalStatus } from './post-mutation.ts';

/** A stored block as the network clients address it (its remote id, link and network metadata). */
export const liveBlock = (block: PostChannel['blocks'][number]): RemoteBlock => ({
  remoteId: block.remoteId as string,
  remoteUrl: block.remoteUrl ?? '',
  meta: block.remoteMeta ?? {},
});

export type ManageDeps = Pick<PublishingDeps, 'networks' | 'tokens'> & {
  posts: PostStore;
  channels: ChannelStore;
  clock: Clock;
  tokenCipher: () => TokenCipher;
};

interface ChannelResult {
  channelId: string;
  platform: string;
  reason: string | null;
}

const isLive = (post: PostRecord) => post.status === 'published' || post.status === 'partially_published';

/** Why `credentialsFor` cannot act: the channel left the workspace. */
export const CHANNEL_GONE = 'The channel is no longer connected to this workspace.';

/**
 * The channel's credentials (refreshed by the token service when they expire) and a way to call
 * the network with them, or why it cannot act now. A call answered "token expired" is refreshed
 * and made once more.
 */
export const credentialsFor = async (
  deps: Pick<ManageDeps, 'channels' | 'tokens'>,
  post: PostRecord,
  channel: PostChannel,
) => {
  const record = await deps.channels.getChannel(post.workspaceId, channel.channelId);
  if (!record) return CHANNEL_GONE;
  if (record.connection === 'needs_reconnect') return 'The channel must be reconnected first.';
  if (post.mode === 'test') {
    const sandbox = { accessToken: 'sandbox', remoteAccountId: record.remoteAccountId };
    return <T>(call: (credentials: NetworkCredentials) => Promise<T>) => call(sandbox);
  }
  const tokens = deps.tokens();
  let credentials: NetworkCredentials;
  try {
    credentials = await tokens.credentials(record, { postId: post.postId });
  } catch (error) {
    return reasonOf(error);
  }
  return async <T>(call: (credentials: NetworkCredentials) => Promise<T>): Promise<T> => {
    try {
      return await call(credentials);
    } catch (error) {
      if (!isTokenExpired(error)) throw error;
      credentials = await tokens.afterExpired(record, credentials, { postId: post.postId });
      return call(credentials);
    }
  };
};

const reasonOf = (error: unknown) =>
  error instanceof NetworkError ? error.message : 'The network did not answer.';

/**
 * POST /posts/{id}/revise (spec 4.1 rules for revise): only the text of live posts changes; every
 * channel and block is sent in order; unchanged blocks are not sent to the network. When there is
 * something to send, the post is held first (a write conditional on the version read): a revise
 * that loses a race gets 409 having sent nothing, so what is stored is what the networks show.
 */
export const revisePost = async (deps: ManageDeps, auth: AuthContext, postId: string, body: ReviseBody) => {
  const post = await findPost(deps, auth, postId);
  if (!isLive(post)) {
    throw new ApiError(
      'conflict',
      `Only live (published or partially published) posts can be revised; this post is ${post.status}${post.status === 'draft' || post.status === 'scheduled' ? ': use PUT /posts/{id}' : ''}.`,
    );
  }
  if (body.channels.length !== post.channels.length) {
    throw new ApiError(
      'revise_mismatch',
      `Send all ${post.channels.length} channels of the post, in order.`,
      'channels',
    );
  }
  post.channels.forEach((channel, i) => {
    const sent = body.channels[i] as ReviseBody['channels'][number];
    if (sent.channelId !== channel.channelId) {
      throw new ApiError(
        'revise_mismatch',
        `Channel ${i + 1} of the post is ${channel.channelId}.`,
        `channels[${i}].channelId`,
      );
    }
    if (sent.blocks.length !== channel.blocks.length) {
      throw new ApiError(
        'revise_mismatch',
        `This channel has ${channel.blocks.length} blocks.`,
        `channels[${i}].blocks`,
      );
    }
    const platform = getPlatform(channel.platform);
    sent.blocks.forEach((block, j) => {
      const field = `channels[${i}].blocks[${j}].content`;
      if (platform) checkContentLength(block.content, platform, field, j);
      if (block.content.trim() === '' && (channel.blocks[j]?.mediaIds.length ?? 0) === 0) {
        throw new ApiError('block_empty', 'A block without media needs text.', field);
      }
    });
  });

  // What each channel needs, decided on the post as read; a reason when it needs nothing of the network.
  const plans = post.channels.map((channel, i) => {
    const sent = body.channels[i] as ReviseBody['channels'][number];
    const platform = getPlatform(channel.platform);
    const changed = sent.blocks.flatMap((block, j) =>
      block.content !== channel.blocks[j]?.content ? [j] : [],
    );
    if (changed.length === 0) return { channel, reason: 'Nothing to change.' };
    if (!platform?.limits.remoteEdit?.includes('text'))
      return {
        channel,
        reason: `${platform?.name ?? channel.platform} does not allow edits after publication.`,
      };
    const notLive = changed.find((j) => !channel.blocks[j]?.remoteId);
    if (notLive !== undefined) return { channel, reason: `Block ${notLive + 1} is not live on the network.` };
    return { channel, changed, contents: sent.blocks.map((block) => block.content) };
  });
  const revised: (ChannelResult & { blocks: number[] })[] = [];
  const unchanged: ChannelResult[] = [];
  const keep = (channel: PostChannel, reason: string) =>
    unchanged.push({ channelId: channel.channelId, platform: channel.platform, reason });
  if (plans.every((plan) => plan.reason !== undefined)) {
    for (const plan of plans) keep(plan.channel, plan.reason as string);
    return { revised, unchanged };
  }

  const held = await holdPost(deps, post, 'revise');
  const edits = new Map<string, Map<number, string>>();
  try {
    for (const plan of plans) {
      const { channel } = plan;
      if (plan.reason !== undefined) {
        keep(channel, plan.reason);
        continue;
      }
      const withCredentials = await credentialsFor(deps, post, channel);
      if (typeof withCredentials === 'string') {
        keep(channel, withCredentials);
        continue;
      }
      const client = deps.networks(channel.platform, post.mode);
      const done = new Map<number, string>();
      let failure: string | null = null;
      for (const j of plan.changed) {
        const block = channel.blocks[j] as PostChannel['blocks'][number];
        const content = plan.contents[j] as string;
        try {
          await withCredentials((credentials) =>
            client.edit({
              credentials,
              block: liveBlock(block),
              content,
            }),
          );
          done.set(j, content);
        } catch (error) {
          failure = `The edit of block ${j + 1} did not go through: ${reasonOf(error)}`;
          break;
        }
      }
      if (done.size > 0) edits.set(channel.channelId, done);
      if (failure)
        keep(
          channel,
          done.size > 0
            ? `${failure} (blocks ${[...done.keys()].map((j) => j + 1).join(', ')} were revised)`
            : failure,
        );
      else
        revised.push({
          channelId: channel.channelId,
          platform: channel.platform,
          reason: null,
          blocks: plan.changed,
        });
    }
  } finally {
    // Also when an edit threw: the edits that went through are recorded all the same.
    if (edits.size === 0) await release(deps, held);
    else await writeAndRelease(deps, held, withEdits(held, edits, deps.clock.now()));
  }
  return { revised, unchanged };
};

/** The post with the texts the networks accepted. */
const withEdits = (post: PostRecord, edits: Map<string, Map<number, string>>, now: Date): PostRecord =>
  withEvents(
    {
      ...post,
      channels: post.channels.map((channel) => {
        const done = edits.get(channel.channelId);
        return done
          ? {
              ...channel,
              blocks: channel.blocks.map((block, j) =>
                done.has(j) ? { ...block, content: done.get(j) as string } : block,
              ),
            }
          : channel;
      }),
    },
    [...edits].map(
      ([channelId, done]): TimelineEvent => ({
        at: now.toISOString(),
        channelId,
        block: null,
        kind: 'revised',
        detail: `The network accepted the new text of block${done.size > 1 ? 's' : ''} ${[...done.keys()].map((j) => j + 1).join(', ')}.`,
      }),
    ),
  );

/**
 * POST /posts/{id}/retract: per channel, networks with remote delete lose every block and the
 * channel leaves the post; the others remain with a reason. A post with nothing left is removed.
 * The post is held first (a write conditional on the version read), so nothing can start
 * publishing it while its blocks are deleted, and the final write cannot drop a channel that
 * changed since it was read; a retract that loses a race gets 409 having deleted nothing.
 */
export const retractPost = async (deps: ManageDeps, auth: AuthContext, postId: string) => {
  const post = await findPost(deps, auth, postId);
  if (!isLive(post) && post.status !== 'failed') {
    throw new ApiError(
      'conflict',
      `Only published, partially published or failed posts can be retracted; this post is ${post.status}${post.status === 'publishing' ? '' : ': use DELETE /posts/{id}'}.`,
    );
  }
  const held = await holdPost(deps, post, 'retract');
  const removed: ChannelResult[] = [];
  const remaining: ChannelResult[] = [];
  const leftBlocks = new Map<string, Set<number>>();
  try {
    for (const channel of held.channels) {
      const platform = getPlatform(channel.platform);
      const live = channel.blocks.flatMap((block, j) => (block.remoteId ? [j] : []));
      const result = { channelId: channel.channelId, platform: channel.platform };
      if (live.length === 0) {
        removed.push({ ...result, reason: null });
        continue;
      }
      if (!platform?.limits.supportsRemoteDelete) {
        remaining.push({
          ...result,
          reason: `${platform?.name ?? channel.platform} does not allow removing a post after publication.`,
        });
        continue;
      }
      const withCredentials = await credentialsFor(deps, held, channel);
      if (typeof withCredentials === 'string') {
        remaining.push({ ...result, reason: withCredentials });
        continue;
      }
      const client = deps.networks(channel.platform, held.mode);
      const deleted = new Set<number>();
      leftBlocks.set(channel.channelId, deleted);
      let failure: string | null = null;
      // Replies and comments first, the first block last.
      for (const j of [...live].reverse()) {
        const block = channel.blocks[j] as PostChannel['blocks'][number];
        try {
          await withCredentials((credentials) =>
            client.delete({
              credentials,
              block: liveBlock(block),
            }),
          );
          deleted.add(j);
        } catch (error) {
          failure = `The network did not remove block ${j + 1}: ${reasonOf(error)}`;
          break;
        }
      }
      if (failure) remaining.push({ ...result, reason: failure });
      else removed.push({ ...result, reason: null });
    }
  } finally {
    // Also when something threw midway: what was deleted from the networks is recorded.
    const next = afterRetract(held, new Set(removed.map((r) => r.channelId)), leftBlocks, deps.clock.now());
    if (next.channels.length === 0) await deps.posts.delete(held);
    else await writeAndRelease(deps, held, next);
  }
  return { removed, remaining };
};

/** The post without the channels retracted, and without the blocks deleted from those that remain. */
const afterRetract = (
  read: PostRecord,
  gone: Set<string>,
  deletedBlocks: Map<string, Set<number>>,
  now: Date,
): PostRecord => {
  const events = [...deletedBlocks]
    .filter(([, deleted]) => deleted.size > 0)
    .map(
      ([channelId, deleted]): TimelineEvent => ({
        at: now.toISOString(),
        channelId,
        block: null,
        kind: 'retracted',
        detail: gone.has(channelId)
          ? 'Removed from the network; the channel left the post.'
          : `Block${deleted.size > 1 ? 's' : ''} ${[...deleted]
              .map((j) => j + 1)
              .sort((a, b) => a - b)
              .join(', ')} removed from the network.`,
      }),
    );
  const post = withEvents(read, events);
  const channels = post.channels
    .filter((channel) => !gone.has(channel.channelId))
    .map((channel) => {
      const deleted = deletedBlocks.get(channel.channelId);
      return deleted?.size
        ? {
            ...channel,
            blocks: channel.blocks.map((block, j) =>
              deleted.has(j) ? { ...block, remoteId: null, remoteUrl: null, remoteMeta: {} } : block,
            ),
          }
        : channel;
    });
  if (channels.length === 0) return { ...post, channels };
  const status = finalStatus(channels);
  return { ...post, channels, status, publishedAt: status === 'published' ? post.publishedAt : null };
};
