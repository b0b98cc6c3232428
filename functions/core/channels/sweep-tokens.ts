import type { ChannelRecord, ChannelStore, TokenHolderDue } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { GrantStore } from '../../ports/grants.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { logger } from '../../shared/powertools.ts';
import type { TokenService } from './token-service.ts';

/** Channels refreshed per sweep at most; the rest wait for the next sweep (they are not yet expiring). */
const BATCH = 40;
/** Refreshes running at once (different channels: each channel's own refresh is serialised by the token service). */
const PARALLEL = 10;

/**
 * The channel a due holder is refreshed through: the channel itself, or one connected channel of
 * a shared grant (the token service refreshes the grant once for all of them).
 */
const channelFor = async (
  deps: { channels: ChannelStore; grants: GrantStore },
  due: TokenHolderDue,
): Promise<ChannelRecord | null> => {
  if (due.channelId) return deps.channels.getChannel(due.workspaceId, due.channelId);
  if (!due.grantId) return null;
  const grant = await deps.grants.getGrant(due.workspaceId, due.grantId);
  if (grant?.connection !== 'connected') return null;
  for (const id of grant.channelIds) {
    const channel = await deps.channels.getChannel(due.workspaceId, id);
    if (channel?.connection === 'connected' && channel.grantId === grant.grantId) return channel;
  }
  return null;
};

/**
 * Extends long-lived tokens before they lapse (Instagram and Threads once at least 24 h old,
 * Pinterest, Facebook user tokens: each network's `policy.proactiveAfterSeconds`), of channels and
 * of shared grants (once for all their channels). Each goes through the token service, so a sweep
 * never races a publish refreshing the same tokens; a refused refresh makes the channel
 * needs_reconnect (with its one event) as anywhere else.
 */
export const sweepTokens = async (deps: {
  clock: Clock;
  channels: ChannelStore;
  grants: GrantStore;
  tokens: () => TokenService;
}): Promise<{ refreshed: number; failed: number }> => {
  const due = await deps.channels.channelsDueForRefresh(deps.clock.now().toISOString(), BATCH);
  let refreshed = 0;
  let failed = 0;
  const refreshOne = async (holder: TokenHolderDue) => {
    const channel = await channelFor(deps, holder);
    if (channel?.connection !== 'connected') return;
    const { channelId } = channel;
    try {
      await deps.tokens().refreshNow(channel);
      refreshed++;
    } catch (error) {
      failed++;
      logger.warn('Proactive token refresh failed', {
        channelId,
        platform: channel.platform,
        kind: error instanceof NetworkError ? error.kind : 'unexpected',
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  // A few at a time: the sweep runs in the publish worker, within its Lambda timeout (60 s) even
  // when every network call takes its full timeout. What is left is due at the next sweep.
  for (let i = 0; i < due.length; i += PARALLEL) {
    await Promise.all(due.slice(i, i + PARALLEL).map(refreshOne));
  }
  return { refreshed, failed };
};
