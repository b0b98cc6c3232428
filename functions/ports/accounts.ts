import type { KeyMode } from '../domain/key-mode.ts';
import type { PlanName } from '../domain/plans.ts';
import type { PlatformId } from '../domain/platforms/types.ts';
import type { OutboxEvent } from './publishing.ts';

export interface Account {
  accountId: string;
  name: string;
  plan: PlanName;
  /** Connected channels across all workspaces (kept by the same transaction that connects one). */
  channelCount: number;
  /** Stored media bytes across all workspaces (kept by the media capability). */
  storageBytes?: number;
  createdAt: string;
}

export interface Workspace {
  workspaceId: string;
  accountId: string;
  name: string;
  createdAt: string;
}

export type { KeyMode };
export type KeyPermission = 'read' | 'write';

/** What the service keeps of an API key: never the secret, only its SHA-256. */
export interface ApiKeyRecord {
  keyId: string;
  secretHash: string;
  /** First characters of the secret (`sk_live_AbCd`), safe to show in lists and logs. */
  hint: string;
  accountId: string;
  workspaceId: string;
  mode: KeyMode;
  permission: KeyPermission;
  name: string;
  createdAt: string;
}

/** An API key's item as a read found it: the key, and its rate-limit window (null: never counted). */
export interface KeyWindowRead {
  key: ApiKeyRecord;
  window: number | null;
  count: number;
}

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

/**
 * One network grant that several channels were connected from, with the same tokens (the boards of
 * a Pinterest account; core/channels/grants.ts says which networks share):
 * its tokens are stored once, here, and each of those channels names it by `grantId`. A refresh
 * (conditional on `tokenVersion`) updates it once for all of them, so a rotating refresh token is
 * never left behind in a sibling's copy. Kept while one of `channelIds` uses it; the last one's
 * disconnection removes it.
 */
export interface GrantRecord {
  grantId: string;
  accountId: string;
  workspaceId: string;
  /** The platform whose auth refreshes it (the connection's: `linkedin_page` for LinkedIn pages). */
  platform: PlatformId;
  /** The network account that granted it (the owner of the boards, pages or channels). */
  remoteAccountId: string;
  /** `needs_reconnect` once the network refused its refresh (its channels are marked with it). */
  connection: ChannelConnection;
  /** The sealed `TokenSet`, encrypted under the context `sharedGrantSealId(grantId)` (core/channels/grants.ts). */
  tokenCiphertext: string;
  tokenVersion: number;
  tokenExpiresAt: string | null;
  tokenIssuedAt: string | null;
  refreshDueAt: string | null;
  serviceUrl?: string | null;
  /** The channels that use it (never empty: the last one's disconnection removes the grant). */
  channelIds: string[];
  updatedAt: string;
  createdAt: string;
}

/** A grant as a connection saves it: its record but for the tokens and channels, and how to seal its tokens. */
export interface GrantToSave {
  base: Omit<GrantRecord, 'tokenCiphertext' | 'tokenVersion' | 'channelIds'>;
  seal: () => Promise<string>;
}

/** What the proactive sweep finds due: a channel holding its own tokens, or a shared grant. */
export interface TokenHolderDue {
  workspaceId: string;
  channelId?: string;
  grantId?: string;
}

/** Shared grants (see GrantRecord): read, and refreshed one at a time like a channel's own tokens. */
export interface GrantStore {
  getGrant(workspaceId: string, grantId: string): Promise<GrantRecord | null>;
  /** As holdRefresh, for the grant's tokens. */
  holdGrantRefresh(
    workspaceId: string,
    grantId: string,
    expectedVersion: number,
    owner: string,
    now: string,
    until: string,
  ): Promise<boolean>;
  /** As replaceTokens: written only if the grant's version is still `expectedVersion` (and it is connected). */
  replaceGrantTokens(
    workspaceId: string,
    grantId: string,
    expectedVersion: number,
    update: TokenUpdate,
  ): Promise<boolean>;
  releaseGrantRefresh(workspaceId: string, grantId: string, owner: string): Promise<void>;
  /** Marks the grant refused (out of the sweep, its hold dropped); true if it was connected until now. */
  markGrantNeedsReconnect(workspaceId: string, grantId: string): Promise<boolean>;
}

/** A connection through the API: a new channel, or new tokens for the workspace's channel of the same remote account. */
export type ChannelConnectResult = { created: boolean; channel: ChannelRecord };

export interface Tag {
  tagId: string;
  workspaceId: string;
  name: string;
  color: string | null;
  createdAt: string;
}

/** An account and the channels and tags a post names, as one read finds them (absent ones are left out). */
export interface PostReferences {
  account: Account | null;
  channels: ChannelRecord[];
  tags: Tag[];
  /** The API key's item, when asked for by its hash (null: no such key). */
  key?: KeyWindowRead | null;
}

/** Accounts, workspaces, keys, channels (and the grants they share) and tags. */
export interface AccountStore extends GrantStore {
  createAccount(account: Account): Promise<void>;
  getAccount(accountId: string): Promise<Account | null>;
  setPlan(accountId: string, plan: PlanName): Promise<void>;
  createWorkspace(workspace: Workspace): Promise<void>;
  getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | null>;
  listWorkspaces(accountId: string): Promise<Workspace[]>;
  createApiKey(key: ApiKeyRecord): Promise<void>;
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
  /** Creates a tag; fails with `already_exists` when the workspace has one of the same name. */
  createTag(tag: Tag): Promise<void>;
  listTags(workspaceId: string): Promise<Tag[]>;
  /**
   * In one read, what a post save checks its body against: the account (when `accountId` is not
   * null) and those of the named channels and tags that exist in the workspace; with `keyHash`,
   * also the API key's item under that hash (see KeyCount).
   */
  getPostReferences(
    accountId: string | null,
    workspaceId: string,
    channelIds: readonly string[],
    tagIds: readonly string[],
    keyHash?: string | null,
  ): Promise<PostReferences>;
}
