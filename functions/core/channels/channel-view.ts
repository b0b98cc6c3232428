import { getPlatform } from '../../domain/platforms/catalog.ts';
import { metricsPermissionHint } from '../../domain/platforms/metrics-permissions.ts';
import type { ChannelRecord, ContinuationStatus, ManageStatus, MetricsStatus } from '../../ports/channels.ts';

/** A channel as GET /v1/channels shows it (spec 2.4, values documented in docs/channels.md). */
export interface ChannelView {
  id: string;
  platform: string;
  name: string;
  status: ChannelRecord['connection'];
  manageStatus: ManageStatus;
  continuationStatus: ContinuationStatus;
  metricsStatus: MetricsStatus;
  /** With `missing_permission` only: which permission the grant lacks and what to do about it. */
  metricsHint?: string;
  createdAt: string;
}

/** The statuses follow from the network's rules and the channel's connection. */
export const channelView = (channel: ChannelRecord): ChannelView => {
  const platform = getPlatform(channel.platform);
  if (!platform) throw new Error(`Channel ${channel.channelId} has unknown platform ${channel.platform}`);
  const reconnect = channel.connection === 'needs_reconnect';
  const { limits } = platform;
  const canManage = limits.remoteEdit !== null || limits.supportsRemoteDelete;
  // What the granted scopes allow (channels connected through the API); admin-connected: everything.
  const granted = channel.capabilities ?? { publish: true, manage: true, threads: true, metrics: true };
  const metricsStatus: MetricsStatus = !platform.supportsMetrics
    ? 'unsupported'
    : reconnect
      ? 'needs_reconnect'
      : granted.metrics
        ? 'available'
        : 'missing_permission';
  const metricsHint =
    metricsStatus === 'missing_permission'
      ? metricsPermissionHint(platform.id, platform.name, channel.scopes)
      : undefined;
  return {
    id: channel.channelId,
    platform: channel.platform,
    name: channel.name,
    status: channel.connection,
    manageStatus: reconnect
      ? 'needs_reconnect'
      : !canManage
        ? 'unsupported'
        : granted.manage
          ? 'available'
          : 'missing_permission',
    continuationStatus:
      limits.maxBlocks <= 1
        ? 'unsupported'
        : reconnect
          ? 'needs_reconnect'
          : channel.threadsPermitted && granted.threads
            ? 'available'
            : 'missing_permission',
    metricsStatus,
    ...(metricsHint ? { metricsHint } : {}),
    createdAt: channel.createdAt,
  };
};
