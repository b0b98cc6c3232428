import type { PlatformId } from '../domain/platforms/types.ts';
import type { KeyMode } from './api-keys.ts';
import type { ChannelConnectResult, ChannelRecord } from './channels.ts';
import type { GrantToSave } from './grants.ts';
import type { NetworkTarget } from './network-auth.ts';

/**
 * A connect flow from POST /channels/connect to the channels it makes. Found by the SHA-256 of its
 * `state` (the callback has the state; the connect code and the connection id carry that hash).
 * - `pending`: waiting for the network's redirect;
 * - `exchanging`: the callback took it (single use: a replay finds it taken);
 * - `granted`: the grant is kept (sealed) until the key holder completes it with the connect code;
 * - `targets`: completed on a network whose account owns targets: the client picks them;
 * - `done`: finished (its channel ids are kept, so a replay is refused clearly);
 * - `failed`: the network or the user refused.
 */
export type ConnectStatus = 'pending' | 'exchanging' | 'granted' | 'targets' | 'done' | 'failed';

export interface ConnectState {
  stateHash: string;
  accountId: string;
  workspaceId: string;
  /** The mode of the key that started it (absent on states made before it was kept: live). */
  mode?: KeyMode;
  platform: PlatformId;
  redirectUrl: string;
  /** PKCE verifier (networks that use PKCE), else null. */
  codeVerifier: string | null;
  status: ConnectStatus;
  createdAt: string;
  /**
   * The current step is refused after this (ISO 8601): the callback within 10 minutes of the start,
   * the completion within 10 minutes of the callback, the target choice within 10 minutes of the
   * completion. The item's TTL removes it a day after the first.
   */
  expiresAt: string;
  /** From `granted`: the account's grant (a sealed TokenSet). */
  grantCiphertext?: string;
  /**
   * From `granted`, on networks without targets: the channel the grant becomes, but for its id and
   * tokens (the callback reads it from the network; the completion only stores it).
   */
  channel?: Omit<ChannelRecord, 'channelId' | 'tokenCiphertext'>;
  /** From `granted`: the SHA-256 of the connect code the callback handed to the redirectUrl. */
  connectCodeHash?: string;
  /** From `granted`, on networks whose accounts own targets: what the account may post to. */
  targets?: NetworkTarget[];
  /** From `granted`, on networks whose accounts own targets: the network account that granted them (the shared grant's owner). */
  grantAccountId?: string;
  channelIds?: string[];
}

/**
 * At most this many channels are saved by one connection (one transaction of DynamoDB: 100 items,
 * 2 a channel, besides the account's count, the connect state and the shared grant).
 */
export const MAX_CHANNELS_PER_CONNECTION = 48;

/** One channel a finished connection saves: its record but for the id, and how to seal its tokens for the id it gets. */
export interface ChannelToSave {
  base: Omit<ChannelRecord, 'channelId' | 'tokenCiphertext'>;
  seal: (channelId: string) => Promise<string>;
}

export interface ConnectStateStore {
  create(state: ConnectState): Promise<void>;
  get(stateHash: string): Promise<ConnectState | null>;
  /** Moves the state from `from` to `to` (with `extra` fields) if it is still `from`; false when another request moved it first. */
  transition(
    stateHash: string,
    from: ConnectStatus,
    to: ConnectStatus,
    extra?: Partial<
      Pick<
        ConnectState,
        | 'grantCiphertext'
        | 'channel'
        | 'connectCodeHash'
        | 'targets'
        | 'grantAccountId'
        | 'channelIds'
        | 'expiresAt'
      >
    >,
  ): Promise<boolean>;
  /**
   * Finishes the connection in one write, all or nothing: the state moves from `from` to `done`
   * (its grant dropped) and every channel is saved. A remote account the workspace already has a
   * channel of updates that channel (never counted again); the others are created and counted on
   * the account. Throws `quota_exceeded` when the new ones would take the account past
   * `channelLimit`, and `invalid_state` when the state is no longer `from`: then nothing is written.
   * With `grant`, the channels share it (they name its `grantId`): it is saved in the same write,
   * with the new tokens and the channels added, or created.
   */
  finish(
    stateHash: string,
    from: ConnectStatus,
    channels: ChannelToSave[],
    channelLimit: number | null,
    grant?: GrantToSave,
  ): Promise<ChannelConnectResult[]>;
}
