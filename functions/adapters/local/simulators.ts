import { startBlueskySimulator } from '../../platforms/bluesky/simulator.ts';
import { startGenericSimulator } from '../../platforms/generic/simulator.ts';
import { startLinkedInSimulator } from '../../platforms/linkedin/simulator.ts';
import { PLATFORM_IDS, type PlatformId } from '../../platforms/types.ts';
import { startVimeoSimulator } from '../../platforms/vimeo/simulator.ts';
import { startXSimulator } from '../../platforms/x/simulator.ts';

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
  setRateLimited(seconds: number): void;
  stop(): Promise<void>;
}

export interface NetworkSimulators {
  byPlatform: Map<PlatformId, RunningSimulator>;
  /** Base URL per network, for NETWORK_BASE_URLS. */
  baseUrls: Record<string, string>;
  stop(): Promise<void>;
}

const start = (platform: PlatformId): Promise<RunningSimulator> => {
  switch (platform) {
    case 'x':
      return startXSimulator();
    case 'bluesky':
      return startBlueskySimulator();
    case 'linkedin':
    case 'linkedin_page':
      return startLinkedInSimulator();
    case 'vimeo':
      return startVimeoSimulator();
    default:
      return startGenericSimulator({ platform });
  }
};

/** One local simulator per network, each on its own loopback port: where live keys' channels publish locally. */
export const startNetworkSimulators = async (): Promise<NetworkSimulators> => {
  const byPlatform = new Map<PlatformId, RunningSimulator>();
  try {
    for (const platform of PLATFORM_IDS) byPlatform.set(platform, await start(platform));
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
