import type { PlatformId } from '../domain/platforms/types.ts';
import type { OutboxEvent } from './publishing.ts';

/** Whether a channel can post: `needs_reconnect` after the network refused its token. */
export type ChannelConnection = 'connected' | 'needs_reconnect';
/** Whether the account may post threads (spec 2.4 `continuationStatus`). */
export type ContinuationStatus = 'available' | 'unsupported' | 'missing_permission' | 'needs_reconnect';
/** Whether a live post can be edited or removed remotely (spec 2.4 `manageStatus`). */
export type ManageStatus = 'available' | 'unsupported' | 'missing_permission' | 'needs_reconnect';
/** Whether the channel reports metrics (spec 2.4 `metricsStatus`). */
export type MetricsStatus = 'available' | 'unsupported' | 'missing_permission' | 'needs_reconnect';

export interface ChannelRecord {
  channelId: string;
  accountId: string;
  workspaceId: string;
  platform: PlatformId;
  name: string;
  /** The network-side account id or handle this channel posts as. */
  remoteAccountId: string;
  connection: ChannelConnection;
  /** Set when the account lacks the permission to post threads even though the network has them. */
  threadsPermitted: boolean;
  /**
   * The channel's tokens, encrypted (KMS on AWS, a local key file locally). Never returned or logged.
   * Channels connected through the API hold a sealed `TokenSet` (JSON); channels pasted in by the
   * admin CLI before issue 11 hold a bare access token (see core/channels/tokens.ts).
   */
  tokenCiphertext: string;
  /** Bumped by every token change; refreshes are conditional on it (one refresh at a time per channel). */
  tokenVersion?: number;
  /** When the access token expires (ISO 8601, plaintext so refresh decisions need no decryption); null: never or unknown. */
  tokenExpiresAt?: string | null;
  /** When the tokens were issued (the proactive sweep extends long-lived tokens past a given age). */
  tokenIssuedAt?: string | null;
  /** When the proactive refresh sweep should extend this channel's tokens; absent: it never needs to. */
  refreshDueAt?: string | null;
  /** The scopes the network granted; absent for channels connected by the admin CLI. */
  scopes?: string[];
  /** What the granted scopes allow (from the network's `capabilities(scopes)`); absent: everything the network has. */
  capabilities?: { publish: boolean; manage: boolean; threads: boolean; metrics: boolean };
  /** The account's own API host (a Bluesky account's PDS); null: the network's default. */
  serviceUrl?: string | null;
  /**
   * The shared grant whose tokens this channel uses (a board of a Pinterest account connected with
   * its siblings from one consent): the tokens live once in that `GrantRecord`, and this channel's
   * own `tokenCiphertext` and token fields are empty. Absent: the channel holds its own tokens
   * (every channel connected before shared grants, and networks whose grant yields one channel).
   */
  grantId?: string;
  /** `oauth2` or `app_password` when connected through the API; absent: pasted in by the admin CLI. */
  authKind?: 'oauth2' | 'app_password';
  /** The last time the channel was (re)connected or its tokens changed. */
  updatedAt?: string;
  createdAt: string;
}

/** New tokens for a channel, written only if nobody changed them since `expectedVersion` was read. */
export interface TokenUpdate {
  tokenCiphertext: string;
  tokenExpiresAt: string | null;
  tokenIssuedAt: string | null;
  refreshDueAt: string | null;
  updatedAt: string;
}

/** What the proactive sweep finds due: a channel holding its own tokens, or a shared grant. */
export interface TokenHolderDue {
  workspaceId: string;
  channelId?: string;
  grantId?: string;
}

/** A connection through the API: a new channel, or new tokens for the workspace's channel of the same remote account. */
export type ChannelConnectResult = { created: boolean; channel: ChannelRecord };

/** The workspace's connected channels: connection, their own tokens (refreshed one at a time), disconnection. */
export interface ChannelStore {
  /** Saves the channel and counts it on the account in one transaction; fails with `quota_exceeded` at the plan limit. */
  connectChannel(channel: ChannelRecord, channelLimit: number | null): Promise<void>;
  getChannel(workspaceId: string, channelId: string): Promise<ChannelRecord | null>;
  /**
   * A publish job's read: several channels of a workspace by id (a channel that does not exist is
   * absent) and, in the same request, the count of
   * the workspace's webhook endpoints (null: never counted), which decides whether the job's
   * writes keep their events (see `OutboxGate`).
   */
  getChannelsForJob(
    workspaceId: string,
    channelIds: string[],
  ): Promise<{ channels: Map<string, ChannelRecord>; endpoints: number | null }>;
  listChannels(workspaceId: string): Promise<ChannelRecord[]>;
  /**
   * Marks the channel as needing reconnection (its token was refused); `changed` if it was
   * connected until now. With `event`, the event enters the outbox in the same write (only when it
   * changed), by the outbox's rule: `kept` holds it unless the workspace has no webhook endpoint
   * (or it is a sandbox event), and only a kept event is handed to the event queue.
   */
  markNeedsReconnect(
    workspaceId: string,
    channelId: string,
    event?: OutboxEvent,
  ): Promise<{ changed: boolean; kept: OutboxEvent[] }>;
  /**
   * Connects a remote account through the API: the workspace's channel of the same platform and
   * remote account gets the new tokens (and is connected again); otherwise `build(channelId)` is
   * saved and counted on the account (`quota_exceeded` at the plan limit). `build` gets the id the
   * channel will have, because its tokens are sealed for that id.
   */
  upsertChannel(
    base: Omit<ChannelRecord, 'channelId' | 'tokenCiphertext'>,
    seal: (channelId: string) => Promise<string>,
    channelLimit: number | null,
  ): Promise<ChannelConnectResult>;
  /** Writes refreshed tokens if the channel's token version is still `expectedVersion`; false when another refresh won. */
  replaceTokens(
    workspaceId: string,
    channelId: string,
    expectedVersion: number,
    update: TokenUpdate,
  ): Promise<boolean>;
  /**
   * Holds the channel's refresh for `owner` until `until` if its token version is still
   * `expectedVersion` and nobody else holds it; false otherwise (the caller waits and re-reads).
   */
  holdRefresh(
    workspaceId: string,
    channelId: string,
    expectedVersion: number,
    owner: string,
    now: string,
    until: string,
  ): Promise<boolean>;
  /** Lets go of a refresh hold (the refresh failed without changing the tokens). */
  releaseRefresh(workspaceId: string, channelId: string, owner: string): Promise<void>;
  /**
   * Removes the channel, its remote-account guard and its place in the account's channel count;
   * false if it was gone. A channel on a shared grant leaves the grant in the same write, and the
   * grant goes with its last channel.
   */
  disconnectChannel(channel: ChannelRecord): Promise<boolean>;
  /** Channels holding their own tokens, and shared grants (any workspace), whose proactive refresh is due at `now`, oldest first. */
  channelsDueForRefresh(now: string, limit: number): Promise<TokenHolderDue[]>;
}
