/** The metrics entities: per-channel trackers and readings beside the post, and the stats aggregates. */
import { createHash } from 'node:crypto';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { KeyMode } from '../../../domain/key-mode.ts';
import { PLATFORM_IDS } from '../../../domain/platforms/types.ts';
import type { MetricsStore, MetricsTracker, StatsCounters, StoredReading } from '../../../ports/metrics.ts';
import { METRIC_NAMES } from '../../../ports/network-client.ts';
import type { TrackingStart } from '../../../ports/posts.ts';
import {
  isConditionFailure,
  queryByPrefix,
  retryOnTransactionConflict,
  type TableRef,
  transactionCancellation,
} from './client.ts';
import { parseItem } from './item.ts';
import { type Key, keys, TABLE_KEYS } from './keys.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Shards of the due index, so no single index partition takes every tracker. */
export const METRICS_DUE_SHARDS = 4;

const shardOf = (postId: string, channelId: string): number =>
  (createHash('sha256').update(`${postId}/${channelId}`).digest()[0] as number) % METRICS_DUE_SHARDS;

const trackerItem = (t: MetricsTracker): Record<string, unknown> => ({
  ...keys.metricsTracker(t.postId, t.channelId),
  ...(t.nextAt ? keys.metricsDueIndex(shardOf(t.postId, t.channelId), t.nextAt, t.postId, t.channelId) : {}),
  type: 'metricsTracker',
  ...t,
});

const trackerSchema: z.ZodType<MetricsTracker> = z.object({
  postId: z.string(),
  channelId: z.string(),
  workspaceId: z.string(),
  mode: z.enum(['live', 'test']),
  platform: z.enum(PLATFORM_IDS),
  liveAt: z.string(),
  postLiveAt: z.string(),
  step: z.number().int(),
  nextAt: z.string().nullable(),
  known: z.partialRecord(z.enum(METRIC_NAMES), z.number()),
  latest: z.object({ at: z.string(), metrics: z.partialRecord(z.enum(METRIC_NAMES), z.number()) }).nullable(),
  readings: z.number().int(),
  missed: z.number().int(),
  skipped: z.number().int(),
});

/** A tracker is stored without what it does not have yet (no next reading, no reading yet): read as null and empty. */
const trackerDefaults = (fields: Record<string, unknown>) => ({
  nextAt: null,
  latest: null,
  known: {},
  ...fields,
});

/** A metrics tracker item as its record (its index keys and other attributes left out); `MalformedItemError` if it is not one. */
export const fromTrackerItem = (item: Record<string, unknown>): MetricsTracker =>
  parseItem('metricsTracker', trackerSchema, item, trackerDefaults);

const readingSchema: z.ZodType<StoredReading> = z.looseObject({
  postId: z.string(),
  channelId: z.string(),
  step: z.number().int(),
  at: z.string(),
  dueAt: z.string(),
  outcome: z.enum(['ok', 'missed', 'skipped']),
  metrics: z.partialRecord(z.enum(METRIC_NAMES), z.number()).optional(),
  blocks: z
    .array(z.object({ block: z.number().int(), metrics: z.partialRecord(z.enum(METRIC_NAMES), z.number()) }))
    .optional(),
  reason: z.string().optional(),
});

/** A stored reading item as its record; `MalformedItemError` if it is not one. */
export const fromReadingItem = (item: Record<string, unknown>): StoredReading =>
  parseItem('metricsReading', readingSchema, item);

/** Counters are stored as plain numeric attributes; everything else on an aggregate item is a key. */
const countersOf = (item: Record<string, unknown>): StatsCounters => {
  const counters: StatsCounters = {};
  for (const [name, value] of Object.entries(item)) {
    if (name === 'PK' || name === 'SK' || typeof value !== 'number') continue;
    counters[name] = value;
  }
  return counters;
};

/** `ADD` of every counter (negative values subtract). */
const addExpression = (deltas: StatsCounters) => {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const parts = Object.entries(deltas).map(([name, delta], i) => {
    names[`#c${i}`] = name;
    values[`:c${i}`] = delta;
    return `#c${i} :c${i}`;
  });
  return {
    UpdateExpression: `ADD ${parts.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

const day = (iso: string): string => iso.slice(0, 10);
const hour = (iso: string): string => iso.slice(0, 13);

/**
 * The stats items of one post's counters: its day and hour buckets and its own item. Every change
 * of a post's counters goes to all three in one write, so they never disagree.
 */
const statsKeys = (t: Pick<MetricsTracker, 'workspaceId' | 'mode' | 'postLiveAt' | 'postId'>): Key[] => [
  keys.statsDay(t.workspaceId, t.mode, day(t.postLiveAt)),
  keys.statsHour(t.workspaceId, t.mode, hour(t.postLiveAt)),
  keys.statsPost(t.workspaceId, t.mode, t.postLiveAt, t.postId),
];

/** The stats updates of one post's counters. */
const statsUpdates = (tableName: string, t: MetricsTracker, deltas: StatsCounters): TransactItem[] => {
  if (Object.keys(deltas).length === 0) return [];
  return statsKeys(t).map((Key) => ({ Update: { TableName: tableName, Key, ...addExpression(deltas) } }));
};

const countedMarker = (tableName: string, postId: string, platform: string | null): TransactItem => ({
  Put: {
    TableName: tableName,
    Item: { ...keys.metricsCounted(postId, platform), type: 'metricsCounted' },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});

const newTracker = (tableName: string, tracker: MetricsTracker): TransactItem => ({
  Put: { TableName: tableName, Item: trackerItem(tracker), ConditionExpression: 'attribute_not_exists(PK)' },
});

/**
 * The start of channels' tracking as items of the write that makes them live (all of one post),
 * for the common case that write knows: the post is counted when no other channel of it was live
 * (else its marker must exist), a platform when no other channel of the post on it was. Any refused
 * condition means the case was not the common one: the write goes again without these items and
 * `track` settles it (the same parts, each on its own condition).
 */
export const trackingItems = (tableName: string, starts: TrackingStart[]): TransactItem[] => {
  const first = starts[0];
  if (!first) return [];
  // One item per key: the post's marker once (written if any start counts the post, else checked),
  // each platform's marker once, and one update per stats item with every start's counts.
  const counting = starts.find((start) => start.countPost);
  const platforms = [...new Set(starts.filter((s) => s.countPlatform).map((s) => s.tracker.platform))];
  const stats = new Map<string, { Key: Key; deltas: StatsCounters }>();
  const add = (tracker: MetricsTracker, name: string) => {
    for (const Key of statsKeys(tracker)) {
      const entry = stats.get(`${Key.PK}\n${Key.SK}`) ?? { Key, deltas: {} };
      entry.deltas[name] = (entry.deltas[name] ?? 0) + 1;
      stats.set(`${Key.PK}\n${Key.SK}`, entry);
    }
  };
  if (counting) add(counting.tracker, 'posts');
  for (const platform of platforms) {
    const start = starts.find((s) => s.countPlatform && s.tracker.platform === platform) as TrackingStart;
    add(start.tracker, `${platform}:posts`);
  }
  return [
    counting
      ? countedMarker(tableName, first.tracker.postId, null)
      : {
          ConditionCheck: {
            TableName: tableName,
            Key: keys.metricsCounted(first.tracker.postId, null),
            ConditionExpression: 'attribute_exists(PK)',
          },
        },
    ...platforms.map((platform) => countedMarker(tableName, first.tracker.postId, platform)),
    ...starts.map((start) => newTracker(tableName, start.tracker)),
    ...[...stats.values()].map(({ Key, deltas }) => ({
      Update: { TableName: tableName, Key, ...addExpression(deltas) },
    })),
  ];
};

const isCancelledByCondition = (error: unknown): boolean =>
  transactionCancellation(error)?.reasons.includes('ConditionalCheckFailed') ?? false;

export class DynamoMetricsStore implements MetricsStore {
  constructor(private readonly table: TableRef) {}

  private statsUpdates(t: MetricsTracker, deltas: StatsCounters): TransactItem[] {
    return statsUpdates(this.table.tableName, t, deltas);
  }

  /**
   * Counts the post (once per post) and its platform (once per post and platform) in the stats,
   * and saves the tracker, in one transaction when nothing of it is done yet. Each count has its
   * marker; a part whose condition fails is already done (its marker or the tracker exists) and
   * the rest is written again without it. A channel that went live after another of the post
   * counts the post only if its marker is missing (checked in the same transaction), so the common
   * case is one write per channel.
   */
  async track(tracker: MetricsTracker): Promise<void> {
    const { tableName } = this.table;
    const marker = (platform: string | null) => countedMarker(tableName, tracker.postId, platform);
    interface Part {
      item: TransactItem;
      deltas: StatsCounters;
      /** What replaces the part when its condition fails (nothing: it is done). */
      failed: () => Part | null;
    }
    const countPost: Part = { item: marker(null), deltas: { posts: 1 }, failed: () => null };
    const first = tracker.liveAt === tracker.postLiveAt;
    let parts: Part[] = [
      first
        ? countPost
        : {
            item: {
              ConditionCheck: {
                TableName: tableName,
                Key: keys.metricsCounted(tracker.postId, null),
                ConditionExpression: 'attribute_exists(PK)',
              },
            },
            deltas: {},
            // Not counted yet after all: this channel counts it.
            failed: () => countPost,
          },
      { item: marker(tracker.platform), deltas: { [`${tracker.platform}:posts`]: 1 }, failed: () => null },
      { item: newTracker(tableName, tracker), deltas: {}, failed: () => null },
    ];
    // Each part changes at most twice (checked, then counted, then found counted).
    for (let round = 0; parts.length > 0 && round < 6; round++) {
      // One update per stats item, with every count of the parts left.
      const deltas: StatsCounters = Object.assign({}, ...parts.map((p) => p.deltas));
      const items = [...parts.map((p) => p.item), ...this.statsUpdates(tracker, deltas)];
      try {
        await retryOnTransactionConflict(() =>
          this.table.doc.send(new TransactWriteCommand({ TransactItems: items })),
        );
        return;
      } catch (error) {
        if (!isCancelledByCondition(error)) throw error;
        const reasons = transactionCancellation(error)?.reasons ?? [];
        parts = parts.flatMap((part, i) => {
          if (reasons[i] !== 'ConditionalCheckFailed') return [part];
          const next = part.failed();
          return next ? [next] : [];
        });
      }
    }
  }

  async getTracker(postId: string, channelId: string): Promise<MetricsTracker | null> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.metricsTracker(postId, channelId) }),
    );
    return out.Item ? fromTrackerItem(out.Item) : null;
  }

  async listTrackers(postId: string): Promise<MetricsTracker[]> {
    const items = await queryByPrefix(this.table, keys.post(postId).PK, keys.metricsTrackerPrefix);
    return items.map(fromTrackerItem);
  }

  async listReadings(postId: string): Promise<StoredReading[]> {
    const items = await queryByPrefix(this.table, keys.post(postId).PK, keys.metricsReadingPrefix);
    return items.map(fromReadingItem);
  }

  async due(now: string, limit: number): Promise<MetricsTracker[]> {
    const found: MetricsTracker[] = [];
    for (let shard = 0; shard < METRICS_DUE_SHARDS && found.length < limit; shard++) {
      const out = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          IndexName: TABLE_KEYS.gsi1.name,
          KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
          ExpressionAttributeValues: { ':pk': keys.metricsDuePartition(shard), ':now': `${now}#\uffff` },
          Limit: limit - found.length,
        }),
      );
      found.push(...(out.Items ?? []).map(fromTrackerItem));
    }
    return found;
  }

  lease(tracker: MetricsTracker, until: string): Promise<boolean> {
    return this.setNextAt(tracker, until);
  }

  reschedule(tracker: MetricsTracker, dueAt: string): Promise<boolean> {
    return this.setNextAt(tracker, dueAt);
  }

  async unfinished(
    cursor: string | null,
    limit: number,
  ): Promise<{ trackers: MetricsTracker[]; cursor: string | null }> {
    // The cursor names the shard and where its index query stopped.
    const from = cursor
      ? (JSON.parse(cursor) as { shard: number; key?: Record<string, unknown> })
      : { shard: 0 };
    for (let shard = from.shard; shard < METRICS_DUE_SHARDS; shard++) {
      const out = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          IndexName: TABLE_KEYS.gsi1.name,
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.metricsDuePartition(shard) },
          ...(shard === from.shard && from.key ? { ExclusiveStartKey: from.key } : {}),
          Limit: limit,
        }),
      );
      const trackers = (out.Items ?? []).map(fromTrackerItem);
      const next = out.LastEvaluatedKey
        ? { shard, key: out.LastEvaluatedKey }
        : shard + 1 < METRICS_DUE_SHARDS
          ? { shard: shard + 1 }
          : null;
      if (trackers.length > 0 || !next) return { trackers, cursor: next && JSON.stringify(next) };
    }
    return { trackers: [], cursor: null };
  }

  async cadenceScale(): Promise<number | null> {
    const out = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.metricsCadence() }),
    );
    const scale = out.Item?.timeScale;
    return typeof scale === 'number' ? scale : null;
  }

  async setCadenceScale(timeScale: number): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { ...keys.metricsCadence(), type: 'metricsCadence', timeScale },
      }),
    );
  }

  /** Sets when the tracker's current reading is next handed out, if it is still that reading. */
  private async setNextAt(tracker: MetricsTracker, nextAt: string): Promise<boolean> {
    const due = keys.metricsDueIndex(
      shardOf(tracker.postId, tracker.channelId),
      nextAt,
      tracker.postId,
      tracker.channelId,
    );
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.metricsTracker(tracker.postId, tracker.channelId),
          UpdateExpression: 'SET nextAt = :next, GSI1PK = :gpk, GSI1SK = :gsk',
          ConditionExpression: 'step = :step AND attribute_exists(GSI1PK)',
          ExpressionAttributeValues: {
            ':next': nextAt,
            ':gpk': due.GSI1PK,
            ':gsk': due.GSI1SK,
            ':step': tracker.step,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async record(
    tracker: MetricsTracker,
    reading: StoredReading,
    next: MetricsTracker,
    deltas: StatsCounters,
  ): Promise<boolean> {
    const { tableName } = this.table;
    try {
      await this.table.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: {
                  ...keys.metricsReading(reading.postId, reading.channelId, reading.step),
                  type: 'metricsReading',
                  ...reading,
                },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: trackerItem(next),
                ConditionExpression: 'step = :step',
                ExpressionAttributeValues: { ':step': tracker.step },
              },
            },
            ...this.statsUpdates(tracker, deltas),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isCancelledByCondition(error)) return false;
      throw error;
    }
  }

  async statsDays(workspaceId: string, mode: KeyMode, fromDay: string, toDay: string) {
    const items = await this.queryStats(
      keys.statsPartition(workspaceId, mode),
      keys.statsDaySortKey(fromDay),
      keys.statsDaySortKey(toDay),
    );
    return items.map(countersOf);
  }

  async statsHours(workspaceId: string, mode: KeyMode, fromHour: string, toHour: string) {
    const items = await this.queryStats(
      keys.statsPartition(workspaceId, mode),
      keys.statsHourSortKey(fromHour),
      keys.statsHourSortKey(toHour),
    );
    const prefix = keys.statsHourSortKey('').length;
    return items.map((item) => ({ hour: String(item.SK).slice(prefix), counters: countersOf(item) }));
  }

  async statsPosts(workspaceId: string, mode: KeyMode, from: string, to: string, limit?: number) {
    const items = await this.queryStats(
      keys.statsPartition(workspaceId, mode),
      keys.statsPostSortKey(from),
      `${keys.statsPostSortKey(to)}#\uffff`,
      limit,
    );
    return items.map(countersOf);
  }

  private async queryStats(
    pk: string,
    low: string,
    high: string,
    limit?: number,
  ): Promise<Record<string, unknown>[]> {
    const found: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
          ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
          ExclusiveStartKey: start,
          ...(limit !== undefined ? { Limit: limit - found.length } : {}),
        }),
      );
      found.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start && (limit === undefined || found.length < limit));
    return found;
  }

  async forgetPost(postId: string): Promise<void> {
    const trackers = await this.listTrackers(postId);
    const first = trackers[0];
    if (first) {
      const postKey = keys.statsPost(first.workspaceId, first.mode, first.postLiveAt, postId);
      const out = await this.table.doc.send(
        new GetCommand({ TableName: this.table.tableName, Key: postKey }),
      );
      if (out.Item) {
        const negated = Object.fromEntries(Object.entries(countersOf(out.Item)).map(([k, v]) => [k, -v]));
        // The post's own item goes in the same write, so a repeated forget subtracts nothing twice.
        await this.table.doc
          .send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: this.table.tableName,
                    Key: postKey,
                    ConditionExpression: 'attribute_exists(PK)',
                  },
                },
                // Its day and hour buckets (not its own item, deleted above).
                ...(Object.keys(negated).length
                  ? statsKeys(first)
                      .filter((Key) => Key.SK !== postKey.SK)
                      .map((Key) => ({
                        Update: { TableName: this.table.tableName, Key, ...addExpression(negated) },
                      }))
                  : []),
              ],
            }),
          )
          .catch((error: unknown) => {
            if (!isCancelledByCondition(error)) throw error;
          });
      }
    }
    const pk = keys.post(postId).PK;
    const items = [
      ...(await queryByPrefix(this.table, pk, keys.metricsTrackerPrefix)),
      ...(await queryByPrefix(this.table, pk, keys.metricsReadingPrefix)),
      ...(await queryByPrefix(this.table, pk, keys.metricsCountedPrefix)),
    ];
    for (let i = 0; i < items.length; i += 25) {
      await this.table.doc.send(
        new BatchWriteCommand({
          RequestItems: {
            [this.table.tableName]: items
              .slice(i, i + 25)
              .map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } })),
          },
        }),
      );
    }
  }
}
