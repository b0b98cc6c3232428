import type { PlatformId } from '../types.ts';
<<<<<<< HEAD
import { vimeoOAuthSimulator } from '../vimeo/oauth-simulator.ts';
=======
import { youtubeOAuthSimulator } from '../youtube/oauth-simulator.ts';
>>>>>>> vimeo
import type { SimOAuthMount } from './framework.ts';

/**
 * The OAuth endpoints of the networks the generic simulator stands in for (the networks with a
 * real client mount theirs in their own simulators; linkedin_page has its own LinkedIn simulator).
 */
export const oauthSimulatorFor = (platform: PlatformId): SimOAuthMount | null => {
  switch (platform) {
<<<<<<< HEAD
    case 'vimeo':
      return vimeoOAuthSimulator();
=======
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
>>>>>>> vimeo
    default:
      return null;
  }
};
