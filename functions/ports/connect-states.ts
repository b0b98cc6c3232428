import type { PlatformId } from '../platforms/types.ts';
import type { NetworkTarget } from './network-auth.ts';

/**
 * A connect flow between POST /channels/connect and its callback (and, on networks where an
 * account owns several targets, the target choice). Found by the SHA-256 of its `state`.
 * - `pending`: waiting for the network's redirect;
 * - `exchanging`: the callback took it (single use: a replay finds it taken);
 * - `targets`: the grant is kept (sealed) until the client picks the targets;
 * - `done`: finished (its channel ids are kept for a replayed POST .../targets to be refused clearly);
 * - `failed`: the network or the user refused.
 */
export type ConnectStatus = 'pending' | 'exchanging' | 'targets' | 'done' | 'failed';

export interface ConnectState {
  stateHash: string;
  accountId: string;
  workspaceId: string;
  platform: PlatformId;
  redirectUrl: string;
  /** PKCE verifier (networks that use PKCE), else null. */
  codeVerifier: string | null;
  status: ConnectStatus;
  createdAt: string;
  /** The state is refused after this (ISO 8601); the item's TTL removes it later. */
  expiresAt: string;
  /** `targets`: the account's grant (a sealed TokenSet) and what it may post to. */
  grantCiphertext?: string;
  targets?: NetworkTarget[];
  /** `targets`: the account behind the grant. */
  remoteAccountId?: string;
  channelIds?: string[];
}

export interface ConnectStateStore {
  create(state: ConnectState): Promise<void>;
  get(stateHash: string): Promise<ConnectState | null>;
  /** Moves the state from `from` to `to` (with `extra` fields) if it is still `from`; false when another request moved it first. */
  transition(
    stateHash: string,
    from: ConnectStatus,
    to: ConnectStatus,
    extra?: Partial<Pick<ConnectState, 'grantCiphertext' | 'targets' | 'remoteAccountId' | 'channelIds'>>,
  ): Promise<boolean>;
}
