import type { KeyMode } from '../ports/accounts.ts';
import type { NetworkClient } from '../ports/network-client.ts';
import { BlueskyClient } from './bluesky/client.ts';
import { FacebookClient } from './facebook/client.ts';
import { InstagramClient } from './instagram/client.ts';
import { createLinkedInClient } from './linkedin/client.ts';
import { PinterestClient } from './pinterest/client.ts';
import { RedditClient } from './reddit/client.ts';
import { SandboxNetworkClient } from './sandbox/client.ts';
import { ThreadsClient } from './threads/client.ts';
import { TikTokClient } from './tiktok/client.ts';
import type { PlatformId } from './types.ts';
import { VimeoClient } from './vimeo/client.ts';
import { XClient } from './x/client.ts';
import { YouTubeClient } from './youtube/client.ts';

export interface NetworkConfig {
  /** Base URL per network (the local runtime's simulators); absent: the network's own address. */
  baseUrls: Record<string, string>;
  timeoutMs: number;
  /** X's timeline lag bound in seconds, replacing the client's default (tests shorten it). */
  xConsistencyWindowSeconds?: number;
  /** Reddit's listing lag bound in seconds, replacing the client's default (tests shorten it). */
  redditConsistencyWindowSeconds?: number;
}

const liveClient = (platform: PlatformId, config: NetworkConfig): NetworkClient => {
  const baseUrl = config.baseUrls[platform];
  const common = { timeoutMs: config.timeoutMs, ...(baseUrl ? { baseUrl } : {}) };
  switch (platform) {
    case 'x': {
      const window = config.xConsistencyWindowSeconds;
      return new XClient({
        ...common,
        ...(window !== undefined ? { consistencyWindowSeconds: window } : {}),
      });
    }
    case 'bluesky':
      return new BlueskyClient(common);
    case 'linkedin':
    case 'linkedin_page':
      return createLinkedInClient(platform, common);
    case 'instagram':
      return new InstagramClient(common);
    case 'tiktok':
      return new TikTokClient(common);
    case 'pinterest':
      return new PinterestClient(common);
    case 'facebook':
      return new FacebookClient(common);
    case 'threads':
      return new ThreadsClient(common);
    case 'reddit': {
      const window = config.redditConsistencyWindowSeconds;
      return new RedditClient({
        ...common,
        ...(window !== undefined ? { consistencyWindowSeconds: window } : {}),
      });
    }
    case 'youtube':
      return new YouTubeClient(common);
    case 'vimeo':
      return new VimeoClient(common);
    default:
      // Every network has its own client: a platform id without one cannot compile.
      return platform satisfies never;
  }
};

/** Picks the client per network and key mode: test keys always get the sandbox, which calls no network. */
export const networkClients = (config: NetworkConfig) => {
  const cache = new Map<string, NetworkClient>();
  return (platform: PlatformId, mode: KeyMode): NetworkClient => {
    const key = `${mode}:${platform}`;
    let client = cache.get(key);
    if (!client) {
      client = mode === 'test' ? new SandboxNetworkClient(platform) : liveClient(platform, config);
      cache.set(key, client);
    }
    return client;
  };
};
