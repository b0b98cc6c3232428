import type { ReplyRecord, ReplyStore } from '../../../functions/ports/comments.ts';
import type { OutboxEvent, OutboxGate } from '../../../functions/ports/publishing.ts';

/** Replies and announced comments in memory, with the table's conditions. */
export class FakeReplyStore implements ReplyStore {
  readonly records = new Map<string, ReplyRecord>();
  /** Announced comments with their events, by post, channel and comment. */
  readonly announced = new Map<string, OutboxEvent>();
  /** Comments marked announced without an event (the workspace had no webhook endpoint). */
  readonly markedOnly = new Set<string>();
  /** Webhook endpoints per workspace, as the table's count has them now. */
  readonly endpoints = new Map<string, number>();

  async getReply(postId: string, replyId: string) {
    const found = this.records.get(`${postId}#${replyId}`);
    return found ? structuredClone(found) : null;
  }

  async listReplies(postId: string) {
    return [...this.records.values()].filter((r) => r.postId === postId).map((r) => structuredClone(r));
  }

  async createReply(record: ReplyRecord) {
    const key = `${record.postId}#${record.replyId}`;
    if (this.records.has(key)) return false;
    this.records.set(key, structuredClone(record));
    return true;
  }

  async updateReply(next: ReplyRecord, expected: Pick<ReplyRecord, 'attempt' | 'state'>) {
    const key = `${next.postId}#${next.replyId}`;
    const stored = this.records.get(key);
    if (!stored || stored.attempt !== expected.attempt || stored.state !== expected.state) return false;
    this.records.set(key, structuredClone(next));
    return true;
  }

  async announceComment(
    postId: string,
    channelId: string,
    commentRemoteId: string,
    event: OutboxEvent,
    gate?: OutboxGate,
  ) {
    const key = `${postId}#${channelId}#${commentRemoteId}`;
    if (this.announced.has(key) || this.markedOnly.has(key)) return { announced: false, kept: false };
    // The outbox's rule, checked against the endpoints the workspace has now (as the table's
    // condition on its count does): a gate that saw none, while there are still none, keeps no event.
    if (gate?.endpoints === 0 && (this.endpoints.get(gate.workspaceId) ?? 0) === 0) {
      this.markedOnly.add(key);
      return { announced: true, kept: false };
    }
    this.announced.set(key, structuredClone(event));
    return { announced: true, kept: event.mode === 'live' };
  }
}
