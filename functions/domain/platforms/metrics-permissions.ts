import type { PlatformId } from './types.ts';

/**
 * The permissions each network reads a post's metrics with: every scope of `allOf`, or any one of
 * `anyOf`. The networks' `capabilities(scopes)` decide `metricsStatus` from this table, and a
 * channel whose grant lacks them is told which (`metricsHint`) and what to do (`advice`).
 * Bluesky's app password grants everything, so it has no entry.
 */
export interface MetricsPermission {
  allOf?: string[];
  anyOf?: string[];
  /** What to do about it, after the missing scopes are named. */
  advice: string;
}

const RECONNECT =
  'Reconnect the channel (POST /v1/channels/connect) and approve every permission the consent screen asks for.';

export const METRICS_PERMISSIONS: Partial<Record<PlatformId, MetricsPermission>> = {
  x: { allOf: ['tweet.read', 'users.read'], advice: RECONNECT },
  linkedin: {
    allOf: ['r_member_social'],
    advice:
      "LinkedIn grants r_member_social (a member's post statistics) only to apps it has approved for it, " +
      'and the LinkedIn app Herald connects members with (Sign In with LinkedIn, Share on LinkedIn) does not ask for it, ' +
      'so reconnecting does not help: publishing works, and a LinkedIn Page channel (linkedin_page) reports metrics.',
  },
  linkedin_page: {
    allOf: ['rw_organization_admin', 'r_organization_social'],
    advice:
      `${RECONNECT} If LinkedIn's consent screen does not ask for them, the LinkedIn page app lacks ` +
      'the Community Management API product (its developer portal, Products tab).',
  },
  instagram: { allOf: ['instagram_business_manage_insights'], advice: RECONNECT },
  facebook: {
    allOf: ['read_insights', 'pages_read_engagement'],
    advice: `${RECONNECT} If Facebook does not ask for them, the app lacks them (App Review, advanced access).`,
  },
  threads: { allOf: ['threads_manage_insights'], advice: RECONNECT },
  tiktok: {
    allOf: ['video.list'],
    advice: `${RECONNECT} If TikTok does not ask for it, the app lacks the Display API product.`,
  },
  youtube: {
    anyOf: [
      'https://www.googleapis.com/auth/youtube.readonly',
      'https://www.googleapis.com/auth/youtube.force-ssl',
      'https://www.googleapis.com/auth/youtube',
    ],
    advice: RECONNECT,
  },
  vimeo: { anyOf: ['stats', 'private'], advice: RECONNECT },
  pinterest: { allOf: ['pins:read', 'user_accounts:read'], advice: RECONNECT },
  reddit: { allOf: ['read'], advice: RECONNECT },
};

/** Whether `granted` lets Herald read `platform`'s metrics (true for a network with no entry). */
export const grantsMetrics = (platform: PlatformId, granted: readonly string[]): boolean => {
  const needed = METRICS_PERMISSIONS[platform];
  if (!needed) return true;
  return (
    (needed.allOf ?? []).every((scope) => granted.includes(scope)) &&
    (!needed.anyOf || needed.anyOf.some((scope) => granted.includes(scope)))
  );
};

/** `a`, `a and b`, `a, b and c`. */
const listed = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * Why a channel with `granted` scopes has no metrics: the permissions `network` reads them with,
 * those its grant lacks, and what to do; undefined when nothing is missing. `granted` unknown (a
 * channel connected before its scopes were kept): the permissions needed, and what to do.
 */
export const metricsPermissionHint = (
  platform: PlatformId,
  network: string,
  granted: readonly string[] | undefined,
): string | undefined => {
  const needed = METRICS_PERMISSIONS[platform];
  if (!needed || (granted && grantsMetrics(platform, granted))) return undefined;
  const has = (scope: string) => granted?.includes(scope) ?? false;
  const anyOf = needed.anyOf ? [`one of ${needed.anyOf.join(', ')}`] : [];
  const plural = (needed.allOf?.length ?? 0) > 1 || needed.anyOf !== undefined;
  const needs = `Reading post metrics on ${network} needs the permission${plural ? 's' : ''} ${listed([...(needed.allOf ?? []), ...anyOf])}`;
  if (!granted) return `${needs}. ${needed.advice}`;
  const missing = [
    ...(needed.allOf ?? []).filter((scope) => !has(scope)),
    ...(needed.anyOf && !needed.anyOf.some(has) ? anyOf : []),
  ];
  return `${needs}; this channel's grant lacks ${listed(missing)}. ${needed.advice}`;
};
