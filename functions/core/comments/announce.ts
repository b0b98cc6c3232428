import { newId } from '../../domain/ids.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { PostChannel, PostRecord } from '../../domain/post.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ReplyStore } from '../../ports/comments.ts';
import type { NetworkClient, NetworkCredentials, RemoteBlock } from '../../ports/network-client.ts';
import type { JobQueue, OutboxEvent } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import { commentViews, liveBlocksOf } from './list-comments.ts';

export interface AnnounceDeps {
  clock: Clock;
  replies: ReplyStore;
  queue: () => JobQueue;
}

/** Comments read per channel and reading: the newest page; a busier post is announced over several readings. */
const ANNOUNCE_PAGE = 100;

/**
 * On a metrics reading of a live channel (the metrics cadence: no schedule of its own), reads the
 * first page of comments under the post and announces each one not announced before with a
 * `comment.received` event: the mark and the event are one transaction, so a comment is announced
 * once however often it is read. Replies Herald sent are not announced. Never throws: comments
 * are a bonus of the reading, which stands whatever happens here. Resolves with how many were
 * announced.
 */
export const announceNewComments = async (
  deps: AnnounceDeps,
  client: NetworkClient,
  post: PostRecord,
  channel: PostChannel,
  call: <T>(run: (credentials: NetworkCredentials) => Promise<T>) => Promise<T>,
): Promise<number> => {
  const read = client.comments?.bind(client);
  const blocks = liveBlocksOf(channel);
  // Sandbox events are never delivered (the outbox keeps none): nothing to announce.
  if (!read || !blocks || post.mode !== 'live' || !getPlatform(channel.platform)?.limits.commentsReadable)
    return 0;
  try {
    const [page, replies] = await Promise.all([
      call((credentials) =>
        read({
          credentials,
          block: blocks[0] as RemoteBlock,
          blocks,
          cursor: null,
          since: null,
          limit: ANNOUNCE_PAGE,
        }),
      ),
      deps.replies.listReplies(post.postId),
    ]);
    const fresh = commentViews(page.comments, blocks, replies, null).filter(
      (comment) => comment.replyId === null,
    );
    let announced = 0;
    for (const comment of fresh) {
      const event: OutboxEvent = {
        id: newId('evt'),
        type: 'comment.received',
        createdAt: deps.clock.now().toISOString(),
        accountId: post.accountId,
        workspaceId: post.workspaceId,
        mode: post.mode,
        data: {
          channelId: channel.channelId,
          platform: channel.platform,
          postId: post.postId,
          error: null,
          comment,
        },
      };
      const { announced: isNew, kept } = await deps.replies.announceComment(
        post.postId,
        channel.channelId,
        comment.remoteId,
        event,
      );
      if (!isNew) continue;
      announced++;
      if (kept) {
        // The outbox sweep hands it on if this send is lost.
        await deps
          .queue()
          .sendEvent(event.id)
          .catch((error: unknown) =>
            logger.warn('Could not queue an event; the outbox sweep will', { error: error as Error }),
          );
      }
    }
    return announced;
  } catch (error) {
    logger.warn('Comments could not be read for comment.received', {
      postId: post.postId,
      channelId: channel.channelId,
      error: error as Error,
    });
    return 0;
  }
};
