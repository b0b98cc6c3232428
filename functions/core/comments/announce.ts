import { newId } from '../../domain/ids.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import type { PostChannel, PostRecord } from '../../domain/post.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ReplyRecord, ReplyStore } from '../../ports/comments.ts';
import type {
  NetworkClient,
  NetworkCredentials,
  RemoteBlock,
  RemoteComment,
} from '../../ports/network-client.ts';
import type { JobQueue, OutboxEvent, OutboxGate } from '../../ports/publishing.ts';
import { logger } from '../../shared/powertools.ts';
import { commentViews, liveBlocksOf } from './list-comments.ts';

export interface AnnounceDeps {
  clock: Clock;
  replies: ReplyStore;
  queue: () => JobQueue;
}

/** Comments read per channel and reading: the newest page; a busier post is announced over several readings. */
const ANNOUNCE_PAGE = 100;

/** How long a reply whose answer is not in yet holds back the comments that arrived since it went out. */
const IN_FLIGHT_HOLD_SECONDS = 15 * 60;
/** Clock skew allowed between Herald and a network's comment times. */
const SKEW_SECONDS = 60;

const sameText = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();

/**
 * Whether `comment` may be one of Herald's own replies whose answer is not in yet (the reply is on
 * the network before its record says as what): one with the text of a reply being sent or lost on
 * this channel, or, for a while after such a reply went out, any comment made since. It is held
 * back from this reading, not marked: a later reading announces it once the reply has settled.
 */
const mayBeOwnReply = (comment: RemoteComment, inFlight: ReplyRecord[], now: number): boolean =>
  inFlight.some((reply) => {
    if (sameText(comment.text, reply.content)) return true;
    const sentAt = Date.parse(reply.firstSentAt ?? reply.createdAt);
    const lastSentAt = Date.parse(reply.lastSentAt ?? reply.firstSentAt ?? reply.createdAt);
    return (
      now - lastSentAt < IN_FLIGHT_HOLD_SECONDS * 1000 &&
      Date.parse(comment.createdAt) >= sentAt - SKEW_SECONDS * 1000
    );
  });

/**
 * On a metrics reading of a live channel (the metrics cadence: no schedule of its own), reads the
 * first page of comments under the post and announces each one not announced before with a
 * `comment.received` event: the mark and the event are one transaction, so a comment is announced
 * once however often it is read. With `gate` (the workspace's endpoints as the reading found them),
 * the event follows the outbox's rule: a workspace without a webhook endpoint gets the mark alone.
 * Replies Herald sent are not announced: the replies are listed after the comments are read (a
 * reply is claimed before it is sent, so every reply of Herald's on the page has its record by
 * then), and those still in flight hold back what may be them (`mayBeOwnReply`). Never throws:
 * comments are a bonus of the reading, which stands whatever happens here. Resolves with how many
 * were announced.
 */
export const announceNewComments = async (
  deps: AnnounceDeps,
  client: NetworkClient,
  post: PostRecord,
  channel: PostChannel,
  call: <T>(run: (credentials: NetworkCredentials) => Promise<T>) => Promise<T>,
  gate?: OutboxGate,
): Promise<number> => {
  const read = client.comments?.bind(client);
  const blocks = liveBlocksOf(channel);
  // Sandbox events are never delivered (the outbox keeps none): nothing to announce.
  if (!read || !blocks || post.mode !== 'live' || !getPlatform(channel.platform)?.limits.commentsReadable)
    return 0;
  try {
    const page = await call((credentials) =>
      read({
        credentials,
        block: blocks[0] as RemoteBlock,
        blocks,
        cursor: null,
        since: null,
        limit: ANNOUNCE_PAGE,
      }),
    );
    // Only now: a reply of Herald's that the page shows was claimed before it was sent.
    const replies = await deps.replies.listReplies(post.postId);
    const inFlight = replies.filter(
      (reply) =>
        reply.channelId === channel.channelId && (reply.state === 'sending' || reply.state === 'unknown'),
    );
    const now = deps.clock.now().getTime();
    const held = new Set(
      page.comments.filter((comment) => mayBeOwnReply(comment, inFlight, now)).map((c) => c.remoteId),
    );
    const fresh = commentViews(page.comments, blocks, replies, null).filter(
      (comment) => comment.replyId === null && !held.has(comment.remoteId),
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
        gate,
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
