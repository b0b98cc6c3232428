import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import type { ChannelRecord } from '../../functions/ports/channels.ts';

/** A connected channel of workspace `ws_1`, as the validator and the views read it. */
export const channelRecord = (
  channelId: string,
  platform: PlatformId,
  extra: Partial<ChannelRecord> = {},
): ChannelRecord => ({
  channelId,
  accountId: 'acct_1',
  workspaceId: 'ws_1',
  platform,
  name: channelId,
  remoteAccountId: `remote_${channelId}`,
  connection: 'connected',
  threadsPermitted: true,
  tokenCiphertext: 'cipher',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
