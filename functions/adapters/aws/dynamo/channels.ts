import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { PLATFORM_IDS } from '../../../domain/platforms/types.ts';
import type {
  ChannelConnectResult,
  ChannelRecord,
  ChannelStore,
  TokenHolderDue,
  TokenUpdate,
} from '../../../ports/channels.ts';
import { type ChannelToSave, MAX_CHANNELS_PER_CONNECTION } from '../../../ports/connect-states.ts';
import type { GrantToSave } from '../../../ports/grants.ts';
import type { OutboxEvent, OutboxGate } from '../../../ports/publishing.ts';
import {
  batchGetAll,
  isConditionFailure,
  queryByPrefix,
  retryOnTransactionConflict,
  type TableRef,
  transactionCancellation,
} from './client.ts';
import { commitWithOutbox, endpointCountOf, readEndpointCount } from './events.ts';
import {
  channelHolder,
  grantFromItem,
  grantLeaveItem,
  grantSaveItem,
  holdTokens,
  releaseTokens,
  replaceHeldTokens,
  unsetTokenFieldsAsNull,
} from './grants.ts';
import { parseItem } from './item.ts';
import { type Key, keys, TABLE_KEYS } from './keys.ts';

const refreshIndex = (c: Pick<ChannelRecord, 'refreshDueAt' | 'workspaceId' | 'channelId'>) =>
  c.refreshDueAt ? keys.channelRefreshIndex(c.refreshDueAt, c.workspaceId, c.channelId) : {};

export const channelToItem = (c: ChannelRecord) => ({
  ...keys.channel(c.workspaceId, c.channelId),
  ...refreshIndex(c),
  type: 'Channel',
  ...c,
});
const nullableString = z.string().nullable();

const channelSchema: z.ZodType<ChannelRecord> = z.object({
  channelId: z.string(),
  accountId: z.string(),
  workspaceId: z.string(),
  platform: z.enum(PLATFORM_IDS),
  name: z.string(),
  remoteAccountId: z.string(),
  connection: z.enum(['connected', 'needs_reconnect']),
  threadsPermitted: z.boolean(),
  tokenCiphertext: z.string(),
  tokenVersion: z.number().int(),
  tokenExpiresAt: nullableString,
  tokenIssuedAt: nullableString,
  refreshDueAt: nullableString,
  scopes: z.array(z.string()).optional(),
  capabilities: z
    .looseObject({ publish: z.boolean(), manage: z.boolean(), threads: z.boolean(), metrics: z.boolean() })
    .optional(),
  serviceUrl: nullableString,
  grantId: z.string().optional(),
  authKind: z.enum(['oauth2', 'app_password']).optional(),
  updatedAt: z.string().optional(),
  createdAt: z.string(),
});

/**
 * A channel pasted in by the admin CLI (every channel before issue 11) has no token version: 0,
 * the version its first refresh expects; nor token times or a service host (see
 * `unsetTokenFieldsAsNull`). Its scopes, capabilities, auth kind and update time stay absent, which
 * is what they mean for such a channel (see ChannelRecord), as does the grant of every channel
 * holding its own tokens (all of them before shared grants).
 */
const olderChannels = (fields: Record<string, unknown>): Record<string, unknown> => ({
  ...unsetTokenFieldsAsNull(fields),
  tokenVersion: fields.tokenVersion ?? 0,
});

/**
 * A channel item as its record, without the refresh hold and the index keys; `MalformedItemError`
 * if it is not one (never showing its tokens).
 */
export const channelFromItem = (item: Record<string, unknown>): ChannelRecord =>
  parseItem('Channel', channelSchema, item, olderChannels);

const remoteGuardSchema = z.object({ channelId: z.string() });

/** The channel a remote-account guard item names; `MalformedItemError` if it names none. */
export const remoteGuardFromItem = (item: Record<string, unknown>): string =>
  parseItem('ChannelRemote', remoteGuardSchema, item).channelId;

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

/** The keys a publish job reads besides its post: its channels, then the workspace's endpoint count. */
export const jobChannelKeys = (workspaceId: string, channelIds: string[]): Key[] => [
  ...[...new Set(channelIds)].map((channelId) => keys.channel(workspaceId, channelId)),
  keys.webhookCount(workspaceId),
];

/** The channels (absent ids left out) and endpoint count among items read with `jobChannelKeys`. */
export const jobChannelsOf = (
  workspaceId: string,
  items: Record<string, unknown>[],
): { channels: Map<string, ChannelRecord>; endpoints: number | null } => {
  const countKey = keys.webhookCount(workspaceId);
  const channels = new Map<string, ChannelRecord>();
  let endpoints: number | null = null;
  for (const item of items) {
    if (item.PK !== countKey.PK) continue;
    if (item.SK === countKey.SK) {
      endpoints = endpointCountOf(item);
      continue;
    }
    const channel = channelFromItem(item);
    channels.set(channel.channelId, channel);
  }
  return { channels, endpoints };
};

/**
 * A publish job's read, one request: its channels by id (absent ids left out) and the workspace's
 * count of webhook endpoints (null: never counted).
 */
export const getChannelsForJob = async (
  table: TableRef,
  workspaceId: string,
  channelIds: string[],
): Promise<{ channels: Map<string, ChannelRecord>; endpoints: number | null }> =>
  jobChannelsOf(workspaceId, await batchGetAll(table, jobChannelKeys(workspaceId, channelIds)));

export const listChannels = async (table: TableRef, workspaceId: string): Promise<ChannelRecord[]> => {
  const { PK, SKPrefix } = keys.channelPrefix(workspaceId);
  return (await queryByPrefix(table, PK, SKPrefix)).map(channelFromItem);
};

export const markNeedsReconnect = async (
  table: TableRef,
  workspaceId: string,
  channelId: string,
  event?: OutboxEvent,
): Promise<{ changed: boolean; kept: OutboxEvent[] }> => {
  const { doc, tableName } = table;
  const update = {
    TableName: tableName,
    Key: keys.channel(workspaceId, channelId),
    // A channel that needs reconnecting is not refreshed by the sweep.
    UpdateExpression: 'SET #connection = :reconnect REMOVE GSI2PK, GSI2SK, refreshHeldBy, refreshHeldUntil',
    ConditionExpression: 'attribute_exists(PK) AND #connection = :connected',
    ExpressionAttributeNames: { '#connection': 'connection' },
    ExpressionAttributeValues: { ':reconnect': 'needs_reconnect', ':connected': 'connected' },
  };
  // The event follows the outbox's rule: not kept while the workspace has no webhook endpoint.
  const gate: OutboxGate | undefined =
    event?.mode === 'live'
      ? { workspaceId, endpoints: await readEndpointCount(table, workspaceId) }
      : undefined;
  return commitWithOutbox(tableName, event ? [event] : [], gate, 1, async (outbox) => {
    try {
      if (outbox.items.length === 0) await doc.send(new UpdateCommand(update));
      else await doc.send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...outbox.items] }));
      return { changed: true, kept: outbox.kept };
    } catch (error) {
      if (isConditionFailure(error)) return { changed: false, kept: [] };
      if (transactionCancellation(error)?.reasons?.[0] === 'ConditionalCheckFailed')
        return { changed: false, kept: [] };
      throw error;
    }
  });
};

const readItem = async ({ doc, tableName }: TableRef, key: { PK: string; SK: string }) =>
  (await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

/** The workspace's channel of this platform and remote account that has no guard (pasted in by the admin CLI). */
const pastedChannel = async (
  table: TableRef,
  base: Pick<ChannelRecord, 'workspaceId' | 'platform' | 'remoteAccountId'>,
): Promise<ChannelRecord | null> =>
  (await listChannels(table, base.workspaceId)).find(
    (c) => c.platform === base.platform && c.remoteAccountId === base.remoteAccountId && !c.authKind,
  ) ?? null;

/** What one channel's save writes: an update of the workspace's channel of that remote account, or a new channel. */
interface SavePlan {
  created: boolean;
  channel: ChannelRecord;
  items: Record<string, unknown>[];
}

/** Reads the remote-account guard and plans the channel's write; null when the channel it names is gone (read again). */
const planSave = async (table: TableRef, { base, seal }: ChannelToSave): Promise<SavePlan | null> => {
  const { tableName } = table;
  const guardKey = keys.channelRemote(base.workspaceId, base.platform, base.remoteAccountId);
  const guard = await readItem(table, guardKey);
  // A channel pasted in by the admin CLI has no guard: the same remote account adopts it.
  const existingId = guard ? remoteGuardFromItem(guard) : (await pastedChannel(table, base))?.channelId;
  if (existingId) {
    const channelId = existingId;
    const existing = await readItem(table, keys.channel(base.workspaceId, channelId));
    if (!existing) return null;
    // The channel now uses the tokens it is saved with: the shared grant's (its `grantId`) or its own.
    const { grantId: _previousGrant, ...current } = channelFromItem(existing);
    const next: ChannelRecord = {
      ...current,
      ...(base.grantId ? { grantId: base.grantId } : {}),
      name: base.name,
      connection: 'connected',
      threadsPermitted: base.threadsPermitted,
      tokenCiphertext: await seal(channelId),
      tokenVersion: (current.tokenVersion ?? 0) + 1,
      tokenExpiresAt: base.tokenExpiresAt ?? null,
      tokenIssuedAt: base.tokenIssuedAt ?? null,
      refreshDueAt: base.refreshDueAt ?? null,
      serviceUrl: base.serviceUrl ?? null,
      ...(base.scopes ? { scopes: base.scopes } : {}),
      ...(base.capabilities ? { capabilities: base.capabilities } : {}),
      ...(base.authKind ? { authKind: base.authKind } : {}),
      ...(base.updatedAt ? { updatedAt: base.updatedAt } : {}),
    };
    return {
      created: false,
      channel: next,
      items: [
        // The whole record is replaced, conditional on the version read (a refresh in between wins, we retry).
        {
          Put: {
            TableName: tableName,
            Item: channelToItem(next),
            ConditionExpression:
              'attribute_exists(PK) AND (tokenVersion = :v OR attribute_not_exists(tokenVersion))',
            ExpressionAttributeValues: { ':v': current.tokenVersion ?? 0 },
          },
        },
        ...(guard
          ? []
          : [
              {
                Put: {
                  TableName: tableName,
                  Item: { ...guardKey, type: 'ChannelRemote', channelId },
                  ConditionExpression: 'attribute_not_exists(PK)',
                },
              },
            ]),
      ],
    };
  }
  const channelId = newId('ch');
  const channel: ChannelRecord = {
    ...base,
    channelId,
    tokenCiphertext: await seal(channelId),
    tokenVersion: 1,
  };
  return {
    created: true,
    channel,
    items: [
      {
        Put: {
          TableName: tableName,
          Item: channelToItem(channel),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: { ...guardKey, type: 'ChannelRemote', channelId },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    ],
  };
};

/** A write that goes with the channels' (in the same transaction), and what its failed condition means. */
export interface SavedAlongside {
  item: (channels: ChannelRecord[]) => Record<string, unknown>;
  refused: () => Error;
}

/**
 * Connections through the API, in one transaction: all or nothing. The remote-account guard item
 * makes "one channel per workspace, platform and remote account" an invariant of the table: a
 * reconnect (or two connections racing for the same account) updates the channel the guard names
 * instead of creating a second one, and is never counted, so it never meets the plan's limit. The
 * new channels are counted together: past the limit, none is saved (`quota_exceeded`).
 */
export const saveChannels = async (
  table: TableRef,
  channels: ChannelToSave[],
  channelLimit: number | null,
  alongside?: SavedAlongside,
  grant?: GrantToSave,
): Promise<ChannelConnectResult[]> => {
  const { doc, tableName } = table;
  if (channels.length === 0 || channels.length > MAX_CHANNELS_PER_CONNECTION) {
    throw new ApiError(
      'validation_failed',
      `Between 1 and ${MAX_CHANNELS_PER_CONNECTION} channels are saved at once.`,
    );
  }
  const accountId = (channels[0] as ChannelToSave).base.accountId;
  for (let attempt = 0; attempt < 5; attempt++) {
    const plans = await Promise.all(channels.map((channel) => planSave(table, channel)));
    if (plans.some((plan) => plan === null)) continue;
    const saved = plans as SavePlan[];
    const added = saved.filter((plan) => plan.created).length;
    const quota = () =>
      new ApiError(
        'quota_exceeded',
        `The plan allows ${channelLimit} connected channels; ${added === 1 ? 'a new one' : `${added} new ones`} would go past it. Disconnect channels or change plan.`,
      );
    if (channelLimit !== null && added > channelLimit) throw quota();
    const channelItems = saved.flatMap((plan) => plan.items);
    const countAt = added > 0 ? channelItems.length : -1;
    // The shared grant is written with its channels (new tokens, the channels added), or created.
    const grantItem = grant
      ? await grantSaveItem(
          table,
          grant,
          saved.map((plan) => plan.channel),
        )
      : null;
    const grantAt = grantItem ? channelItems.length + (added > 0 ? 1 : 0) : -1;
    const items = [
      ...channelItems,
      ...(added > 0 ? [accountCountUpdate(tableName, accountId, added, channelLimit)] : []),
      ...(grantItem ? [grantItem] : []),
      ...(alongside ? [alongside.item(saved.map((plan) => plan.channel))] : []),
    ];
    try {
      await retryOnTransactionConflict(() => doc.send(new TransactWriteCommand({ TransactItems: items })));
      return saved.map(({ created, channel }) => ({ created, channel }));
    } catch (error) {
      const reasons = transactionCancellation(error)?.reasons;
      if (!reasons) throw error;
      const failed = (index: number) => reasons[index] === 'ConditionalCheckFailed';
      if (alongside && failed(items.length - 1)) throw alongside.refused();
      // Another connection of the same account (or a token refresh) came first: read again, so
      // that account is an update, which is not counted.
      if (channelItems.some((_, index) => failed(index))) continue;
      // The grant was refreshed (or created by a concurrent connection) since it was read.
      if (grantAt >= 0 && failed(grantAt)) continue;
      if (countAt >= 0 && failed(countAt)) throw quota();
      throw error;
    }
  }
  throw new ApiError('conflict', 'The channel changed while it was being connected; try again.');
};

/** One connection through the API (see saveChannels). */
export const upsertChannel = async (
  table: TableRef,
  base: Omit<ChannelRecord, 'channelId' | 'tokenCiphertext'>,
  seal: (channelId: string) => Promise<string>,
  channelLimit: number | null,
): Promise<ChannelConnectResult> =>
  (await saveChannels(table, [{ base, seal }], channelLimit))[0] as ChannelConnectResult;

const accountCountUpdate = (
  tableName: string,
  accountId: string,
  by: number,
  channelLimit: number | null,
) => ({
  Update: {
    TableName: tableName,
    Key: keys.account(accountId),
    UpdateExpression: 'ADD channelCount :by',
    ConditionExpression:
      by > 0 && channelLimit !== null
        ? 'attribute_exists(PK) AND (attribute_not_exists(channelCount) OR channelCount <= :max)'
        : 'attribute_exists(PK)',
    ExpressionAttributeValues:
      by > 0 && channelLimit !== null ? { ':by': by, ':max': channelLimit - by } : { ':by': by },
  },
});

/** New tokens, conditional on the version read: the loser of a race re-reads the winner's tokens. */
export const replaceTokens = (
  table: TableRef,
  workspaceId: string,
  channelId: string,
  expectedVersion: number,
  update: TokenUpdate,
): Promise<boolean> =>
  replaceHeldTokens(table, channelHolder(workspaceId, channelId), expectedVersion, update);

export const holdRefresh = (
  table: TableRef,
  workspaceId: string,
  channelId: string,
  expectedVersion: number,
  owner: string,
  now: string,
  until: string,
): Promise<boolean> =>
  holdTokens(table, channelHolder(workspaceId, channelId), expectedVersion, owner, now, until);

export const releaseRefresh = (
  table: TableRef,
  workspaceId: string,
  channelId: string,
  owner: string,
): Promise<void> => releaseTokens(table, channelHolder(workspaceId, channelId), owner);

/**
 * Removes the channel and its guard and uncounts it, in one transaction; posts keep their copy of
 * what they need. A channel on a shared grant leaves it in the same transaction (the last one
 * removes it); a concurrent change of the grant makes it read the grant again.
 */
export const disconnectChannel = async (table: TableRef, channel: ChannelRecord): Promise<boolean> => {
  const { doc, tableName } = table;
  for (let attempt = 0; attempt < 5; attempt++) {
    const grantItem = await grantLeaveItem(table, channel);
    try {
      await retryOnTransactionConflict(() =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: tableName,
                  Key: keys.channel(channel.workspaceId, channel.channelId),
                  ConditionExpression: 'attribute_exists(PK)',
                },
              },
              {
                Delete: {
                  TableName: tableName,
                  Key: keys.channelRemote(channel.workspaceId, channel.platform, channel.remoteAccountId),
                  // Only this channel's guard (admin-connected channels have none).
                  ConditionExpression: 'attribute_not_exists(PK) OR channelId = :id',
                  ExpressionAttributeValues: { ':id': channel.channelId },
                },
              },
              accountCountUpdate(tableName, channel.accountId, -1, null),
              ...(grantItem ? [grantItem] : []),
            ],
          }),
        ),
      );
      return true;
    } catch (error) {
      const reasons = transactionCancellation(error)?.reasons;
      if (reasons?.[0] === 'ConditionalCheckFailed') return false;
      if (grantItem && reasons?.[3] === 'ConditionalCheckFailed') continue;
      throw error;
    }
  }
  throw new ApiError('conflict', 'The channel changed while it was being disconnected; try again.');
};

export const channelsDueForRefresh = async (
  { doc, tableName }: TableRef,
  now: string,
  limit: number,
): Promise<TokenHolderDue[]> => {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: TABLE_KEYS.gsi2.name,
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK < :now',
      ExpressionAttributeValues: { ':pk': keys.channelRefreshPartition, ':now': now },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => {
    if (item.type === 'Grant') {
      const { workspaceId, grantId } = grantFromItem(item);
      return { workspaceId, grantId };
    }
    const { workspaceId, channelId } = channelFromItem(item);
    return { workspaceId, channelId };
  });
};

/** The ChannelStore port over the table. */
export const dynamoChannelStore = (table: TableRef): ChannelStore => ({
  connectChannel: (channel, limit) => connectChannel(table, channel, limit),
  getChannel: (workspaceId, channelId) => getChannel(table, workspaceId, channelId),
  getChannelsForJob: (workspaceId, channelIds) => getChannelsForJob(table, workspaceId, channelIds),
  listChannels: (workspaceId) => listChannels(table, workspaceId),
  markNeedsReconnect: (workspaceId, channelId, event) =>
    markNeedsReconnect(table, workspaceId, channelId, event),
  upsertChannel: (base, seal, limit) => upsertChannel(table, base, seal, limit),
  replaceTokens: (workspaceId, channelId, version, update) =>
    replaceTokens(table, workspaceId, channelId, version, update),
  holdRefresh: (workspaceId, channelId, version, owner, now, until) =>
    holdRefresh(table, workspaceId, channelId, version, owner, now, until),
  releaseRefresh: (workspaceId, channelId, owner) => releaseRefresh(table, workspaceId, channelId, owner),
  disconnectChannel: (channel) => disconnectChannel(table, channel),
  channelsDueForRefresh: (now, limit) => channelsDueForRefresh(table, now, limit),
});
