import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { PLATFORM_IDS } from '../../../domain/platforms/types.ts';
import type { ChannelRecord, TokenUpdate } from '../../../ports/channels.ts';
import type { GrantRecord, GrantStore, GrantToSave } from '../../../ports/grants.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { type Key, keys } from './keys.ts';

/**
 * Shared grants (one item per grant, beside the workspace's channels), and the token writes a
 * channel's own tokens and a grant's have in common: the refresh hold, the conditional token
 * replacement and its release. The grant's `channelIds` is a string set, so a channel joins or
 * leaves it with ADD and DELETE, and "the last one removes it" is a condition on its size.
 */

const refreshIndex = (g: Pick<GrantRecord, 'refreshDueAt' | 'workspaceId' | 'grantId'>) =>
  g.refreshDueAt ? keys.grantRefreshIndex(g.refreshDueAt, g.workspaceId, g.grantId) : {};

export const grantToItem = (g: GrantRecord) => ({
  ...keys.grant(g.workspaceId, g.grantId),
  ...refreshIndex(g),
  type: 'Grant',
  ...g,
  channelIds: new Set(g.channelIds),
});

const nullableTime = z.string().nullable();

const grantSchema: z.ZodType<GrantRecord> = z.object({
  grantId: z.string(),
  accountId: z.string(),
  workspaceId: z.string(),
  platform: z.enum(PLATFORM_IDS),
  remoteAccountId: z.string(),
  connection: z.enum(['connected', 'needs_reconnect']),
  tokenCiphertext: z.string(),
  tokenVersion: z.number().int(),
  tokenExpiresAt: nullableTime,
  tokenIssuedAt: nullableTime,
  refreshDueAt: nullableTime,
  serviceUrl: z.string().nullable(),
  // A string set in the table, a sorted list in the record.
  channelIds: z.set(z.string()).transform((ids) => [...ids].sort()),
  updatedAt: z.string(),
  createdAt: z.string(),
});

/**
 * The token times and service host a token holder (a channel or a grant) has not set: absent from
 * its item when its record left them undefined (the document client drops undefined values), NULL
 * otherwise; both read as null. Channels pasted in by the admin CLI never have them.
 */
export const unsetTokenFieldsAsNull = (fields: Record<string, unknown>): Record<string, unknown> => ({
  ...fields,
  tokenExpiresAt: fields.tokenExpiresAt ?? null,
  tokenIssuedAt: fields.tokenIssuedAt ?? null,
  refreshDueAt: fields.refreshDueAt ?? null,
  serviceUrl: fields.serviceUrl ?? null,
});

/** A shared grant item as its record; `MalformedItemError` if it is not one (never showing its tokens). */
export const grantFromItem = (item: Record<string, unknown>): GrantRecord =>
  parseItem('Grant', grantSchema, item, unsetTokenFieldsAsNull);

export const getGrant = async (
  { doc, tableName }: TableRef,
  workspaceId: string,
  grantId: string,
): Promise<GrantRecord | null> => {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.grant(workspaceId, grantId), ConsistentRead: true }),
  );
  return out.Item ? grantFromItem(out.Item) : null;
};

/**
 * The grant's write in a connection's transaction: new tokens for the grant the channels share
 * (conditional on the version read, so a refresh in between makes the connection read again), the
 * channels added; or the grant created with them.
 */
export const grantSaveItem = async (
  table: TableRef,
  grant: GrantToSave,
  channels: ChannelRecord[],
): Promise<Record<string, unknown>> => {
  const { base } = grant;
  const current = await getGrant(table, base.workspaceId, base.grantId);
  const channelIds = [...new Set([...(current?.channelIds ?? []), ...channels.map((c) => c.channelId)])];
  const next: GrantRecord = {
    ...base,
    createdAt: current?.createdAt ?? base.createdAt,
    connection: 'connected',
    tokenCiphertext: await grant.seal(),
    tokenVersion: (current?.tokenVersion ?? 0) + 1,
    channelIds,
  };
  return {
    Put: {
      TableName: table.tableName,
      Item: grantToItem(next),
      ...(current
        ? {
            ConditionExpression: 'attribute_exists(PK) AND tokenVersion = :v',
            ExpressionAttributeValues: { ':v': current.tokenVersion },
          }
        : { ConditionExpression: 'attribute_not_exists(PK)' }),
    },
  };
};

/**
 * The grant's write when one of its channels is disconnected (null: the grant is gone or does not
 * name it): the channel leaves it, or the grant is removed with its last channel. Conditional on
 * the membership read, so a concurrent join or leave makes the disconnection read again.
 */
export const grantLeaveItem = async (
  table: TableRef,
  channel: ChannelRecord,
): Promise<Record<string, unknown> | null> => {
  if (!channel.grantId) return null;
  const grant = await getGrant(table, channel.workspaceId, channel.grantId);
  if (!grant?.channelIds.includes(channel.channelId)) return null;
  const Key = keys.grant(channel.workspaceId, channel.grantId);
  const values = { ':id': channel.channelId, ':one': 1 };
  if (grant.channelIds.length === 1) {
    return {
      Delete: {
        TableName: table.tableName,
        Key,
        ConditionExpression: 'contains(channelIds, :id) AND size(channelIds) = :one',
        ExpressionAttributeValues: values,
      },
    };
  }
  return {
    Update: {
      TableName: table.tableName,
      Key,
      UpdateExpression: 'DELETE channelIds :ids',
      ConditionExpression: 'contains(channelIds, :id) AND size(channelIds) > :one',
      ExpressionAttributeValues: { ...values, ':ids': new Set([channel.channelId]) },
    },
  };
};

/** Where a token holder (a channel or a grant) lives, and its place in the refresh sweep's index. */
export interface TokenHolderKey {
  key: Key;
  refreshIndex: (dueAt: string) => { GSI2PK: string; GSI2SK: string };
}

export const channelHolder = (workspaceId: string, channelId: string): TokenHolderKey => ({
  key: keys.channel(workspaceId, channelId),
  refreshIndex: (dueAt) => keys.channelRefreshIndex(dueAt, workspaceId, channelId),
});

export const grantHolder = (workspaceId: string, grantId: string): TokenHolderKey => ({
  key: keys.grant(workspaceId, grantId),
  refreshIndex: (dueAt) => keys.grantRefreshIndex(dueAt, workspaceId, grantId),
});

/** New tokens, conditional on the version read: the loser of a race re-reads the winner's tokens. */
export const replaceHeldTokens = async (
  { doc, tableName }: TableRef,
  holder: TokenHolderKey,
  expectedVersion: number,
  update: TokenUpdate,
): Promise<boolean> => {
  const due = update.refreshDueAt ? holder.refreshIndex(update.refreshDueAt) : null;
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: holder.key,
        UpdateExpression: `SET tokenCiphertext = :c, tokenExpiresAt = :e, tokenIssuedAt = :i, refreshDueAt = :d, updatedAt = :u, tokenVersion = :next${
          due ? ', GSI2PK = :gpk, GSI2SK = :gsk' : ''
        } REMOVE refreshHeldBy, refreshHeldUntil${due ? '' : ', GSI2PK, GSI2SK'}`,
        ConditionExpression:
          'attribute_exists(PK) AND #connection = :connected AND (tokenVersion = :v OR (attribute_not_exists(tokenVersion) AND :v = :zero))',
        ExpressionAttributeNames: { '#connection': 'connection' },
        ExpressionAttributeValues: {
          ':c': update.tokenCiphertext,
          ':e': update.tokenExpiresAt,
          ':i': update.tokenIssuedAt,
          ':d': update.refreshDueAt,
          ':u': update.updatedAt,
          ':next': expectedVersion + 1,
          ':v': expectedVersion,
          ':zero': 0,
          ':connected': 'connected',
          ...(due ? { ':gpk': due.GSI2PK, ':gsk': due.GSI2SK } : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Holds the holder's refresh for `owner` until `until` if its version is unchanged and nobody holds it. */
export const holdTokens = async (
  { doc, tableName }: TableRef,
  holder: TokenHolderKey,
  expectedVersion: number,
  owner: string,
  now: string,
  until: string,
): Promise<boolean> => {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: holder.key,
        UpdateExpression: 'SET refreshHeldBy = :owner, refreshHeldUntil = :until',
        ConditionExpression:
          'attribute_exists(PK) AND #connection = :connected AND (tokenVersion = :v OR (attribute_not_exists(tokenVersion) AND :v = :zero)) AND (attribute_not_exists(refreshHeldUntil) OR refreshHeldUntil < :now)',
        ExpressionAttributeNames: { '#connection': 'connection' },
        ExpressionAttributeValues: {
          ':owner': owner,
          ':until': until,
          ':now': now,
          ':v': expectedVersion,
          ':zero': 0,
          ':connected': 'connected',
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const releaseTokens = async (
  { doc, tableName }: TableRef,
  holder: TokenHolderKey,
  owner: string,
): Promise<void> => {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: holder.key,
        UpdateExpression: 'REMOVE refreshHeldBy, refreshHeldUntil',
        ConditionExpression: 'refreshHeldBy = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** The grant's refresh was refused: out of the sweep, its hold dropped; true if it was connected. */
export const markGrantNeedsReconnect = async (
  { doc, tableName }: TableRef,
  workspaceId: string,
  grantId: string,
): Promise<boolean> => {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.grant(workspaceId, grantId),
        UpdateExpression:
          'SET #connection = :reconnect REMOVE GSI2PK, GSI2SK, refreshHeldBy, refreshHeldUntil',
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

/** The GrantStore port over the table. */
export const dynamoGrantStore = (table: TableRef): GrantStore => ({
  getGrant: (workspaceId, grantId) => getGrant(table, workspaceId, grantId),
  holdGrantRefresh: (workspaceId, grantId, version, owner, now, until) =>
    holdTokens(table, grantHolder(workspaceId, grantId), version, owner, now, until),
  replaceGrantTokens: (workspaceId, grantId, version, update) =>
    replaceHeldTokens(table, grantHolder(workspaceId, grantId), version, update),
  releaseGrantRefresh: (workspaceId, grantId, owner) =>
    releaseTokens(table, grantHolder(workspaceId, grantId), owner),
  markGrantNeedsReconnect: (workspaceId, grantId) => markGrantNeedsReconnect(table, workspaceId, grantId),
});
