import { facebookOAuthSimulator } from '../facebook/oauth-simulator.ts';
import { instagramOAuthSimulator } from '../instagram/oauth-simulator.ts';
import { pinterestOAuthSimulator } from '../pinterest/oauth-simulator.ts';
import { redditOAuthSimulator } from '../reddit/oauth-simulator.ts';
import { threadsOAuthSimulator } from '../threads/oauth-simulator.ts';
import { tiktokOAuthSimulator } from '../tiktok/oauth-simulator.ts';
import type { PlatformId } from '../types.ts';
import { youtubeOAuthSimulator } from '../youtube/oauth-simulator.ts';
import type { SimOAuthMount } from './framework.ts';

/**
 * The OAuth endpoints of the networks the generic simulator stands in for (X, Bluesky and
 * LinkedIn mount theirs in their own simulators). linkedin_page has its own LinkedIn simulator.
 */
export const oauthSimulatorFor = (platform: PlatformId): SimOAuthMount | null => {
  switch (platform) {
    case 'facebook':
      return facebookOAuthSimulator();
    case 'instagram':
      return instagramOAuthSimulator();
    case 'threads':
      return threadsOAuthSimulator();
    case 'pinterest':
      return pinterestOAuthSimulator();
    case 'reddit':
      return redditOAuthSimulator();
    case 'tiktok':
      return tiktokOAuthSimulator();
    case 'youtube':
      return youtubeOAuthSimulator();
    default:
      return null;
  }
};
