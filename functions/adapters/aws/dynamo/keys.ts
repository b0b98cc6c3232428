/**
 * The single table's key layout. Every PK/SK/GSI string is built here and nowhere else.
 *
 * Attributes: PK, SK (primary key); GSI1PK/GSI1SK and GSI2PK/GSI2SK (two overloaded indexes,
 * projection ALL); `expiresAt` (TTL, epoch seconds) on short-lived items.
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  gsi1: { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  gsi2: { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ttlAttribute: 'expiresAt',
} as const;

export interface Key {
  PK: string;
  SK: string;
}

export const keys = {
  account: (accountId: string): Key => ({ PK: `ACCOUNT#${accountId}`, SK: 'ACCOUNT' }),
  /** Workspaces of an account are listed under the account's partition. */
  workspace: (accountId: string, workspaceId: string): Key => ({
    PK: `ACCOUNT#${accountId}`,
    SK: `WORKSPACE#${workspaceId}`,
  }),
  /** A person who signs in to the dashboard, by the user pool's `sub`; names its one account. */
  user: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'USER' }),
  /** An API key is found by the SHA-256 of its secret; the secret itself is never stored. */
  apiKey: (secretHash: string): Key => ({ PK: `APIKEY#${secretHash}`, SK: 'APIKEY' }),
  /**
   * A key is also in GSI1 under its workspace's key list, sorted by creation time then id, so the
   * dashboard lists (newest first) and finds a workspace's keys by id without knowing their hashes.
   */
  apiKeyWorkspaceIndex: (workspaceId: string, createdAt: string, keyId: string) => ({
    GSI1PK: `WORKSPACE#${workspaceId}#KEYS`,
    GSI1SK: `${createdAt}#${keyId}`,
  }),
  apiKeyWorkspacePartition: (workspaceId: string): string => `WORKSPACE#${workspaceId}#KEYS`,
  channel: (workspaceId: string, channelId: string): Key => ({
    PK: `WORKSPACE#${workspaceId}`,
    SK: `CHANNEL#${channelId}`,
  }),
  channelPrefix: (workspaceId: string) => ({ PK: `WORKSPACE#${workspaceId}`, SKPrefix: 'CHANNEL#' }),
  /** Guards one channel per workspace, platform and remote account (a reconnect finds the channel here). */
  channelRemote: (workspaceId: string, platform: string, remoteAccountId: string): Key => ({
    PK: `WORKSPACE#${workspaceId}`,
    SK: `CHANNELREMOTE#${platform}#${remoteAccountId}`,
  }),
  /**
   * A channel whose long-lived tokens must be extended before they lapse is also in GSI2 under
   * `TOKEN_REFRESH`, sorted by when the proactive sweep should refresh it (a sparse index).
   */
  channelRefreshIndex: (dueAt: string, workspaceId: string, channelId: string) => ({
    GSI2PK: 'TOKEN_REFRESH',
    GSI2SK: `${dueAt}#${workspaceId}#${channelId}`,
  }),
  channelRefreshPartition: 'TOKEN_REFRESH',
  /**
   * A grant several channels share (the boards of one Pinterest account), beside its workspace's
   * channels; it names them in `channelIds`, and each names it in `grantId`.
   */
  grant: (workspaceId: string, grantId: string): Key => ({
    PK: `WORKSPACE#${workspaceId}`,
    SK: `GRANT#${grantId}`,
  }),
  /** A shared grant due for the proactive refresh, in the same sparse index as the channels. */
  grantRefreshIndex: (dueAt: string, workspaceId: string, grantId: string) => ({
    GSI2PK: 'TOKEN_REFRESH',
    GSI2SK: `${dueAt}#${workspaceId}#${grantId}`,
  }),
  /** A connect flow's state, found by the SHA-256 of the `state` value (the value itself is never stored). */
  connectState: (stateHash: string): Key => ({ PK: `CONNECT#${stateHash}`, SK: 'CONNECT' }),
  tag: (workspaceId: string, tagId: string): Key => ({ PK: `WORKSPACE#${workspaceId}`, SK: `TAG#${tagId}` }),
  tagPrefix: (workspaceId: string) => ({ PK: `WORKSPACE#${workspaceId}`, SKPrefix: 'TAG#' }),
  /** Guards tag-name uniqueness inside a workspace (case-insensitive). */
  tagName: (workspaceId: string, normalisedName: string): Key => ({
    PK: `WORKSPACE#${workspaceId}`,
    SK: `TAGNAME#${normalisedName}`,
  }),
  /** One counter per key (or per client address for unauthenticated calls) per minute window. */
  rateWindow: (subject: string, windowStartSeconds: number): Key => ({
    PK: `RATE#${subject}`,
    SK: `WINDOW#${windowStartSeconds}`,
  }),
  /** Monthly usage counters of an account; `period` is `YYYY-MM`. */
  usagePeriod: (accountId: string, period: string): Key => ({
    PK: `ACCOUNT#${accountId}`,
    SK: `USAGE#${period}`,
  }),
  /** A post's main item; its partition also holds the post's text chunks when the text is large. */
  post: (postId: string): Key => ({ PK: `POST#${postId}`, SK: 'POST' }),
  /** Overflow item holding the text of some blocks when the whole post would not fit in one item. */
  postTextChunk: (postId: string, index: number): Key => ({
    PK: `POST#${postId}`,
    SK: `TEXT#${String(index).padStart(3, '0')}`,
  }),
  postTextChunkPrefix: (postId: string) => ({ PK: `POST#${postId}`, SKPrefix: 'TEXT#' }),
  /**
   * A list-index entry: one per post and per list it belongs to (all, per status, per tag, per tag
   * and status), sorted by the post's list time then id, so GET /posts is a Query per list.
   */
  postIndexEntry: (workspaceId: string, list: string, listTime: string, postId: string): Key => ({
    PK: `WORKSPACE#${workspaceId}#POSTS#${list}`,
    SK: `${listTime}#${postId}`,
  }),
  postIndexPartition: (workspaceId: string, list: string): string => `WORKSPACE#${workspaceId}#POSTS#${list}`,
  /** The claim on one block of one channel of a post (lives beside the post, goes with it). */
  blockClaim: (postId: string, channelId: string, block: number): Key => ({
    PK: `POST#${postId}`,
    SK: `CLAIM#${channelId}#${String(block).padStart(3, '0')}`,
  }),
  /** A reply Herald sent to a comment under a post (lives beside the post). */
  reply: (postId: string, replyId: string): Key => ({ PK: `POST#${postId}`, SK: `REPLY#${replyId}` }),
  replyPrefix: (postId: string) => ({ PK: `POST#${postId}`, SKPrefix: 'REPLY#' }),
  /**
   * Marks a comment under a post as announced (`comment.received`), by a digest of the network's id:
   * a network id can be long, a sort key may not be.
   */
  commentAnnounced: (postId: string, channelId: string, remoteIdDigest: string): Key => ({
    PK: `POST#${postId}`,
    SK: `COMMENTSEEN#${channelId}#${remoteIdDigest}`,
  }),
  /** An outbox event; while not yet handed to the event queue it is also in GSI1 `OUTBOX`, by time. */
  event: (eventId: string): Key => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' }),
  eventPendingIndex: (createdAt: string, eventId: string) => ({
    GSI1PK: 'OUTBOX',
    GSI1SK: `${createdAt}#${eventId}`,
  }),
  /** A webhook endpoint, listed under its workspace (the dispatcher queries them by workspace). */
  webhook: (workspaceId: string, webhookId: string): Key => ({
    PK: `WORKSPACE#${workspaceId}`,
    SK: `WEBHOOK#${webhookId}`,
  }),
  webhookPrefix: (workspaceId: string) => ({ PK: `WORKSPACE#${workspaceId}`, SKPrefix: 'WEBHOOK#' }),
  /**
   * How many webhook endpoints the workspace has (`endpoints`), kept by the transactions that
   * create and delete them; absent: never counted (workspaces and endpoints made before the count).
   * Next to the channels, so a publish job's read of its channels fetches it in the same request.
   */
  webhookCount: (workspaceId: string): Key => ({ PK: `WORKSPACE#${workspaceId}`, SK: 'WEBHOOKCOUNT' }),
  /** An endpoint's own partition: its deliveries and attempt log, deleted with it. */
  webhookPartition: (webhookId: string): string => `WEBHOOK#${webhookId}`,
  webhookDelivery: (webhookId: string, deliveryId: string): Key => ({
    PK: `WEBHOOK#${webhookId}`,
    SK: `DELIVERY#${deliveryId}`,
  }),
  /** One entry of the deliveries log, sorted by time (newest first when read backwards). */
  webhookAttempt: (webhookId: string, attemptedAt: string, deliveryId: string, attempt: number): Key => ({
    PK: `WEBHOOK#${webhookId}`,
    SK: `ATTEMPT#${attemptedAt}#${deliveryId}#${String(attempt).padStart(3, '0')}`,
  }),
  webhookAttemptPrefix: 'ATTEMPT#',
  /**
   * While a delivery is pending it is also in GSI1 under one of a few shards of `DELIVERY_DUE`,
   * sorted by when it is next due (or when its running attempt's lease ends), for the sweeper.
   */
  deliveryDueIndex: (shard: number, dueAt: string, deliveryId: string) => ({
    GSI1PK: `DELIVERY_DUE#${shard}`,
    GSI1SK: `${dueAt}#${deliveryId}`,
  }),
  deliveryDuePartition: (shard: number): string => `DELIVERY_DUE#${shard}`,
  media: (workspaceId: string, mediaId: string): Key => ({
    PK: `WORKSPACE#${workspaceId}`,
    SK: `MEDIA#${mediaId}`,
  }),
  /**
   * A ready media file is also in GSI1 under its workspace's library, newest first by the time it
   * entered the library; pending uploads have no GSI1 keys (a sparse index), so they are not listed.
   */
  mediaLibraryIndex: (workspaceId: string, createdAt: string, mediaId: string) => ({
    GSI1PK: `WORKSPACE#${workspaceId}#MEDIA`,
    GSI1SK: `${createdAt}#${mediaId}`,
  }),
  mediaLibraryPartition: (workspaceId: string): string => `WORKSPACE#${workspaceId}#MEDIA`,
  /**
   * While a post is publishing or scheduled it is also in GSI1 under one of a few shards of
   * `POST_DUE`, sorted by when it should next show progress (its last write while publishing, its
   * time while scheduled), so the post sweep finds stuck posts with a Query, never a Scan.
   */
  postDueIndex: (shard: number, dueAt: string, postId: string) => ({
    GSI1PK: `POST_DUE#${shard}`,
    GSI1SK: `${dueAt}#${postId}`,
  }),
  postDuePartition: (shard: number): string => `POST_DUE#${shard}`,
  /** Metrics collection state of one live channel of a post (lives beside the post). */
  metricsTracker: (postId: string, channelId: string): Key => ({
    PK: `POST#${postId}`,
    SK: `METRICS#${channelId}`,
  }),
  metricsTrackerPrefix: 'METRICS#',
  /** One reading (or a missed/skipped one) of a channel's metrics, in cadence order. */
  metricsReading: (postId: string, channelId: string, step: number): Key => ({
    PK: `POST#${postId}`,
    SK: `READING#${channelId}#${String(step).padStart(3, '0')}`,
  }),
  metricsReadingPrefix: 'READING#',
  /** Marks that a post (or a post on one platform) already counts in the stats aggregates. */
  metricsCounted: (postId: string, platform: string | null): Key => ({
    PK: `POST#${postId}`,
    SK: platform ? `STATSCOUNTED#${platform}` : 'STATSCOUNTED',
  }),
  metricsCountedPrefix: 'STATSCOUNTED',
  /**
   * While a channel still has readings to take its tracker is also in GSI1 under one of a few
   * shards of `METRICS_DUE`, sorted by when its next reading is due (sparse: finished trackers leave).
   */
  metricsDueIndex: (shard: number, dueAt: string, postId: string, channelId: string) => ({
    GSI1PK: `METRICS_DUE#${shard}`,
    GSI1SK: `${dueAt}#${postId}#${channelId}`,
  }),
  metricsDuePartition: (shard: number): string => `METRICS_DUE#${shard}`,
  /** The time scale the trackers' due times were computed with (one item per table). */
  metricsCadence: (): Key => ({ PK: 'METRICS_CADENCE', SK: 'METRICS_CADENCE' }),
  /** The stats aggregates of a workspace and key mode: day and hour buckets and one item per post. */
  statsPartition: (workspaceId: string, mode: string): string => `WORKSPACE#${workspaceId}#STATS#${mode}`,
  /** Totals of the posts that went live on one UTC day (`YYYY-MM-DD`). */
  statsDay: (workspaceId: string, mode: string, day: string): Key => ({
    PK: `WORKSPACE#${workspaceId}#STATS#${mode}`,
    SK: `DAY#${day}`,
  }),
  statsDaySortKey: (day: string): string => `DAY#${day}`,
  /** Totals of the posts that went live in one UTC hour (`YYYY-MM-DDTHH`), beside the day's. */
  statsHour: (workspaceId: string, mode: string, hour: string): Key => ({
    PK: `WORKSPACE#${workspaceId}#STATS#${mode}`,
    SK: `HOUR#${hour}`,
  }),
  statsHourSortKey: (hour: string): string => `HOUR#${hour}`,
  /** Totals of one post, sorted by when it went live (for ranges that cut a day). */
  statsPost: (workspaceId: string, mode: string, liveAt: string, postId: string): Key => ({
    PK: `WORKSPACE#${workspaceId}#STATS#${mode}`,
    SK: `POST#${liveAt}#${postId}`,
  }),
  statsPostSortKey: (liveAt: string): string => `POST#${liveAt}`,
  /** Idempotency records (Powertools persistence layer): one static partition, the hashed key as sort key. */
  idempotencyPartition: 'IDEMPOTENCY',
  /** Local scheduler (the AWS runtime uses EventBridge Scheduler instead): one item per schedule. */
  schedule: (name: string): Key => ({ PK: `SCHEDULE#${name}`, SK: 'SCHEDULE' }),
  /** Due-time index entry of the local scheduler: GSI1 partition of all schedules, sorted by time. */
  scheduleDueIndex: (fireAtIso: string, name: string) => ({
    GSI1PK: 'SCHEDULES',
    GSI1SK: `${fireAtIso}#${name}`,
  }),
};
