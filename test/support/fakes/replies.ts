import type { ReplyRecord, ReplyStore } from '../../../functions/ports/comments.ts';
import type { OutboxEvent } from '../../../functions/ports/publishing.ts';

/** Replies and announced comments in memory, with the table's conditions. */
export class FakeReplyStore implements ReplyStore {
  readonly records = new Map<string, ReplyRecord>();
  readonly announced = new Map<string, OutboxEvent>();

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

  async announceComment(postId: string, channelId: string, commentRemoteId: string, event: OutboxEvent) {
    const key = `${postId}#${channelId}#${commentRemoteId}`;
    if (this.announced.has(key)) return { announced: false, kept: false };
    this.announced.set(key, structuredClone(event));
    return { announced: true, kept: event.mode === 'live' };
  }
}
