import { describe, expect, it } from 'vitest';
import { channelView } from '../../functions/core/channels/channel-view.ts';
import {
  METRICS_PERMISSIONS,
  metricsPermissionHint,
} from '../../functions/domain/platforms/metrics-permissions.ts';
import { PLATFORM_IDS, type PlatformId } from '../../functions/domain/platforms/types.ts';
import { networkAuths } from '../../functions/platforms/auth-registry.ts';
import type { ChannelRecord } from '../../functions/ports/channels.ts';

const auths = networkAuths({ baseUrls: {}, timeoutMs: 1000 });
const authOf = (platform: PlatformId) => {
  const auth = auths(platform);
  if (!auth) throw new Error(`${platform} has no auth`);
  return auth;
};

/** A channel connected through the API with `scopes` granted, as connect.ts records it. */
const connected = (platform: PlatformId, scopes: string[]): ChannelRecord => ({
  channelId: `ch_${platform}`,
  accountId: 'acc_1',
  workspaceId: 'ws_1',
  platform,
  name: `A ${platform} channel`,
  remoteAccountId: 'remote',
  connection: 'connected',
  threadsPermitted: true,
  tokenCiphertext: 'sealed',
  scopes,
  capabilities: authOf(platform).capabilities(scopes),
  authKind: 'oauth2',
  createdAt: '2026-11-29T00:00:00.000Z',
});

describe('metricsStatus missing_permission comes with a hint naming the permission', () => {
  it('a LinkedIn member channel: r_member_social, which Herald does not ask for, and what to do instead', () => {
    const view = channelView(connected('linkedin', authOf('linkedin').scopes));
    expect(view.metricsStatus).toBe('missing_permission');
    expect(view.metricsHint).toBe(
      "Reading post metrics on LinkedIn needs the permission r_member_social; this channel's grant lacks r_member_social. " +
        "LinkedIn grants r_member_social (a member's post statistics) only to apps it has approved for it, and the LinkedIn app " +
        'Herald connects members with (Sign In with LinkedIn, Share on LinkedIn) does not ask for it, so reconnecting does ' +
        'not help: publishing works, and a LinkedIn Page channel (linkedin_page) reports metrics.',
    );
    expect(authOf('linkedin').scopes).not.toContain('r_member_social');
  });

  it('a LinkedIn page whose grant lacks one scope: that scope, reconnect, or the app lacks the product', () => {
    const scopes = authOf('linkedin_page').scopes.filter((s) => s !== 'rw_organization_admin');
    const view = channelView(connected('linkedin_page', scopes));
    expect(view.metricsStatus).toBe('missing_permission');
    expect(view.metricsHint).toMatch(
      /^Reading post metrics on LinkedIn Page needs the permissions rw_organization_admin and r_organization_social; this channel's grant lacks rw_organization_admin\. Reconnect the channel .* Community Management API product/,
    );
  });

  it('a network that takes any one of several scopes names them as such', () => {
    const scopes = authOf('vimeo').scopes.filter((s) => s !== 'stats' && s !== 'private');
    expect(channelView(connected('vimeo', scopes)).metricsHint).toMatch(
      /needs the permissions one of stats, private; this channel's grant lacks one of stats, private\. Reconnect/,
    );
  });

  it('no hint when metrics are available, unsupported or the channel needs reconnecting', () => {
    const x = channelView(connected('x', authOf('x').scopes));
    expect(x.metricsStatus).toBe('available');
    expect(x).not.toHaveProperty('metricsHint');
    const reconnect = channelView({ ...connected('linkedin', []), connection: 'needs_reconnect' });
    expect(reconnect.metricsStatus).toBe('needs_reconnect');
    expect(reconnect).not.toHaveProperty('metricsHint');
    // Connected by the admin CLI: no scopes, every capability.
    const { scopes: _, capabilities: __, ...pasted } = connected('linkedin', []);
    expect(channelView(pasted)).not.toHaveProperty('metricsHint');
    // Granted scopes unknown: the ones needed are named.
    expect(metricsPermissionHint('reddit', 'Reddit', undefined)).toMatch(
      /^Reading post metrics on Reddit needs the permission read\. Reconnect/,
    );
  });

  it.each(PLATFORM_IDS.filter((p) => p !== 'bluesky'))(
    '%s: metricsStatus follows the table the hint is made from, and Herald asks for what it needs (LinkedIn members aside)',
    (platform) => {
      const auth = authOf(platform);
      const needed = METRICS_PERMISSIONS[platform];
      expect(needed, `${platform} has no metrics permission entry`).toBeDefined();
      expect(auth.capabilities(auth.scopes).metrics).toBe(platform !== 'linkedin');
      const all = [...new Set([...auth.scopes, ...(needed?.allOf ?? []), ...(needed?.anyOf ?? [])])];
      expect(auth.capabilities(all).metrics).toBe(true);
      for (const scope of [...(needed?.allOf ?? [])]) {
        const without = all.filter((s) => s !== scope);
        expect(auth.capabilities(without).metrics, `${platform} without ${scope}`).toBe(false);
        expect(metricsPermissionHint(platform, platform, without)).toContain(`lacks ${scope}`);
      }
      if (needed?.anyOf) {
        const none = all.filter((s) => !needed.anyOf?.includes(s));
        expect(auth.capabilities(none).metrics).toBe(false);
        for (const one of needed.anyOf) expect(auth.capabilities([...none, one]).metrics).toBe(true);
      }
    },
  );
});
