import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '../../../domain/errors.ts';
import type { PostBlock, PostRecord } from '../../../domain/post.ts';
import type { KeyMode } from '../../../ports/api-keys.ts';
import type { OverduePost, OverduePosts } from '../../../ports/overdue-posts.ts';
import type {
  BlockActivity,
  BlockTimeline,
  PostListQuery,
  PostPage,
  PostStore,
  PostTimelines,
  PostWriteExtras,
  QuotaClaim,
} from '../../../ports/posts.ts';
import {
  type BlockClaim,
  ClaimTakenError,
  EndpointsAppearedError,
  type JobReads,
} from '../../../ports/publishing.ts';
import { type KeyCount, KeyCountRefusedError } from '../../../ports/rate-limiter.ts';
import { logger } from '../../../shared/powertools.ts';
import { jobChannelKeys, jobChannelsOf } from './channels.ts';
import { claimFromItem, settleUpdate } from './claims.ts';
import {
  batchGetAll,
  isConditionFailure,
  queryByPrefix,
  retryOnTransactionConflict,
  type TableRef,
  transactionCancellation,
} from './client.ts';
import { outboxItems } from './events.ts';
import { type Key, keys, TABLE_KEYS } from './keys.ts';
import { DynamoMetricsStore, trackingItems } from './metrics.ts';
import { overdueFromItem, postFromMainItem, type TextRef, textsFromChunkItem } from './post-item.ts';
import { keyCountItem } from './rate-limits.ts';
import { addPostsPublished, type TransactItem, takePostsCreated } from './usage.ts';

/** A post's main item stays well under DynamoDB's 400 KB; past this its texts move to chunk items. */
const MAIN_ITEM_BUDGET = 300 * 1024;
const CHUNK_BUDGET = 350 * 1024;

/** The time a post is listed and filtered by: its scheduledAt, else its creation time. */
export const listTime = (post: Pick<PostRecord, 'scheduledAt' | 'createdAt'>): string =>
  post.scheduledAt ?? post.createdAt;

/** Names of the index lists GET /posts reads, within one mode (see `inMode`). */
const lists = {
  all: 'all',
  status: (status: string) => `status:${status}`,
  tag: (tagId: string) => `tag:${tagId}`,
  tagStatus: (tagId: string, status: string) => `tag:${tagId}:status:${status}`,
};

/**
 * Live and sandbox posts are listed apart, so a key's page holds only posts of its mode and costs
 * the same whatever the other mode holds. Live lists keep the names they had before the split.
 */
const inMode = (mode: KeyMode, list: string) => (mode === 'live' ? list : `test:${list}`);

/** Which index lists answer a query's filters: statuses OR-ed, tags OR-ed, the two AND-ed. */
const listsFor = ({ statuses, tagIds }: Pick<PostListQuery, 'statuses' | 'tagIds'>): string[] => {
  if (tagIds.length === 0) return statuses.length ? statuses.map(lists.status) : [lists.all];
  return tagIds.flatMap((tag) =>
    statuses.length ? statuses.map((s) => lists.tagStatus(tag, s)) : [lists.tag(tag)],
  );
};

/** The lists a post belongs to, in its mode: all posts, its status, each tag, each tag with its status. */
export const postLists = (post: Pick<PostRecord, 'status' | 'tagIds' | 'mode'>): string[] =>
  [
    lists.all,
    lists.status(post.status),
    ...post.tagIds.flatMap((tag) => [lists.tag(tag), lists.tagStatus(tag, post.status)]),
  ].map((list) => inMode(post.mode, list));

const entryKeys = (post: PostRecord): Key[] =>
  postLists(post).map((list) => keys.postIndexEntry(post.workspaceId, list, listTime(post), post.postId));

/** Shards of the post due index, so one hot GSI partition does not cap how many posts publish at once. */
export const POST_DUE_SHARDS = 8;

const postDueShard = (postId: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < postId.length; i++) hash = Math.imul(hash ^ postId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % POST_DUE_SHARDS;
};

/** When a post should next show progress: its last write while publishing, its time while scheduled. */
const dueAtOf = (post: PostRecord): string | null =>
  post.status === 'publishing' ? post.updatedAt : post.status === 'scheduled' ? post.scheduledAt : null;

/** The post's entry in the due index (none once it is a draft or done: the index is sparse). */
const dueIndexOf = (post: PostRecord) => {
  const dueAt = dueAtOf(post);
  return dueAt === null ? {} : keys.postDueIndex(postDueShard(post.postId), dueAt, post.postId);
};

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The main item, plus chunk items holding the block texts when they would make it too large. */
export const postToItems = (post: PostRecord) => {
  // A full put: the due-index keys are those of this version, or none.
  const { GSI1PK: _pk, GSI1SK: _sk, ...record } = post as PostRecord & { GSI1PK?: string; GSI1SK?: string };
  const main: Record<string, unknown> = {
    ...keys.post(post.postId),
    type: 'Post',
    ...record,
    ...dueIndexOf(post),
    textChunks: 0,
  };
  if (size(main) <= MAIN_ITEM_BUDGET) return { main, chunks: [] as Record<string, unknown>[] };
  const chunks: TextRef[][] = [[]];
  let chunkSize = 0;
  for (const [c, channel] of post.channels.entries()) {
    for (const [b, block] of channel.blocks.entries()) {
      const ref = { c, b, content: block.content };
      const refSize = size(ref);
      if (chunkSize + refSize > CHUNK_BUDGET && (chunks.at(-1) as TextRef[]).length > 0) {
        chunks.push([]);
        chunkSize = 0;
      }
      (chunks.at(-1) as TextRef[]).push(ref);
      chunkSize += refSize;
    }
  }
  main.channels = post.channels.map((channel) => ({
    ...channel,
    blocks: channel.blocks.map((block) => ({ ...block, content: '' })),
  }));
  main.textChunks = chunks.length;
  return {
    main,
    chunks: chunks.map((texts, i) => ({ ...keys.postTextChunk(post.postId, i), type: 'PostText', texts })),
  };
};

export const postFromItems = (
  main: Record<string, unknown>,
  chunks: Record<string, unknown>[],
): PostRecord => {
  const post = postFromMainItem(main);
  for (const chunk of chunks) {
    for (const ref of textsFromChunkItem(chunk)) {
      const block = post.channels[ref.c]?.blocks[ref.b] as PostBlock | undefined;
      if (block) block.content = ref.content;
    }
  }
  return post;
};

const put = (tableName: string, item: Record<string, unknown>, condition?: string): TransactItem => ({
  Put: { TableName: tableName, Item: item, ...(condition ? { ConditionExpression: condition } : {}) },
});
const del = (tableName: string, key: Key): TransactItem => ({ Delete: { TableName: tableName, Key: key } });

const versionCondition = (
  tableName: string,
  post: PostRecord,
  action: 'put' | 'delete',
  item?: Record<string, unknown>,
) =>
  action === 'put'
    ? {
        Put: {
          TableName: tableName,
          Item: item as Record<string, unknown>,
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': post.version },
        },
      }
    : {
        Delete: {
          TableName: tableName,
          Key: keys.post(post.postId),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': post.version },
        },
      };

const sameKey = (a: Key, b: Key) => a.PK === b.PK && a.SK === b.SK;
const chunkKeys = (post: PostRecord, count: number) =>
  Array.from({ length: count }, (_, i) => keys.postTextChunk(post.postId, i));

/** Index-entry bounds of a page: inclusive time range, exclusive continuation point. */
const keyCondition = (query: PostListQuery) => {
  const values: Record<string, string> = {};
  const upper = query.after ?? (query.to ? `${query.to}#\uffff` : undefined);
  const lower = query.from ? `${query.from}#` : undefined;
  let expression = 'PK = :pk';
  if (upper !== undefined && lower !== undefined) {
    expression += ' AND SK BETWEEN :lower AND :upper';
    Object.assign(values, { ':lower': lower, ':upper': upper });
  } else if (upper !== undefined) {
    expression += query.after ? ' AND SK < :upper' : ' AND SK <= :upper';
    values[':upper'] = upper;
  } else if (lower !== undefined) {
    expression += ' AND SK >= :lower';
    values[':lower'] = lower;
  }
  return { expression, values };
};

/** A tracking start written with a post change found its case was not the common one. */
class TrackingRefusedError extends Error {
  constructor() {
    super('The metrics tracking start was refused');
    this.name = 'TrackingRefusedError';
  }
}

export class DynamoPostStore implements PostStore, OverduePosts, PostTimelines {
  constructor(private readonly table: TableRef) {}

  async create(post: PostRecord, quota: QuotaClaim, keyCount?: KeyCount): Promise<void> {
    const { tableName } = this.table;
    const { main, chunks } = postToItems(post);
    const quotaItems = quota.count
      ? [takePostsCreated(tableName, quota.accountId, quota.period, quota.limit)]
      : [];
    // The quota's and the key's parts last, where a refusal is looked for.
    const items: TransactItem[] = [
      put(tableName, main, 'attribute_not_exists(PK)'),
      ...chunks.map((chunk) => put(tableName, chunk)),
      ...entryKeys(post).map((key) =>
        put(tableName, { ...key, type: 'PostIndexEntry', postId: post.postId }),
      ),
      ...quotaItems,
      ...(keyCount ? [keyCountItem(tableName, keyCount)] : []),
    ];
    try {
      await retryOnTransactionConflict(() =>
        this.table.doc.send(new TransactWriteCommand({ TransactItems: items })),
      );
    } catch (error) {
      const reasons = transactionCancellation(error)?.reasons;
      const refused = (index: number) => reasons?.[index] === 'ConditionalCheckFailed';
      // The key's refusal first: the request is then counted the usual way and made anew without
      // the key's part. So is a transaction that kept colliding (its retries spent): the key's
      // item, hot under one key's concurrent requests, may be why.
      if (keyCount && (refused(items.length - 1) || reasons?.includes('TransactionConflict'))) {
        throw new KeyCountRefusedError();
      }
      if (quota.count && refused(items.length - 1 - (keyCount ? 1 : 0))) {
        throw new ApiError(
          'quota_exceeded',
          `The plan allows ${quota.limit} posts per month and they are used up; the allowance resets at the start of next month (UTC).`,
        );
      }
      throw error;
    }
    if (keyCount) keyCount.counted = true;
  }

  async get(postId: string): Promise<PostRecord | null> {
    return (await this.readPartition(postId)).post;
  }

  async getWithActivity(postId: string): Promise<{ post: PostRecord | null; activity: BlockActivity[] }> {
    const { post, claims } = await this.readPartition(postId);
    const activity = claims.map(
      (claim): BlockActivity => ({
        channelId: claim.channelId,
        block: claim.block,
        state: claim.state,
        ...(claim.firstSentAt !== undefined ? { firstSentAt: claim.firstSentAt } : {}),
        ...(claim.nextCheckAt !== undefined ? { nextCheckAt: claim.nextCheckAt } : {}),
        inProgress: claim.progress !== undefined && claim.progress !== null,
      }),
    );
    return { post, activity };
  }

  async getTimeline(postId: string): Promise<{ post: PostRecord | null; blocks: BlockTimeline[] }> {
    const { post, claims } = await this.readPartition(postId);
    const blocks = claims.map(
      (claim): BlockTimeline => ({
        channelId: claim.channelId,
        block: claim.block,
        events: claim.timeline ?? [],
        dropped: claim.timelineDropped ?? 0,
      }),
    );
    return { post, blocks };
  }

  /** The post's partition in one Query: the post, its text chunks and its blocks' claims. */
  private async readPartition(postId: string): Promise<{ post: PostRecord | null; claims: BlockClaim[] }> {
    const out = await this.table.doc.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.post(postId).PK },
        ConsistentRead: true,
      }),
    );
    const items = out.Items ?? [];
    const main = items.find((item) => item.SK === 'POST');
    if (!main) return { post: null, claims: [] };
    let chunks = items.filter((item) => item.type === 'PostText');
    if (out.LastEvaluatedKey && chunks.length < Number(main.textChunks ?? 0)) {
      const { PK, SKPrefix } = keys.postTextChunkPrefix(postId);
      chunks = await queryByPrefix(this.table, PK, SKPrefix);
    }
    // The blocks' claims come in the same page (`CLAIM#…` sorts before `POST`).
    const claims = items.filter((item) => item.type === 'BlockClaim').map(claimFromItem);
    return { post: postFromItems(main, chunks), claims };
  }

  async getForJob(postId: string, reads: JobReads) {
    const postKey = keys.post(postId);
    const items = await batchGetAll(
      this.table,
      [postKey, ...jobChannelKeys(reads.workspaceId, reads.channelIds)],
      true,
    );
    const main = items.find((item) => item.PK === postKey.PK && item.SK === postKey.SK);
    // A post whose texts overflowed into chunks is read whole, as `get` reads it.
    const post = !main
      ? null
      : Number(main.textChunks ?? 0) > 0
        ? await this.get(postId)
        : postFromItems(main, []);
    return { post, ...jobChannelsOf(reads.workspaceId, items) };
  }

  async replace(previous: PostRecord, next: PostRecord, extras: PostWriteExtras = {}): Promise<void> {
    const { tableName } = this.table;
    const { main, chunks } = postToItems(next);
    const oldEntries = entryKeys(previous);
    const newEntries = entryKeys(next);
    const oldChunks = chunkKeys(previous, previous.textChunks ?? 0);
    const settles = extras.settleClaims ?? [];
    const outbox = outboxItems(tableName, extras.events ?? [], extras.outbox);
    const items: TransactItem[] = [
      versionCondition(tableName, previous, 'put', main),
      // Right after the post, where `write` looks for their refusal.
      ...settles.map(
        ({ claim, remote }) => ({ Update: settleUpdate(tableName, claim, 'sent', remote) }) as TransactItem,
      ),
      ...chunks.map((chunk) => put(tableName, chunk)),
      ...oldChunks.slice(chunks.length).map((key) => del(tableName, key)),
      ...oldEntries
        .filter((key) => !newEntries.some((k) => sameKey(k, key)))
        .map((key) => del(tableName, key)),
      ...newEntries
        .filter((key) => !oldEntries.some((k) => sameKey(k, key)))
        .map((key) => put(tableName, { ...key, type: 'PostIndexEntry', postId: next.postId })),
      ...(extras.countPublished
        ? [addPostsPublished(tableName, extras.countPublished.accountId, extras.countPublished.period)]
        : []),
      // Last, where `write` looks for the refusal of its check.
      ...outbox.items,
    ];
    const claims = settles.length;
    const checkAt = outbox.checks ? items.length - 1 : undefined;
    const starts = extras.startTracking ?? [];
    if (starts.length === 0) {
      await this.write(items, { claims, checkAt });
      return;
    }
    const tracking = trackingItems(tableName, starts);
    try {
      await this.write([...items, ...tracking], { claims, checkAt, trackingFrom: items.length });
      return;
    } catch (error) {
      if (!(error instanceof TrackingRefusedError)) throw error;
    }
    // Not the common case after all: the change goes alone, then each tracking on its own.
    await this.write(items, { claims, checkAt });
    for (const { tracker } of starts) {
      try {
        await new DynamoMetricsStore(this.table).track(tracker);
      } catch (error) {
        logger.error('Could not start metrics readings', {
          postId: tracker.postId,
          channelId: tracker.channelId,
          error: error as Error,
        });
      }
    }
  }

  async delete(post: PostRecord): Promise<void> {
    const { tableName } = this.table;
    const stored = post.textChunks ?? 0;
    const items: TransactItem[] = [
      versionCondition(tableName, post, 'delete'),
      ...chunkKeys(post, stored).map((key) => del(tableName, key)),
      ...entryKeys(post).map((key) => del(tableName, key)),
    ];
    await this.write(items);
  }

  /**
   * `claims`: how many claims' settles follow the post's item (the first), whose refusal means a
   * claim was taken over. `checkAt`: the index of the outbox's check that the workspace has no webhook endpoint
   * (its refusal throws `EndpointsAppearedError`). `trackingFrom`: where a tracking start's items
   * begin (a refusal among them alone throws `TrackingRefusedError`).
   */
  private async write(
    items: TransactItem[],
    { claims = 0, checkAt, trackingFrom }: { claims?: number; checkAt?: number; trackingFrom?: number } = {},
  ): Promise<void> {
    try {
      await retryOnTransactionConflict(() =>
        this.table.doc.send(new TransactWriteCommand({ TransactItems: items })),
      );
    } catch (error) {
      const reasons = transactionCancellation(error)?.reasons;
      if (reasons?.slice(1, 1 + claims).includes('ConditionalCheckFailed')) throw new ClaimTakenError();
      if (reasons?.[0] === 'ConditionalCheckFailed') {
        throw new ApiError('conflict', 'The post was changed by another request; read it again and retry.');
      }
      if (checkAt !== undefined && reasons?.[checkAt] === 'ConditionalCheckFailed')
        throw new EndpointsAppearedError();
      if (
        trackingFrom !== undefined &&
        reasons?.some((reason, i) => i >= trackingFrom && reason === 'ConditionalCheckFailed')
      )
        throw new TrackingRefusedError();
      throw error;
    }
  }

  async list(query: PostListQuery): Promise<PostPage> {
    const { expression, values } = keyCondition(query);
    const pages = await Promise.all(
      listsFor(query).map((list) =>
        this.table.doc.send(
          new QueryCommand({
            TableName: this.table.tableName,
            KeyConditionExpression: expression,
            ExpressionAttributeValues: {
              ...values,
              ':pk': keys.postIndexPartition(query.workspaceId, inMode(query.mode, list)),
            },
            ScanIndexForward: false,
            // One more than a page tells whether another follows; one more again covers the
            // continuation point itself, which BETWEEN includes.
            Limit: query.limit + 2,
            ProjectionExpression: 'SK, postId',
          }),
        ),
      ),
    );
    const seen = new Map<string, string>();
    for (const page of pages)
      for (const item of page.Items ?? []) {
        const sk = item.SK as string;
        // BETWEEN includes the continuation point itself; it was on the previous page.
        if (query.after === undefined || sk < query.after) seen.set(sk, item.postId as string);
      }
    const ordered = [...seen.entries()].sort((a, b) => (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0));
    const pageEntries = ordered.slice(0, query.limit);
    const next = ordered.length > query.limit ? (pageEntries.at(-1)?.[0] ?? null) : null;
    // Sandbox posts written before the lists were split by mode still have entries in live lists.
    const posts = (await this.batchGet(pageEntries.map(([, postId]) => postId))).filter(
      (post) => post.mode === query.mode,
    );
    return { posts, next };
  }

  async overdue(before: string, limit: number): Promise<OverduePost[]> {
    const found: OverduePost[] = [];
    for (let shard = 0; shard < POST_DUE_SHARDS; shard++) {
      let start: Record<string, unknown> | undefined;
      let taken = 0;
      do {
        const out = await this.table.doc.send(
          new QueryCommand({
            TableName: this.table.tableName,
            IndexName: TABLE_KEYS.gsi1.name,
            KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
            ExpressionAttributeValues: { ':pk': keys.postDuePartition(shard), ':before': before },
            ExpressionAttributeNames: { '#status': 'status', '#round': 'round' },
            ProjectionExpression: 'postId, #status, version, #round, scheduledAt, scheduleName, GSI1SK',
            ExclusiveStartKey: start,
            Limit: limit,
          }),
        );
        for (const item of out.Items ?? []) found.push(overdueFromItem(item));
        taken += out.Items?.length ?? 0;
        start = out.LastEvaluatedKey;
      } while (start && taken < limit);
    }
    return found.sort((a, b) => a.dueAt.localeCompare(b.dueAt)).slice(0, limit);
  }

  async postpone(post: OverduePost, dueAt: string): Promise<boolean> {
    try {
      // Only the index entry moves; the post itself (and its version) stays as it is.
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.post(post.postId),
          UpdateExpression: 'SET GSI1SK = :due',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: {
            ':due': keys.postDueIndex(postDueShard(post.postId), dueAt, post.postId).GSI1SK,
            ':version': post.version,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async batchGet(postIds: string[]): Promise<PostRecord[]> {
    const items = await batchGetAll(
      this.table,
      postIds.map((id) => keys.post(id)),
    );
    const found = new Map(items.map((item) => [item.postId as string, item]));
    const posts: PostRecord[] = [];
    for (const postId of postIds) {
      const main = found.get(postId);
      // An entry whose post vanished (deleted between the two reads) is skipped.
      if (!main) continue;
      if (Number(main.textChunks ?? 0) > 0) {
        const full = await this.get(postId);
        if (full) posts.push(full);
      } else posts.push(postFromItems(main, []));
    }
    return posts;
  }
}
