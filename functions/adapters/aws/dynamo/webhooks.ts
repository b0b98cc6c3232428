/**
 * Webhook endpoints, deliveries and the deliveries log in the single table.
 * - endpoint: `WORKSPACE#<ws>` / `WEBHOOK#<wh>` (listed per workspace);
 * - the workspace's count of endpoints: `WORKSPACE#<ws>` / `WEBHOOKCOUNT` (kept with each create
 *   and delete; the publishing outbox keeps no event while it is 0);
 * - delivery: `WEBHOOK#<wh>` / `DELIVERY#<dlv>`, in GSI1 `DELIVERY_DUE#<shard>` while pending;
 * - attempt:  `WEBHOOK#<wh>` / `ATTEMPT#<time>#<dlv>#<n>`.
 * Deliveries and attempts expire 30 days after they were written.
 */
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { parseDeliveryId } from '../../../domain/delivery-id.ts';
import type {
  AttemptResult,
  Delivery,
  DeliveryAttempt,
  WebhookEndpoint,
  WebhookStore,
} from '../../../ports/webhooks.ts';
import {
  isConditionFailure,
  retryOnTransactionConflict,
  type TableRef,
  transactionCancellation,
} from './client.ts';
import { endpointCountOf } from './events.ts';
import { keys, TABLE_KEYS } from './keys.ts';
import { attemptFromItem, deliveryFromItem, endpointFromItem } from './webhook-items.ts';

/** The `type` of a workspace's count of webhook endpoints (`keys.webhookCount`). */
export const COUNT_TYPE = 'WebhookCount';

/** How long deliveries and their log entries are kept. */
export const HISTORY_DAYS = 30;
/** Shards of the due index, so one hot GSI partition does not cap delivery throughput. */
export const DUE_SHARDS = 8;
/** Time a DELETE spends erasing history; anything left expires with the history's TTL. */
const PURGE_BUDGET_MS = 5000;

const expiresAt = (from: string) => Math.floor(Date.parse(from) / 1000) + HISTORY_DAYS * 86_400;

export const dueShard = (deliveryId: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < deliveryId.length; i++) hash = Math.imul(hash ^ deliveryId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % DUE_SHARDS;
};

/** The `type` of a webhook endpoint's item. */
const ENDPOINT_TYPE = 'Webhook';

export const endpointToItem = (endpoint: WebhookEndpoint) => ({
  ...keys.webhook(endpoint.workspaceId, endpoint.webhookId),
  type: ENDPOINT_TYPE,
  ...endpoint,
});

export const deliveryToItem = (delivery: Delivery) => {
  // Unset times are left out, not stored as NULL: the claim sets firstAttemptAt with if_not_exists.
  const { inFlightUntil, firstAttemptAt, ...rest } = delivery;
  return {
    ...keys.webhookDelivery(delivery.webhookId, delivery.deliveryId),
    ...(delivery.state === 'pending'
      ? keys.deliveryDueIndex(
          dueShard(delivery.deliveryId),
          inFlightUntil ?? delivery.nextAttemptAt,
          delivery.deliveryId,
        )
      : {}),
    type: 'WebhookDelivery',
    ...rest,
    ...(inFlightUntil ? { inFlightUntil } : {}),
    ...(firstAttemptAt ? { firstAttemptAt } : {}),
    expiresAt: expiresAt(delivery.createdAt),
  };
};

export const attemptToItem = (log: DeliveryAttempt) => ({
  ...keys.webhookAttempt(log.webhookId, log.attemptedAt, log.deliveryId, log.attempt),
  type: 'WebhookAttempt',
  ...log,
  expiresAt: expiresAt(log.attemptedAt),
});

const UPDATABLE = [
  'url',
  'description',
  'events',
  'enabled',
  'consecutiveFailures',
  'disabledReason',
  'disabledAt',
  'secretCiphertext',
  'updatedAt',
] as const;

export class DynamoWebhookStore implements WebhookStore {
  constructor(private readonly table: TableRef) {}

  /**
   * The endpoint and the workspace's count of endpoints, in one transaction. A count never made
   * (a workspace from before it) starts from `existing`, the endpoints the caller found beforehand:
   * an endpoint created since then made the count itself (this write then adds one to it), one
   * deleted since leaves the count one too high, never too low.
   */
  async createEndpoint(endpoint: WebhookEndpoint, existing: number): Promise<void> {
    const { doc, tableName } = this.table;
    await retryOnTransactionConflict(() =>
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: endpointToItem(endpoint),
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: keys.webhookCount(endpoint.workspaceId),
                // `changes` counts every create and delete, so a recount can tell the count moved.
                UpdateExpression:
                  'SET endpoints = if_not_exists(endpoints, :existing) + :one, #type = :type ADD changes :one',
                ExpressionAttributeNames: { '#type': 'type' },
                ExpressionAttributeValues: { ':existing': existing, ':one': 1, ':type': COUNT_TYPE },
              },
            },
          ],
        }),
      ),
    );
  }

  async getEndpoint(workspaceId: string, webhookId: string): Promise<WebhookEndpoint | null> {
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.webhook(workspaceId, webhookId),
        ConsistentRead: true,
      }),
    );
    return out.Item ? endpointFromItem(out.Item) : null;
  }

  /** Strongly consistent: an endpoint is sent the events that happen after its creation answered. */
  async listEndpoints(workspaceId: string): Promise<WebhookEndpoint[]> {
    const { PK, SKPrefix } = keys.webhookPrefix(workspaceId);
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items.map(endpointFromItem);
  }

  async updateEndpoint(
    workspaceId: string,
    webhookId: string,
    changes: Partial<Omit<WebhookEndpoint, 'webhookId' | 'workspaceId' | 'accountId' | 'createdAt'>>,
  ): Promise<WebhookEndpoint | null> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    for (const field of UPDATABLE) {
      if (!(field in changes)) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = changes[field];
      sets.push(`#${field} = :${field}`);
    }
    if (sets.length === 0) return this.getEndpoint(workspaceId, webhookId);
    try {
      const out = await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.webhook(workspaceId, webhookId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? endpointFromItem(out.Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async deleteEndpoint(workspaceId: string, webhookId: string): Promise<boolean> {
    const { doc, tableName } = this.table;
    if (!(await this.deleteCounted(workspaceId, webhookId))) return false;
    // With the endpoint gone its workers stop and its log is unreachable; erase the partition.
    const deadline = Date.now() + PURGE_BUDGET_MS;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.webhookPartition(webhookId) },
          ProjectionExpression: 'PK, SK',
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      const itemKeys = (page.Items ?? []) as { PK: string; SK: string }[];
      for (let i = 0; i < itemKeys.length; i += 25) {
        let pending = itemKeys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
          const out = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
        }
      }
      start = page.LastEvaluatedKey;
    } while (start && Date.now() < deadline);
    return true;
  }

  /**
   * Deletes the endpoint and takes it off the workspace's count in one transaction; a workspace
   * never counted stays so (the delete checks that it still is: a count made meanwhile counted
   * this endpoint, and the delete then takes it off). False when the endpoint did not exist.
   */
  private async deleteCounted(workspaceId: string, webhookId: string): Promise<boolean> {
    const { doc, tableName } = this.table;
    const endpoint = {
      Delete: {
        TableName: tableName,
        Key: keys.webhook(workspaceId, webhookId),
        ConditionExpression: 'attribute_exists(PK)',
      },
    };
    const countKey = keys.webhookCount(workspaceId);
    for (let attempt = 0; ; attempt++) {
      const counted = attempt % 2 === 0;
      try {
        await retryOnTransactionConflict(() =>
          doc.send(
            new TransactWriteCommand({
              TransactItems: [
                endpoint,
                counted
                  ? {
                      Update: {
                        TableName: tableName,
                        Key: countKey,
                        UpdateExpression: 'SET endpoints = endpoints - :one ADD changes :one',
                        ConditionExpression: 'attribute_exists(endpoints)',
                        ExpressionAttributeValues: { ':one': 1 },
                      },
                    }
                  : {
                      ConditionCheck: {
                        TableName: tableName,
                        Key: countKey,
                        ConditionExpression: 'attribute_not_exists(endpoints)',
                      },
                    },
              ],
            }),
          ),
        );
        return true;
      } catch (error) {
        const reasons = transactionCancellation(error)?.reasons;
        if (reasons?.[0] === 'ConditionalCheckFailed') return false;
        // The count is not as this attempt assumed (made, or never made): the other shape, a few times.
        if (reasons?.[1] === 'ConditionalCheckFailed' && attempt < 5) continue;
        throw error;
      }
    }
  }

  /**
   * Makes the workspace's count 0 when it has none yet and `listEndpoints` found no endpoint just
   * before: an endpoint created since then made the count itself, and this write is refused (as
   * it is when the count exists). True when the count is now 0 by this write.
   */
  async countNoEndpoints(workspaceId: string): Promise<boolean> {
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...keys.webhookCount(workspaceId), type: COUNT_TYPE, endpoints: 0 },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async recountEndpoints(workspaceId: string): Promise<{ before: number | null; after: number }> {
    const { doc, tableName } = this.table;
    const Key = keys.webhookCount(workspaceId);
    for (let attempt = 1; ; attempt++) {
      const stored = await doc.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: true }));
      const before = endpointCountOf(stored.Item);
      const changes = stored.Item?.changes as number | undefined;
      const after = (await this.listEndpoints(workspaceId)).length;
      try {
        // Written (even when it looks right) only if no create or delete came since the count was
        // read: each adds to `changes`, and the list may have missed its endpoint, or seen the
        // count as it was before a delete and a create. Else everything is read again.
        await doc.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...Key,
              type: COUNT_TYPE,
              endpoints: after,
              ...(changes === undefined ? {} : { changes }),
            },
            ConditionExpression:
              before === null
                ? 'attribute_not_exists(endpoints)'
                : changes === undefined
                  ? 'endpoints = :before AND attribute_not_exists(changes)'
                  : 'endpoints = :before AND changes = :changes',
            ...(before === null
              ? {}
              : {
                  ExpressionAttributeValues: {
                    ':before': before,
                    ...(changes === undefined ? {} : { ':changes': changes }),
                  },
                }),
          }),
        );
        return { before, after };
      } catch (error) {
        if (!isConditionFailure(error) || attempt >= 10) throw error;
      }
    }
  }

  async workspacesWithEndpoints(): Promise<string[]> {
    const found = new Set<string>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.table.doc.send(
        new ScanCommand({
          TableName: this.table.tableName,
          FilterExpression: '#type = :endpoint',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':endpoint': ENDPOINT_TYPE },
          ProjectionExpression: 'workspaceId',
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) found.add(item.workspaceId as string);
      start = page.LastEvaluatedKey;
    } while (start);
    return [...found].sort();
  }

  async createDelivery(delivery: Delivery): Promise<'created' | 'exists' | 'endpoint_unavailable'> {
    const { doc, tableName } = this.table;
    try {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: tableName,
                Key: keys.webhook(delivery.workspaceId, delivery.webhookId),
                ConditionExpression: 'attribute_exists(PK) AND enabled = :true',
                ExpressionAttributeValues: { ':true': true },
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: deliveryToItem(delivery),
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
          ],
        }),
      );
      return 'created';
    } catch (error) {
      const cancelled = transactionCancellation(error);
      if (cancelled?.reasons[0] === 'ConditionalCheckFailed') return 'endpoint_unavailable';
      if (cancelled?.reasons[1] === 'ConditionalCheckFailed') return 'exists';
      throw error;
    }
  }

  async getDelivery(deliveryId: string): Promise<Delivery | null> {
    const ids = parseDeliveryId(deliveryId);
    if (!ids) return null;
    const out = await this.table.doc.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.webhookDelivery(ids.webhookId, deliveryId),
        ConsistentRead: true,
      }),
    );
    return out.Item ? deliveryFromItem(out.Item) : null;
  }

  async claimAttempt(
    delivery: Delivery,
    attempt: number,
    inFlightUntil: string,
    now: string,
  ): Promise<boolean> {
    const due = keys.deliveryDueIndex(dueShard(delivery.deliveryId), inFlightUntil, delivery.deliveryId);
    const takeOver = attempt === delivery.attempt;
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.webhookDelivery(delivery.webhookId, delivery.deliveryId),
          UpdateExpression:
            'SET attempt = :attempt, inFlightUntil = :lease, firstAttemptAt = if_not_exists(firstAttemptAt, :now), GSI1PK = :gpk, GSI1SK = :gsk',
          ConditionExpression: takeOver
            ? '#state = :pending AND attempt = :attempt AND inFlightUntil = :previous'
            : '#state = :pending AND attempt = :previous AND attribute_not_exists(inFlightUntil)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':attempt': attempt,
            ':lease': inFlightUntil,
            ':now': now,
            ':gpk': due.GSI1PK,
            ':gsk': due.GSI1SK,
            ':pending': 'pending',
            ':previous': takeOver ? delivery.inFlightUntil : delivery.attempt,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async finishAttempt(
    delivery: Delivery,
    log: DeliveryAttempt,
    result: AttemptResult,
    workspaceId: string,
  ): Promise<boolean> {
    const { doc, tableName } = this.table;
    const state = result.kind === 'retry' ? 'pending' : result.kind;
    const values: Record<string, unknown> = {
      ':state': state,
      ':attempt': log.attempt,
      ':lease': delivery.inFlightUntil,
    };
    let update = 'SET #state = :state REMOVE inFlightUntil';
    if (result.kind === 'retry') {
      const due = keys.deliveryDueIndex(
        dueShard(delivery.deliveryId),
        result.nextAttemptAt,
        delivery.deliveryId,
      );
      update = 'SET #state = :state, nextAttemptAt = :next, GSI1SK = :gsk REMOVE inFlightUntil';
      values[':next'] = result.nextAttemptAt;
      values[':gsk'] = due.GSI1SK;
    } else {
      update = 'SET #state = :state REMOVE inFlightUntil, GSI1PK, GSI1SK';
    }
    const endpointKey = keys.webhook(workspaceId, delivery.webhookId);
    try {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: keys.webhookDelivery(delivery.webhookId, delivery.deliveryId),
                UpdateExpression: update,
                // Only the holder of this attempt's lease records it (a takeover changes the lease).
                ConditionExpression: 'attempt = :attempt AND inFlightUntil = :lease',
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: values,
              },
            },
            { Put: { TableName: tableName, Item: attemptToItem(log) } },
            ...(result.kind === 'succeeded'
              ? [
                  {
                    Update: {
                      TableName: tableName,
                      Key: endpointKey,
                      UpdateExpression: 'SET consecutiveFailures = :zero',
                      ConditionExpression: 'attribute_exists(PK)',
                      ExpressionAttributeValues: { ':zero': 0 },
                    },
                  },
                ]
              : result.kind === 'failed'
                ? [
                    {
                      Update: {
                        TableName: tableName,
                        Key: endpointKey,
                        UpdateExpression: 'ADD consecutiveFailures :one',
                        ConditionExpression: 'attribute_exists(PK)',
                        ExpressionAttributeValues: { ':one': 1 },
                      },
                    },
                  ]
                : []),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (transactionCancellation(error)?.reasons.includes('ConditionalCheckFailed')) return false;
      throw error;
    }
  }

  async disableIfFailing(
    workspaceId: string,
    webhookId: string,
    threshold: number,
    now: string,
  ): Promise<boolean> {
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.webhook(workspaceId, webhookId),
          UpdateExpression:
            'SET enabled = :false, disabledReason = :reason, disabledAt = :now, updatedAt = :now',
          ConditionExpression: 'enabled = :true AND consecutiveFailures >= :threshold',
          ExpressionAttributeValues: {
            ':false': false,
            ':true': true,
            ':reason': 'consecutive_failures',
            ':now': now,
            ':threshold': threshold,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async cancelDelivery(delivery: Delivery): Promise<void> {
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.webhookDelivery(delivery.webhookId, delivery.deliveryId),
          UpdateExpression: 'SET #state = :cancelled REMOVE inFlightUntil, GSI1PK, GSI1SK',
          ConditionExpression: '#state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':cancelled': 'cancelled', ':pending': 'pending' },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async listAttempts(
    webhookId: string,
    limit: number,
    after?: string,
  ): Promise<{ attempts: DeliveryAttempt[]; next: string | null }> {
    const pk = keys.webhookPartition(webhookId);
    const prefix = keys.webhookAttemptPrefix;
    const out = await this.table.doc.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: after
          ? 'PK = :pk AND SK BETWEEN :low AND :after'
          : 'PK = :pk AND begins_with(SK, :low)',
        ExpressionAttributeValues: { ':pk': pk, ':low': prefix, ...(after ? { ':after': after } : {}) },
        ScanIndexForward: false,
        // One more than asked tells whether another page exists.
        Limit: limit + 1 + (after ? 1 : 0),
      }),
    );
    let items = out.Items ?? [];
    // BETWEEN is inclusive: the cursor's own item was on the previous page.
    if (after) items = items.filter((item) => item.SK !== after);
    const page = items.slice(0, limit);
    const more = items.length > limit;
    return {
      attempts: page.map(attemptFromItem),
      next: more ? ((page.at(-1)?.SK as string | undefined) ?? null) : null,
    };
  }

  async overdueDeliveries(before: string, limit: number): Promise<Delivery[]> {
    const found: Delivery[] = [];
    for (let shard = 0; shard < DUE_SHARDS; shard++) {
      const out = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          IndexName: TABLE_KEYS.gsi1.name,
          KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
          ExpressionAttributeValues: { ':pk': keys.deliveryDuePartition(shard), ':before': before },
          Limit: limit,
        }),
      );
      found.push(...(out.Items ?? []).map(deliveryFromItem));
    }
    return found
      .sort((a, b) => (a.inFlightUntil ?? a.nextAttemptAt).localeCompare(b.inFlightUntil ?? b.nextAttemptAt))
      .slice(0, limit);
  }
}
