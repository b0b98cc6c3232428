import type { PlatformId } from '../domain/platforms/types.ts';
import type { ChannelConnection, TokenUpdate } from './channels.ts';

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

/** Shared grants (see GrantRecord): read, and refreshed one at a time like a channel's own tokens. */
export interface GrantStore {
  getGrant(workspaceId: string, grantId: string): Promise<GrantRecord | null>;
  /** As ChannelStore.holdRefresh, for the grant's tokens. */
  holdGrantRefresh(
    workspaceId: string,
    grantId: string,
    expectedVersion: number,
    owner: string,
    now: string,
    until: string,
  ): Promise<boolean>;
  /** As ChannelStore.replaceTokens: written only if the grant's version is still `expectedVersion` (and it is connected). */
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
