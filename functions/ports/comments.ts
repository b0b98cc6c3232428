import type { PlatformId } from '../domain/platforms/types.ts';
import type { KeyMode } from './api-keys.ts';
import type { RemoteComment } from './network-client.ts';
import type { OutboxEvent, OutboxGate } from './publishing.ts';

/**
 * Where a reply Herald sends stands. `sending`: an attempt holds the reply's lease and may be on the
 * wire; `unknown`: an attempt's answer was lost (the network may have stored it: it is looked up
 * before any resend); `sent`: the network stored it (`reply` says as what); `failed`: the network
 * refused it (nothing stored; the same request may try again); `deleted`: removed from the network.
 */
export type ReplyState = 'sending' | 'unknown' | 'sent' | 'failed' | 'deleted';

/** A reply to a comment, sent (or being sent) by Herald on one channel of a post. */
export interface ReplyRecord {
  replyId: string;
  postId: string;
  workspaceId: string;
  mode: KeyMode;
  channelId: string;
  platform: PlatformId;
  /** The comment answered, as the network showed it when the reply was asked for. */
  comment: RemoteComment;
  content: string;
  mediaIds: string[];
  state: ReplyState;
  /** Attempts started; each one's claim is conditional on the previous count. */
  attempt: number;
  /** When the first attempt went out: a lookup searches from there. */
  firstSentAt: string | null;
  /** When the latest attempt went out: a resend waits the network's window and the in-flight grace from there. */
  lastSentAt?: string | null;
  /** While `sending`: after this time the attempt's holder is presumed dead. */
  leaseUntil: string | null;
  /** The reply as the network stored it (state `sent` and `deleted`). */
  reply: RemoteComment | null;
  /** Why the network refused it (state `failed`). */
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The replies Herald sent under a post, and the comments it already told webhooks about. */
export interface ReplyStore {
  getReply(postId: string, replyId: string): Promise<ReplyRecord | null>;
  listReplies(postId: string): Promise<ReplyRecord[]>;
  /** Writes `record` if none with its id exists yet; false when one does (nothing written). */
  createReply(record: ReplyRecord): Promise<boolean>;
  /**
   * Writes `next` over the stored record if that one still has `expected.attempt` and
   * `expected.state`; false when another request changed it first (nothing written).
   */
  updateReply(next: ReplyRecord, expected: Pick<ReplyRecord, 'attempt' | 'state'>): Promise<boolean>;
  /**
   * Marks a comment of the post as announced and writes its `comment.received` event in the same
   * transaction; false when it was announced before (nothing written). `kept`: whether the event
   * was kept for delivery (the outbox's rule: live posts, workspaces that may have an endpoint).
   */
  announceComment(
    postId: string,
    channelId: string,
    commentRemoteId: string,
    event: OutboxEvent,
    gate?: OutboxGate,
  ): Promise<{ announced: boolean; kept: boolean }>;
}
