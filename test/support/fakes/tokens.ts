import type { CallContext } from '../../../functions/core/channels/token-service.ts';
import type { EngineTokens } from '../../../functions/core/publishing/deps.ts';
import type { ChannelRecord } from '../../../functions/ports/channels.ts';
import { type NetworkCredentials, NetworkError } from '../../../functions/ports/network-client.ts';

/** Live channels' access tokens: `token-<n>`, a new one after each refresh. */
export class FakeTokenService implements EngineTokens {
  /** Refreshes made, by channel. */
  readonly refreshes = new Map<string, number>();
  /** When set, `credentials` fails with it (a token that cannot be read or refreshed). */
  credentialsError: Error | null = null;
  /** When true, the network refuses to refresh (the channel must be reconnected). */
  refuseRefresh = false;
  /** Each call's channel and the post it says it is for (what the real service logs), in order. */
  readonly calls: { call: 'credentials' | 'afterExpired'; channelId: string; postId: string | undefined }[] =
    [];

  async credentials(channel: ChannelRecord, context: CallContext = {}): Promise<NetworkCredentials> {
    this.calls.push({ call: 'credentials', channelId: channel.channelId, postId: context.postId });
    if (this.credentialsError) throw this.credentialsError;
    return this.current(channel);
  }

  async afterExpired(
    channel: ChannelRecord,
    _used?: NetworkCredentials,
    context: CallContext = {},
  ): Promise<NetworkCredentials> {
    this.calls.push({ call: 'afterExpired', channelId: channel.channelId, postId: context.postId });
    if (this.refuseRefresh) {
      throw new NetworkError(
        'reconnect',
        'The network refused to refresh the access token; reconnect the channel.',
      );
    }
    this.refreshes.set(channel.channelId, (this.refreshes.get(channel.channelId) ?? 0) + 1);
    return this.current(channel);
  }

  private current(channel: ChannelRecord): NetworkCredentials {
    return {
      accessToken: `token-${this.refreshes.get(channel.channelId) ?? 0}`,
      remoteAccountId: channel.remoteAccountId,
    };
  }
}

/** The network's answer to a call made with an expired token. */
export const tokenExpired = () =>
  new NetworkError('reconnect', 'The access token expired', { tokenExpired: true });
