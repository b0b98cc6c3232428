import { commentIdOf } from '../../domain/comments.ts';
import { ApiError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { ReplyRecord } from '../../ports/comments.ts';
import { NetworkError } from '../../ports/network-client.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { findPost } from '../posts/post-context.ts';
import { credentialsFor } from '../publishing/revise-retract.ts';
import { type CommentsDeps, liveBlocksOf } from './list-comments.ts';
import { replyFailure, replyView } from './reply.ts';
import type { ReplyView } from './schema.ts';

/**
 * DELETE /posts/{id}/comments/{commentId}/replies/{replyId}: removes a reply Herald sent from the
 * network. Deleting it again answers the same (it is gone either way); a reply whose send was never
 * confirmed cannot be deleted yet (409: send the reply request again first).
 */
export const deleteReply = async (
  deps: CommentsDeps,
  auth: AuthContext,
  postId: string,
  commentId: string,
  replyId: string,
): Promise<ReplyView> => {
  const post = await findPost(deps, auth, postId);
  const record = isId('rpl', replyId) ? await deps.replies.getReply(post.postId, replyId) : null;
  if (!record || commentIdOf(record.comment.remoteId) !== commentId || record.state === 'failed') {
    throw new ApiError('not_found', `No reply ${replyId} to comment ${commentId} under this post.`);
  }
  if (record.state === 'deleted') return replyView(record);
  if (record.state !== 'sent' || !record.reply) {
    throw new ApiError(
      'conflict',
      'The network has not confirmed this reply yet; send the reply request again (same Idempotency-Key) to settle it first.',
    );
  }
  const channel = post.channels.find((c) => c.channelId === record.channelId);
  const blocks = channel ? liveBlocksOf(channel) : null;
  if (!channel || !blocks) throw new ApiError('conflict', 'The post is no longer live on this channel.');
  const client = deps.networks(channel.platform, post.mode);
  const remove = client.deleteReply?.bind(client);
  if (!remove) {
    throw new ApiError(
      'conflict',
      `${getPlatform(channel.platform)?.name ?? channel.platform} does not let apps delete comments.`,
    );
  }
  const call = await credentialsFor(deps, post, channel);
  if (typeof call === 'string') throw new ApiError('channel_disconnected', call, 'channelId');
  const reply = record.reply;
  try {
    await call((credentials) => remove({ credentials, block: blocks[0] as (typeof blocks)[number], reply }));
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    throw replyFailure(error, {
      refused: 'The network refused to delete the reply',
      later: (wait) =>
        `The network did not delete the reply now (${error.message}); retry after ${wait} seconds.`,
    });
  }
  const deleted: ReplyRecord = { ...record, state: 'deleted', updatedAt: deps.clock.now().toISOString() };
  await deps.replies.updateReply(deleted, record);
  return replyView(deleted);
};
