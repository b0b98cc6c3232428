import { startBlueskySimulator } from '../../../simulators/bluesky/simulator.ts';
import { startFacebookSimulator } from '../../../simulators/facebook/simulator.ts';
import { simOAuthApp } from '../../../simulators/framework/oauth.ts';
import { startInstagramSimulator } from '../../../simulators/instagram/simulator.ts';
import { startLinkedInSimulator } from '../../../simulators/linkedin/simulator.ts';
import { startPinterestSimulator } from '../../../simulators/pinterest/simulator.ts';
import { startRedditSimulator } from '../../../simulators/reddit/simulator.ts';
import { startThreadsSimulator } from '../../../simulators/threads/simulator.ts';
import { startTikTokSimulator } from '../../../simulators/tiktok/simulator.ts';
import { startVimeoSimulator } from '../../../simulators/vimeo/simulator.ts';
import { startXSimulator } from '../../../simulators/x/simulator.ts';
import { startYouTubeSimulator } from '../../../simulators/youtube/simulator.ts';
import { PLATFORM_IDS, type PlatformId } from '../../domain/platforms/types.ts';

/** What the runtime and the tests need of a simulator. */
export interface RunningSimulator {
  url: string;
  records(): {
    kind: string;
    id: string;
    parentId?: string | null;
    rootId?: string | null;
    text: string | null;
  }[];
  reset(): void;
  setRateLimited(seconds: number, kind?: 'short' | 'daily'): void;
  stop(): Promise<void>;
}

export interface NetworkSimulators {
  byPlatform: Map<PlatformId, RunningSimulator>;
  /** Base URL per network, for NETWORK_BASE_URLS. */
  baseUrls: Record<string, string>;
  stop(): Promise<void>;
}

const start = (platform: PlatformId, redirectUris: readonly string[]): Promise<RunningSimulator> => {
  // The preset app of the network, registered with Herald's callback.
  const oauth = { app: simOAuthApp(platform === 'linkedin_page' ? 'linkedin' : platform, redirectUris) };
  switch (platform) {
    case 'x':
      return startXSimulator({ oauth });
    case 'bluesky':
      return startBlueskySimulator();
    case 'linkedin':
    case 'linkedin_page':
      return startLinkedInSimulator({ oauth });
    case 'instagram':
      return startInstagramSimulator({ oauth });
    case 'tiktok':
      return startTikTokSimulator({ oauth });
    case 'pinterest':
      return startPinterestSimulator({ oauth });
    case 'facebook':
      return startFacebookSimulator({ oauth });
    case 'threads':
      return startThreadsSimulator({ oauth });
    case 'reddit':
      return startRedditSimulator({ oauth });
    case 'youtube':
      return startYouTubeSimulator({ oauth });
    case 'vimeo':
      return startVimeoSimulator({ oauth });
  }
};

/**
 * One local simulator per network, each on its own loopback port: where live keys' channels
 * publish locally. Each OAuth network's preset app has `redirectUris` (Herald's callback) registered.
 */
export const startNetworkSimulators = async (options: {
  redirectUris: readonly string[];
}): Promise<NetworkSimulators> => {
  const byPlatform = new Map<PlatformId, RunningSimulator>();
  try {
    for (const platform of PLATFORM_IDS)
      byPlatform.set(platform, await start(platform, options.redirectUris));
  } catch (error) {
    await Promise.all([...byPlatform.values()].map((s) => s.stop()));
    throw error;
  }
  return {
    byPlatform,
    baseUrls: Object.fromEntries([...byPlatform].map(([platform, sim]) => [platform, sim.url])),
    stop: async () => {
      await Promise.all([...byPlatform.values()].map((s) => s.stop()));
    },
  };
};
