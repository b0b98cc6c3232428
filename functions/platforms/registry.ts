import { getPlatform } from '../domain/platforms/catalog.ts';
import type { PlatformId } from '../domain/platforms/types.ts';
import type { KeyMode } from '../ports/api-keys.ts';
import type { NetworkClient } from '../ports/network-client.ts';
import type { OutboundPolicy } from '../ports/outbound.ts';
import { SandboxNetworkClient } from './sandbox/client.ts';

export interface NetworkConfig {
  /** Base URL per network (the local runtime's simulators); absent: the network's own address. */
  baseUrls: Record<string, string>;
  timeoutMs: number;
  /** X's timeline lag bound in seconds, replacing the client's default (tests shorten it). */
  xConsistencyWindowSeconds?: number;
  /** Reddit's listing lag bound in seconds, replacing the client's default (tests shorten it). */
  redditConsistencyWindowSeconds?: number;
  /** The guarded path's policy for hosts a client chose or a network named (a Bluesky PDS, Reddit's media socket); default: strict. */
  outbound?: OutboundPolicy;
}

/**
 * Builds a network's live client, importing its module on first use. Each `import()` is a chunk of
 * its own in the Lambda bundles (lib/bundling/options.ts splits them), so a function loads the
 * clients of the networks it actually calls, not all twelve.
 */
export const loadLiveClient = async (platform: PlatformId, config: NetworkConfig): Promise<NetworkClient> => {
  const baseUrl = config.baseUrls[platform];
  const common = { timeoutMs: config.timeoutMs, ...(baseUrl ? { baseUrl } : {}) };
  switch (platform) {
    case 'x': {
      const window = config.xConsistencyWindowSeconds;
      const { XClient } = await import('./x/client.ts');
      return new XClient({
        ...common,
        ...(window !== undefined ? { consistencyWindowSeconds: window } : {}),
      });
    }
    case 'bluesky': {
      const { BlueskyClient } = await import('./bluesky/client.ts');
      return new BlueskyClient({ ...common, ...(config.outbound ? { outbound: config.outbound } : {}) });
    }
    case 'linkedin':
    case 'linkedin_page': {
      const { createLinkedInClient } = await import('./linkedin/client.ts');
      return createLinkedInClient(platform, common);
    }
    case 'instagram': {
      const { InstagramClient } = await import('./instagram/client.ts');
      return new InstagramClient(common);
    }
    case 'tiktok': {
      const { TikTokClient } = await import('./tiktok/client.ts');
      return new TikTokClient(common);
    }
    case 'pinterest': {
      const { PinterestClient } = await import('./pinterest/client.ts');
      return new PinterestClient(common);
    }
    case 'facebook': {
      const { FacebookClient } = await import('./facebook/client.ts');
      return new FacebookClient(common);
    }
    case 'threads': {
      const { ThreadsClient } = await import('./threads/client.ts');
      return new ThreadsClient(common);
    }
    case 'reddit': {
      const window = config.redditConsistencyWindowSeconds;
      const { RedditClient } = await import('./reddit/client.ts');
      return new RedditClient({
        ...common,
        ...(window !== undefined ? { consistencyWindowSeconds: window } : {}),
        ...(config.outbound ? { outbound: config.outbound } : {}),
      });
    }
    case 'youtube': {
      const { YouTubeClient } = await import('./youtube/client.ts');
      return new YouTubeClient(common);
    }
    case 'vimeo': {
      const { VimeoClient } = await import('./vimeo/client.ts');
      return new VimeoClient(common);
    }
    default:
      // Every network has its own client: a platform id without one cannot compile.
      return platform satisfies never;
  }
};

/**
 * How long a network may take to show a block it accepted, by network, as its client sets it
 * (`consistencyWindowSeconds`), known without loading the client: the publishing engine reads it
 * synchronously. X's and Reddit's follow the configuration when it sets them. A test compares
 * every entry with the real client's.
 */
export const CONSISTENCY_WINDOW_SECONDS: Readonly<Record<PlatformId, number>> = {
  x: 30,
  linkedin: 0,
  linkedin_page: 0,
  instagram: 30,
  facebook: 0,
  threads: 30,
  tiktok: 0,
  youtube: 60,
  vimeo: 0,
  pinterest: 15,
  bluesky: 0,
  reddit: 300,
};

const consistencyWindow = (platform: PlatformId, config: NetworkConfig): number =>
  (platform === 'x' ? config.xConsistencyWindowSeconds : undefined) ??
  (platform === 'reddit' ? config.redditConsistencyWindowSeconds : undefined) ??
  CONSISTENCY_WINDOW_SECONDS[platform];

/**
 * A network's live client whose module loads at its first call. Every client publishes, edits,
 * deletes, looks up and reads metrics (a test checks it), so the stand-in offers the same methods;
 * a failed import is retried at the next call rather than remembered.
 */
const lazyClient = (platform: PlatformId, config: NetworkConfig): NetworkClient => {
  let loading: Promise<NetworkClient> | undefined;
  const real = (): Promise<NetworkClient> => {
    loading ??= loadLiveClient(platform, config).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  /** One of the real client's optional methods, bound to it; an error if the client has none. */
  const method = async <K extends OptionalMethod>(name: K): Promise<NonNullable<NetworkClient[K]>> => {
    const client = await real();
    const found = client[name];
    if (!found) throw new Error(`The ${platform} client has no ${name}`);
    return found.bind(client) as NonNullable<NetworkClient[K]>;
  };
  const client: NetworkClient = {
    platform,
    consistencyWindowSeconds: consistencyWindow(platform, config),
    publish: async (input) => (await real()).publish(input),
    edit: async (input) => (await real()).edit(input),
    delete: async (input) => (await real()).delete(input),
    lookup: async (input) => (await method('lookup'))(input),
    metrics: async (input) => (await method('metrics'))(input),
  };
  return getPlatform(platform)?.limits.commentsReadable
    ? {
        ...client,
        comments: async (input) => (await method('comments'))(input),
        findComment: async (input) => (await method('findComment'))(input),
        reply: async (input) => (await method('reply'))(input),
        lookupReply: async (input) => (await method('lookupReply'))(input),
        deleteReply: async (input) => (await method('deleteReply'))(input),
      }
    : client;
};

/** What a network whose comments can be read offers besides publishing. */
export const COMMENT_METHODS = ['comments', 'findComment', 'reply', 'lookupReply', 'deleteReply'] as const;
type OptionalMethod = 'lookup' | 'metrics' | (typeof COMMENT_METHODS)[number];

/** Picks the client per network and key mode: test keys always get the sandbox, which calls no network. */
export const networkClients = (config: NetworkConfig) => {
  const cache = new Map<string, NetworkClient>();
  return (platform: PlatformId, mode: KeyMode): NetworkClient => {
    const key = `${mode}:${platform}`;
    let client = cache.get(key);
    if (!client) {
      client = mode === 'test' ? new SandboxNetworkClient(platform) : lazyClient(platform, config);
      cache.set(key, client);
    }
    return client;
  };
};
