import type { PublishingDeps, PublishingSettings } from '../../../functions/core/publishing/deps.ts';
import { PublishingEngine } from '../../../functions/core/publishing/job.ts';
import type { PlatformId } from '../../../functions/domain/platforms/types.ts';
import type { PostChannel, PostRecord } from '../../../functions/domain/post.ts';
import type { ChannelRecord } from '../../../functions/ports/channels.ts';
import { FakeChannelStore } from './channels.ts';
import { FakeClaimStore } from './claims.ts';
import { FakeClock } from './clock.ts';
import { FakeMediaStore } from './media.ts';
import { ScriptedNetworkClient } from './network-client.ts';
import { FakePostStore } from './posts.ts';
import { FakeJobQueue } from './queue.ts';
import { FakeTagStore } from './tags.ts';
import { FakeTokenService } from './tokens.ts';

export const WORKSPACE = 'ws_1';
export const ACCOUNT = 'acc_1';

/** The publishing engine on in-memory fakes of every port it uses, and those fakes. */
export const engineOnFakes = (settings: Partial<PublishingSettings> = {}) => {
  const clock = new FakeClock();
  const channels = new FakeChannelStore();
  const tags = new FakeTagStore();
  const claims = new FakeClaimStore();
  const posts = new FakePostStore(channels, claims);
  const media = new FakeMediaStore();
  const queue = new FakeJobQueue();
  const tokens = new FakeTokenService();
  const networks = new Map<PlatformId, ScriptedNetworkClient>();
  const live: { postId: string; channelId: string }[] = [];
  /** The network of a platform (one per platform, made on first use). */
  const network = (
    platform: PlatformId,
    options: { consistencyWindowSeconds?: number; lookup?: boolean } = {},
  ) => {
    let client = networks.get(platform);
    if (!client) {
      client = new ScriptedNetworkClient({ platform, ...options });
      networks.set(platform, client);
    }
    return client;
  };
  const deps: PublishingDeps = {
    clock,
    posts,
    channels,
    tags,
    media,
    claims,
    queue: () => queue,
    networks: (platform) => network(platform),
    tokens: () => tokens,
    mediaUrl: async (record) => `https://files.example/${record.objectKey}`,
    // No in-flight grace unless a test sets one: a lookup's window is the network's alone.
    settings: {
      maxTransientAttempts: 3,
      leaseSeconds: 60,
      retryBaseSeconds: 2,
      inFlightGraceSeconds: 0,
      ...settings,
    },
    onChannelLive: async (post, channelId) => {
      live.push({ postId: post.postId, channelId });
    },
  };
  return {
    engine: new PublishingEngine(deps),
    deps,
    clock,
    channels,
    tags,
    claims,
    posts,
    media,
    queue,
    tokens,
    network,
    live,
  };
};
export type Fakes = ReturnType<typeof engineOnFakes>;

/** A connected channel of the workspace. */
export const channelRecord = (channelId: string, platform: PlatformId = 'x'): ChannelRecord => ({
  channelId,
  accountId: ACCOUNT,
  workspaceId: WORKSPACE,
  platform,
  name: `${platform} channel ${channelId}`,
  remoteAccountId: `${platform}-account`,
  connection: 'connected',
  threadsPermitted: true,
  tokenCiphertext: 'sealed',
  createdAt: '2026-05-01T00:00:00.000Z',
});

/** A post channel waiting to publish `texts` (one block each). */
export const postChannel = (channelId: string, platform: PlatformId, texts: string[]): PostChannel => ({
  channelId,
  platform,
  status: 'publishing',
  error: null,
  remoteUrl: null,
  title: null,
  postType: null,
  options: {},
  blocks: texts.map((content) => ({
    content,
    mediaIds: [],
    mediaAltText: {},
    remoteId: null,
    remoteUrl: null,
  })),
});

/** A live post in its first round, publishing `channels`. */
export const publishingPost = (channels: PostChannel[], fields: Partial<PostRecord> = {}): PostRecord => ({
  postId: 'post_1',
  accountId: ACCOUNT,
  workspaceId: WORKSPACE,
  mode: 'live',
  status: 'publishing',
  scheduledAt: null,
  publishedAt: null,
  tagIds: [],
  channels,
  createdAt: '2026-06-01T11:00:00.000Z',
  updatedAt: '2026-06-01T11:00:00.000Z',
  version: 1,
  round: 1,
  ...fields,
});

/**
 * Stores the post and its channels' records; returns the engine's first job for it (naming the
 * channels, as the publish use case's job does).
 */
export const seed = (fakes: Fakes, post: PostRecord) => {
  fakes.posts.put(post);
  for (const channel of post.channels)
    fakes.channels.addChannel(channelRecord(channel.channelId, channel.platform));
  return {
    postId: post.postId,
    kind: 'run' as const,
    round: post.round ?? 1,
    reads: { workspaceId: post.workspaceId, channelIds: post.channels.map((c) => c.channelId) },
  };
};
