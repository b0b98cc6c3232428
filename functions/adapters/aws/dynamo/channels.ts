import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ChannelRecord } from '../../../ports/accounts.ts';
import { ApiError } from '../../../shared/errors.ts';
import {
  isConditionFailure,
  queryByPrefix,
  retryOnTransactionConflict,
  type TableRef,
  transactionCancellation,
} from './client.ts';
import { keys } from './keys.ts';

export const channelToItem = (c: ChannelRecord) => ({
  ...keys.channel(c.workspaceId, c.channelId),
  type: 'Channel',
  ...c,
});
export const channelFromItem = (item: Record<string, unknown>): ChannelRecord => ({
  channelId: item.channelId as string,
  accountId: item.accountId as string,
  workspaceId: item.workspaceId as string,
  platform: item.platform as ChannelRecord['platform'],
  name: item.name as string,
  remoteAccountId: item.remoteAccountId as string,
  connection: item.connection as ChannelRecord['connection'],
  threadsPermitted: item.threadsPermitted as boolean,
  tokenCiphertext: item.tokenCiphertext as string,
  createdAt: item.createdAt as string,
});

/** Saves the channel and adds it to the account's channel count, refusing past the plan's limit. */
export const connectChannel = async (
  { doc, tableName }: TableRef,
  channel: ChannelRecord,
  channelLimit: number | null,
): Promise<void> => {
  const account = keys.account(channel.accountId);
  try {
    await retryOnTransactionConflict(() =>
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: channelToItem(channel),
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: account,
                UpdateExpression: 'ADD channelCount :one',
                ConditionExpression:
                  channelLimit === null
                    ? 'attribute_exists(PK)'
                    : 'attribute_exists(PK) AND (attribute_not_exists(channelCount) OR channelCount < :limit)',
                ExpressionAttributeValues:
                  channelLimit === null ? { ':one': 1 } : { ':one': 1, ':limit': channelLimit },
              },
            },
          ],
        }),
      ),
    );
  } catch (error) {
    const cancelled = transactionCancellation(error);
    if (cancelled?.reasons[1] === 'ConditionalCheckFailed') {
      throw new ApiError('quota_exceeded', 'The plan allows no more connected channels.');
    }
    throw error;
  }
};

export const getChannel = async (
  { doc, tableName }: TableRef,
  workspaceId: string,
  channelId: string,
): Promise<ChannelRecord | null> => {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.channel(workspaceId, channelId) }),
  );
  return out.Item ? channelFromItem(out.Item) : null;
};

export const listChannels = async (table: TableRef, workspaceId: string): Promise<ChannelRecord[]> => {
  const { PK, SKPrefix } = keys.channelPrefix(workspaceId);
  return (await queryByPrefix(table, PK, SKPrefix)).map(channelFromItem);
};

export const markNeedsReconnect = async (
  { doc, tableName }: TableRef,
  workspaceId: string,
  channelId: string,
): Promise<boolean> => {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.channel(workspaceId, channelId),
        UpdateExpression: 'SET #connection = :reconnect',
        ConditionExpression: 'attribute_exists(PK) AND #connection = :connected',
        ExpressionAttributeNames: { '#connection': 'connection' },
        ExpressionAttributeValues: { ':reconnect': 'needs_reconnect', ':connected': 'connected' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
