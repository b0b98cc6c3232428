import { GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import {
  appendBounded,
  BLOCK_TIMELINE_LIMIT,
  type BlockEvent,
  replacesLast,
  timelineEventSchema,
} from '../../../domain/timeline.ts';
import type { RemoteBlock } from '../../../ports/network-client.ts';
import type { BlockClaim, ClaimState, ClaimStore } from '../../../ports/publishing.ts';
import { isConditionFailure, type TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

const key = (c: Pick<BlockClaim, 'postId' | 'channelId' | 'block'>) =>
  keys.blockClaim(c.postId, c.channelId, c.block);
const CLAIM_STATES = ['sending', 'checking', 'sent', 'not_sent', 'unknown'] as const;
const optionalTime = z.string().optional();
const blockEventSchema = timelineEventSchema.omit({ channelId: true, block: true });
const claimSchema: z.ZodType<BlockClaim> = z.looseObject({
  postId: z.string(),
  channelId: z.string(),
  block: z.number().int(),
  state: z.enum(CLAIM_STATES),
  owner: z.string(),
  leaseUntil: z.string(),
  since: z.string(),
  firstSentAt: optionalTime,
  lastSentAt: optionalTime,
  lostAt: optionalTime,
  checks: z.number().optional(),
  nextCheckAt: optionalTime,
  duplicate: z.boolean().optional(),
  progress: z.record(z.string(), z.unknown()).optional(),
  remote: z
    .looseObject({ remoteId: z.string(), remoteUrl: z.string(), meta: z.record(z.string(), z.string()) })
    .optional(),
  timeline: z.array(blockEventSchema).optional(),
  timelineDropped: z.number().int().optional(),
});

/** A block claim item as its record (the table's keys left out); `MalformedItemError` if it is not one. */
export const claimFromItem = (item: Record<string, unknown>): BlockClaim =>
  parseItem('BlockClaim', claimSchema, item);

/**
 * The part of an update that appends `claim.append` to the claim's timeline: `list_append` in the
 * same write while the list stays within its bound (as the holder last saw it), else the bounded
 * list written whole (only the claim's holder writes it, so the list it holds is the stored one).
 * Null when there is nothing to append.
 */
const timelineSet = (
  claim: Pick<BlockClaim, 'timeline' | 'timelineDropped' | 'append'>,
): { set: string; values: Record<string, unknown> } | null => {
  const events = claim.append ?? [];
  if (events.length === 0) return null;
  if ((claim.timeline?.length ?? 0) + events.length <= BLOCK_TIMELINE_LIMIT) {
    return {
      set: 'timeline = list_append(if_not_exists(timeline, :noEvents), :events)',
      values: { ':noEvents': [], ':events': events },
    };
  }
  const bounded = appendBounded(claim.timeline, claim.timelineDropped, events, BLOCK_TIMELINE_LIMIT);
  return {
    set: 'timeline = :timeline, timelineDropped = :dropped',
    values: { ':timeline': bounded.timeline, ':dropped': bounded.dropped },
  };
};

/** The fields a settle writes besides the state: the send history and the lookup schedule. */
const TRACKING = ['firstSentAt', 'lastSentAt', 'lostAt', 'checks', 'nextCheckAt', 'duplicate'] as const;

/**
 * The update that records the outcome of a claim `claim.owner` holds, with its send history and
 * lookup schedule; its condition fails when another owner has taken the claim over. A post write
 * carries it as a transaction item when the block's record and its claim's outcome commit together.
 */
export const settleUpdate = (
  tableName: string,
  claim: BlockClaim,
  state: Exclude<ClaimState, 'sending'>,
  remote?: RemoteBlock,
): UpdateCommandInput => {
  const sets = ['#state = :state'];
  const values: Record<string, unknown> = { ':state': state, ':owner': claim.owner };
  if (remote) {
    sets.push('remote = :remote');
    values[':remote'] = remote;
  }
  const names: Record<string, string> = { '#state': 'state', '#owner': 'owner' };
  for (const field of TRACKING) {
    if (claim[field] === undefined) continue;
    sets.push(`#${field} = :${field}`);
    names[`#${field}`] = field;
    values[`:${field}`] = claim[field];
  }
  const timeline = timelineSet(claim);
  if (timeline) {
    sets.push(timeline.set);
    Object.assign(values, timeline.values);
  }
  return {
    TableName: tableName,
    Key: key(claim),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

/** Block claims as conditional writes on one item per block. */
export class DynamoClaimStore implements ClaimStore {
  constructor(private readonly table: TableRef) {}

  async acquire(
    claim: BlockClaim,
  ): Promise<{ acquired: true; claim: BlockClaim } | { acquired: false; current: BlockClaim }> {
    try {
      // An update rather than a put: a `not_sent` claim taken again keeps the block's first send
      // time and whether an answer was ever lost, so a lookup after this send searches from the
      // first one and a duplicate refusal is read correctly.
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: key(claim),
          UpdateExpression:
            'SET #type = :type, postId = :postId, channelId = :channelId, #block = :block, #state = :state, ' +
            '#owner = :owner, leaseUntil = :lease, since = :since, lastSentAt = :last, ' +
            'firstSentAt = if_not_exists(firstSentAt, :first), ' +
            // The holder does not know the stored list yet: appended; its next write bounds it.
            'timeline = list_append(if_not_exists(timeline, :noEvents), :events) ' +
            'REMOVE remote, checks, nextCheckAt, #duplicate',
          ConditionExpression: 'attribute_not_exists(PK) OR #state = :notSent',
          ExpressionAttributeNames: {
            '#type': 'type',
            '#block': 'block',
            '#state': 'state',
            '#owner': 'owner',
            '#duplicate': 'duplicate',
          },
          ExpressionAttributeValues: {
            ':type': 'BlockClaim',
            ':postId': claim.postId,
            ':channelId': claim.channelId,
            ':block': claim.block,
            ':state': claim.state,
            ':owner': claim.owner,
            ':lease': claim.leaseUntil,
            ':since': claim.since,
            ':last': claim.lastSentAt ?? claim.since,
            ':first': claim.firstSentAt ?? claim.since,
            ':notSent': 'not_sent',
            ':noEvents': [],
            ':events': claim.append ?? [],
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { acquired: true, claim: claimFromItem(out.Attributes ?? {}) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Read it back (the document client does not unmarshal an error's item).
      const out = await this.table.doc.send(
        new GetCommand({ TableName: this.table.tableName, Key: key(claim), ConsistentRead: true }),
      );
      if (!out.Item) return this.acquire(claim);
      const current = claimFromItem(out.Item);
      return { acquired: false, current };
    }
  }

  async takeOver(previous: BlockClaim, claim: BlockClaim): Promise<boolean> {
    const { append, ...stored } = claim;
    const bounded = appendBounded(
      previous.timeline,
      previous.timelineDropped,
      append ?? [],
      BLOCK_TIMELINE_LIMIT,
    );
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...key(claim),
            type: 'BlockClaim',
            ...stored,
            timeline: bounded.timeline,
            ...(bounded.dropped > 0 ? { timelineDropped: bounded.dropped } : {}),
          },
          ConditionExpression: '#state = :state AND #owner = :owner AND leaseUntil = :lease',
          ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':state': previous.state,
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
    await this.table.doc.send(new UpdateCommand(settleUpdate(this.table.tableName, claim, state, remote)));
  }

  async saveProgress(
    claim: BlockClaim,
    progress: Record<string, unknown>,
    leaseUntil: string,
    event?: BlockEvent,
  ): Promise<boolean> {
    const last = (claim.timeline?.length ?? 0) - 1;
    const timeline = !event
      ? null
      : replacesLast(claim.timeline, event)
        ? { set: `timeline[${last}] = :event`, values: { ':event': event } }
        : timelineSet({ ...claim, append: [event] });
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: key(claim),
          UpdateExpression: `SET progress = :progress, leaseUntil = :lease${timeline ? `, ${timeline.set}` : ''}`,
          ConditionExpression: '#owner = :owner AND #state = :sending',
          ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
          ExpressionAttributeValues: {
            ':progress': progress,
            ':lease': leaseUntil,
            ':owner': claim.owner,
            ':sending': 'sending',
            ...timeline?.values,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
