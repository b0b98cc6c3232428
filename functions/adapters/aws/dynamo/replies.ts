import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { PLATFORM_IDS } from '../../../domain/platforms/types.ts';
import type { ReplyRecord, ReplyStore } from '../../../ports/comments.ts';
import type { OutboxEvent, OutboxGate } from '../../../ports/publishing.ts';
import { isConditionFailure, queryByPrefix, type TableRef, transactionCancellation } from './client.ts';
import { commitWithOutbox } from './events.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

/** How long a comment stays marked as announced: past the metrics cadence's last reading (30 days). */
const ANNOUNCED_TTL_SECONDS = 40 * 24 * 60 * 60;

const remoteComment = z.looseObject({
  remoteId: z.string(),
  parentRemoteId: z.string(),
  author: z.object({ name: z.string().nullable(), handle: z.string().nullable() }),
  text: z.string(),
  createdAt: z.string(),
  likeCount: z.number().nullable(),
  url: z.string().nullable(),
  meta: z.record(z.string(), z.string()),
});

const replySchema: z.ZodType<ReplyRecord> = z.looseObject({
  replyId: z.string(),
  postId: z.string(),
  workspaceId: z.string(),
  mode: z.enum(['live', 'test']),
  channelId: z.string(),
  platform: z.enum(PLATFORM_IDS),
  comment: remoteComment,
  content: z.string(),
  mediaIds: z.array(z.string()),
  state: z.enum(['sending', 'unknown', 'sent', 'failed', 'deleted']),
  attempt: z.number().int(),
  firstSentAt: z.string().nullable(),
  lastSentAt: z.string().nullable().optional(),
  leaseUntil: z.string().nullable(),
  reply: remoteComment.nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}) as z.ZodType<ReplyRecord>;

export const replyToItem = (record: ReplyRecord) => ({
  ...keys.reply(record.postId, record.replyId),
  type: 'Reply',
  ...record,
});

export const replyFromItem = (item: Record<string, unknown>): ReplyRecord =>
  parseItem('Reply', replySchema, item);

const digest = (remoteId: string) => createHash('sha256').update(remoteId).digest('base64url').slice(0, 32);

/** The replies Herald sent, one item each beside the post; writes are conditional on the attempt read. */
export const dynamoReplyStore = (table: TableRef): ReplyStore => ({
  async getReply(postId, replyId) {
    const out = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: keys.reply(postId, replyId) }),
    );
    return out.Item ? replyFromItem(out.Item) : null;
  },

  async listReplies(postId) {
    const { PK, SKPrefix } = keys.replyPrefix(postId);
    return (await queryByPrefix(table, PK, SKPrefix)).map(replyFromItem);
  },

  async createReply(record) {
    try {
      await table.doc.send(
        new PutCommand({
          TableName: table.tableName,
          Item: replyToItem(record),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },

  async updateReply(next, expected) {
    try {
      await table.doc.send(
        new PutCommand({
          TableName: table.tableName,
          Item: replyToItem(next),
          ConditionExpression: '#attempt = :attempt AND #state = :state',
          ExpressionAttributeNames: { '#attempt': 'attempt', '#state': 'state' },
          ExpressionAttributeValues: { ':attempt': expected.attempt, ':state': expected.state },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },

  async announceComment(
    postId: string,
    channelId: string,
    commentRemoteId: string,
    event: OutboxEvent,
    gate?: OutboxGate,
  ) {
    const expiresAt = Math.floor(Date.parse(event.createdAt) / 1000) + ANNOUNCED_TTL_SECONDS;
    return commitWithOutbox(table.tableName, [event], gate, 1, async (outbox) => {
      try {
        await table.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: table.tableName,
                  Item: {
                    ...keys.commentAnnounced(postId, channelId, digest(commentRemoteId)),
                    type: 'CommentAnnounced',
                    ...(outbox.kept.length > 0 ? { eventId: event.id } : {}),
                    expiresAt,
                  },
                  ConditionExpression: 'attribute_not_exists(PK)',
                },
              },
              ...outbox.items,
            ],
          }),
        );
        return { announced: true, kept: outbox.kept.length > 0 };
      } catch (error) {
        if (transactionCancellation(error)?.reasons?.[0] === 'ConditionalCheckFailed')
          return { announced: false, kept: false };
        throw error;
      }
    });
  },
});
