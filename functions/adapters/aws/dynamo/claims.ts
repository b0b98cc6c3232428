import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RemoteBlock } from '../../../ports/network-client.ts';
import type { BlockClaim, ClaimState, ClaimStore } from '../../../ports/publishing.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { keys } from './keys.ts';

const key = (c: Pick<BlockClaim, 'postId' | 'channelId' | 'block'>) =>
  keys.blockClaim(c.postId, c.channelId, c.block);
const fromItem = (item: Record<string, unknown>): BlockClaim => {
  const { PK: _pk, SK: _sk, type: _type, ...fields } = item;
  return fields as unknown as BlockClaim;
};

/** Block claims as conditional writes on one item per block. */
export class DynamoClaimStore implements ClaimStore {
  constructor(private readonly table: TableRef) {}

  async acquire(claim: BlockClaim): Promise<{ acquired: true } | { acquired: false; current: BlockClaim }> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...key(claim), type: 'BlockClaim', ...claim },
          ConditionExpression: 'attribute_not_exists(PK) OR #state = :notSent',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':notSent': 'not_sent' },
        }),
      );
      return { acquired: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Read it back (the document client does not unmarshal an error's item).
      const out = await this.table.doc.send(
        new GetCommand({ TableName: this.table.tableName, Key: key(claim), ConsistentRead: true }),
      );
      if (!out.Item) return this.acquire(claim);
      const current = fromItem(out.Item);
      return { acquired: false, current };
    }
  }

  async takeOver(previous: BlockClaim, claim: BlockClaim): Promise<boolean> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...key(claim), type: 'BlockClaim', ...claim },
          ConditionExpression: '#state = :sending AND #owner = :owner AND leaseUntil = :lease',
          ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':owner': previous.owner,
            ':lease': previous.leaseUntil,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async settle(
    claim: BlockClaim,
    state: Exclude<ClaimState, 'sending'>,
    remote?: RemoteBlock,
  ): Promise<void> {
    await this.table.doc.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: key(claim),
        UpdateExpression: remote ? 'SET #state = :state, remote = :remote' : 'SET #state = :state',
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
        ExpressionAttributeValues: {
          ':state': state,
          ':owner': claim.owner,
          ...(remote ? { ':remote': remote } : {}),
        },
      }),
    );
  }
}
