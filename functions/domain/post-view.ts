import type { BlockActivity } from './block-activity.ts';
import { getPlatform } from './platforms/catalog.ts';
import { type PostChannel, type PostRecord, WARNING_META_PREFIX } from './post.ts';

/**
 * Why a `publishing` channel is not moving right now, and until when (null when it is not waiting):
 * - `rate_limit`: the network's rate limit; `until` is the next try (the announced reset, or the
 *   next step of the growing wait when the network announced none).
 * - `retry`: a transient failure; `until` is the next try.
 * - `confirming`: the answer to a send was lost; Herald looks the block up before any resend,
 *   `until` is the next lookup.
 * - `processing`: a media upload or the network's processing is under way (`until` null: the
 *   network decides).
 */
export interface ChannelWaiting {
  reason: 'rate_limit' | 'retry' | 'confirming' | 'processing';
  since: string | null;
  until: string | null;
  message: string;
}

const later = (at: string | null | undefined, now: Date) => !!at && Date.parse(at) > now.getTime();

export const channelWaiting = (
  channel: PostChannel,
  now: Date,
  activity: readonly BlockActivity[] = [],
): ChannelWaiting | null => {
  if (channel.status !== 'publishing') return null;
  const network = getPlatform(channel.platform)?.name ?? channel.platform;
  if (later(channel.rateLimitedUntil, now)) {
    const until = channel.rateLimitedUntil as string;
    const unannounced = channel.rateLimitProbes !== undefined;
    return {
      reason: 'rate_limit',
      since: null,
      until,
      message: unannounced
        ? `${network} is rate-limiting this channel and announced no reset: Herald tries again at ${until} ` +
          `(waits grow 1, 2, 4, 8, then 15 minutes while the limit lasts)` +
          (channel.rateLimitResetBy
            ? `, and at the latest at the network's reset, ${channel.rateLimitResetBy}.`
            : '.')
        : `${network} is rate-limiting this channel until ${until}; Herald tries again then, without spending an attempt.`,
    };
  }
  if (later(channel.retryAt, now)) {
    return {
      reason: 'retry',
      since: null,
      until: channel.retryAt as string,
      message: `Try ${channel.attempts ?? 1} failed (${channel.retryReason ?? 'the network was unavailable'}); Herald tries again at ${channel.retryAt}.`,
    };
  }
  const open = activity.filter(
    (a) => a.channelId === channel.channelId && !channel.blocks[a.block]?.remoteId,
  );
  const label = (block: number) => (channel.blocks.length > 1 ? `block ${block + 1}` : 'the post');
  const checking = open.find((a) => a.state === 'checking');
  if (checking) {
    return {
      reason: 'confirming',
      since: checking.firstSentAt ?? null,
      until: checking.nextCheckAt ?? null,
      message:
        `The answer to ${label(checking.block)}'s send was lost; Herald looks it up on ${network} before any ` +
        `resend${checking.nextCheckAt ? ` (next lookup at ${checking.nextCheckAt})` : ''}.`,
    };
  }
  const processing = open.find((a) => a.inProgress && (a.state === 'sending' || a.state === 'not_sent'));
  if (processing) {
    return {
      reason: 'processing',
      since: processing.firstSentAt ?? null,
      until: null,
      message: `${network} is receiving or processing the media of ${label(processing.block)}; Herald follows it and publishes when the network is done.`,
    };
  }
  return null;
};

/**
 * The warnings about a channel's published blocks (kept in each block's `remoteMeta` as
 * `warning.<code>`: message), one per code, in block order. Empty when there are none.
 */
export const channelWarnings = (channel: PostChannel): { code: string; message: string }[] => {
  const warnings = new Map<string, string>();
  for (const block of channel.blocks) {
    for (const [key, message] of Object.entries(block.remoteMeta ?? {})) {
      const code = key.startsWith(WARNING_META_PREFIX) ? key.slice(WARNING_META_PREFIX.length) : '';
      if (code !== '' && !warnings.has(code)) warnings.set(code, message);
    }
  }
  return [...warnings].map(([code, message]) => ({ code, message }));
};

/**
 * A post as GET /v1/posts/{id} returns it: spec 2.2 plus `mode`, `createdAt`, `updatedAt`,
 * `tags`, and per channel `title`, `postType`, `options`, `warnings` (what the network did
 * otherwise than asked although the post is live, such as YouTube's `visibility_restricted`), per
 * block `mediaIds` and `mediaAltText`.
 * Webhook events carry this same shape.
 */
export const postView = (
  post: PostRecord,
  tagNames: ReadonlyMap<string, string>,
  /**
   * GET /posts/{id}: the time and the blocks' claims `waiting` is read at. Without it (lists,
   * webhook events), `waiting` is read from the post alone at its last write.
   */
  live?: { now: Date; activity: readonly BlockActivity[] },
) => ({
  id: post.postId,
  status: post.status,
  mode: post.mode,
  scheduledAt: post.scheduledAt,
  publishedAt: post.publishedAt,
  createdAt: post.createdAt,
  updatedAt: post.updatedAt,
  tags: post.tagIds.map((id) => ({ id, name: tagNames.get(id) ?? null })),
  channels: post.channels.map((channel) => ({
    channelId: channel.channelId,
    platform: channel.platform,
    status: channel.status,
    error: channel.error,
    remoteUrl: channel.remoteUrl,
    title: channel.title,
    postType: channel.postType,
    options: channel.options,
    waiting: channelWaiting(channel, live?.now ?? new Date(post.updatedAt), live?.activity),
    warnings: channelWarnings(channel),
    blocks: channel.blocks.map((block) => ({
      content: block.content,
      mediaIds: block.mediaIds,
      mediaAltText: block.mediaAltText,
      remoteUrl: block.remoteUrl,
    })),
  })),
});

export type PostView = ReturnType<typeof postView>;
