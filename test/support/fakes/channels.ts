import type { EngineChannels } from '../../../functions/core/publishing/deps.ts';
import type { ChannelRecord } from '../../../functions/ports/channels.ts';
import type { OutboxEvent } from '../../../functions/ports/publishing.ts';

/** Channels and webhook endpoint counts of workspaces, in memory. */
export class FakeChannelStore implements EngineChannels {
  private readonly channels = new Map<string, ChannelRecord>();
  /** Webhook endpoints per workspace; absent: never counted (null). */
  readonly endpoints = new Map<string, number>();
  /** Reads of the channels of a job (to count requests). */
  jobReads = 0;
  /** When set, `getChannelsForJob` fails with it. */
  failJobReads: Error | null = null;

  addChannel(channel: ChannelRecord): void {
    this.channels.set(`${channel.workspaceId}#${channel.channelId}`, structuredClone(channel));
  }

  endpointCount(workspaceId: string): number | null {
    return this.endpoints.get(workspaceId) ?? null;
  }

  async getChannel(workspaceId: string, channelId: string): Promise<ChannelRecord | null> {
    const channel = this.channels.get(`${workspaceId}#${channelId}`);
    return channel ? structuredClone(channel) : null;
  }

  async getChannelsForJob(
    workspaceId: string,
    channelIds: string[],
  ): Promise<{ channels: Map<string, ChannelRecord>; endpoints: number | null }> {
    this.jobReads++;
    if (this.failJobReads) throw this.failJobReads;
    const channels = new Map<string, ChannelRecord>();
    for (const id of channelIds) {
      const channel = await this.getChannel(workspaceId, id);
      if (channel) channels.set(id, channel);
    }
    return { channels, endpoints: this.endpointCount(workspaceId) };
  }

  async markNeedsReconnect(
    workspaceId: string,
    channelId: string,
    _event?: OutboxEvent,
  ): Promise<{ changed: boolean; kept: OutboxEvent[] }> {
    const channel = this.channels.get(`${workspaceId}#${channelId}`);
    if (!channel || channel.connection === 'needs_reconnect') return { changed: false, kept: [] };
    channel.connection = 'needs_reconnect';
    return { changed: true, kept: [] };
  }
}
