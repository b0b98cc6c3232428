import type { PlanName } from '../core/usage/plans.ts';
import type { PlatformId } from '../platforms/types.ts';

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

export type KeyMode = 'live' | 'test';
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

/** Whether a channel can post: `needs_reconnect` after the network refused its token. */
export type ChannelConnection = 'connected' | 'needs_reconnect';
/** Whether the account may post threads (spec 2.4 `continuationStatus`). */
export type ContinuationStatus = 'available' | 'unsupported' | 'missing_permission' | 'needs_reconnect';
/** Whether a live post can be edited or removed remotely (spec 2.4 `manageStatus`). */
export type ManageStatus = 'available' | 'unsupported' | 'needs_reconnect';
/** Whether the channel reports metrics (spec 2.4 `metricsStatus`). */
export type MetricsStatus = 'available' | 'unsupported' | 'needs_reconnect';

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
  /** The access token, encrypted (KMS on AWS, a local key file locally). Never returned or logged. */
  tokenCiphertext: string;
  createdAt: string;
}

export interface Tag {
  tagId: string;
  workspaceId: string;
  name: string;
  color: string | null;
  createdAt: string;
}

/** Accounts, workspaces, keys, channels and tags. */
export interface AccountStore {
  createAccount(account: Account): Promise<void>;
  getAccount(accountId: string): Promise<Account | null>;
  setPlan(accountId: string, plan: PlanName): Promise<void>;
  createWorkspace(workspace: Workspace): Promise<void>;
  getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | null>;
  listWorkspaces(accountId: string): Promise<Workspace[]>;
  createApiKey(key: ApiKeyRecord): Promise<void>;
  findApiKey(secretHash: string): Promise<ApiKeyRecord | null>;
  /** Saves the channel and counts it on the account in one transaction; fails with `quota_exceeded` at the plan limit. */
  connectChannel(channel: ChannelRecord, channelLimit: number | null): Promise<void>;
  getChannel(workspaceId: string, channelId: string): Promise<ChannelRecord | null>;
  listChannels(workspaceId: string): Promise<ChannelRecord[]>;
  /** Marks the channel as needing reconnection (its token was refused); true if it was connected until now. */
  markNeedsReconnect(workspaceId: string, channelId: string): Promise<boolean>;
  /** Creates a tag; fails with `already_exists` when the workspace has one of the same name. */
  createTag(tag: Tag): Promise<void>;
  listTags(workspaceId: string): Promise<Tag[]>;
}
