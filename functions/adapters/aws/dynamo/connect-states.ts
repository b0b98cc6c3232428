import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.ts';
import { PLATFORM_IDS } from '../../../domain/platforms/types.ts';
import type { ChannelConnectResult } from '../../../ports/channels.ts';
import type { ChannelToSave, ConnectState, ConnectStateStore } from '../../../ports/connect-states.ts';
import type { GrantToSave } from '../../../ports/grants.ts';
import type { NetworkTarget } from '../../../ports/network-auth.ts';
import { saveChannels } from './channels.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys, TABLE_KEYS } from './keys.ts';

/** Kept a day past its expiry so a late replay is told "expired", then removed by the table's TTL. */
const TTL_GRACE_SECONDS = 24 * 3600;

export const connectStateToItem = (state: ConnectState) => ({
  ...keys.connectState(state.stateHash),
  type: 'ConnectState',
  [TABLE_KEYS.ttlAttribute]: Math.floor(Date.parse(state.expiresAt) / 1000) + TTL_GRACE_SECONDS,
  state,
});

const isPlainMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// The channel and targets a connection found are the network's answer, saved as read: their own
// modules check them when they become channels.
const connectStateSchema: z.ZodType<ConnectState> = z.looseObject({
  stateHash: z.string(),
  accountId: z.string(),
  workspaceId: z.string(),
  mode: z.enum(['live', 'test']),
  platform: z.enum(PLATFORM_IDS),
  redirectUrl: z.string(),
  codeVerifier: z.string().nullable(),
  status: z.enum(['pending', 'exchanging', 'granted', 'targets', 'done', 'failed']),
  createdAt: z.string(),
  expiresAt: z.string(),
  grantCiphertext: z.string().optional(),
  channel: z.custom<ConnectState['channel']>(isPlainMap).optional(),
  connectCodeHash: z.string().optional(),
  targets: z.custom<NetworkTarget[]>(Array.isArray).optional(),
  grantAccountId: z.string().optional(),
  channelIds: z.array(z.string()).optional(),
});

/** States made before the key's mode was kept were all started by live keys. */
const modeOfOlderStates = (fields: Record<string, unknown>): Record<string, unknown> => {
  const state = isPlainMap(fields.state) ? fields.state : {};
  return state.mode === undefined ? { ...state, mode: 'live' } : state;
};

/** The connect state an item holds (as its `state` map); `MalformedItemError` if it holds none. */
export const connectStateFromItem = (item: Record<string, unknown>): ConnectState =>
  parseItem('ConnectState', connectStateSchema, item, modeOfOlderStates);

/** Connect states in the single table, one item each. */
export class DynamoConnectStateStore implements ConnectStateStore {
  constructor(private readonly table: TableRef) {}

  async create(state: ConnectState): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: connectStateToItem(state),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async get(stateHash: string): Promise<ConnectState | null> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.connectState(stateHash),
        ConsistentRead: true,
      }),
    );
    return out.Item ? connectStateFromItem(out.Item) : null;
  }

  async transition(
    stateHash: string,
    from: ConnectState['status'],
    to: ConnectState['status'],
    extra: Partial<ConnectState> = {},
  ): Promise<boolean> {
    const fields = Object.entries({ ...extra, status: to });
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.connectState(stateHash),
          UpdateExpression: `SET ${fields.map((_, i) => `#state.#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(PK) AND #state.#status = :from',
          ExpressionAttributeNames: {
            '#state': 'state',
            '#status': 'status',
            ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
          },
          ExpressionAttributeValues: {
            ':from': from,
            ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async finish(
    stateHash: string,
    from: ConnectState['status'],
    channels: ChannelToSave[],
    channelLimit: number | null,
    grant?: GrantToSave,
  ): Promise<ChannelConnectResult[]> {
    return saveChannels(
      this.table,
      channels,
      channelLimit,
      {
        // The state is done with its channels, and its grant is dropped, in the channels' own write.
        item: (saved) => ({
          Update: {
            TableName: this.table.tableName,
            Key: keys.connectState(stateHash),
            UpdateExpression: 'SET #state.#status = :done, #state.#ids = :ids REMOVE #state.#grant',
            ConditionExpression: 'attribute_exists(PK) AND #state.#status = :from',
            ExpressionAttributeNames: {
              '#state': 'state',
              '#status': 'status',
              '#ids': 'channelIds',
              '#grant': 'grantCiphertext',
            },
            ExpressionAttributeValues: {
              ':done': 'done',
              ':from': from,
              ':ids': saved.map((channel) => channel.channelId),
            },
          },
        }),
        refused: () => new ApiError('invalid_state', 'This connection was already completed.'),
      },
      grant,
    );
  }
}
