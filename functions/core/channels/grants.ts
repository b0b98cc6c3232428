import { createHash } from 'node:crypto';
import type { PlatformId } from '../../domain/platforms/types.ts';
import type { NetworkAuth } from '../../ports/network-auth.ts';

/**
 * Shared grants (ports/grants.ts GrantRecord): one consent that yields several channels with the
 * same tokens stores its tokens once, and the channels name it. Switched on where copies go stale:
 * a network whose targets post with the account's tokens and whose refresh tokens rotate (Pinterest
 * boards). The design holds for any such network (LinkedIn pages, YouTube channels), but their
 * refresh tokens do not rotate, so their per-channel copies stay valid and they keep them for now.
 * A network whose targets get tokens of their own (Facebook pages) keeps one copy per channel, as
 * does every network whose grant yields one channel.
 */

/** Whether the channels chosen from one of this network's grants share it. */
export const sharesGrant = (auth: Pick<NetworkAuth, 'hasTargets' | 'targetTokens' | 'policy'>): boolean =>
  auth.hasTargets && !auth.targetTokens && auth.policy.rotatesRefreshToken;

/**
 * The grant of one network account in one workspace: the same id for every connection of that
 * account, so a reconnect (with more or fewer of its boards) renews the grant all its boards share.
 */
export const grantIdFor = (workspaceId: string, platform: PlatformId, grantOwner: string): string =>
  `grt_${createHash('sha256').update(`${workspaceId}\n${platform}\n${grantOwner}`).digest('hex').slice(0, 32)}`;

/**
 * The encryption context a shared grant's tokens are sealed under. It starts with `ch_`: the
 * functions that open and seal channel tokens are granted the token key only for contexts `ch_*`
 * (shared/grants.ts CHANNEL_TOKEN_CONTEXT), and a shared grant is channel tokens held once. It
 * cannot be mistaken for a channel's own context (a channel id has no second underscore).
 */
export const sharedGrantSealId = (grantId: string): string => `ch_${grantId}`;
