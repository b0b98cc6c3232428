import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '../../../domain/errors.ts';
import type { ChannelConnectResult, GrantToSave } from '../../../ports/accounts.ts';
import type { ChannelToSave, ConnectState, ConnectStateStore } from '../../../ports/connect-states.ts';
import { saveChannels } from './channels.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { keys, TABLE_KEYS } from './keys.ts';

/** Kept a day past its expiry so a late replay is told "expired", then removed by the table's TTL. */
const TTL_GRACE_SECONDS = 24 * 3600;

export const connectStateToItem = (state: ConnectState) => ({
  ...keys.connectState(state.stateHash),
  type: 'ConnectState',
  [TABLE_KEYS.ttlAttribute]: Math.floor(Date.parse(state.expiresAt) / 1000) + TTL_GRACE_SECONDS,
  state,
});

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
    return (out.Item?.state as ConnectState | undefined) ?? null;
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
